/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the measurement engine's interface to the PMU glue, the debugfs
 * files and module init.
 */
#ifndef _WULT_ENGINE_H
#define _WULT_ENGINE_H

#include <linux/trace_events.h>
#include <linux/types.h>

#include "uapi/linux/wult.h"

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
 * not_idle, stale_tai, other_intr, other_wake, tsc_unstable, invalid or
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
	/* Not counters: the LDist floor (wult_rules.h), TSC cycles. */
	u64 floor_cyc;		/* shortest arm-to-TBI time seen */
	u64 floor_n;		/* arm-to-TBI times seen */
};

int wult_engine_init(void);
/* The source measuring @cpu, NULL when it is not measured. */
const struct wult_source *wult_engine_source(unsigned int cpu);

/* Process context, for each new perf event: make sure the probe is in. */
int wult_engine_get(void);
void wult_engine_put(void);
/* wult events in existence; the cpu_idle probe is registered while > 0. */
unsigned int wult_engine_users(void);

/*
 * IRQs off, on the measured CPU: start or retune (LDist range in ns) and
 * stop this CPU's measurement loop. !@started (every event of the CPU
 * stopped by perf): arm nothing more until started again.
 */
void wult_engine_start(const struct wult_source *src, u64 ldist_min,
		       u64 ldist_max, bool branches, bool started);
void wult_engine_stop(void);

void wult_engine_stats(unsigned int cpu, struct wult_stats *stats);
/* @cpu's LDist floor, ns (0: none yet); *@n: intervals it is the minimum of. */
u64 wult_engine_floor(unsigned int cpu, u64 *n);

/* wult_trace.c: the wult:datapoint and wult:wake_branches event ids, the types
 * of the records.
 */
u16 wult_trace_type(void);
u16 wult_trace_br_type(void);

#endif /* _WULT_ENGINE_H */
