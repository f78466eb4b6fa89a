/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic wult datapoints of known distributions, and perf.data files of
 * them that stock perf reads (as wult:datapoint tracepoint samples with
 * the format in TRACING_DATA). For tests and benchmarks.
 */
#ifndef WULT_SYNTH_H
#define WULT_SYNTH_H

#include <stdint.h>
#include <linux/wult.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_synth;

#define WULT_SYNTH_MAX_OFFSETS	16	/* state indexes --state-offset sets */

struct wult_synth_opts {
	uint64_t count;			/* datapoints */
	uint64_t seed;
	unsigned int ncpus;		/* datapoints go round-robin over CPUs 0.. */
	unsigned int ncstates;		/* requested state index uniform in 0..n-1 */
	uint32_t tsc_khz;
	uint64_t wake_min, wake_max;	/* ns: WakeLatencyRaw uniform in [min, max] */
	double tail_frac;		/* this fraction gets up to tail_max instead */
	uint64_t tail_max;		/* ns */
	uint64_t ldist_min, ldist_max;	/* ns: LDist uniform */
	unsigned int round;		/* samples per FINISHED_ROUND */
	const char *cstate_names;	/* "POLL,C1,C6": index 0, 1, ... (NULL: none) */
	unsigned int source;		/* enum wult_source_id of every datapoint */
	uint64_t state_offset[WULT_SYNTH_MAX_OFFSETS];	/* ns added to each state
							 * index's wake */
};

/* Defaults: 1000 datapoints, 1 CPU, 3 states, 2 GHz TSC, wake 1-20 us,
 * 0.1% tail to 500 us, LDist 1 us - 4 ms, a round per 1000 samples.
 */
void wult_synth_defaults(struct wult_synth_opts *o);
int wult_synth_new(const struct wult_synth_opts *o, struct wult_synth **out);
void wult_synth_free(struct wult_synth *g);
/* The next datapoint (struct wult_dp of WULT_DP_VERSION). */
void wult_synth_next(struct wult_synth *g, struct wult_dp *dp);
/* Writes a perf.data file of o->count datapoints to @path. 0 or -errno. */
int wult_synth_write(const struct wult_synth_opts *o, const char *path,
		     char *err, size_t errlen);

#pragma GCC visibility pop

#endif
