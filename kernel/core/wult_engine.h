/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the measurement engine's interface to the PMU glue, the debugfs
 * files and module init.
 */
#ifndef _WULT_ENGINE_H
#define _WULT_ENGINE_H

#include <linux/atomic.h>
#include <linux/trace_events.h>
#include <linux/types.h>

#include "../uapi/linux/wult.h"

struct wult_source;

/*
 * One datapoint as delivered: the 8-byte common header that perf_tp_event()
 * fills in, then the payload. Same layout as the tracepoint record.
 */
struct wult_rec {
	struct trace_entry ent;
	struct wult_dp dp;
};

/* A branch context as delivered: header, then the payload. */
struct wult_br_rec {
	struct trace_entry ent;
	struct wult_branches br;
};

/*
 * Per-CPU counters. Every armed event ends exactly once as emitted,
 * not_idle, stale_tai, other_intr, other_wake, tsc_unstable, no_wait, invalid or
 * cancelled (or is still in flight); early_wake, delivery_failed, held_off and arm_failed
 * are counted on the side.
 */
struct wult_stats {
	u64 armed;		/* delayed events armed */
	u64 emitted;		/* valid datapoints emitted */
	u64 early_wake;		/* idle exits before the event, re-armed TBI */
	u64 not_idle;		/* fired before the CPU went idle */
	u64 stale_tai;		/* something else ended the idle period */
	u64 other_intr;		/* another interrupt or NMI between the halves */
	u64 invalid;		/* failed LTime > TBI, TAI/TIntr >= LTime */
	u64 cancelled;		/* armed when the measurement stopped */
	u64 delivery_failed;	/* perf recursion: a sample was not written */
	u64 branches;		/* branch contexts emitted */
	u64 branches_off;	/* ... of which LBR was not recording */
	u64 held_off;		/* not_idle with a task running: arm delayed */
	u64 arm_failed;		/* the source refused to arm: retried at exit */
	u64 other_wake;		/* exit after LTime, maybe not our wake */
	u64 tsc_unstable;	/* TSC-clocked, after the TSC was marked unstable */
	u64 no_wait;		/* exit of a state seen not waiting (rule N) */
	/* Not counters: the LDist floor (wult_rules.h), TSC cycles. */
	u64 floor_cyc;		/* shortest arm-to-TBI time seen */
	u64 floor_n;		/* arm-to-TBI times seen */
};

/*
 * Counters are written only by their own CPU with IRQs off and read by
 * debugfs from anywhere: single-copy-atomic stores, no lock.
 */
static inline void wult_stats_inc(u64 *counter)
{
	WRITE_ONCE(*counter, *counter + 1);
}

/*
 * Fault injection, debugfs "fail_arms": the next this many arms, of any
 * CPU, fail as a source's refusal does (counted arm_failed, retried at the
 * CPU's next idle exit), so that tests can show the retry.
 */
extern atomic_t wult_engine_fail_arms;

/**
 * wult_engine_init() - find the CPU's counters and seed the LDist picks
 *
 * Process context, at module load, before any source or event exists.
 *
 * Return: 0.
 */
int wult_engine_init(void);

/**
 * wult_engine_source() - the source measuring a CPU
 * @cpu: any possible CPU
 *
 * Return: the source of @cpu's events, NULL while @cpu is not measured.
 */
const struct wult_source *wult_engine_source(unsigned int cpu);

/**
 * wult_engine_get() - register the cpu_idle probe with the first user
 *
 * Process context, for each new perf event (datapoint or idle accounting
 * kind): the probe exists while any does.
 *
 * Return: 0 or the errno of registering the probe.
 */
int wult_engine_get(void);

/**
 * wult_engine_put() - undo wult_engine_get()
 *
 * Process context. The last user unregisters the probe and waits for
 * running probes to finish, so that the caller may free what they use.
 */
void wult_engine_put(void);

/**
 * wult_engine_users() - wult events in existence
 *
 * Return: their number; the cpu_idle probe is registered while it is > 0.
 */
unsigned int wult_engine_users(void);

/**
 * wult_engine_start() - start, retune or pause this CPU's measurement loop
 * @src: the source of the CPU's events; kept until wult_engine_stop()
 * @ldist_min: the shortest LDist to pick, ns
 * @ldist_max: the longest LDist to pick, ns
 * @branches: a branches event is active: read each wake's branch context
 * @fields: an event reads more of a datapoint than its LDist (it samples,
 *	or its kind matches or counts by a field): else, with no histogram
 *	and no tracepoint listener, a datapoint is only checked and counted
 * @started: false when every event of the CPU is stopped by perf: arm
 *	nothing more until started again (what is in flight ends as usual)
 *
 * IRQs off, on the measured CPU.
 */
void wult_engine_start(const struct wult_source *src, u64 ldist_min,
		       u64 ldist_max, bool branches, bool fields, bool started);

/**
 * wult_engine_stop() - stop this CPU's measurement loop
 *
 * IRQs off, on the measured CPU: cancels the armed event, counting it.
 */
void wult_engine_stop(void);

/**
 * wult_engine_stats() - a lockless snapshot of a CPU's counters
 * @cpu: any possible CPU
 * @stats: filled with the counters (not the floor's fields)
 */
void wult_engine_stats(unsigned int cpu, struct wult_stats *stats);

/**
 * wult_engine_floor() - a CPU's LDist floor (wult_rules.h)
 * @cpu: any possible CPU
 * @n: set to the number of arm-to-idle intervals it is the minimum of
 *
 * Return: the floor in ns, 0 while none was measured.
 */
u64 wult_engine_floor(unsigned int cpu, u64 *n);

/* wult_trace.c: the wult:datapoint and wult:wake_branches event ids, the types
 * of the records.
 */
u16 wult_trace_type(void);
u16 wult_trace_br_type(void);

#endif /* _WULT_ENGINE_H */
