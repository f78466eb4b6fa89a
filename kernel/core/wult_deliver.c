// SPDX-License-Identifier: GPL-2.0
/*
 * wult: a valid datapoint's way out of the engine.
 *
 * Every datapoint the engine emits goes to the in-kernel histograms
 * (wult_hist.c), the wult:wake_branches and wult:datapoint tracepoints, and
 * the delivery callback the PMU registers (wult_deliver_set()), in
 * that order. A source whose wake also wakes a task (ipi waketask, its
 * hold() op) has its datapoint held here, one per CPU, until that task
 * runs (wult_deliver_task_ran(), its run time as ttask), the next
 * datapoint comes, or the measurement stops (cancelled). The engine stays
 * the only caller, so output order is its order.
 */
#include <linux/percpu.h>
#include <linux/tracepoint.h>

#include "../accounting/wult_hist.h"
#include "../trace/wult_trace.h"
#include "wult_deliver.h"

struct wult_outbox {
	bool held;
	bool held_br;		/* brrec is rec's branch context */
	struct wult_rec rec;
	struct wult_br_rec brrec;
};

static DEFINE_PER_CPU(struct wult_outbox, wult_outboxes);

/* Where datapoints go: the PMU's, set while it is registered. */
static unsigned int (*wult_deliver_fn)(struct wult_rec *rec,
				       struct wult_br_rec *brrec);
static void (*wult_deliver_count_fn)(struct wult_rec *rec);

static void wult_out(struct wult_stats *st, struct wult_rec *rec,
		     struct wult_br_rec *brrec)
{
	unsigned int (*deliver)(struct wult_rec *rec, struct wult_br_rec *brrec);

	/* Off by default: then not even the call (about 12 instructions). */
	if (wult_hist_on)
		wult_hist_add(&rec->dp);
	if (brrec) {
		wult_stats_inc(&st->branches);
		if (brrec->br.flags & WULT_BRF_OFF)
			wult_stats_inc(&st->branches_off);
		trace_wake_branches(&brrec->br);
	}
	wult_stats_inc(&st->emitted);
	trace_datapoint(&rec->dp);
	deliver = READ_ONCE(wult_deliver_fn);
	if (deliver && deliver(rec, brrec))
		wult_stats_inc(&st->delivery_failed);
}

/*
 * A datapoint nothing reads but counting events (wult_emit()): counted
 * emitted and handed to the PMU's counting callback, which reads only its
 * LDist. No histogram, no tracepoint: the engine found them off. Nothing
 * is held then (a source that holds wants the fields). notrace: every
 * wake of a counting run (wult_engine.c).
 */
notrace void wult_deliver_count(struct wult_stats *st, struct wult_rec *rec)
{
	void (*count)(struct wult_rec *rec);

	wult_stats_inc(&st->emitted);
	count = READ_ONCE(wult_deliver_count_fn);
	if (count)
		count(rec);
}

/* The held datapoint out as it is: its task did not run (ttask 0). */
static void wult_release(struct wult_stats *st)
{
	struct wult_outbox *ob = this_cpu_ptr(&wult_outboxes);

	if (!ob->held)
		return;
	ob->held = false;
	wult_out(st, &ob->rec, ob->held_br ? &ob->brrec : NULL);
}

void wult_deliver(struct wult_stats *st, struct wult_rec *rec,
		  struct wult_br_rec *brrec)
{
	wult_release(st);
	wult_out(st, rec, brrec);
}

void wult_deliver_hold(struct wult_stats *st, const struct wult_rec *rec,
		       const struct wult_br_rec *brrec)
{
	struct wult_outbox *ob = this_cpu_ptr(&wult_outboxes);

	wult_release(st);
	ob->rec = *rec;
	ob->held_br = brrec;
	if (brrec)
		ob->brrec = *brrec;
	ob->held = true;
}

void wult_deliver_task_ran(struct wult_stats *st, u64 ns)
{
	struct wult_outbox *ob = this_cpu_ptr(&wult_outboxes);
	struct wult_dp *dp = &ob->rec.dp;

	if (!ob->held)
		return;
	/* The task runs after the idle exit and its wake's handler. */
	if (ns && ns >= dp->tai && ns >= dp->tintr) {
		dp->ttask = ns;
		dp->flags |= WULT_DPF_TASK;
	}
	wult_release(st);
}

bool wult_deliver_cancel(void)
{
	struct wult_outbox *ob = this_cpu_ptr(&wult_outboxes);
	bool held = ob->held;

	ob->held = false;
	return held;
}

void wult_deliver_set(unsigned int (*deliver)(struct wult_rec *rec,
					      struct wult_br_rec *brrec),
		      void (*count)(struct wult_rec *rec))
{
	WRITE_ONCE(wult_deliver_fn, deliver);
	WRITE_ONCE(wult_deliver_count_fn, count);
}
