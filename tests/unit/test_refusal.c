// SPDX-License-Identifier: GPL-2.0
/*
 * wult.ko's refusal reasons (wult/refusal.h): which line of the refusals
 * file is an open's, and which are not (another thread's, another CPU's or
 * errno's, the same thread's earlier open), from the module's lines.
 */
#include <errno.h>
#include <string.h>

#include <wult/refusal.h>

#include "wt.h"

/* As wult.ko prints them, oldest first (a guest's, then made up). */
static const char lines[] =
	"seq=1 time_ns=4298699070 pid=232 cpu=1 errno=95 tdt: the local APIC timer is not in TSC-deadline mode on this system\n"
	"seq=2 time_ns=4402865246 pid=251 cpu=1 errno=22 ipi: CPU1: the launcher must be another CPU than the measured one\n"
	"seq=3 time_ns=4484066024 pid=251 cpu=1 errno=22 unknown kind 99\n"
	"seq=4 time_ns=4484217243 pid=251 cpu=2 errno=22 ldist_min 5 us is above ldist_max 2 us\n"
	"seq=5 time_ns=4484318848 pid=300 cpu=1 errno=95 datapoints are taken in the kernel, in idle, on the host: an event cannot exclude any of these\n";

static int find(int tid, int cpu, int err, uint64_t mark, char *why, size_t len)
{
	return wult_refusal_find(lines, strlen(lines), tid, cpu, err, mark, why, len);
}

static void test_own(void)
{
	char why[128];

	WT_EQ(find(232, 1, EOPNOTSUPP, 4298699000, why, sizeof(why)), 1);
	WT_CHECK(!strcmp(why, "tdt: the local APIC timer is not in TSC-deadline mode on this system"),
		 "%s", why);
	/* The newest of a thread's lines with that CPU and errno. */
	WT_EQ(find(251, 1, EINVAL, 4400000000, why, sizeof(why)), 1);
	WT_CHECK(!strcmp(why, "unknown kind 99"), "%s", why);
	/* Any CPU: the newest of the thread's with that errno. */
	WT_EQ(find(251, -1, EINVAL, 4400000000, why, sizeof(why)), 1);
	WT_CHECK(!strcmp(why, "ldist_min 5 us is above ldist_max 2 us"), "%s", why);
	WT_EQ(find(251, 2, EINVAL, 0, why, sizeof(why)), 1);
	WT_CHECK(!strcmp(why, "ldist_min 5 us is above ldist_max 2 us"), "%s", why);
	/* Truncated to the caller's buffer. */
	WT_EQ(find(251, 2, EINVAL, 0, why, 6), 1);
	WT_CHECK(!strcmp(why, "ldist"), "%s", why);
	WT_EQ(find(251, 2, EINVAL, 0, NULL, 0), 1);
	/* The last line need not end with a newline. */
	WT_EQ(wult_refusal_find(lines, strlen(lines) - 1, 300, 1, EOPNOTSUPP, 0, why,
				sizeof(why)), 1);
	WT_CHECK(!strcmp(why, "datapoints are taken in the kernel, in idle, on the host: an event cannot exclude any of these"),
		 "%s", why);
}

static void test_not_own(void)
{
	char why[128] = "untouched";

	/* The same thread's earlier refusal: the open began after it. */
	WT_EQ(find(232, 1, EOPNOTSUPP, 4298699071, why, sizeof(why)), 0);
	/* Another thread's refusal, the same CPU and errno. */
	WT_EQ(find(233, 1, EOPNOTSUPP, 0, why, sizeof(why)), 0);
	/* Another errno (perf's own EINVAL after wult.ko's EOPNOTSUPP). */
	WT_EQ(find(232, 1, EINVAL, 0, why, sizeof(why)), 0);
	/* Another CPU. */
	WT_EQ(find(232, 2, EOPNOTSUPP, 0, why, sizeof(why)), 0);
	WT_EQ(find(251, 1, EINVAL, 4484066025, why, sizeof(why)), 0);
	WT_CHECK(!strcmp(why, "untouched"), "%s", why);
	WT_EQ(wult_refusal_find("", 0, 232, 1, EOPNOTSUPP, 0, why, sizeof(why)), 0);
}

static void test_malformed(void)
{
	static const char bad[] =
		"seq=1 time_ns=5 pid=7 cpu=1\n"
		"seq=x time_ns=5 pid=7 cpu=1 errno=95 a\n"
		"garbage\n"
		"\n"
		"seq=2 time_ns=5 pid=7 cpu=1 errno=95 ok\n"
		"seq=3 time_ns=6 pid=7 cpu=1 errno=95";
	char why[64] = "";

	/* Broken lines skipped; a line of fields and no reason has "". */
	WT_EQ(wult_refusal_find(bad, strlen(bad), 7, 1, EOPNOTSUPP, 0, why, sizeof(why)), 1);
	WT_CHECK(!strcmp(why, ""), "'%s'", why);
	WT_EQ(wult_refusal_find(bad, strlen(bad) - 36, 7, 1, EOPNOTSUPP, 0, why,
				sizeof(why)), 1);
	WT_CHECK(!strcmp(why, "ok"), "'%s'", why);
}

static void test_mark(void)
{
	uint64_t a = wult_refusal_mark(), b = wult_refusal_mark();

	WT_CHECK(a > 0 && b >= a, "%llu %llu", (unsigned long long)a, (unsigned long long)b);
}

int main(void)
{
	test_own();
	test_not_own();
	test_malformed();
	test_mark();
	return wt_done();
}
