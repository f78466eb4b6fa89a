/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: the statistics object (wult/stats.h), shared by its
 * counting (stats.c: how values are counted, in stats.c's opening comment)
 * and its queries (stats_query.c).
 */
#ifndef WULT_INTERNAL_STATS_H
#define WULT_INTERNAL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <wult/stats.h>

#define LEAF_BITS	10
#define LEAF_N		(1U << LEAF_BITS)
#define EXACT_N		(2 * (uint64_t)WULT_STATS_EXACT)	/* counters, -E..E-1 */
#define NLEAVES		(EXACT_N >> LEAF_BITS)
#define SUB_BITS	11				/* log buckets per octave */
#define SUB_N		(1U << SUB_BITS)
#define OCT_LO		22				/* log2(WULT_STATS_EXACT) */
#define OCT_HI		38				/* clamp: |v| < 2^38 */
#define NLOG		((OCT_HI - OCT_LO) * SUB_N)	/* per sign */

struct wult_stats {
	uint64_t n;		/* every value */
	uint64_t clamped;
	int err;		/* an allocation failed: the histogram lacks values */
	size_t mem;
	/* exact part: the histogram is the data (moments come from it) */
	uint8_t *c8;		/* EXACT_N byte counters (mmap'ed) */
	int huge;		/* c8 asked for huge pages: its values spread */
	uint64_t **wide;	/* NLEAVES: a leaf's u64 counters, once promoted */
	uint64_t *lsum;		/* NLEAVES: each leaf's total */
	/* Leaves with a count lie in [llo, lhi] (llo = NLEAVES: none). Loops
	 * over the leaves stay in it: latencies use a few of 8192, and a
	 * report summarises dozens of objects.
	 */
	uint32_t llo, lhi;
	/* log part: buckets by |v| for v >= E and v <= -E, and the values'
	 * exact count, extremes and sums (rare values: the slow path) */
	uint64_t *pos, *neg;
	uint64_t nlog;
	int64_t lmin, lmax;
	__int128 ls1;
	unsigned __int128 ls2;
	/* the values beyond themselves (nlog of them), while nlog fits
	 * WULT_STATS_KEEP and each 32 bits; NULL with spilled set once not */
	int32_t *out;
	uint32_t ocap;		/* values the mapping holds */
	uint32_t oneg;		/* negative ones, when sorted */
	int osorted, spilled;
	/* exact-part indexes not counted yet, and partition scratch */
	uint32_t *batch, *tmp;
	unsigned int nbatch;
	int64_t *lbatch;	/* values beyond not counted yet */
	unsigned int nlbatch;
};

static inline uint64_t leaf_count(const struct wult_stats *st, uint32_t l, uint32_t i)
{
	return st->wide[l] ? st->wide[l][i] : st->c8[((size_t)l << LEAF_BITS) + i];
}

/* Counts what is batched and sorts the kept values beyond (stats.c), so
 * that a query sees every value: 0, or the failure that left values out. */
int stats_sync(const struct wult_stats *st);

#endif
