// SPDX-License-Identifier: GPL-2.0
/*
 * CSV numbers (lib/csv/csvnum.c): each fast path against the printf/strtod call
 * it stands for, on edge values and on a million random ones; exact
 * nanoseconds where printf's division loses them.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <wult/csv.h>

#include "internal/csvnum.h"
#include "wt.h"

static uint64_t rnd(uint64_t *x)
{
	return wt_xorshift(x);
}

/* wult_csvnum_fixed(x, dec) == printf("%.*f", dec, x); counts mismatches. */
static int fixed_is_printf(double x, int dec)
{
	char got[WULT_CSVNUM_MAX + 1], want[WULT_CSVNUM_MAX + 1];
	size_t n = wult_csvnum_fixed(got, x, dec);

	got[n] = '\0';
	snprintf(want, sizeof(want), "%.*f", dec, x);
	if (strcmp(got, want)) {
		printf("  fixed(%.17g, %d): '%s', printf '%s'\n", x, dec, got, want);
		return 1;
	}
	return 0;
}

static void fixed_edges(void)
{
	static const double xs[] = {
		0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 0.375, 0.05, 0.15, 0.25, 0.35,
		-0.001, -0.004, -0.005, 0.0049999, 99.995, 99.994999, 100, 12.345, 1e-300,
		4294967295.0, 2147483647.5, 2147483648.5, 9007199254740992.0,
		9007199254740993.0, 9223372036854775807.0, -9223372036854775808.0,
		18446744073709551615.0, 1e300, -1e300, DBL_MAX, -DBL_MAX, DBL_MIN,
		INFINITY, -INFINITY, NAN,
	};
	size_t i;
	int dec, bad = 0;

	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		for (dec = 0; dec <= 3; dec++)
			bad += fixed_is_printf(xs[i], dec);
	WT_EQ(bad, 0);
}

static void fixed_random(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, bits;
	int i, bad = 0;
	double v;

	for (i = 0; i < 1000000 && bad < 10; i++) {
		switch (i % 4) {
		case 0:		/* % with two decimals, as residencies are */
			v = (double)(rnd(&x) % 20001) / 100 - 50;
			break;
		case 1:		/* MHz-like, any fraction */
			v = (double)(rnd(&x) % 100000000) / 7919;
			break;
		case 2:		/* integers of any size */
			v = (double)(int64_t)rnd(&x) / (double)(1ULL << (rnd(&x) % 64));
			break;
		default:	/* any finite double */
			bits = rnd(&x);
			memcpy(&v, &bits, sizeof(v));
			if (!isfinite(v))
				v = 0;
		}
		bad += fixed_is_printf(v, i % 4);
	}
	WT_EQ(bad, 0);
}

/* ns as us: printf's text where its division is exact (< 2^43 ns), the
 * exact decimal beyond it. */
static void ns_us(void)
{
	static const double ns[] = {
		0, 1, 999, 1000, 1001, 123456789, -1, -999, -1000, -1234567,
		8796093022207.0, 8796093022208.0, 9007199254740993.0, 4611686018427387904.0,
		-4611686018427387904.0, 9223372036854774784.0, -9223372036854774784.0,
		-9223372036854775808.0, 18446744073709549568.0, -18446744073709549568.0,
	};
	char got[WULT_CSVNUM_MAX + 1], want[WULT_CSVNUM_MAX + 1];
	uint64_t x = 12345, u;
	size_t i, n;
	int bad = 0;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]) + 200000; i++) {
		double v = i < sizeof(ns) / sizeof(ns[0]) ? ns[i] :
			   (double)(rnd(&x) >> (rnd(&x) % 64)) * (i % 2 ? 1 : -1);

		n = wult_csvnum_ns_us(got, v);
		got[n] = '\0';
		u = (uint64_t)fabs(v);
		if (fabs(v) < 8796093022208.0)
			snprintf(want, sizeof(want), "%.3f", v / 1e3);
		else
			snprintf(want, sizeof(want), "%s%llu.%03llu", v < 0 ? "-" : "",
				 (unsigned long long)(u / 1000), (unsigned long long)(u % 1000));
		if (strcmp(got, want) && bad++ < 10)
			printf("  ns_us(%.17g): '%s', want '%s'\n", v, got, want);
	}
	WT_EQ(bad, 0);
	/* Not integral, -0, not finite: printf's text. */
	n = wult_csvnum_ns_us(got, 1007.5);
	got[n] = '\0';
	snprintf(want, sizeof(want), "%.3f", 1007.5 / 1e3);
	WT_CHECK(!strcmp(got, want), "1007.5 ns: '%s', want '%s'", got, want);
	n = wult_csvnum_ns_us(got, -0.0);
	got[n] = '\0';
	WT_CHECK(!strcmp(got, "-0.000"), "-0: '%s'", got);
	n = wult_csvnum_ns_us(got, INFINITY);
	got[n] = '\0';
	WT_CHECK(!strcmp(got, "inf"), "inf: '%s'", got);
	n = wult_csvnum_ns_us(got, 18446744073709551616.0);	/* 2^64 */
	got[n] = '\0';
	snprintf(want, sizeof(want), "%.3f", 18446744073709551616.0 / 1e3);
	WT_CHECK(!strcmp(got, want), "2^64 ns: '%s', want '%s'", got, want);
}

/* What a cell of @kind holds for @v: printf's text, the exact decimal
 * for ns past 2^43 (where printf's division loses them), nothing for NaN. */
static void want_cell(char *buf, size_t len, int kind, double v)
{
	uint64_t u = (uint64_t)fabs(v);

	if (isnan(v))
		buf[0] = '\0';
	else if (kind != WULT_CSVNUM_NS_US)
		snprintf(buf, len, "%.*f", kind - WULT_CSVNUM_FIX0, v);
	else if (!(fabs(v) < 8796093022208.0) && fabs(v) < 18446744073709551616.0 &&
		 (double)u == fabs(v))
		snprintf(buf, len, "%s%llu.%03llu", v < 0 ? "-" : "",
			 (unsigned long long)(u / 1000), (unsigned long long)(u % 1000));
	else
		snprintf(buf, len, "%.3f", v / 1e3);
}

/* wult_csvnum_cells() on @n values of one @kind against want_cell(); counts
 * mismatches (up to 10 printed). Runs of 7 values, as rows have. */
static int cells_are(const double *v, size_t n, int kind)
{
	char got[7 * (WULT_CSVNUM_MAX + 1) + 8], want[7 * (WULT_CSVNUM_MAX + 1)];
	unsigned char kinds[7] = { kind, kind, kind, kind, kind, kind, kind };
	size_t i, k, len, run, wlen;
	static int printed;
	int bad = 0;

	for (i = 0; i < n; i += run) {
		run = n - i < 7 ? n - i : 7;
		len = wult_csvnum_cells(got, v + i, kinds, run);
		got[len] = '\0';
		for (k = 0, wlen = 0; k < run; k++) {
			want_cell(want + wlen, sizeof(want) - wlen, kind, v[i + k]);
			wlen += strlen(want + wlen);
			want[wlen++] = ',';
		}
		want[wlen] = '\0';
		if (strcmp(got, want) && (bad++, printed++ < 10))
			printf("  cells(kind %d, %.17g...): '%s', want '%s'\n", kind, v[i], got, want);
	}
	return bad;
}

/*
 * The writer's row loop: every kind on edges (0, -0, each digit count's
 * ends, 2^32, 2^52 where the integral path ends, 10^16 where two halves
 * end, negatives, ties, non-integral ns, NaN holes, inf) and on random
 * values; every value of each 4-digit half of the 8-digit split.
 */
static void cells(void)
{
	static const double edges[] = {
		0, -0.0, 1, -1, 0.5, 0.125, 0.375, 0.005, 0.015, 0.045, 1.005, 99.995, 12.345,
		1007.5, -1007.5, 123456.7, 4294967295.0, 4294967296.0, 4294967297.0,
		4503599627370495.0, 4503599627370496.0, 4503599627370497.0 + 1,
		9007199254740992.0, 9999999999999998.0, 1e16, 1e16 + 2, 1e17, 1e19,
		18446744073709549568.0, 18446744073709551616.0, -4294967296.0,
		-9223372036854775808.0, 1e300, NAN, -NAN, INFINITY, -INFINITY, 99999999.5,
		999999999.0, 1e9 - 0.5, 1e9, 1e8 - 0.05, 2147483647.995,
	};
	double v[4096];
	uint64_t x = 777, p10 = 1;
	size_t n = 0, i;
	int kind, bad = 0, d;

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		v[n++] = edges[i];
	for (d = 0; d < 20; d++, p10 *= 10) {	/* each digit count's ends */
		v[n++] = (double)p10;
		v[n++] = (double)(p10 - 1);
		v[n++] = (double)p10 / 100;
		v[n++] = (double)(1ULL << (3 * d + 3)) - 1;
	}
	for (kind = WULT_CSVNUM_NS_US; kind <= WULT_CSVNUM_FIX2; kind++)
		bad += cells_are(v, n, kind);
	for (i = 0; i < 100; i++) {
		for (n = 0; n < 4096; n++) {
			uint64_t r = rnd(&x);

			v[n] = n % 3 == 0 ? (double)(r >> (r % 64)) :	/* integral */
			       n % 3 == 1 ? (double)(r % 100000) / 100 :	/* % */
			       (double)(int64_t)r / (double)(1ULL << (r % 40));
		}
		bad += cells_are(v, 4096, (int)(i % 4));
	}
	for (i = 0, n = 0; i < 10000; i++) {	/* both halves: all 0..9999 */
		v[n++] = (double)(i * 10000 + (9999 - i));
		v[n++] = (double)(i * 10001) + 1e8 * (double)(i % 7);
		if (n >= 4094 || i == 9999) {
			bad += cells_are(v, n, WULT_CSVNUM_FIX0) + cells_are(v, n, WULT_CSVNUM_NS_US);
			n = 0;
		}
	}
	WT_EQ(bad, 0);
}

/* wult_csvnum_parse() on a heap copy of @s, exactly as long, so that ASan
 * catches a read past its end; the end is mapped back onto @s. */
static const char *parse(const char *s, int exp10, double *v)
{
	size_t n = strlen(s) + 1;
	char *c = malloc(n);
	const char *end;

	memcpy(c, s, n);
	end = wult_csvnum_parse(c, exp10, v);
	end = end ? s + (end - c) : NULL;
	free(c);
	return end;
}

/* wult_csvnum_parse(s, exp10) against strtod("<s>e<exp10>"): the same
 * double (bit for bit), or NULL where it leaves the case to strtod. */
static int parse_is_strtod(const char *s, int exp10, int want_fast)
{
	char buf[128];
	const char *end;
	double got = 0, want;

	snprintf(buf, sizeof(buf), "%se%d", s, exp10);
	want = strtod(buf, NULL);
	end = parse(s, exp10, &got);
	if (!end)
		return want_fast ? (printf("  parse('%s'): refused\n", s), 1) : 0;
	if (*end || memcmp(&got, &want, sizeof(got))) {
		printf("  parse('%s', %d): %.17g, end '%s'; strtod %.17g\n", s, exp10, got, end,
		       want);
		return 1;
	}
	return 0;
}

static void parse_edges(void)
{
	static const char *const fast[] = {
		"0", "-0", "0.000", "-0.000", "1", "1.5", ".5", "5.", "-.5", "007.250",
		"9007199254740992", "9007199254740993", "0.1", "0.3", "123.456", "99.995",
		"-12.34", "-4503599627370.495",
	};
	/* Past a u64 once scaled, past 2^53 to divide, 20 digits: strtod's. */
	static const char *const either[] = {
		"9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"1844674407370955161", "0.0000000000000000001", "1234567890.123456789",
	};
	static const char *const slow[] = {
		"", "-", ".", "+1", "1e5", "1E5", " 1", "18446744073709551615",
		"00000000000000000000", "1.00000000000000000000", "nan", "inf", "0x10", "true",
	};
	const char *end;
	size_t i;
	double v;
	int bad = 0;

	for (i = 0; i < sizeof(fast) / sizeof(fast[0]); i++)
		bad += parse_is_strtod(fast[i], 0, 1) + parse_is_strtod(fast[i], 3, 1);
	for (i = 0; i < sizeof(either) / sizeof(either[0]); i++)
		bad += parse_is_strtod(either[i], 0, 0) + parse_is_strtod(either[i], 3, 0);
	WT_EQ(bad, 0);
	for (i = 0; i < sizeof(slow) / sizeof(slow[0]); i++) {
		end = parse(slow[i], 3, &v);
		WT_CHECK(!end || *end, "'%s' taken whole by the fast path", slow[i]);
	}
	v = 1;
	WT_CHECK(parse("-0", 0, &v) && signbit(v) && v == 0, "-0 keeps its sign");
	end = parse("12.5,7", 0, &v);
	WT_CHECK(end && *end == ',' && v == 12.5, "stops at the comma");
	end = parse("1.2.3", 0, &v);
	WT_CHECK(end && !strcmp(end, ".3"), "stops at a second point");
}

/* Numbers of each length up to the limit ended by bytes next to '0' and
 * '9', with the top bit set, a point; the 19-digit limit. */
static void parse_chunks(void)
{
	static const char ends[] = { '/', ':', ',', '\xb0', '\xff', '.', ' ' };
	char s[40], want_s[40];
	const char *end;
	double v, want;
	int len, e, bad = 0;

	for (len = 1; len <= 19; len++) {
		for (e = 0; e < (int)sizeof(ends); e++) {
			memcpy(s, "9081726354453627189", (size_t)len);
			s[len] = ends[e];
			s[len + 1] = ends[e] == '.' ? 'x' : '\0';
			s[len + 2] = '\0';
			memcpy(want_s, s, (size_t)len);
			want_s[len] = '\0';
			want = strtod(want_s, NULL);
			end = parse(s, 0, &v);
			bad += !end || v != want || end != s + len + (ends[e] == '.');
		}
	}
	WT_EQ(bad, 0);
	WT_CHECK(!parse("12345678901234567890", 0, &v), "20 digits refused");
	WT_CHECK(!parse("1234567890.1234567890", 0, &v), "20 digits with a point refused");
	end = parse("1234567.12345678,5", 0, &v);
	WT_CHECK(end && *end == ',' && v == 1234567.12345678, "15 digits across chunks");
	end = parse("00000000000000000001", 0, &v);
	WT_CHECK(!end, "20 digits refused even when small");
}

static void parse_random(void)
{
	uint64_t x = 42;
	char s[64];
	int i, bad = 0, nd, dot, k;

	for (i = 0; i < 1000000 && bad < 10; i++) {
		nd = 1 + rnd(&x) % 19;
		dot = rnd(&x) % (nd + 2);	/* nd + 1: no point */
		k = 0;
		if (rnd(&x) & 1)
			s[k++] = '-';
		for (int d = 0; d < nd; d++) {
			if (d == dot)
				s[k++] = '.';
			s[k++] = (char)('0' + rnd(&x) % 10);
		}
		s[k] = '\0';
		bad += parse_is_strtod(s, i % 2 ? 3 : 0, 0);
	}
	WT_EQ(bad, 0);
}

/*
 * The public wrappers (wult report's HTML page writes its times with them):
 * the same text as printf and as the internal calls, and nothing for a
 * @dec they do not do.
 */
static void public_api(void)
{
	char got[WULT_CSV_NUM_MAX + 1], want[WULT_CSV_NUM_MAX + 1];
	static const double xs[] = { 0, -0.0, 12.3456, -0.0005, 1e300, NAN, 2.5 };
	size_t i, n;
	int dec, bad = 0;

	for (i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		for (dec = 0; dec <= 3; dec++) {
			n = wult_csv_format_fixed(got, xs[i], dec);
			got[n] = '\0';
			snprintf(want, sizeof(want), "%.*f", dec, xs[i]);
			bad += !!strcmp(got, want);
		}
	WT_EQ(bad, 0);
	WT_EQ(wult_csv_format_fixed(got, 1.5, 4), 0);
	WT_EQ(wult_csv_format_fixed(got, 1.5, -1), 0);
	/* 2^53 + 1 ns is not a double; 2^53 ns is, and printf's division
	 * loses its last digits */
	n = wult_csv_format_us(got, 9007199254740992.0);
	got[n] = '\0';
	WT_CHECK(!strcmp(got, "9007199254740.992"), "2^53 ns as us: '%s'", got);
	n = wult_csv_format_us(got, 1234.5);
	got[n] = '\0';
	snprintf(want, sizeof(want), "%.3f", 1234.5 / 1e3);
	WT_CHECK(!strcmp(got, want), "1234.5 ns as us: '%s', printf '%s'", got, want);
}

int main(void)
{
	public_api();
	fixed_edges();
	fixed_random();
	ns_us();
	cells();
	parse_edges();
	parse_chunks();
	parse_random();
	return wt_done();
}
