/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line's shared vocabulary, parsed once for every wult command:
 *
 *   times     a number and a unit: ns, us, ms, s (and, where a command
 *             allows, m and h); a bare number is in the caller's bare unit,
 *             microseconds everywhere a datapoint's time is given
 *   ranges    MIN,MAX of two times
 *   CPU lists perf's syntax: 0,2-3
 */
#ifndef WULT_ARGS_H
#define WULT_ARGS_H

#include <stddef.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

/* A bare number's unit, in ns: wult's times are microseconds. */
#define WULT_TIME_BARE_US	1e3

/* Flags of wult_time_parse(). */
#define WULT_TIME_LONG	0x1	/* also m (minutes) and h (hours) */
#define WULT_TIME_ZERO	0x2	/* 0 is a valid value */

/*
 * The nanoseconds of one unit named by @u's first @n bytes (ns, us, ms, s;
 * with WULT_TIME_LONG in @flags also m and h); 0 when it names none.
 */
double wult_time_unit(const char *u, size_t n, unsigned int flags);

/*
 * The length of the plain decimal at @p, digits[.digits][e[+-]digits]
 * after a sign where @sign allows one; no hex, inf or nan. 0 if none.
 */
size_t wult_number_len(const char *p, int sign);

/*
 * "100us", "1.5ms", "20" (a bare number is @bare_ns ns per unit) into
 * *@ns. A plain decimal (no sign, hex, inf or nan); a value of 0 only
 * with WULT_TIME_ZERO. Returns 0 or -EINVAL, @err saying why ("unknown
 * unit 'x'", "not a time").
 */
int wult_time_parse(const char *s, double bare_ns, unsigned int flags, double *ns,
		    char *err, size_t errlen);

/*
 * "MIN,MAX", each as wult_time_parse() takes it (a unit on MAX alone
 * does not carry over to MIN), MIN <= MAX. 0 or -EINVAL (@err says why).
 */
int wult_time_range_parse(const char *s, double bare_ns, unsigned int flags, double *lo,
			  double *hi, char *err, size_t errlen);

/*
 * A CPU list as perf takes it ("0,2-3", "1"; no blanks, ranges ascending)
 * into @set[0..@nr-1] (zeroed first; a listed CPU becomes 1). Returns the
 * number of CPUs listed, or -EINVAL when the list is malformed, empty or
 * names a CPU >= @nr (@err says which part).
 */
int wult_cpulist_parse(const char *s, unsigned char *set, unsigned int nr, char *err,
		       size_t errlen);

#pragma GCC visibility pop

#endif
