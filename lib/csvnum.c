// SPDX-License-Identifier: GPL-2.0
/*
 * CSV numbers without printf/strtod: those two were 70% of a CSV export's
 * time and half of an import's (perf record -g, tests/bench/bench_csv.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "csvnum.h"

/* Below this a scaled value's error (half an ulp, <= 2^-23) cannot move it
 * across a rounding boundary unless it is within 1e-6 of a tie. */
#define ROUND_LIMIT	2147483648.0	/* 2^31 */
#define TIE_MARGIN	1e-6
#define TWO64		18446744073709551616.0

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint32_t pow10_u32[10] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

/* @v < 10^8 as exactly 8 digits ending at @end: two independent halves. */
static void put8(char *end, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(end - 2, digit_pairs + 2 * (lo % 100), 2);
	memcpy(end - 4, digit_pairs + 2 * (lo / 100), 2);
	memcpy(end - 6, digit_pairs + 2 * (hi % 100), 2);
	memcpy(end - 8, digit_pairs + 2 * (hi / 100), 2);
}

/* @v's digits at @buf, the length: the common case (counts, latencies),
 * in 32-bit arithmetic, two digits per step from the last. (Measured
 * faster here than composing 8 digits in a word and shifting.) */
static size_t put_u32(char *buf, uint32_t v)
{
	unsigned int n;
	char *p;

	if (v < 10) {
		buf[0] = (char)('0' + v);
		return 1;
	}
	if (v < 100) {
		memcpy(buf, digit_pairs + 2 * v, 2);
		return 2;
	}
	n = ((32 - __builtin_clz(v)) * 1233) >> 12;
	n += v >= pow10_u32[n];
	p = buf + n;
	while (v >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, digit_pairs + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return n;
}

/* @v's digits at @buf, the length: 8 at a time below the first 32 bits. */
static size_t put_u64(char *buf, uint64_t v)
{
	size_t n;

	if (v <= UINT32_MAX)
		return put_u32(buf, (uint32_t)v);
	n = put_u64(buf, v / 100000000);
	put8(buf + n + 8, (uint32_t)(v % 100000000));
	return n + 8;
}

/* |@r| / 10^@dec (negative when @neg) with @dec decimals; the length. */
static size_t put_fixed(char *buf, int neg, uint64_t r, int dec)
{
	char *p = buf + !!neg;
	uint32_t f;

	buf[0] = '-';
	/* Constant divisors: a division by a variable is a slow instruction. */
	switch (dec) {
	case 0:
		return (size_t)(p - buf) + put_u64(p, r);
	case 1:
		p += put_u64(p, r / 10);
		p[0] = '.';
		p[1] = (char)('0' + r % 10);
		return (size_t)(p + 2 - buf);
	case 2:
		f = r % 100;
		p += put_u64(p, r / 100);
		p[0] = '.';
		memcpy(p + 1, digit_pairs + 2 * f, 2);
		return (size_t)(p + 3 - buf);
	default:
		f = r % 1000;
		p += put_u64(p, r / 1000);
		p[0] = '.';
		memcpy(p + 1, digit_pairs + 2 * (f / 10), 2);
		p[3] = (char)('0' + f % 10);
		return (size_t)(p + 4 - buf);
	}
}

/* A double that is an integer in [0, 2^32) and not -0: the common case,
 * cheaper to test and convert than the general one below. */
static int as_u32(double x, uint32_t *u)
{
	if (!(x >= 0 && x < 4294967296.0))
		return 0;
	*u = (uint32_t)x;
	return (double)*u == x && (*u || !signbit(x));
}

/* An integral @x with |@x| < 2^64, not -0 (which printf writes "-0"):
 * *@u = |@x|, *@neg its sign. */
static int as_int(double x, int *neg, uint64_t *u)
{
	double a = fabs(x);

	if (!(a < TWO64))
		return 0;
	*u = (uint64_t)a;
	*neg = x < 0;
	return (double)*u == a && (*u || !signbit(x));
}

static size_t fallback(char *buf, const char *fmt, double x)
{
	int n = snprintf(buf, WULT_CSVNUM_MAX, fmt, x);

	return n < 0 ? 0 : (size_t)n < WULT_CSVNUM_MAX ? (size_t)n : WULT_CSVNUM_MAX - 1;
}

size_t wult_csvnum_fixed(char *buf, double x, int dec)
{
	static const double scale[4] = { 1, 10, 100, 1000 };
	static const char *const fmt[4] = { "%.0f", "%.1f", "%.2f", "%.3f" };
	double y = fabs(x) * scale[dec], fl;
	uint32_t u32;
	uint64_t u;
	int neg;

	/* printf rounds the exact binary value, ties to even: near a tie the
	 * product's rounding could decide, so printf does it. An integral x
	 * needs no product and no rounding. (Casts, not floor(): a libm call
	 * on baseline x86-64.) */
	if (!dec && as_u32(x, &u32))
		return put_u32(buf, u32);
	if (!dec && as_int(x, &neg, &u))
		return put_fixed(buf, neg, u, 0);
	if (!(y < ROUND_LIMIT))
		return fallback(buf, fmt[dec], x);	/* also NaN, inf */
	fl = (double)(int64_t)y;
	if (fabs(y - fl - 0.5) < TIE_MARGIN)
		return fallback(buf, fmt[dec], x);
	fl += y - fl > 0.5;
	/* "-0.00": printf keeps the sign of what rounds to zero */
	if (fl == 0 && signbit(x))
		return fallback(buf, fmt[dec], x);
	return put_fixed(buf, x < 0, (uint64_t)fl, dec);
}

size_t wult_csvnum_ns_us(char *buf, double ns)
{
	uint32_t u32, f;
	uint64_t u;
	size_t n;
	int neg;

	if (as_u32(ns, &u32)) {
		f = u32 % 1000;
		n = put_u32(buf, u32 / 1000);
		buf[n] = '.';
		memcpy(buf + n + 1, digit_pairs + 2 * (f / 10), 2);
		buf[n + 3] = (char)('0' + f % 10);
		return n + 4;
	}
	if (as_int(ns, &neg, &u))
		return put_fixed(buf, neg, u, 3);
	return fallback(buf, "%.3f", ns / 1e3);
}

const char *wult_csvnum_parse(const char *s, int exp10, double *out)
{
	/* Powers of ten a double holds exactly: dividing by one rounds once. */
	static const double pow10[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	const char *p = s + (*s == '-'), *digits = p, *fdigits;
	size_t ndig, frac = 0;
	unsigned int d;
	uint64_t m = 0;
	int k;
	double v;

	/* Two tight loops (integer part, fraction); more than 19 digits may
	 * wrap m, and are refused below. */
	while ((d = (unsigned char)*p - '0') < 10) {
		m = m * 10 + d;
		p++;
	}
	ndig = p - digits;
	if (*p == '.') {
		fdigits = ++p;
		while ((d = (unsigned char)*p - '0') < 10) {
			m = m * 10 + d;
			p++;
		}
		frac = p - fdigits;
	}
	ndig += frac;
	if (!ndig || ndig > 19 || *p == 'e' || *p == 'E')
		return NULL;
	k = exp10 - (int)frac;
	if (k >= 0) {
		/* An exact integer, then one rounding to double: strtod's. */
		for (; k; k--) {
			if (m > UINT64_MAX / 10)
				return NULL;
			m *= 10;
		}
		v = (double)m;
	} else {
		/* Both exact as doubles: IEEE division rounds once (Clinger). */
		if (m > (1ULL << 53) || -k > 22)
			return NULL;
		v = (double)m / pow10[-k];
	}
	*out = *s == '-' ? -v : v;
	return p;
}
