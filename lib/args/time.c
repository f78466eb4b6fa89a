// SPDX-License-Identifier: GPL-2.0
/*
 * Times with units on the command line: one table of units for the
 * options, the filters (lib/stats/filter.c) and the --fail-if values
 * (lib/stats/gate.c), so that "100us" means the same to every command.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/args.h>

#include "internal/err.h"

static const struct {
	const char *name;
	double ns;
	unsigned int flags;	/* WULT_TIME_LONG: only when the caller allows it */
} units[] = {
	{ "ns", 1, 0 },
	{ "us", 1e3, 0 },
	{ "ms", 1e6, 0 },
	{ "s", 1e9, 0 },
	{ "m", 60e9, WULT_TIME_LONG },
	{ "h", 3600e9, WULT_TIME_LONG },
};

double wult_time_unit(const char *u, size_t n, unsigned int flags)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((units[i].flags & flags) == units[i].flags &&
		    strlen(units[i].name) == n && !strncmp(u, units[i].name, n))
			return units[i].ns;
	return 0;
}

size_t wult_number_len(const char *p, int sign)
{
	size_t n = 0, digits = 0;

	if (sign && (p[n] == '+' || p[n] == '-'))
		n++;
	for (; p[n] >= '0' && p[n] <= '9'; n++)
		digits++;
	if (p[n] == '.')
		for (n++; p[n] >= '0' && p[n] <= '9'; n++)
			digits++;
	if (!digits)
		return 0;
	if ((p[n] == 'e' || p[n] == 'E') && ((p[n + 1] >= '0' && p[n + 1] <= '9') ||
	    ((p[n + 1] == '+' || p[n + 1] == '-') && p[n + 2] >= '0' && p[n + 2] <= '9')))
		for (n += 2; p[n] >= '0' && p[n] <= '9'; n++)
			;
	return n;
}

int wult_time_parse(const char *s, double bare_ns, unsigned int flags, double *ns,
		    char *err, size_t errlen)
{
	size_t n = wult_number_len(s, 0);
	char buf[64];
	double v, mult = bare_ns;

	if (!n || n >= sizeof(buf))
		return wult_err_set(err, errlen, -EINVAL, "'%s' is not a time (a number and "
				    "a unit, e.g. 100us)", s);
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtod(buf, NULL);
	if (s[n]) {
		mult = wult_time_unit(s + n, strlen(s + n), flags);
		if (!mult)
			return wult_err_set(err, errlen, -EINVAL, "unknown unit '%s' in '%s' (ns, "
					    "us, ms, s%s)", s + n, s,
					    flags & WULT_TIME_LONG ? ", m, h" : "");
	}
	v *= mult;
	if (!isfinite(v))
		return wult_err_set(err, errlen, -EINVAL, "'%s' is out of range", s);
	if (v == 0 && !(flags & WULT_TIME_ZERO))
		return wult_err_set(err, errlen, -EINVAL, "'%s': the time must not be 0", s);
	*ns = v;
	return 0;
}

int wult_time_range_parse(const char *s, double bare_ns, unsigned int flags, double *lo,
			  double *hi, char *err, size_t errlen)
{
	const char *comma = strchr(s, ',');
	char buf[64];
	int ret;

	if (!comma || (size_t)(comma - s) >= sizeof(buf))
		return wult_err_set(err, errlen, -EINVAL, "'%s' is not a range MIN,MAX "
				    "(e.g. 100us,1ms)", s);
	memcpy(buf, s, comma - s);
	buf[comma - s] = '\0';
	ret = wult_time_parse(buf, bare_ns, flags, lo, err, errlen);
	if (!ret)
		ret = wult_time_parse(comma + 1, bare_ns, flags, hi, err, errlen);
	if (ret)
		return ret;
	if (*lo > *hi)
		return wult_err_set(err, errlen, -EINVAL, "MIN is above MAX (want MIN <= MAX)");
	return 0;
}
