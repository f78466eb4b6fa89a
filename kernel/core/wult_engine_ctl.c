// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the engine outside the measurement (wult_engine.c measures): the
 * cpu_idle probe's life with the events, the counters' snapshots for
 * debugfs and the PMU, and what the module learns of the system at load.
 */
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/tracepoint.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <trace/events/power.h>

#include "../accounting/wult_irqs.h"
#include "../accounting/wult_lbr.h"
#include "../wult_users.h"
#include "wult_engine_int.h"
#include "wult_rules.h"

/*
 * The cpu_idle probe exists while wult events do: registered with the first
 * (event_init, process context), unregistered with the last (the event's
 * destroy), so that no CPU pays for it when nothing is measured. While it
 * exists, unmeasured CPUs pay the call and one compare per idle transition.
 */
static int wult_engine_probes_on(void)
{
	int ret = wult_irqs_get();

	if (ret)
		return ret;
	ret = register_trace_cpu_idle(wult_idle_probe, NULL);
	if (ret)
		wult_irqs_put();
	return ret;
}

static void wult_engine_probes_off(void)
{
	unregister_trace_cpu_idle(wult_idle_probe, NULL);
	wult_irqs_put();
	/* The caller may free what the probes use: let them finish. */
	tracepoint_synchronize_unregister();
}

/* wult events in existence */
static struct wult_users wult_probe_users = {
	.lock = __MUTEX_INITIALIZER(wult_probe_users.lock),
	.start = wult_engine_probes_on,
	.stop = wult_engine_probes_off,
};

int wult_engine_get(void)
{
	return wult_users_get(&wult_probe_users);
}

unsigned int wult_engine_users(void)
{
	return wult_users_count(&wult_probe_users);
}

void wult_engine_put(void)
{
	wult_users_put(&wult_probe_users);
}

/* Lockless snapshot for debugfs: 64-bit loads do not tear on x86-64. */
void wult_engine_stats(unsigned int cpu, struct wult_stats *stats)
{
	const struct wult_stats *s = &per_cpu_ptr(&wult_cpus, cpu)->stats;

	stats->armed = READ_ONCE(s->armed);
	stats->emitted = READ_ONCE(s->emitted);
	stats->early_wake = READ_ONCE(s->early_wake);
	stats->not_idle = READ_ONCE(s->not_idle);
	stats->stale_tai = READ_ONCE(s->stale_tai);
	stats->invalid = READ_ONCE(s->invalid);
	stats->other_intr = READ_ONCE(s->other_intr);
	stats->cancelled = READ_ONCE(s->cancelled);
	stats->delivery_failed = READ_ONCE(s->delivery_failed);
	stats->branches = READ_ONCE(s->branches);
	stats->branches_off = READ_ONCE(s->branches_off);
	stats->held_off = READ_ONCE(s->held_off);
	stats->arm_failed = READ_ONCE(s->arm_failed);
	stats->other_wake = READ_ONCE(s->other_wake);
	stats->tsc_unstable = READ_ONCE(s->tsc_unstable);
	stats->no_wait = READ_ONCE(s->no_wait);
}

/*
 * The LDist floor of @cpu in ns (wult_rules.h), 0 if none was measured;
 * *@n: the arm-to-idle intervals it is the shortest of.
 */
u64 wult_engine_floor(unsigned int cpu, u64 *n)
{
	const struct wult_stats *s = &per_cpu_ptr(&wult_cpus, cpu)->stats;

	*n = READ_ONCE(s->floor_n);
	if (!*n || !tsc_khz)
		return 0;
	return mul_u64_u32_div(READ_ONCE(s->floor_cyc), USEC_PER_SEC, tsc_khz);
}

int wult_engine_init(void)
{
	u64 val;
	int cpu;

	wult_has_mperf = boot_cpu_has(X86_FEATURE_APERFMPERF) &&
			 !rdmsrl_safe(MSR_IA32_MPERF, &val);
	wult_has_smi = !rdmsrl_safe(MSR_SMI_COUNT, &val);
	wult_has_lbr = wult_lbr_available();
	wult_irqs_init();
	wult_dp_flags = WULT_DPF_NMI;
	if (wult_has_mperf)
		wult_dp_flags |= WULT_DPF_MPERF;
	if (wult_has_smi)
		wult_dp_flags |= WULT_DPF_SMI;
	/*
	 * The overhead stamps and tsc_delta are TSC cycles converted with one
	 * tsc_khz: exact only with a TSC of constant rate in every C-state,
	 * not marked unstable (wult_rule_tsc_stable(), per datapoint).
	 */
	wult_tsc_steady = boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
			  boot_cpu_has(X86_FEATURE_NONSTOP_TSC);
	if (!wult_rule_tsc_stable(wult_tsc_steady, wult_tsc_steady,
				  check_tsc_unstable()))
		pr_notice("wult: TSC not constant, nonstop and stable: overhead compensation is approximate\n");

	/* Seeded here: get_random_u64() may sleep on PREEMPT_RT. */
	for_each_possible_cpu(cpu)
		per_cpu(wult_cpus, cpu).rnd = get_random_u64() | 1;
	return 0;
}

