// SPDX-License-Identifier: GPL-2.0
/*
 * CSV numbers without printf/strtod: those two were 70% of a CSV export's
 * time and half of an import's (perf record -g, tests/bench/bench_csv.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <wult/csv.h>
#include "internal/csvnum.h"

/* Below this a scaled value's error (half an ulp, <= 2^-23) cannot move it
 * across a rounding boundary unless it is within 1e-6 of a tie. */
#define ROUND_LIMIT	2147483648.0	/* 2^31 */
#define TIE_MARGIN	1e-6
#define TWO64		18446744073709551616.0
#define DEC_LIMIT	1e9	/* put_dec(): the integral part fits put_short() */
#define SMALL_LIMIT	10000000000000000ULL	/* 10^16: two 8-digit halves */

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

#define ASCII_ZEROS	0x3030303030303030ULL
#define TWO52		4503599627370496.0
#define TWO52_BITS	0x4330000000000000ULL	/* the bits of 2^52 */

/*
 * The 8 decimal digits of @v < 10^8 as values 0-9, one a byte, the most
 * significant in the lowest byte (the first in memory once stored
 * little-endian): two divisions by constants, then two steps that split
 * every lane at once. 10486 / 2^20 is 1/100 below 10^4 and 103 / 2^10
 * is 1/10 below 10^2 (test_csvnum checks every boundary), and no lane's
 * product reaches the next lane.
 */
static inline uint64_t digits8(uint32_t v)
{
	uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32, y;

	y = (x * 10486 >> 20) & 0x0000007f0000007fULL;
	x = y | (x - y * 100) << 16;
	y = (x * 103 >> 10) & 0x000f000f000f000fULL;
	return y | (x - y * 10) << 8;
}

/* @x's bytes at @p, lowest first: one unaligned store. The callers have
 * room for 8 bytes past what they keep. */
static inline void store8(char *p, uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, 8);
}

/*
 * The number of digits of @v (1 for 0), from its bit length alone: for
 * bit length b + 1, digits(2^b) = d or d + 1 when v >= 10^d, which adding
 * 2^32 - 10^d carries into the high half. Independent of the digits, so
 * a row's cursor need not wait for them.
 */
static inline unsigned int ndigits(uint32_t v)
{
/* digits d below 10^d, d + 1 from there */
#define ND(d, p10)	(((uint64_t)(d) << 32) + (1ULL << 32) - (p10))
	static const uint64_t table[32] = {
		ND(1, 10), ND(1, 10), ND(1, 10), ND(1, 10),
		ND(2, 100), ND(2, 100), ND(2, 100),
		ND(3, 1000), ND(3, 1000), ND(3, 1000),
		ND(4, 10000), ND(4, 10000), ND(4, 10000), ND(4, 10000),
		ND(5, 100000), ND(5, 100000), ND(5, 100000),
		ND(6, 1000000), ND(6, 1000000), ND(6, 1000000),
		ND(7, 10000000), ND(7, 10000000), ND(7, 10000000), ND(7, 10000000),
		ND(8, 100000000), ND(8, 100000000), ND(8, 100000000),
		ND(9, 1000000000), ND(9, 1000000000), ND(9, 1000000000),
		(uint64_t)10 << 32, (uint64_t)10 << 32,
	};
#undef ND
	return (unsigned int)((v + table[31 - __builtin_clz(v | 1)]) >> 32);
}

/* @v < 10^8 without leading zeros; up to 8 bytes written, the length
 * returned. Below 100 a pair from the table is cheaper. */
static inline size_t put_short(char *p, uint32_t v)
{
	unsigned int n;

	if (v < 100) {
		memcpy(p, digit_pairs + 2 * v + (v < 10), 2);
		return 1 + (v >= 10);
	}
	n = ndigits(v);
	store8(p, (digits8(v) + ASCII_ZEROS) >> (8 * (8 - n)));
	return n;
}

/* @v < 10^8 as exactly 8 digits. */
static inline void put8(char *p, uint32_t v)
{
	store8(p, digits8(v) + ASCII_ZEROS);
}

/*
 * @hi (0 < @hi < 10^8) without leading zeros, then @lo (< 10^8) as
 * exactly 8 digits; the length. *@lo8 gets @lo's digits as put8() stores
 * them. With SSE2 (every x86-64) both halves' digits come from one
 * register, the steps of digits8() on 16-bit lanes: about half the
 * instructions of two digits8().
 */
static inline size_t put_hi_lo(char *p, uint32_t hi, uint32_t lo, uint64_t *lo8)
{
#ifdef __SSE2__
	__m128i v = _mm_set_epi64x(lo, hi), q, r, x, d;
	unsigned int n = ndigits(hi);

	/* /10000 in each 64-bit lane: (v * 0xd1b71759) >> 45, exact below 10^8 */
	q = _mm_srli_epi64(_mm_mul_epu32(v, _mm_set1_epi32((int)0xd1b71759)), 45);
	r = _mm_sub_epi32(v, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
	x = _mm_or_si128(q, _mm_slli_epi64(r, 32));
	/* /100 in each 32-bit lane (< 10^4): (x * 5243) >> 19 */
	d = _mm_srli_epi16(_mm_mulhi_epu16(x, _mm_set1_epi16(5243)), 3);
	r = _mm_sub_epi16(x, _mm_mullo_epi16(d, _mm_set1_epi16(100)));
	x = _mm_or_si128(d, _mm_slli_epi32(r, 16));
	/* /10 in each 16-bit lane (< 100): (x * 52429) >> 19 */
	d = _mm_srli_epi16(_mm_mulhi_epu16(x, _mm_set1_epi16((short)52429)), 3);
	r = _mm_sub_epi16(x, _mm_mullo_epi16(d, _mm_set1_epi16(10)));
	x = _mm_add_epi8(_mm_or_si128(d, _mm_slli_epi16(r, 8)), _mm_set1_epi8('0'));
	store8(p, (uint64_t)_mm_cvtsi128_si64(x) >> (8 * (8 - n)));
	*lo8 = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x));
#else
	unsigned int n = (unsigned int)put_short(p, hi);

	*lo8 = digits8(lo) + ASCII_ZEROS;
#endif
	store8(p + n, *lo8);
	return n + 8;
}

/* @v's digits at @buf, the length; 8 bytes past it may be written. */
static inline __attribute__((always_inline)) size_t put_u64(char *buf, uint64_t v)
{
	uint64_t lo8;
	size_t n;

	if (v < 100000000)
		return put_short(buf, (uint32_t)v);
	if (v < 10000000000000000ULL)
		return put_hi_lo(buf, (uint32_t)(v / 100000000), (uint32_t)(v % 100000000), &lo8);
	n = put_short(buf, (uint32_t)(v / 10000000000000000ULL));
	v %= 10000000000000000ULL;
	put8(buf + n, (uint32_t)(v / 100000000));
	put8(buf + n + 8, (uint32_t)(v % 100000000));
	return n + 16;
}

/* @u < 10^16 ns as us with 3 decimals: the digits of @u with a point
 * before the last three, at least one digit before it. */
static inline __attribute__((always_inline)) size_t put_ns_us(char *p, uint64_t u)
{
	uint32_t lo = (uint32_t)u, f;
	uint64_t lo8;
	size_t n;

	if (u < 100000000) {
		f = lo % 1000;
		n = put_short(p, lo / 1000);
		p[n] = '.';
		memcpy(p + n + 1, digit_pairs + 2 * (f / 10), 2);
		p[n + 3] = (char)('0' + f % 10);
		return n + 4;
	}
	/* all the digits, then the last three again after a point */
	n = put_hi_lo(p, (uint32_t)(u / 100000000), (uint32_t)(u % 100000000), &lo8);
	store8(p + n - 3, '.' | (lo8 >> 40) << 8);
	return n + 1;
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
		if (r < SMALL_LIMIT)
			return (size_t)(p - buf) + put_ns_us(p, r);
		f = r % 1000;
		p += put_u64(p, r / 1000);
		p[0] = '.';
		memcpy(p + 1, digit_pairs + 2 * (f / 10), 2);
		p[3] = (char)('0' + f % 10);
		return (size_t)(p + 4 - buf);
	}
}

/* A double that is an integer in [0, 10^16) and not -0: the common case
 * (counts, ns), cheaper to test and convert than the general one below.
 * False for NaN. */
static inline int as_small(double x, uint64_t *u)
{
	if (!(x >= 0 && x < SMALL_LIMIT))
		return 0;
	*u = (uint64_t)x;
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

/*
 * printf("%.1f"/"%.2f", @x) for 0 <= @x, @x * 10^@dec < 10^9, not near a
 * tie: written and its length returned; 0 otherwise (the caller asks
 * wult_csvnum_fixed()). printf rounds the exact binary value, ties to
 * even: near a tie the product's rounding could decide, so printf does
 * it. (Casts, not floor(): a libm call on baseline x86-64.)
 */
static inline size_t put_dec(char *p, double x, int dec)
{
	double y = x * (dec == 1 ? 10 : 100), fl;
	uint32_t r;
	size_t n;

	if (!(y >= 0 && y < DEC_LIMIT) || signbit(x))
		return 0;
	fl = (double)(int32_t)y;
	if (fabs(y - fl - 0.5) < TIE_MARGIN)
		return 0;
	r = (uint32_t)fl + (y - fl > 0.5);
	if (dec == 1) {
		n = put_short(p, r / 10);
		p[n] = '.';
		p[n + 1] = (char)('0' + r % 10);
		return n + 2;
	}
	n = put_short(p, r / 100);
	p[n] = '.';
	memcpy(p + n + 1, digit_pairs + 2 * (r % 100), 2);
	return n + 3;
}

size_t wult_csvnum_fixed(char *buf, double x, int dec)
{
	static const double scale[4] = { 1, 10, 100, 1000 };
	static const char *const fmt[4] = { "%.0f", "%.1f", "%.2f", "%.3f" };
	double y = fabs(x) * scale[dec], fl;
	uint64_t u;
	int neg;

	/* An integral x needs no product and no rounding. */
	if (!dec && as_small(x, &u))
		return put_u64(buf, u);
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
	uint64_t u;
	int neg;

	if (as_small(ns, &u))
		return put_ns_us(buf, u);
	if (as_int(ns, &neg, &u))
		return put_fixed(buf, neg, u, 3);
	return fallback(buf, "%.3f", ns / 1e3);
}

/*
 * The writer's loop, the common cells inline with no call per cell:
 * integral ns and counts, 0 <= x < 2^52 (sign, NaN and range in one
 * compare of the bits), converted by adding 2^52, which puts x rounded
 * to an integer in the mantissa (x itself when x is integral: checked by
 * taking 2^52 off again); decimals not near a tie. The rest, and holes,
 * as the functions above write them.
 */
size_t wult_csvnum_cells(char *buf, const double *x, const unsigned char *kind, size_t n)
{
	uint64_t xb, yb;
	char *p = buf;
	size_t i, len;
	double y;

	for (i = 0; i < n; i++) {
		memcpy(&xb, &x[i], 8);
		y = x[i] + TWO52;
		memcpy(&yb, &y, 8);
		if (kind[i] <= WULT_CSVNUM_FIX0 && xb < TWO52_BITS && y - TWO52 == x[i]) {
			yb -= TWO52_BITS;
			p += kind[i] == WULT_CSVNUM_NS_US ? put_ns_us(p, yb) : put_u64(p, yb);
		} else if (kind[i] > WULT_CSVNUM_FIX0 &&
			   (len = put_dec(p, x[i], kind[i] - WULT_CSVNUM_FIX0)) != 0) {
			p += len;
		} else if (kind[i] == WULT_CSVNUM_NS_US && !isnan(x[i])) {
			p += wult_csvnum_ns_us(p, x[i]);
		} else if (!isnan(x[i])) {
			p += wult_csvnum_fixed(p, x[i], kind[i] - WULT_CSVNUM_FIX0);
		}
		*p++ = ',';
	}
	return (size_t)(p - buf);
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

size_t wult_csv_format_fixed(char *buf, double x, int dec)
{
	return dec >= 0 && dec <= 3 ? wult_csvnum_fixed(buf, x, dec) : 0;
}

size_t wult_csv_format_us(char *buf, double ns)
{
	return wult_csvnum_ns_us(buf, ns);
}
