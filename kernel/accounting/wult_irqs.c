// SPDX-License-Identifier: GPL-2.0
/*
 * wult: interrupt accounting.
 *
 * Whatever interrupt ends an idle period must be seen, or a wake by a
 * posted interrupt, a Hyper-V timer or a threshold interrupt would pass for
 * ours. The per-CPU counters of irq_cpustat_t that asm/hardirq.h declares
 * are summed here, under the same configuration options, plus the device
 * interrupts of kstat: more than the kernel's arch_irq_stat_cpu() (not
 * exported), which leaves out the posted-interrupt, TLB, deferred error
 * and Hyper-V vectors. Left out: the ICR read retries (not interrupts).
 *
 * Three kinds of interrupt or exception bump no per-CPU counter a module
 * can read: the APIC error vector (a global count), 6.1's
 * IRQ_MOVE_CLEANUP IPI (none) and machine checks (per-CPU counts that are
 * not exported). While wult events exist, probes on tracepoints they pass
 * count them per CPU: irq_vectors:error_apic_entry,
 * irq_vectors:vector_free_moved (what the cleanup IPI does; also hit from
 * process context, which only counts more) and mce:mce_record (each
 * machine check that logs an error). A machine check that logs nothing and
 * a cleanup IPI that frees nothing (it retries by IPI) stay unseen.
 *
 * Each counter is an unsigned int that wraps; the sum is taken modulo 2^32,
 * so the difference of two sums is exact as long as fewer than 2^32
 * interrupts happen in between.
 */
#include <linux/bitops.h>
#include <linux/kernel_stat.h>
#include <linux/percpu.h>
#include <asm/cpufeature.h>
#include <asm/hardirq.h>

#include "../wult_apic.h"
#include "../wult_probes.h"
#include "../wult_users.h"
#include "wult_irqs.h"

/* Interrupts and exceptions seen by the probes below, per CPU. */
static DEFINE_PER_CPU(u32, wult_irqs_seen);

static notrace void wult_irqs_error_apic(void *data, int vector)
{
	this_cpu_inc(wult_irqs_seen);
}

static notrace void wult_irqs_free_moved(void *data, unsigned int irq,
					 unsigned int cpu, unsigned int vector,
					 bool is_managed)
{
	this_cpu_inc(wult_irqs_seen);
}

struct mce;

static notrace void wult_irqs_mce(void *data, struct mce *m)
{
	this_cpu_inc(wult_irqs_seen);
}

/* The probes, by tracepoint name; a kernel without one leaves it out. */
static struct wult_probe wult_irqs_tps[] = {
	{ .name = "error_apic_entry", .func = wult_irqs_error_apic },
	{ .name = "vector_free_moved", .func = wult_irqs_free_moved },
	{ .name = "mce_record", .func = wult_irqs_mce },
};

void wult_irqs_init(void)
{
	wult_probes_find(wult_irqs_tps, ARRAY_SIZE(wult_irqs_tps));
}

static int wult_irqs_start(void)
{
	return wult_probes_register(wult_irqs_tps, ARRAY_SIZE(wult_irqs_tps));
}

static void wult_irqs_stop(void)
{
	wult_probes_unregister(wult_irqs_tps, ARRAY_SIZE(wult_irqs_tps));
}

/* The probes exist while wult events do. */
static struct wult_users wult_irqs_users = {
	.lock = __MUTEX_INITIALIZER(wult_irqs_users.lock),
	.start = wult_irqs_start,
	.stop = wult_irqs_stop,
};

int wult_irqs_get(void)
{
	return wult_users_get(&wult_irqs_users);
}

void wult_irqs_put(void)
{
	wult_users_put(&wult_irqs_users);
}

/* notrace: read three times a wake (wult_engine.c). */
notrace u32 wult_irqs(void)
{
	const irq_cpustat_t *s = this_cpu_ptr(&irq_stat);
	u32 n = (u32)this_cpu_ptr(&kstat)->irqs_sum + this_cpu_read(wult_irqs_seen);

#ifdef CONFIG_X86_LOCAL_APIC
	n += s->apic_timer_irqs + s->irq_spurious_count;
#endif
#if IS_ENABLED(CONFIG_KVM) || defined(CONFIG_HAVE_KVM)
	n += s->kvm_posted_intr_ipis + s->kvm_posted_intr_wakeup_ipis +
	     s->kvm_posted_intr_nested_ipis;
#endif
	n += s->x86_platform_ipis + s->apic_perf_irqs + s->apic_irq_work_irqs;
#ifdef CONFIG_SMP
	n += s->irq_resched_count + s->irq_call_count;
#endif
	n += s->irq_tlb_count;
#ifdef CONFIG_X86_THERMAL_VECTOR
	n += s->irq_thermal_count;
#endif
#ifdef CONFIG_X86_MCE_THRESHOLD
	n += s->irq_threshold_count;
#endif
#ifdef CONFIG_X86_MCE_AMD
	n += s->irq_deferred_error_count;
#endif
#ifdef CONFIG_X86_HV_CALLBACK_VECTOR
	n += s->irq_hv_callback_count;
#endif
#if IS_ENABLED(CONFIG_HYPERV)
	n += s->irq_hv_reenlightenment_count + s->hyperv_stimer0_count;
#endif
#ifdef CONFIG_X86_POSTED_MSI
	n += s->posted_msi_notification_count;
#endif
	return n;
}

/* The vectors pending in IRR register @i, read in x2APIC mode if @x2. */
static __always_inline int wult_irr_weight(unsigned int i, bool x2)
{
	return hweight32(wult_apic_irr_mode(i, x2));
}

/* The eight registers in a row, unrolled (WULT_APIC_IRR_REGS). */
static __always_inline int wult_irr_weights(bool x2)
{
	BUILD_BUG_ON(WULT_APIC_IRR_REGS != 8);
	return wult_irr_weight(0, x2) + wult_irr_weight(1, x2) +
	       wult_irr_weight(2, x2) + wult_irr_weight(3, x2) +
	       wult_irr_weight(4, x2) + wult_irr_weight(5, x2) +
	       wult_irr_weight(6, x2) + wult_irr_weight(7, x2);
}

/*
 * Vectors pending in this CPU's local APIC, IRQs off: those it will handle
 * once interrupts are enabled, one per vector however often it was raised.
 * -1 without a local APIC. Read at a candidate datapoint's idle exit, so
 * the APIC mode is tested once, not per register (a loop doing that took
 * 10-13 instructions a register, unrolled 3-7). notrace: at a wake
 * (wult_engine.c).
 */
notrace int wult_irqs_pending(void)
{
	if (!boot_cpu_has(X86_FEATURE_APIC))
		return -1;
	return x2apic_mode ? wult_irr_weights(true) : wult_irr_weights(false);
}
