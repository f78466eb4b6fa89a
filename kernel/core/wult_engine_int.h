/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the engine's own header, for its two files: wult_engine.c (the
 * per-CPU state machine: the idle probe, the interrupt, arming and
 * emitting) and wult_engine_ctl.c (what runs outside the measurement: the
 * probe's life, counters for debugfs, module init).
 */
#ifndef _WULT_ENGINE_INT_H
#define _WULT_ENGINE_INT_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "wult_engine.h"

/* wult_cpu.active: TAI is the exit probe's TSC read, or ktime_get_ns(). */
#define WULT_TAI_TSC	1
#define WULT_TAI_KTIME	2

struct wult_cpu {
	/*
	 * Measuring this CPU (non-zero, the probes' first test), and how its
	 * source's TAI is read: WULT_TAI_TSC or WULT_TAI_KTIME.
	 */
	u8 active;
	bool paused;		/* no started event: arm nothing (wult_rule_next) */
	bool holdoff;		/* the source is armed for a busy hold-off */
	bool ltime_ok;		/* at the last idle entry our event was first */
	bool armed;		/* event armed, its interrupt not handled yet */
	bool in_idle;		/* TBI taken, the idle exit not seen yet */
	bool woken;		/* exit seen first, our interrupt pending */
	bool fired;		/* interrupt handled inside idle, exit pending */
	bool flag_wake;		/* woken by need_resched alone, handler pending */
	bool want_br;		/* a branches event is active on this CPU */
	bool have_br;		/* brrec holds this wake's branch context */
	bool want_fields;	/* an event reads more of a datapoint than LDist */
	u32 entries;		/* idle entries since the event was armed */
	u32 nowait;		/* states (bits) that did not wait (rule N) */
	bool arm_in_irq;	/* armed from hard IRQ context ... */
	u32 arm_irqs;		/* ... when the interrupt count was this */
	bool in_intr;		/* in our interrupt's handler, which read ... */
	u32 intr_irqs;		/* ... this interrupt count (wult_irqs()) */
	u64 arm_tsc;		/* TSC just before the event was armed */
	u64 arm_base;		/* TSC to date the next arm from, 0: now */
	bool polls;		/* the state of TBI polls with IRQs on */
	const struct wult_source *src;	/* of the events measuring this CPU */
	u64 ldist_min;		/* ns */
	u64 ldist_max;		/* ns */
	/* Snapshots at TBI, and at the datapoint's first half (mark). */
	u64 tsc_bi;
	u64 exit_tsc;		/* TSC at the exit probe's entry */
	bool exit_irqs_on;	/* the exit probe was entered with IRQs on */
	u64 mperf_bi;
	u64 mperf_ai;
	u64 mperf_lead_bi;	/* TSC cycles from TBI's stamp to MPERF's read */
	u64 mperf_lead_ai;	/* ... from TAI's stamp (exit_tsc) */
	u64 smi_bi;
	u32 irqs_bi;
	u32 nmis_bi;
	u32 irqs_mark;
	u32 nmis_mark;
	u32 seq;
	u64 rnd;		/* LDist's xorshift64 state, never 0 */
	struct wult_rec rec;	/* the datapoint being assembled */
	struct wult_br_rec brrec;	/* its branch context */
	struct wult_stats stats;
};

DECLARE_PER_CPU(struct wult_cpu, wult_cpus);

/* What this system offers, fixed at module load (wult_engine_init()). */
extern bool wult_has_mperf;
extern bool wult_has_smi;
extern bool wult_has_lbr;
extern u32 wult_dp_flags;	/* WULT_DPF_* that hold for every datapoint */
extern bool wult_tsc_steady;	/* constant and nonstop */

/* The cpu_idle probe: TBI at entry, TAI at exit, on a measured CPU. */
void wult_idle_probe(void *data, unsigned int state, unsigned int cpu);

#endif /* _WULT_ENGINE_INT_H */
