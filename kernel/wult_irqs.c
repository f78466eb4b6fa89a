// SPDX-License-Identifier: GPL-2.0
/*
 * wult: interrupt accounting.
 *
 * Whatever interrupt ends an idle period must be seen, or a wake by a
 * posted interrupt, a Hyper-V timer or a threshold interrupt would pass for
 * ours. The kernel's arch_irq_stat_cpu() sums the x86 vectors for
 * /proc/stat but is not exported, so the same counters of irq_cpustat_t
 * are summed here, under the same configuration options as in
 * asm/hardirq.h, plus the device interrupts of kstat. Left out: the ICR
 * read retries (not interrupts) and the machine-check counts (per-CPU
 * variables that modules cannot reach; a machine check is an exception).
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

#include "wult_apic.h"
#include "wult_irqs.h"

u32 wult_irqs(void)
{
	const irq_cpustat_t *s = this_cpu_ptr(&irq_stat);
	u32 n = (u32)this_cpu_ptr(&kstat)->irqs_sum;

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

u32 wult_nmis(void)
{
	return this_cpu_read(irq_stat.__nmi_count);
}

/*
 * Vectors pending in this CPU's local APIC, IRQs off: those it will handle
 * once interrupts are enabled, one per vector however often it was raised.
 * -1 without a local APIC.
 */
int wult_irqs_pending(void)
{
	unsigned int i;
	int n = 0;

	if (!boot_cpu_has(X86_FEATURE_APIC))
		return -1;
	for (i = 0; i < WULT_APIC_IRR_REGS; i++)
		n += hweight32(wult_apic_irr(i));
	return n;
}
