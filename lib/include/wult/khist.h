/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult.ko's in-kernel latency histograms as read from
 * /sys/kernel/debug/wult/hist/<metric>/CPU<N> (the latency_hist layout,
 * Documentation/kernel.md): one section per requested idle state, each
 * with its exact count, sum, minimum and maximum, its bins and an
 * overflow count. Percentiles come from the bins, exact to the bin.
 */
#ifndef WULT_KHIST_H
#define WULT_KHIST_H

#include <stddef.h>
#include <stdint.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_khist;

/*
 * One state's section. Times in ns; bins' bounds in us. A bipolar metric
 * (tai_to_intr) has bins below zero: its under_us is negative.
 */
struct wult_khist_state {
	const char *name;
	uint64_t count;		/* samples, underflow and overflow included */
	int64_t sum_ns;
	int64_t min_ns;		/* valid if count */
	int64_t max_ns;
	uint64_t under;		/* samples < under_us */
	int64_t under_us;	/* where the bins begin (0 if the file says not) */
	uint64_t over;		/* samples >= over_us */
	int64_t over_us;	/* where the bins end */
	size_t nbins;		/* non-empty bins, ascending */
	const int64_t *bin_us;	/* each bin's lower bound */
	const uint64_t *bin_n;	/* its samples */
};

/*
 * Parses one file's text (@len bytes, need not be NUL-terminated). 0, or
 * -EINVAL (the reason, with its line number, in @err) or -ENOMEM.
 */
int wult_khist_parse(const char *buf, size_t len, struct wult_khist **out,
		     char *err, size_t errlen);
void wult_khist_free(struct wult_khist *h);

/* The bin width (us) and the number of state sections. */
unsigned int wult_khist_bin_us(const struct wult_khist *h);
size_t wult_khist_nstates(const struct wult_khist *h);
/* The @i-th state's section, valid until wult_khist_free(). */
const struct wult_khist_state *wult_khist_state(const struct wult_khist *h, size_t i);

/* Where a percentile lies (wult_khist_percentile()'s non-negative returns). */
enum wult_khist_where {
	WULT_KHIST_IN_BINS,	/* in the bin starting at *us */
	WULT_KHIST_OVER,	/* in the overflow: >= *us (over_us) */
	WULT_KHIST_UNDER,	/* in the underflow: < *us (under_us) */
};

/*
 * The @pct percentile (0-100) of a state's samples: the lower bound (us)
 * of the bin holding the sample of rank ceil(pct * count / 100) (at least
 * 1), counting the underflow first. Returns an enum wult_khist_where with
 * @us set, or -EINVAL if the state has no samples or pct is out of range.
 */
int wult_khist_percentile(const struct wult_khist_state *s, double pct, int64_t *us);

#pragma GCC visibility pop

#endif
