/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: idle micro-state accounting, time and entries per requested idle
 * state, fed by the cpu_idle probe and read by the PMU's counting events.
 */
#ifndef _WULT_MSTATE_H
#define _WULT_MSTATE_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/msr.h>
#include <trace/events/power.h>

#include "../uapi/linux/wult.h"

struct wult_mstate {
	unsigned int users;	/* accounting events scheduled in here */
	bool in_idle;		/* entered, exit not seen yet */
	u8 state;		/* the state entered */
	u64 enter_tsc;		/* TSC at the entry */
	u64 cycles[WULT_IDLE_STATES];	/* TSC cycles spent in each state */
	u64 entries[WULT_IDLE_STATES];
	/* Interrupts taken in idle (wult_mstate_irq.c), same CPU only. */
	unsigned int irq_depth;	/* handlers open of an interval begun in idle */
	u8 irq_state;		/* the state that interval began in */
	u64 irq_tsc;		/* TSC at its first handler's entry */
	u64 irq_cycles[WULT_IDLE_STATES];	/* TSC cycles in those intervals */
	u64 irqs[WULT_IDLE_STATES];	/* hard interrupts that opened one */
};

DECLARE_PER_CPU(struct wult_mstate, wult_mstates);

/*
 * Inline, so that the probe keeps no frame: the TAI path stays as short
 * as without accounting. rdtsc() unordered, as sched_clock() reads it: a
 * few cycles of skew per period do not matter here, the lfence of
 * rdtsc_ordered() would double the cost (tests/bench/bench_mstate.c).
 */
static __always_inline void wult_mstate_enter(struct wult_mstate *ms,
					      unsigned int state)
{
	if (state >= WULT_IDLE_STATES)
		return;	/* beyond CPUIDLE_STATE_MAX: not a cpuidle index */
	WRITE_ONCE(ms->state, state);
	WRITE_ONCE(ms->entries[state], ms->entries[state] + 1);
	WRITE_ONCE(ms->enter_tsc, rdtsc());
	WRITE_ONCE(ms->in_idle, true);
}

static __always_inline void wult_mstate_exit(struct wult_mstate *ms, u64 tsc)
{
	u64 d = tsc - ms->enter_tsc;

	if (!ms->in_idle)
		return;	/* accounting started inside this idle period */
	/* Out of idle first: a read in between sees too little, never double. */
	WRITE_ONCE(ms->in_idle, false);
	barrier();
	WRITE_ONCE(ms->cycles[ms->state], ms->cycles[ms->state] + d);
}

/**
 * wult_mstate_idle() - the cpu_idle probe's hook
 * @state: the state entered, or PWR_EVENT_EXIT
 *
 * IRQs off except 6.1's default_idle_call() exit: CPUs without an
 * accounting event pay one load and a branch.
 */
static __always_inline void wult_mstate_idle(unsigned int state)
{
	struct wult_mstate *ms;

	if (likely(!this_cpu_read(wult_mstates.users)))
		return;
	ms = this_cpu_ptr(&wult_mstates);
	if (state != PWR_EVENT_EXIT)
		wult_mstate_enter(ms, state);
	else
		wult_mstate_exit(ms, rdtsc());
}

/**
 * wult_mstate_exit_at() - the exit hook of a CPU whose datapoints are measured
 * @tsc: the TSC the engine read first thing in its exit probe
 *
 * The period ends at @tsc, so that the engine's exit work is not idle
 * time, and without a second read.
 */
static __always_inline void wult_mstate_exit_at(u64 tsc)
{
	if (likely(!this_cpu_read(wult_mstates.users)))
		return;
	wult_mstate_exit(this_cpu_ptr(&wult_mstates), tsc);
}

/**
 * wult_mstate_get() - an accounting event was added on this CPU
 *
 * IRQs off (PMU add): the first one starts the accounting at the next
 * idle entry.
 */
void wult_mstate_get(void);

/**
 * wult_mstate_put() - an accounting event was removed from this CPU
 *
 * IRQs off (PMU del).
 */
void wult_mstate_put(void);

/**
 * wult_mstate_time_ns() - time spent in a requested idle state
 * @state: the state, below WULT_IDLE_STATES
 *
 * On the event's CPU, IRQs off.
 *
 * Return: ns, cumulative while this CPU had accounting events, the idle
 * period in progress included.
 */
u64 wult_mstate_time_ns(unsigned int state);

/**
 * wult_mstate_entries() - entries of a requested idle state
 * @state: the state, below WULT_IDLE_STATES
 *
 * On the event's CPU, IRQs off.
 *
 * Return: entries, cumulative while this CPU had accounting events.
 */
u64 wult_mstate_entries(unsigned int state);

/**
 * wult_mstate_cyc2ns() - TSC cycles to ns
 * @cycles: TSC cycles
 *
 * Return: ns, 0 while the TSC rate is unknown.
 */
u64 wult_mstate_cyc2ns(u64 cycles);

/**
 * wult_mstate_irq_get() - register the interrupt tracepoints' probes
 *
 * Interrupt time in idle: the probes exist while an event needs them.
 * Process context (event_init).
 *
 * Return: 0 or the errno of a registration.
 */
int wult_mstate_irq_get(void);

/**
 * wult_mstate_irq_put() - undo wult_mstate_irq_get() (the event's destroy)
 */
void wult_mstate_irq_put(void);

/**
 * wult_mstate_irq_init() - find the interrupt tracepoints, at module load
 */
void wult_mstate_irq_init(void);

/**
 * wult_mstate_irq_time_ns() - time in interrupts taken in an idle state
 * @state: the state, below WULT_IDLE_STATES
 *
 * On the event's CPU, IRQs off.
 *
 * Return: ns.
 */
u64 wult_mstate_irq_time_ns(unsigned int state);

/**
 * wult_mstate_irqs() - interrupts taken in an idle state
 * @state: the state, below WULT_IDLE_STATES
 *
 * On the event's CPU, IRQs off.
 *
 * Return: their number.
 */
u64 wult_mstate_irqs(unsigned int state);

#endif /* _WULT_MSTATE_H */
