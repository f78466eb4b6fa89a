// SPDX-License-Identifier: GPL-2.0
/*
 * The command line's shared vocabulary (lib/args/): times with units and a
 * bare number in the caller's unit, ranges, and perf's CPU lists; each
 * malformed form refused with a reason that names it.
 */
#include <errno.h>
#include <string.h>

#include <wult/args.h>
#include "wt.h"

static double t(const char *s, double bare, unsigned int flags)
{
	double ns = -1;

	WT_EQ(wult_time_parse(s, bare, flags, &ns, NULL, 0), 0);
	return ns;
}

static void bad_time(const char *s, unsigned int flags, const char *why)
{
	char err[128] = "";
	double ns = -1;

	WT_EQ(wult_time_parse(s, WULT_TIME_BARE_US, flags, &ns, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, why) != NULL, "'%s': got '%s', want '%s'", s, err, why);
	WT_CHECK(ns == -1, "'%s': the output was written", s);
}

int main(void)
{
	unsigned char set[8];
	double lo, hi;
	char err[128];

	WT_CHECK(t("100us", WULT_TIME_BARE_US, 0) == 100e3, "100us");
	WT_CHECK(t("100", WULT_TIME_BARE_US, 0) == 100e3, "bare us");
	WT_CHECK(t("100", 1e9, 0) == 100e9, "bare s");
	WT_CHECK(t("1.5ms", WULT_TIME_BARE_US, 0) == 1.5e6, "1.5ms");
	WT_CHECK(t("7ns", WULT_TIME_BARE_US, 0) == 7, "7ns");
	WT_CHECK(t("2s", WULT_TIME_BARE_US, 0) == 2e9, "2s");
	WT_CHECK(t("1e3ns", WULT_TIME_BARE_US, 0) == 1e3, "1e3ns");
	WT_CHECK(t("2m", 1e9, WULT_TIME_LONG) == 120e9, "2m");
	WT_CHECK(t("1h", 1e9, WULT_TIME_LONG) == 3600e9, "1h");
	WT_CHECK(t("0", WULT_TIME_BARE_US, WULT_TIME_ZERO) == 0, "0 allowed");
	bad_time("2m", 0, "unknown unit 'm'");
	bad_time("5parsecs", 0, "unknown unit 'parsecs'");
	bad_time("5 us", 0, "unknown unit ' us'");
	bad_time("", 0, "is not a time");
	bad_time("-5us", 0, "is not a time");
	bad_time("0x10", 0, "unknown unit 'x10'");
	bad_time("inf", 0, "is not a time");
	bad_time("0us", 0, "must not be 0");
	bad_time("1e400s", 0, "out of range");

	WT_EQ(wult_time_range_parse("100us,1ms", WULT_TIME_BARE_US, 0, &lo, &hi, NULL, 0), 0);
	WT_CHECK(lo == 100e3 && hi == 1e6, "range %g %g", lo, hi);
	WT_EQ(wult_time_range_parse("0,4000", WULT_TIME_BARE_US, WULT_TIME_ZERO, &lo, &hi,
				    NULL, 0), 0);
	WT_CHECK(lo == 0 && hi == 4e6, "bare range %g %g", lo, hi);
	WT_EQ(wult_time_range_parse("1ms,100us", WULT_TIME_BARE_US, 0, &lo, &hi, err,
				    sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "MIN is above MAX") != NULL, "got '%s'", err);
	WT_EQ(wult_time_range_parse("100us", WULT_TIME_BARE_US, 0, &lo, &hi, err,
				    sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "not a range MIN,MAX") != NULL, "got '%s'", err);
	WT_EQ(wult_time_range_parse("1us,2xs", WULT_TIME_BARE_US, 0, &lo, &hi, err,
				    sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "unknown unit 'xs'") != NULL, "got '%s'", err);

	WT_EQ(wult_cpulist_parse("0,2-3", set, 8, NULL, 0), 3);
	WT_CHECK(set[0] && !set[1] && set[2] && set[3] && !set[4], "0,2-3");
	WT_EQ(wult_cpulist_parse("7", set, 8, NULL, 0), 1);
	WT_CHECK(set[7] && !set[0], "7");
	WT_EQ(wult_cpulist_parse("1-2,2", set, 8, NULL, 0), 2);
	WT_EQ(wult_cpulist_parse("8", set, 8, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "below 8") != NULL, "got '%s'", err);
	WT_EQ(wult_cpulist_parse("", set, 8, err, sizeof(err)), -EINVAL);
	WT_EQ(wult_cpulist_parse("3-1", set, 8, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "at '3-1'") != NULL, "got '%s'", err);
	WT_EQ(wult_cpulist_parse("0,", set, 8, NULL, 0), -EINVAL);
	WT_EQ(wult_cpulist_parse("0 1", set, 8, NULL, 0), -EINVAL);
	WT_EQ(wult_cpulist_parse("-1", set, 8, NULL, 0), -EINVAL);
	WT_EQ(wult_cpulist_parse("a", set, 8, NULL, 0), -EINVAL);
	return wt_done();
}
