// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming statistics' queries (wult/stats.h): every value in order,
 * exact moments, ranks and numpy's percentiles, from the counters and
 * kept values stats.c counts (its opening comment says how).
 */
#include <math.h>
#include <string.h>

#include <wult/stats.h>
#include "internal/stats.h"

#define SPARSE_LEAF	256				/* leaf total: word scan below */

/* The value a log bucket stands for: its middle. */
static inline uint64_t log_mid(uint32_t idx)
{
	unsigned int e = OCT_LO + idx / SUB_N, sh = e - SUB_BITS;

	return ((uint64_t)(SUB_N + idx % SUB_N) << sh) + ((uint64_t)1 << sh) / 2;
}

/* Calls @fn for each distinct kept value beyond in [@from, @to). */
static int walk_out(const struct wult_stats *st, uint32_t from, uint32_t to,
		    int (*fn)(int64_t, uint64_t, void *), void *ctx)
{
	uint32_t i, j;
	int ret;

	for (i = from; i < to; i = j) {
		for (j = i + 1; j < to && st->out[j] == st->out[i]; j++)
			;
		ret = fn(st->out[i], j - i, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Calls @fn(value, count) in ascending order: the negative values beyond,
 * the exact part, the positive values beyond. Those beyond are the kept
 * values, or once spilled the log buckets, each standing for its middle.
 */
static int walk(const struct wult_stats *st, int (*fn)(int64_t, uint64_t, void *), void *ctx)
{
	uint32_t l, i;
	int ret;

	if (!st->spilled && (ret = walk_out(st, 0, st->oneg, fn, ctx)))
		return ret;
	for (i = NLOG; st->spilled && i-- > 0;)
		if (st->neg[i] && (ret = fn(-(int64_t)log_mid(i), st->neg[i], ctx)))
			return ret;
	for (l = st->llo; l <= st->lhi; l++) {
		int64_t base = (int64_t)((uint64_t)l << LEAF_BITS) - WULT_STATS_EXACT;

		if (!st->lsum[l])
			continue;
		for (i = 0; i < LEAF_N; i++) {
			uint64_t n = leaf_count(st, l, i);

			if (n && (ret = fn(base + i, n, ctx)))
				return ret;
		}
	}
	if (!st->spilled)
		return walk_out(st, st->oneg, st->nlog, fn, ctx);
	for (i = 0; i < NLOG; i++)
		if (st->pos[i] && (ret = fn((int64_t)log_mid(i), st->pos[i], ctx)))
			return ret;
	return 0;
}

/* Count, extremes and sums of every value, exact (the exact part from
 * its counters, the log part from its own sums).
 */
struct moments {
	uint64_t n;
	int64_t min, max;
	__int128 s1;
	unsigned __int128 s2;
};

/*
 * Leaf @l's counts as sums over its indexes: *@a = sum of i * c[i], *@b =
 * sum of i^2 * c[i], in 64 bits (i < 2^10, so they cannot wrap while the
 * leaf's total is below 2^44: the caller checks). Byte leaves, the common
 * case, compile to vector code.
 */
static void leaf_sums(const struct wult_stats *st, uint32_t l, uint64_t *a, uint64_t *b)
{
	const uint8_t *c = st->c8 + ((size_t)l << LEAF_BITS);
	const uint64_t *w = st->wide[l];
	uint64_t sa = 0, sb = 0;
	uint32_t i;

	if (w) {
		for (i = 0; i < LEAF_N; i++) {
			sa += (uint64_t)i * w[i];
			sb += (uint64_t)i * i * w[i];
		}
	} else if (st->lsum[l] < SPARSE_LEAF) {
		/* A few values: skip the zero words (reports summarise
		 * thousands of such leaves per SilentTime or LDist), and in a
		 * word its zero bytes.
		 */
		for (i = 0; i < LEAF_N; i += 8) {
			uint64_t word;
			uint32_t j, sh;

			memcpy(&word, c + i, sizeof(word));
			while (word) {
				/* sh: where the first nonzero byte in memory
				 * sits in word, cleared after */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				sh = (uint32_t)__builtin_ctzll(word) & ~7U;
				j = i + sh / 8;
#else
				sh = (63U - (uint32_t)__builtin_clzll(word)) & ~7U;
				j = i + 7 - sh / 8;
#endif
				sa += j * (uint32_t)c[j];
				sb += (uint64_t)(j * j) * c[j];
				word &= ~(UINT64_C(0xff) << sh);
			}
		}
	} else {
		for (i = 0; i < LEAF_N; i++) {
			sa += i * (uint32_t)c[i];
			sb += (uint64_t)(i * i) * c[i];
		}
	}
	*a = sa;
	*b = sb;
}

/* The first (@last: the last) index of leaf @l with a count. */
static uint32_t leaf_edge(const struct wult_stats *st, uint32_t l, int last)
{
	uint32_t i;

	for (i = 0; i < LEAF_N; i++)
		if (leaf_count(st, l, last ? LEAF_N - 1 - i : i))
			return last ? LEAF_N - 1 - i : i;
	return 0;
}

/*
 * Count, extremes and the sums of v and v^2 over both parts, exactly. A
 * leaf holding values base + i contributes C = its total, base * C + A
 * and base^2 * C + 2 * base * A + B (A, B from leaf_sums()), so the 128-bit
 * arithmetic is per leaf, not per counter (per counter it was most of a
 * report's time after the last datapoint).
 */
static void moments(const struct wult_stats *st, struct moments *m)
{
	uint32_t l, i, first = NLEAVES, last = 0;

	m->n = st->nlog;
	m->min = st->lmin;
	m->max = st->lmax;
	m->s1 = st->ls1;
	m->s2 = st->ls2;
	for (l = st->llo; l <= st->lhi; l++) {
		__int128 base = (int64_t)((uint64_t)l << LEAF_BITS) - WULT_STATS_EXACT;
		uint64_t c = st->lsum[l], a, b;

		if (!c)
			continue;
		if (first == NLEAVES)
			first = l;
		last = l;
		m->n += c;
		if (c < (UINT64_C(1) << 44)) {
			leaf_sums(st, l, &a, &b);
			m->s1 += base * c + a;
			m->s2 += (unsigned __int128)(base * base * c + 2 * base * a + b);
			continue;
		}
		for (i = 0; i < LEAF_N; i++) {	/* a leaf of 2^44 values and more */
			__int128 v = base + i;

			c = leaf_count(st, l, i);
			m->s1 += v * c;
			m->s2 += (unsigned __int128)(v * v) * c;
		}
	}
	if (first == NLEAVES)
		return;
	i = (first << LEAF_BITS) + leaf_edge(st, first, 0);
	if (!st->nlog || (int64_t)i - WULT_STATS_EXACT < m->min)
		m->min = (int64_t)i - WULT_STATS_EXACT;
	i = (last << LEAF_BITS) + leaf_edge(st, last, 1);
	if (!st->nlog || (int64_t)i - WULT_STATS_EXACT > m->max)
		m->max = (int64_t)i - WULT_STATS_EXACT;
}

/* The value of 0-based rank @k (k < n), within [@min, @max] (the exact
 * extremes): each part is skipped by its total, whole leaves by theirs;
 * the kept values beyond (sorted) are indexed.
 */
static int64_t at_rank(const struct wult_stats *st, uint64_t k, int64_t min, int64_t max)
{
	uint64_t n, nex = st->n - st->nlog;
	uint32_t l, i;
	int64_t v = max;

	if (k == 0)
		return min;
	if (k == st->n - 1)
		return max;
	if (!st->spilled && k < st->oneg)
		return st->out[k];
	if (!st->spilled && k >= st->oneg + nex)
		return st->out[k - nex];
	if (!st->spilled)
		k -= st->oneg;
	/* (lmin: no negative bucket to walk past when no value beyond is
	 * negative, SilentTime's and LDist's case: 32768 buckets a query) */
	for (i = NLOG; st->spilled && st->lmin < 0 && i-- > 0; k -= st->neg[i])
		if (k < st->neg[i])
			return -(int64_t)log_mid(i) < min ? min : -(int64_t)log_mid(i);
	for (l = st->llo; l <= st->lhi && k >= st->lsum[l]; l++)
		k -= st->lsum[l];
	if (l > st->lhi)
		l = NLEAVES;
	for (i = 0; l < NLEAVES && i < LEAF_N; i++, k -= n) {
		n = leaf_count(st, l, i);
		if (k < n)
			return (int64_t)((uint64_t)l << LEAF_BITS) + (int64_t)i - WULT_STATS_EXACT;
	}
	for (i = 0; l == NLEAVES && i < NLOG; i++, k -= st->pos[i - 1])
		if (k < st->pos[i]) {
			v = (int64_t)log_mid(i);
			break;
		}
	return v > max ? max : v;
}

/* numpy's default ('linear'): position (n - 1) * p between ranks. */
static double percentile(const struct wult_stats *st, double pct, int64_t min, int64_t max)
{
	double h, frac;
	uint64_t lo;
	int64_t a, b;

	if (pct < 0)
		pct = 0;
	if (pct > 100)
		pct = 100;
	h = (double)(st->n - 1) * pct / 100.0;
	lo = (uint64_t)h;
	if (lo >= st->n - 1)
		return (double)max;
	frac = h - (double)lo;
	a = at_rank(st, lo, min, max);
	if (frac == 0)
		return (double)a;
	b = at_rank(st, lo + 1, min, max);
	return (double)a + frac * (double)(b - a);
}

double wult_stats_percentile(const struct wult_stats *st, double pct)
{
	struct moments m;

	if (stats_sync(st) || !st->n || isnan(pct))
		return NAN;
	moments(st, &m);
	return percentile(st, pct, m.min, m.max);
}

int wult_stats_summary(const struct wult_stats *st, struct wult_stats_summary *sum)
{
	long double n, mean, s1, s2, var;
	struct moments m;
	int ret = stats_sync(st);

	memset(sum, 0, sizeof(*sum));
	moments(st, &m);
	sum->count = st->n;
	sum->clamped = st->clamped;
	sum->approx = st->spilled ? st->nlog : 0;
	sum->min = m.min;
	sum->max = m.max;
	sum->mean = sum->stddev = NAN;
	sum->median = sum->p90 = sum->p99 = NAN;
	sum->p99_9 = sum->p99_99 = sum->p99_999 = NAN;
	if (!st->n || ret)
		return ret;
	/*
	 * Sums about the whole-ns mean, so the variance does not cancel. The
	 * centred sum of squares is taken modulo 2^128 (unsigned, so defined
	 * however large the values): its terms may wrap, the result is exact
	 * whenever it fits.
	 */
	n = m.n;
	mean = (long double)m.s1 / n;
	{
		__int128 c = (__int128)llroundl(mean);
		unsigned __int128 uc = (unsigned __int128)c;

		s1 = (long double)(m.s1 - c * (__int128)m.n);
		s2 = (long double)(__int128)(m.s2 - 2 * uc * (unsigned __int128)m.s1 +
					     uc * uc * m.n);
	}
	sum->mean = (double)mean;
	if (m.n > 1) {
		var = (s2 - s1 * s1 / n) / (n - 1);
		sum->stddev = var > 0 ? (double)sqrtl(var) : 0;
	}
	sum->median = percentile(st, 50, m.min, m.max);
	sum->p90 = percentile(st, 90, m.min, m.max);
	sum->p99 = percentile(st, 99, m.min, m.max);
	sum->p99_9 = percentile(st, 99.9, m.min, m.max);
	sum->p99_99 = percentile(st, 99.99, m.min, m.max);
	sum->p99_999 = percentile(st, 99.999, m.min, m.max);
	return 0;
}

int wult_stats_foreach(const struct wult_stats *st,
		       int (*fn)(int64_t val, uint64_t cnt, void *ctx), void *ctx)
{
	return stats_sync(st) ?: walk(st, fn, ctx);
}
