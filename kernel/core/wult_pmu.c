// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the "wult" perf PMU.
 *
 * A wult event is bound to one CPU; while it is scheduled in, the engine
 * measures that CPU and each datapoint whose LDist is in the event's range
 * counts once (perf stat) and, for sampling events, becomes one sample
 * whose PERF_SAMPLE_RAW payload is struct wult_rec (perf record -R).
 * Counting events of the latency-sum kinds add the datapoint's latency in
 * ns instead of one, so perf stat gives means without recording samples.
 * Events of the branches kind get, per datapoint, its branch context
 * (struct wult_br_rec, the wult:wake_branches record) instead, delivered before
 * the datapoint; they exist only where the CPU's LBR can be read.
 * Events of the latency-band kinds take only the datapoints
 * whose raw latency lies in their band [band_lo, band_hi).
 *
 * Events of the idle accounting kinds (idle_time, idle_entries,
 * idle_irq_time, idle_irqs) arm no timer and get no datapoints: while
 * scheduled in they turn on the micro-state accounting of their CPU
 * (wult_mstate.c, wult_mstate_irq.c) and count the time spent in, or the
 * entries of, one requested idle state, or the interrupts taken in it.
 * Events of the exit kinds (exit_intr_time, exit_intrs) take only the
 * datapoints of one requested state whose interrupt ran after the idle
 * exit (intr_off), and add TIntr - TAI, or one.
 *
 * Each kind is one row of wult_kinds[], as each event is in
 * arch/x86/events/msr.c: its name, unit and flags, and the functions
 * that count it. The sysfs events/ aliases and event_init's checks are
 * made from the table; no kind is named anywhere else in this file.
 *
 * Perf does not export perf_event_overflow() to modules; perf_tp_event()
 * is, and does the counting, period and sample output of a software
 * event for every event on the hlist it is given.
 */
#include <linux/list.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>

#include "../accounting/wult_mstate.h"
#include "../trace/wult_trace.h"
#include "wult_deliver.h"
#include "wult_engine.h"
#include "wult_pmu.h"
#include "wult_pmu_int.h"

/* Events scheduled in on this CPU, linked through event->active_entry. */
static DEFINE_PER_CPU(struct list_head, wult_pmu_events);
/*
 * perf_tp_event() delivers to the events of an hlist: each event is put
 * on this CPU's list for its own call only, so that no node of it ever
 * points at a stack frame or at a list it has left.
 */
static DEFINE_PER_CPU(struct hlist_head, wult_pmu_tp_head);

static u16 wult_rec_type;
static u16 wult_br_type;

/*
 * A CPU's started events, while none reads more of a datapoint than its
 * LDist (wult_ev_reads_fields()): their LDist ranges and counts, so that
 * a datapoint only counted (wult_pmu_count_plain()) is added without the
 * walk of the events and their kinds (about 55 instructions a wake,
 * Documentation/bench.md). Rebuilt by wult_pmu_update() at each add, del,
 * start and stop, IRQs off on the CPU, as the engine's state is.
 */
#define WULT_PMU_PLAIN_MAX	4

struct wult_pmu_plain {
	unsigned int n;		/* above WULT_PMU_PLAIN_MAX: walk the list */
	struct {
		u64 lo;		/* LDist range, ns */
		u64 hi;
		local64_t *count;
	} ev[WULT_PMU_PLAIN_MAX];
};

static DEFINE_PER_CPU(struct wult_pmu_plain, wult_pmu_plains);

static bool wult_ev_started(const struct perf_event *event)
{
	return !(event->hw.state & PERF_HES_STOPPED);
}

/*
 * Does @event read more of a datapoint than its LDist: a sample, or a
 * kind that matches or counts by a field (band, state, sums)?
 */
static bool wult_ev_reads_fields(struct perf_event *event)
{
	const struct wult_event_kind *kd = wult_ev_kind(event);

	return is_sampling_event(event) || kd->match || kd->count ||
	       (kd->flags & WULT_KF_BRANCHES);
}

/*
 * The span of the LDist ranges of this CPU's started events drives the
 * engine; with every event stopped it arms nothing more.
 */
static void wult_pmu_update(struct list_head *events)
{
	struct wult_pmu_plain *pl = this_cpu_ptr(&wult_pmu_plains);
	u64 lo = U64_MAX, hi = 0;
	struct perf_event *event;
	bool branches = false, fields = false, started = false;

	pl->n = 0;
	if (list_empty(events)) {
		wult_engine_stop();
		return;
	}
	list_for_each_entry(event, events, active_entry) {
		/* Started or not: what the CPU's events read, conservatively. */
		fields |= wult_ev_reads_fields(event);
		if (!wult_ev_started(event))
			continue;
		started = true;
		lo = min(lo, wult_ev_lo(event));
		hi = max(hi, wult_ev_hi(event));
		if (pl->n < WULT_PMU_PLAIN_MAX) {
			pl->ev[pl->n].lo = wult_ev_lo(event);
			pl->ev[pl->n].hi = wult_ev_hi(event);
			pl->ev[pl->n].count = &event->count;
		}
		pl->n++;
		branches |= wult_ev_is(event, WULT_KF_BRANCHES);
	}
	event = list_first_entry(events, struct perf_event, active_entry);
	if (!started) {
		/* A range for the record; nothing is armed with it. */
		lo = wult_ev_lo(event);
		hi = wult_ev_hi(event);
	}
	wult_engine_start(wult_ev_source(event), lo, hi, branches, fields,
			  started);
}

/* The accounting value an idle event counts, on its CPU, IRQs off. */
static u64 wult_idle_value(struct perf_event *event)
{
	return wult_ev_kind(event)->value(wult_ev_state(event));
}

/*
 * As the msr PMU: add what the accounting grew by since the last look.
 * A value below the last one (a read between the exit probe's two
 * stores) is skipped: the accounting catches up.
 */
static void wult_idle_update(struct perf_event *event)
{
	u64 now = wult_idle_value(event);
	u64 prev = local64_read(&event->hw.prev_count);

	if ((s64)(now - prev) <= 0)
		return;
	local64_set(&event->hw.prev_count, now);
	local64_add(now - prev, &event->count);
}

/*
 * perf stops an added event without removing it to change its period, to
 * adjust a frequency (each tick) and, where the core does it, to throttle
 * it, then restarts it with ->start: meanwhile a datapoint event does not
 * drive the engine of its CPU. (perf_tp_event() never asks to throttle on
 * the first overflow of a call, so wult events are not throttled on 6.1
 * or 6.12; the engine's hold-offs bound their rate.) Events not, or no
 * longer, on the CPU's list are wult_event_add()'s and wult_event_del()'s.
 */
static void wult_event_start(struct perf_event *event, int flags)
{
	bool was_stopped = !wult_ev_started(event);

	if (wult_ev_is(event, WULT_KF_IDLE))
		local64_set(&event->hw.prev_count, wult_idle_value(event));
	event->hw.state = 0;
	if (was_stopped && !wult_ev_is(event, WULT_KF_IDLE) &&
	    !list_empty(&event->active_entry))
		wult_pmu_update(this_cpu_ptr(&wult_pmu_events));
}

static void wult_event_stop(struct perf_event *event, int flags)
{
	bool was_started = wult_ev_started(event);

	if (wult_ev_is(event, WULT_KF_IDLE) && was_started)
		wult_idle_update(event);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (was_started && !wult_ev_is(event, WULT_KF_IDLE) &&
	    !list_empty(&event->active_entry))
		wult_pmu_update(this_cpu_ptr(&wult_pmu_events));
}

static int wult_idle_event_add(struct perf_event *event, int flags)
{
	wult_mstate_get();
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		wult_event_start(event, PERF_EF_RELOAD);
	return 0;
}

static int wult_event_add(struct perf_event *event, int flags)
{
	struct list_head *events = this_cpu_ptr(&wult_pmu_events);
	struct hw_perf_event *hwc = &event->hw;

	if (wult_ev_is(event, WULT_KF_IDLE))
		return wult_idle_event_add(event, flags);
	/* All events here share one source: wult_source_claim() at event_init. */

	/*
	 * As perf_swevent_add(): start a full period ahead, or the first
	 * datapoint would overflow twice.
	 */
	if (is_sampling_event(event)) {
		hwc->last_period = hwc->sample_period;
		if (local64_read(&hwc->period_left) >= 0)
			local64_set(&hwc->period_left, -(s64)hwc->sample_period);
	}
	hwc->state = (flags & PERF_EF_START) ? 0 : PERF_HES_STOPPED;

	list_add_tail(&event->active_entry, events);
	wult_pmu_update(events);
	return 0;
}

static void wult_event_del(struct perf_event *event, int flags)
{
	wult_event_stop(event, flags);
	if (wult_ev_is(event, WULT_KF_IDLE)) {
		wult_mstate_put();
		return;
	}
	list_del_init(&event->active_entry);
	wult_pmu_update(this_cpu_ptr(&wult_pmu_events));
}

/* Datapoint counts are kept by perf_tp_event() itself. */
static void wult_event_read(struct perf_event *event)
{
	if (wult_ev_is(event, WULT_KF_IDLE) &&
	    !(event->hw.state & PERF_HES_STOPPED))
		wult_idle_update(event);
}

/* Is @ldist in the LDist range [@lo, @hi] of an event, both ends in? */
static __always_inline bool wult_ldist_in(u64 ldist, u64 lo, u64 hi)
{
	return ldist >= lo && ldist <= hi;
}

/*
 * Does @event take this datapoint: in its LDist range and its band or
 * state, and for a branches event with a branch context?
 */
static __always_inline bool wult_ev_takes(const struct perf_event *event,
					  const struct wult_rec *rec,
					  const struct wult_br_rec *brrec)
{
	if (!wult_ldist_in(rec->dp.ldist, wult_ev_lo(event), wult_ev_hi(event)))
		return false;
	if (wult_ev_is(event, WULT_KF_BRANCHES) && !brrec)
		return false;
	return wult_ev_match(event, &rec->dp);
}

/*
 * A counting event's datapoint, added as perf_tp_event() adds it
 * (perf_swevent_event() after perf_tp_event_match(): not while stopped;
 * exclude_kernel is refused at event_init, and a PMU's event has no
 * tracepoint filter), without the sample's setup that a count does not
 * use: the recursion context, the caller's registers and the record's
 * trace_entry (Documentation/bench.md, one wake counting).
 */
static void wult_pmu_count(struct perf_event *event, const struct wult_rec *rec)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	local64_add(wult_ev_is(event, WULT_KF_BRANCHES) ? 1 :
		    wult_ev_count(event, &rec->dp), &event->count);
}

/*
 * A sampling event's datapoint, or its branch context for a branches
 * event: perf_tp_event() writes the sample (modules cannot call
 * perf_event_overflow()).
 */
static unsigned int wult_pmu_sample(struct perf_event *event,
				    struct wult_rec *rec,
				    struct wult_br_rec *brrec,
				    struct pt_regs *regs)
{
	struct hlist_head *head = this_cpu_ptr(&wult_pmu_tp_head);
	int rctx;

	rctx = perf_swevent_get_recursion_context();
	if (rctx < 0)
		return 1;
	/*
	 * A one-event list, each event its own count: perf_tp_event()
	 * delivers to it and puts rctx. IRQs are off and only this CPU
	 * uses its head, so the node can go as soon as the call returns.
	 */
	hlist_add_head(&event->hlist_entry, head);
	if (wult_ev_is(event, WULT_KF_BRANCHES))
		perf_tp_event(wult_br_type, 1, brrec, sizeof(*brrec), regs,
			      head, rctx, NULL);
	else
		perf_tp_event(wult_rec_type, wult_ev_count(event, &rec->dp), rec,
			      sizeof(*rec), regs, head, rctx, NULL);
	hlist_del_init(&event->hlist_entry);
	return 0;
}

/* Samples @rec (@branches: its branch context) to the events that take it. */
static unsigned int wult_pmu_sample_set(struct list_head *events,
					bool branches, struct wult_rec *rec,
					struct wult_br_rec *brrec,
					struct pt_regs *regs)
{
	struct perf_event *event;
	unsigned int failed = 0;

	list_for_each_entry(event, events, active_entry)
		if (is_sampling_event(event) &&
		    wult_ev_is(event, WULT_KF_BRANCHES) == branches &&
		    wult_ev_takes(event, rec, brrec))
			failed += wult_pmu_sample(event, rec, brrec, regs);
	return failed;
}

/*
 * The caller's registers of a sample, per CPU: perf_fetch_caller_regs()
 * sets ip, sp, cs and flags, and the rest stays zero from here on (no
 * stack garbage in --intr-regs) without clearing 168 bytes per datapoint.
 * Only the measured CPU's engine writes them, IRQs off.
 */
static DEFINE_PER_CPU(struct pt_regs, wult_pmu_regs);

/*
 * The engine's delivery callback (wult_deliver_set()), IRQs off on
 * the measured CPU: @rec, and @brrec (its branch context, may be NULL) to
 * branches events, to every active event of this CPU that takes it.
 * Returns the number of failed deliveries.
 */
static unsigned int wult_pmu_deliver(struct wult_rec *rec,
				     struct wult_br_rec *brrec)
{
	struct list_head *events = this_cpu_ptr(&wult_pmu_events);
	struct pt_regs *regs = this_cpu_ptr(&wult_pmu_regs);
	struct perf_event *event;
	unsigned int failed = 0;
	bool sampling = false;

	/*
	 * Counting events first: a sample's group read (e.g. a latency sum
	 * in a group led by a sampling event) then includes this datapoint.
	 */
	list_for_each_entry(event, events, active_entry) {
		if (is_sampling_event(event))
			sampling = true;
		else if (wult_ev_takes(event, rec, brrec))
			wult_pmu_count(event, rec);
	}
	if (!sampling)
		return 0;
	perf_fetch_caller_regs(regs);
	/*
	 * Branch contexts before datapoints, as on the tracepoints; without
	 * one, no branches event takes anything (wult_ev_takes()).
	 */
	if (brrec)
		failed += wult_pmu_sample_set(events, true, rec, brrec, regs);
	failed += wult_pmu_sample_set(events, false, rec, brrec, regs);
	return failed;
}

/*
 * The engine's counting callback (wult_deliver_set()), IRQs off on the
 * measured CPU, for a datapoint only counting events take: the CPU's
 * events all count datapoints in an LDist range, and only the started
 * ones are in its plain table, as wult_pmu_count() would add them.
 * notrace: every wake of a counting run (wult_engine.c).
 */
static notrace void wult_pmu_count_plain(struct wult_rec *rec)
{
	const struct wult_pmu_plain *pl = this_cpu_ptr(&wult_pmu_plains);
	u64 ldist = rec->dp.ldist;
	unsigned int i;

	if (unlikely(pl->n > WULT_PMU_PLAIN_MAX)) {
		wult_pmu_deliver(rec, NULL);
		return;
	}
	for (i = 0; i < pl->n; i++)
		if (wult_ldist_in(ldist, pl->ev[i].lo, pl->ev[i].hi))
			local64_inc(pl->ev[i].count);
}

static struct pmu wult_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.attr_groups	= wult_pmu_attr_groups,
	.event_init	= wult_event_init,
	.add		= wult_event_add,
	.del		= wult_event_del,
	.start		= wult_event_start,
	.stop		= wult_event_stop,
	.read		= wult_event_read,
};

int wult_pmu_init(void)
{
	int cpu, ret;

	ret = wult_pmu_attrs_init();
	if (ret) {
		pr_err("wult: the table of event kinds is incomplete\n");
		return ret;
	}
	for_each_possible_cpu(cpu) {
		INIT_LIST_HEAD(per_cpu_ptr(&wult_pmu_events, cpu));
		INIT_HLIST_HEAD(per_cpu_ptr(&wult_pmu_tp_head, cpu));
	}
	wult_rec_type = wult_trace_type();
	wult_br_type = wult_trace_br_type();
	wult_deliver_set(wult_pmu_deliver, wult_pmu_count_plain);
	ret = perf_pmu_register(&wult_pmu, "wult", -1);
	if (ret)
		wult_deliver_set(NULL, NULL);
	return ret;
}

int wult_pmu_type(void)
{
	return wult_pmu.type;
}

void wult_pmu_exit(void)
{
	perf_pmu_unregister(&wult_pmu);
	/* No event is left, so no CPU is measured: nothing is emitted now. */
	wult_deliver_set(NULL, NULL);
}
