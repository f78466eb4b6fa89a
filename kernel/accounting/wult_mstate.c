// SPDX-License-Identifier: GPL-2.0
/*
 * wult: idle micro-state accounting.
 *
 * Micro-state accounting charges time to a state with one clock read per
 * transition. Here the state is the requested idle state of the cpu_idle
 * tracepoint (the cpuidle index; without a driver 1 = default_idle_call(),
 * 0 = cpu_idle_poll()) and the clock is the TSC: the entry reads it and
 * counts the entry, the exit reads it and adds the difference to the
 * state. Nothing else runs per transition, and only on CPUs where a
 * wult/idle_time/ or wult/idle_entries/ event is scheduled in; no timer is
 * armed for it. Cycles are converted to ns with tsc_khz when read.
 *
 * The counters belong to their CPU: written by its probe, read by its PMU
 * callbacks (both IRQs off), and by nobody else, so WRITE_ONCE/READ_ONCE
 * only keep the compiler from tearing them. 6.1's default_idle_call()
 * runs the exit probe with IRQs on: a read (perf's IPI) can then land
 * between the exit's two stores, which the readers absorb (see
 * wult_mstate_time_ns()).
 */
#include <linux/math64.h>
#include <linux/percpu.h>
#include <asm/tsc.h>

#include "wult_mstate.h"

DEFINE_PER_CPU(struct wult_mstate, wult_mstates);

void wult_mstate_get(void)
{
	struct wult_mstate *ms = this_cpu_ptr(&wult_mstates);

	lockdep_assert_irqs_disabled();
	/*
	 * Not in idle now: the next entry starts the first period. Nor in
	 * an interrupt interval: one left open when the last user went
	 * away (its exit skipped) must not swallow the next.
	 */
	if (!ms->users++) {
		WRITE_ONCE(ms->in_idle, false);
		ms->irq_depth = 0;
	}
}

void wult_mstate_put(void)
{
	struct wult_mstate *ms = this_cpu_ptr(&wult_mstates);

	lockdep_assert_irqs_disabled();
	if (!--ms->users)
		WRITE_ONCE(ms->in_idle, false);
}

u64 wult_mstate_cyc2ns(u64 cycles)
{
	return tsc_khz ? mul_u64_u32_div(cycles, NSEC_PER_MSEC, tsc_khz) : 0;
}

/*
 * The read runs in an interrupt, possibly one that woke the CPU from
 * @state before the exit probe ran: the period so far counts too. The
 * exit then adds the whole period, so the value only grows, except when
 * the read falls between the exit's two stores (too small by the
 * period); the PMU keeps the largest value it saw.
 */
u64 wult_mstate_time_ns(unsigned int state)
{
	struct wult_mstate *ms = this_cpu_ptr(&wult_mstates);
	u64 cyc = READ_ONCE(ms->cycles[state]);

	if (READ_ONCE(ms->in_idle) && READ_ONCE(ms->state) == state)
		cyc += rdtsc() - READ_ONCE(ms->enter_tsc);
	return wult_mstate_cyc2ns(cyc);
}

u64 wult_mstate_entries(unsigned int state)
{
	return READ_ONCE(this_cpu_ptr(&wult_mstates)->entries[state]);
}
