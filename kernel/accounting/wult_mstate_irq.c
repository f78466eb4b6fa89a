// SPDX-License-Identifier: GPL-2.0
/*
 * wult: time in interrupts taken during idle.
 *
 * A state left with interrupts on (hlt, polling) takes its wake interrupt
 * inside the idle period: the handler, and the softirqs run on its way
 * out, are charged to the state's idle_time although the CPU was busy.
 * This accounting measures that share, per requested state, with one TSC
 * read at each end of an interval: it opens at the first handler entry
 * seen while the CPU is in idle and closes when the last handler open in
 * it returns (nested handlers and the softirqs of the interrupt's exit
 * belong to it). It counts the handlers, from their tracepoints, not the
 * entry code before them (a few hundred cycles).
 *
 * Handlers that begin outside idle are ignored whole, so that a softirq
 * run in a preemptible task (PREEMPT_RT) cannot hold an interval open
 * across a later idle period. States left with interrupts off take their
 * interrupt after the idle exit: nothing is charged to them.
 *
 * The probes run on the interrupted CPU and touch only its own counters;
 * its PMU callbacks read them with interrupts off, between intervals.
 */
#include <linux/irq.h>
#include <linux/percpu.h>
#include <asm/msr.h>

#include "../trace/wult_refusal.h"
#include "../wult_probes.h"
#include "../wult_users.h"
#include "wult_mstate.h"

static notrace void wult_irq_open(bool count)
{
	struct wult_mstate *ms;

	if (likely(!this_cpu_read(wult_mstates.users)))
		return;
	ms = this_cpu_ptr(&wult_mstates);
	if (ms->irq_depth) {
		ms->irq_depth++;
		return;
	}
	if (!READ_ONCE(ms->in_idle))
		return;
	ms->irq_depth = 1;
	ms->irq_state = ms->state;
	ms->irq_tsc = rdtsc();
	if (count)
		WRITE_ONCE(ms->irqs[ms->irq_state], ms->irqs[ms->irq_state] + 1);
}

static notrace void wult_irq_close(void)
{
	struct wult_mstate *ms;
	u64 *cyc;

	if (likely(!this_cpu_read(wult_mstates.users)))
		return;
	ms = this_cpu_ptr(&wult_mstates);
	if (!ms->irq_depth || --ms->irq_depth)
		return;
	cyc = &ms->irq_cycles[ms->irq_state];
	WRITE_ONCE(*cyc, *cyc + (rdtsc() - ms->irq_tsc));
}

/* One probe per tracepoint prototype. */
static notrace void wult_vec_entry(void *data, int vector)
{
	wult_irq_open(true);
}

static notrace void wult_vec_exit(void *data, int vector)
{
	wult_irq_close();
}

static notrace void wult_hnd_entry(void *data, int irq, struct irqaction *act)
{
	wult_irq_open(true);
}

static notrace void wult_hnd_exit(void *data, int irq, struct irqaction *act,
				  int ret)
{
	wult_irq_close();
}

static notrace void wult_soft_entry(void *data, unsigned int vec)
{
	wult_irq_open(false);
}

static notrace void wult_soft_exit(void *data, unsigned int vec)
{
	wult_irq_close();
}

/*
 * The x86 irq_vectors events, device interrupt handlers and softirqs, each
 * exit before its entry (wult_probes.h: registered in this order,
 * unregistered in the reverse), so that no interval opens whose close is
 * not seen.
 */
static struct wult_probe wult_irq_tps[] = {
	{ .name = "local_timer_exit", .func = wult_vec_exit },
	{ .name = "local_timer_entry", .func = wult_vec_entry },
	{ .name = "reschedule_exit", .func = wult_vec_exit },
	{ .name = "reschedule_entry", .func = wult_vec_entry },
	{ .name = "call_function_exit", .func = wult_vec_exit },
	{ .name = "call_function_entry", .func = wult_vec_entry },
	{ .name = "call_function_single_exit", .func = wult_vec_exit },
	{ .name = "call_function_single_entry", .func = wult_vec_entry },
	{ .name = "irq_work_exit", .func = wult_vec_exit },
	{ .name = "irq_work_entry", .func = wult_vec_entry },
	{ .name = "x86_platform_ipi_exit", .func = wult_vec_exit },
	{ .name = "x86_platform_ipi_entry", .func = wult_vec_entry },
	{ .name = "spurious_apic_exit", .func = wult_vec_exit },
	{ .name = "spurious_apic_entry", .func = wult_vec_entry },
	{ .name = "error_apic_exit", .func = wult_vec_exit },
	{ .name = "error_apic_entry", .func = wult_vec_entry },
	{ .name = "thermal_apic_exit", .func = wult_vec_exit },
	{ .name = "thermal_apic_entry", .func = wult_vec_entry },
	{ .name = "threshold_apic_exit", .func = wult_vec_exit },
	{ .name = "threshold_apic_entry", .func = wult_vec_entry },
	{ .name = "deferred_error_apic_exit", .func = wult_vec_exit },
	{ .name = "deferred_error_apic_entry", .func = wult_vec_entry },
	{ .name = "irq_handler_exit", .func = wult_hnd_exit },
	{ .name = "irq_handler_entry", .func = wult_hnd_entry },
	{ .name = "softirq_exit", .func = wult_soft_exit },
	{ .name = "softirq_entry", .func = wult_soft_entry },
};

void wult_mstate_irq_init(void)
{
	wult_probes_find(wult_irq_tps, ARRAY_SIZE(wult_irq_tps));
}

/*
 * All probes or none. The timer's pair at least: without it the wake
 * interrupt of every hrtimer datapoint would go unseen.
 */
static int wult_irq_start(void)
{
	if (!wult_irq_tps[0].tp || !wult_irq_tps[1].tp)
		return wult_refuse(-EOPNOTSUPP,
				   "no irq_vectors:local_timer_entry/exit tracepoints: no interrupt accounting");
	return wult_probes_register(wult_irq_tps, ARRAY_SIZE(wult_irq_tps));
}

static void wult_irq_stop(void)
{
	wult_probes_unregister(wult_irq_tps, ARRAY_SIZE(wult_irq_tps));
}

static struct wult_users wult_irq_users = {
	.lock = __MUTEX_INITIALIZER(wult_irq_users.lock),
	.start = wult_irq_start,
	.stop = wult_irq_stop,
};

int wult_mstate_irq_get(void)
{
	return wult_users_get(&wult_irq_users);
}

void wult_mstate_irq_put(void)
{
	wult_users_put(&wult_irq_users);
}

u64 wult_mstate_irq_time_ns(unsigned int state)
{
	return wult_mstate_cyc2ns(READ_ONCE(this_cpu_ptr(&wult_mstates)->irq_cycles[state]));
}

u64 wult_mstate_irqs(unsigned int state)
{
	return READ_ONCE(this_cpu_ptr(&wult_mstates)->irqs[state]);
}
