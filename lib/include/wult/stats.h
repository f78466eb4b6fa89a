/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming statistics over integer samples (nanoseconds for time metrics)
 * in bounded memory.
 *
 * Values below WULT_STATS_EXACT in magnitude (~4.2 ms: nearly every
 * latency) are counted per ns; up to WULT_STATS_KEEP larger ones (latency
 * outliers) are kept as they are. Percentiles are then the numbers a sort
 * of all values would give. An object with more values beyond (SilentTime,
 * LDist of tens of ms) drops them for log-linear buckets: percentiles there
 * are within 2^-12 (0.025%) of the exact ones, and `approx` in the summary
 * counts those values. count, min, max, mean and stddev are always exact.
 * Memory depends on the range the values cover, never on how many there
 * are: at most ~9.2 MiB per object (see stats.c).
 */
#ifndef WULT_STATS_H
#define WULT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_stats;

/* Values in [-WULT_STATS_EXACT, WULT_STATS_EXACT) are counted per ns. */
#define WULT_STATS_EXACT	((int64_t)1 << 22)
/* Values beyond WULT_STATS_EXACT kept exactly per object (in 32 bits:
 * 128 KiB): past it, or once one is beyond +-2^31 ns (~2.1 s), they are
 * bucketed. Small enough that `wult report` stays under 64 MB with every
 * latency object full (tests/bench/bench_datapath.c).
 */
#define WULT_STATS_KEEP		(1U << 15)
/* Values outside [WULT_STATS_MIN, WULT_STATS_MAX] are clamped for the
 * percentiles (and counted in `clamped`); count/min/max/mean/stddev stay
 * exact. 2^38 ns is about 275 s.
 */
#define WULT_STATS_MAX	((int64_t)(1ULL << 38) - 1)
#define WULT_STATS_MIN	(-(int64_t)(1ULL << 38))

struct wult_stats_summary {
	uint64_t count;
	uint64_t clamped;	/* values clamped into the histogram's range */
	uint64_t approx;	/* values beyond WULT_STATS_EXACT when more than
				 * WULT_STATS_KEEP (bucketed), else 0 */
	int64_t min, max;
	double mean;
	double stddev;		/* sample standard deviation (n - 1), as pandas */
	double median;		/* percentiles interpolate linearly between */
	double p90, p99;	/* order statistics, as numpy/pandas do */
	double p99_9, p99_99, p99_999;
};

/* Counts are exact up to this many values (each value's count too). */
#define WULT_STATS_MAX_COUNT	(1ULL << 62)

/*
 * Errors: an allocation failure (-ENOMEM) leaves values out of the
 * histogram; it is kept, and every later call that returns an int returns
 * it (percentiles are then NaN), so a result is never silently short.
 * wult_stats_error() says what it was.
 */
/* 0, or -ENOMEM (*@out NULL). */
int wult_stats_new(struct wult_stats **out);
void wult_stats_free(struct wult_stats *st);
/* Returns 0 or -ENOMEM (values may be batched: the failure may show at a
 * later add or at the first query).
 */
int wult_stats_add(struct wult_stats *st, int64_t val);
/* Adds @val @cnt times: 0, -ENOMEM, or -EOVERFLOW past WULT_STATS_MAX_COUNT. */
int wult_stats_add_n(struct wult_stats *st, int64_t val, uint64_t cnt);
/* Adds every value of @src to @dst; 0, -ENOMEM (of either) or -EOVERFLOW. */
int wult_stats_merge(struct wult_stats *dst, const struct wult_stats *src);
/* The kept failure, said in words; "" when there is none. */
const char *wult_stats_error(const struct wult_stats *st);
uint64_t wult_stats_count(const struct wult_stats *st);
/* @pct in [0, 100]; NaN when empty or after an error. */
double wult_stats_percentile(const struct wult_stats *st, double pct);
/* Fills @sum; fields are 0 (percentiles NaN) when empty. 0, or the kept
 * error (count and extremes filled, the rest NaN).
 */
int wult_stats_summary(const struct wult_stats *st, struct wult_stats_summary *sum);
/* Bytes of heap the histogram holds now. */
size_t wult_stats_mem(const struct wult_stats *st);
/* Calls @fn for each distinct value in ascending order with its count;
 * a non-zero return stops the walk and is returned (as is a kept error,
 * before any call).
 */
int wult_stats_foreach(const struct wult_stats *st,
		       int (*fn)(int64_t val, uint64_t cnt, void *ctx), void *ctx);

#pragma GCC visibility pop

#endif
