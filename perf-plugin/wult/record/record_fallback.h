/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's count of the datapoints of idle states that were disabled
 * while recording (record_fallback.c): do_idle() polling, cpuidle's
 * fallback.
 */
#ifndef WULT_RECORD_FALLBACK_H
#define WULT_RECORD_FALLBACK_H

struct rec_fallback;

/* For CPUs 0..@max_cpu; NULL on ENOMEM (nothing is counted then). */
struct rec_fallback *rec_fallback_new(int max_cpu);
void rec_fallback_free(struct rec_fallback *f);
/* One datapoint's raw payload (trace_entry, then struct wult_dp). */
void rec_fallback_add(struct rec_fallback *f, unsigned int cpu, const void *raw,
		      unsigned int raw_size);
/* At the end, states as recorded: a warning per CPU and disabled state seen. */
void rec_fallback_end(const struct rec_fallback *f);

#endif
