/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: the TSC's clock reads (tsc_clock.c), shared by
 * calibration and the cross-CPU evaluation, the evaluation's object and
 * its test hook.
 */
#ifndef WULT_INTERNAL_TSC_H
#define WULT_INTERNAL_TSC_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include <wult/tsc.h>

/*
 * One (TSC, CLOCK_MONOTONIC_RAW) pair, both taken at about the same instant:
 * the narrowest of a few rdtsc-bracketed clock reads, stamped at the middle
 * of its bracket. Returns the bracket width in ticks (the pair's error bar).
 */
uint64_t tsc_clock_pair(uint64_t *tsc, uint64_t *ns);

/* CLOCK_MONOTONIC_RAW in ns. */
uint64_t tsc_raw_ns(void);

/* The cross-CPU evaluation: measured by tsc_eval.c, judged by tsc_verdict.c. */
struct wult_tsc_eval {
	struct wult_tsc_eval_opts opts;
	struct wult_tsc_eval_summary sum;
	struct wult_tsc_eval_cpu *cpus;
	/* Pace pairs: first and last taken on each CPU. */
	uint64_t *t0, *n0, *t1, *n1;
	int64_t *skew;		/* test-only offset added to each CPU's reads */
	int inconsistent;	/* some CPU's bounds crossed (lo > hi) */
};

/*
 * wult_tsc_eval_run() with skew[i] ticks added to every CAS and switching
 * read on the i-th CPU of the mask (NULL: none): lets tests plant a known
 * shift and check the evaluation finds it.
 */
int tsc_eval_run_skewed(const cpu_set_t *cpus, const struct wult_tsc_eval_opts *opts,
			      const int64_t *skew, struct wult_tsc_eval **out, char *msg, size_t len);

#endif
