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
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/msr.h>

#include "../trace/wult_refusal.h"
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

struct wult_irq_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
};

/* The x86 irq_vectors events, device interrupt handlers and softirqs. */
static struct wult_irq_tp wult_irq_tps[] = {
	{ .name = "local_timer_entry", .probe = wult_vec_entry },
	{ .name = "local_timer_exit", .probe = wult_vec_exit },
	{ .name = "reschedule_entry", .probe = wult_vec_entry },
	{ .name = "reschedule_exit", .probe = wult_vec_exit },
	{ .name = "call_function_entry", .probe = wult_vec_entry },
	{ .name = "call_function_exit", .probe = wult_vec_exit },
	{ .name = "call_function_single_entry", .probe = wult_vec_entry },
	{ .name = "call_function_single_exit", .probe = wult_vec_exit },
	{ .name = "irq_work_entry", .probe = wult_vec_entry },
	{ .name = "irq_work_exit", .probe = wult_vec_exit },
	{ .name = "x86_platform_ipi_entry", .probe = wult_vec_entry },
	{ .name = "x86_platform_ipi_exit", .probe = wult_vec_exit },
	{ .name = "spurious_apic_entry", .probe = wult_vec_entry },
	{ .name = "spurious_apic_exit", .probe = wult_vec_exit },
	{ .name = "error_apic_entry", .probe = wult_vec_entry },
	{ .name = "error_apic_exit", .probe = wult_vec_exit },
	{ .name = "thermal_apic_entry", .probe = wult_vec_entry },
	{ .name = "thermal_apic_exit", .probe = wult_vec_exit },
	{ .name = "threshold_apic_entry", .probe = wult_vec_entry },
	{ .name = "threshold_apic_exit", .probe = wult_vec_exit },
	{ .name = "deferred_error_apic_entry", .probe = wult_vec_entry },
	{ .name = "deferred_error_apic_exit", .probe = wult_vec_exit },
	{ .name = "irq_handler_entry", .probe = wult_hnd_entry },
	{ .name = "irq_handler_exit", .probe = wult_hnd_exit },
	{ .name = "softirq_entry", .probe = wult_soft_entry },
	{ .name = "softirq_exit", .probe = wult_soft_exit },
};

static DEFINE_MUTEX(wult_irq_lock);
static unsigned int wult_irq_users;

static void wult_irq_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wult_irq_tps); i++)
		if (!strcmp(tp->name, wult_irq_tps[i].name))
			wult_irq_tps[i].tp = tp;
}

void wult_mstate_irq_init(void)
{
	for_each_kernel_tracepoint(wult_irq_find_tp, NULL);
}

static void wult_irq_unregister(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wult_irq_tps); i++) {
		if (!wult_irq_tps[i].registered)
			continue;
		tracepoint_probe_unregister(wult_irq_tps[i].tp,
					    wult_irq_tps[i].probe, NULL);
		wult_irq_tps[i].registered = false;
	}
	tracepoint_synchronize_unregister();
}

/*
 * All probes or none. The timer's pair at least: without it the wake
 * interrupt of every hrtimer datapoint would go unseen.
 */
static int wult_irq_register(void)
{
	unsigned int i;
	int ret;

	if (!wult_irq_tps[0].tp || !wult_irq_tps[1].tp)
		return wult_refuse(-EOPNOTSUPP,
				   "no irq_vectors:local_timer_entry/exit tracepoints: no interrupt accounting");
	for (i = 0; i < ARRAY_SIZE(wult_irq_tps); i++) {
		if (!wult_irq_tps[i].tp)
			continue;
		ret = tracepoint_probe_register(wult_irq_tps[i].tp,
						wult_irq_tps[i].probe, NULL);
		if (ret) {
			wult_irq_unregister();
			return ret;
		}
		wult_irq_tps[i].registered = true;
	}
	return 0;
}

int wult_mstate_irq_get(void)
{
	int ret = 0;

	mutex_lock(&wult_irq_lock);
	if (!wult_irq_users)
		ret = wult_irq_register();
	if (!ret)
		wult_irq_users++;
	mutex_unlock(&wult_irq_lock);
	return ret;
}

void wult_mstate_irq_put(void)
{
	mutex_lock(&wult_irq_lock);
	if (!--wult_irq_users)
		wult_irq_unregister();
	mutex_unlock(&wult_irq_lock);
}

u64 wult_mstate_irq_time_ns(unsigned int state)
{
	return wult_mstate_cyc2ns(READ_ONCE(this_cpu_ptr(&wult_mstates)->irq_cycles[state]));
}

u64 wult_mstate_irqs(unsigned int state)
{
	return READ_ONCE(this_cpu_ptr(&wult_mstates)->irqs[state]);
}
