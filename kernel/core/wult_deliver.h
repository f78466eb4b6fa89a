/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the engine's way out for a valid datapoint (wult_deliver.c).
 * Called by the engine (wult_engine.c), IRQs off on the measured CPU; the
 * PMU only sets where datapoints go (wult_deliver_set()).
 */
#ifndef _WULT_DELIVER_H
#define _WULT_DELIVER_H

#include <linux/types.h>

#include "wult_engine.h"

/**
 * wult_deliver() - a datapoint out now
 * @st: the CPU's counters (emitted, branches, delivery_failed)
 * @rec: the datapoint
 * @brrec: its branch context, or NULL
 *
 * Into the in-kernel histograms, the wult:wake_branches and
 * wult:datapoint tracepoints, and the callback wult_deliver_set()
 * registered. Releases a held datapoint first: output stays in order.
 */
void wult_deliver(struct wult_stats *st, struct wult_rec *rec,
		  struct wult_br_rec *brrec);

/**
 * wult_deliver_count() - a datapoint out to counting events only
 * @st: the CPU's counters (emitted)
 * @rec: the datapoint: only its LDist is read
 *
 * For a datapoint whose fields nobody reads (wult_emit()): no histogram,
 * no tracepoint listener, no sample, no held datapoint on the CPU. Goes
 * to the count callback of wult_deliver_set().
 */
void wult_deliver_count(struct wult_stats *st, struct wult_rec *rec);

/**
 * wult_deliver_hold() - keep a datapoint until the task its wake woke runs
 * @st: the CPU's counters
 * @rec: the datapoint, copied
 * @brrec: its branch context, copied, or NULL
 *
 * One is held per CPU: one held before goes out first, without a run time.
 */
void wult_deliver_hold(struct wult_stats *st, const struct wult_rec *rec,
		       const struct wult_br_rec *brrec);

/**
 * wult_deliver_task_ran() - the held datapoint out with its task's run time
 * @st: the CPU's counters
 * @ns: when the task ran, in the datapoint's time base; 0: unknown
 *
 * A run time before the datapoint's TAI or TIntr is not this wake's task:
 * the datapoint goes out without it.
 */
void wult_deliver_task_ran(struct wult_stats *st, u64 ns);

/**
 * wult_deliver_cancel() - drop the held datapoint, if any
 *
 * Return: whether one was held (the caller counts it cancelled).
 */
bool wult_deliver_cancel(void);

/**
 * wult_deliver_set() - where the engine's datapoints go beyond the tracepoints
 * @deliver: called for each emitted datapoint, IRQs off on the measured
 *	CPU, with the record and its branch context (NULL if none); returns
 *	the number of failed deliveries (counted as delivery_failed). NULL:
 *	the datapoints go to the tracepoints only.
 * @count: called instead for a datapoint only counting events take
 *	(wult_deliver_count()), same context; NULL with @deliver.
 *
 * The PMU sets it before it can have events and clears it once it has
 * none: the engine calls down to no consumer by name.
 */
void wult_deliver_set(unsigned int (*deliver)(struct wult_rec *rec,
					      struct wult_br_rec *brrec),
		      void (*count)(struct wult_rec *rec));

#endif /* _WULT_DELIVER_H */
