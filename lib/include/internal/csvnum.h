/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: CSV number text, both ways, without stdio on the
 * common path. Each function gives what the printf/strtod call it stands
 * for would give (tests/unit/test_csvnum.c compares them), and hands the
 * rare case it cannot do exactly to that call.
 */
#ifndef WULT_INTERNAL_CSVNUM_H
#define WULT_INTERNAL_CSVNUM_H

#include <stddef.h>

#include <wult/csv.h>

/* Room a formatted number needs (printf("%.0f", DBL_MAX) is 309 digits):
 * the public wult_csv_format_*()'s, which call these. */
#define WULT_CSVNUM_MAX	WULT_CSV_NUM_MAX

/*
 * printf("%.*f", @dec, @x) into @buf (WULT_CSVNUM_MAX bytes, not
 * NUL-terminated), @dec 0 to 3; returns the length.
 */
size_t wult_csvnum_fixed(char *buf, double x, int dec);
/*
 * @ns as us with 3 decimals. Integral @ns (|@ns| < 2^64) comes out exactly,
 * its last three digits after the point; other values as
 * printf("%.3f", @ns / 1e3), whose division loses nanoseconds past 2^43 ns.
 */
size_t wult_csvnum_ns_us(char *buf, double ns);
/* How wult_csvnum_cells() writes a column: ns as us, or fixed with 0-2
 * decimals. */
enum wult_csvnum_kind {
	WULT_CSVNUM_NS_US, WULT_CSVNUM_FIX0, WULT_CSVNUM_FIX1, WULT_CSVNUM_FIX2,
};
/*
 * @n numbers @x, each as @kind (enum wult_csvnum_kind) says and followed
 * by a comma, into @buf (room for @n * (WULT_CSVNUM_MAX + 1) bytes); a
 * NaN is a hole: the comma alone. The same text as the calls above one
 * value at a time; the length. Up to 8 bytes past it may be written.
 */
size_t wult_csvnum_cells(char *buf, const double *x, const unsigned char *kind, size_t n);
/*
 * The plain decimal @s starts with, [-]digits[.digits] (at most 19 digits),
 * times 10^@exp10, correctly rounded as strtod() gives it: *@out is set and
 * the end of the digits returned. NULL when @s starts otherwise, has more
 * digits or an exponent: the caller then asks strtod(). The caller checks
 * that the field ends where the digits do.
 */
const char *wult_csvnum_parse(const char *s, int exp10, double *out);

#endif
