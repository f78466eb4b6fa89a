// SPDX-License-Identifier: GPL-2.0
/*
 * wult: last-branch records (LBR) around a wake.
 *
 * perf_snapshot_branch_stack() is not exported to modules, so wult reads
 * the LBR MSRs itself, the way the x86 perf driver does after a PMI: stop
 * recording, read from the youngest entry back, restart. It never enables
 * LBR: perf owns the hardware (LBR_SELECT filters, context switch,
 * XSAVES of arch LBR), and LBR records exactly while a perf event with a
 * branch stack is scheduled on the CPU. When nothing enabled it, the
 * record says so (WULT_BRF_OFF) rather than return stale entries.
 *
 * Two hardware formats: architectural LBR (CPUID.07H:EDX[19]), entry 0
 * the youngest; and the model-specific LBR of Intel cores since Nehalem,
 * a ring of 8, 16 or 32 entries with a top-of-stack index, whose address
 * MSRs keep flags (mispredict, TSX, cycle counts) above the address bits.
 * Its depth is not architectural: it is found by probing the ring's last
 * MSR, which does not exist on shallower rings.
 *
 * "fake" fills records with known kernel and wult addresses, so that the
 * whole path (capture, delivery, symbolization, reports) is tested on
 * machines and in VMs without LBR.
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <asm/cpufeature.h>
#include <asm/hardirq.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "../core/wult_rules.h"
#include "../uapi/linux/wult.h"
#include "wult_lbr.h"

enum wult_lbr_kind {
	WULT_LBR_NONE,
	WULT_LBR_MODEL,
	WULT_LBR_ARCH,
	WULT_LBR_FAKE,
};

static const char *const wult_lbr_names[] = {
	[WULT_LBR_NONE] = "none",
	[WULT_LBR_MODEL] = "model",
	[WULT_LBR_ARCH] = "arch",
	[WULT_LBR_FAKE] = "fake",
};

static enum wult_lbr_kind wult_lbr_kind;
static unsigned int wult_lbr_depth;	/* entries read, <= WULT_BR_MAX */
static unsigned int wult_lbr_mask;	/* model ring index mask */
static bool wult_lbr_pmu_v4;		/* LBR_FRZ in the PMU global status */

#define WULT_LBR_FAKE_NR	4

/* Model LBR address MSRs carry flags above bit 47: sign-extend from it. */
static u64 wult_lbr_canon(u64 addr)
{
	return (u64)((s64)(addr << 16) >> 16);
}

static unsigned int wult_lbr_model_probe(void)
{
	static const unsigned int depths[] = { 32, 16, 8 };
	unsigned int i;
	u64 v;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL ||
	    !boot_cpu_has(X86_FEATURE_PDCM) || rdmsrl_safe(MSR_LBR_TOS, &v) ||
	    rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &v))
		return 0;
	for (i = 0; i < ARRAY_SIZE(depths); i++)
		if (!rdmsrl_safe(MSR_LBR_NHM_FROM + depths[i] - 1, &v) &&
		    !rdmsrl_safe(MSR_LBR_NHM_TO + depths[i] - 1, &v))
			return depths[i];
	return 0;
}

static unsigned int wult_lbr_arch_probe(void)
{
	u64 ctl, depth;

	if (!boot_cpu_has(X86_FEATURE_ARCH_LBR) ||
	    rdmsrl_safe(MSR_ARCH_LBR_CTL, &ctl) ||
	    rdmsrl_safe(MSR_ARCH_LBR_DEPTH, &depth))
		return 0;
	return min_t(u64, depth, WULT_BR_MAX);
}

/*
 * On PMU version 4 and later a PMI can freeze the LBR (LBR_FRZ in the
 * global status) until perf's handler unfreezes it: the records are then
 * the PMI's, not this wake's.
 */
static bool wult_lbr_frozen(void)
{
	u64 status;

	return wult_lbr_pmu_v4 &&
	       !rdmsrl_safe(MSR_CORE_PERF_GLOBAL_STATUS, &status) &&
	       (status & GLOBAL_STATUS_LBRS_FROZEN);
}

/* PMIs handled by this CPU: perf's handler counts each. */
static u32 wult_lbr_pmis(void)
{
	return this_cpu_read(irq_stat.apic_perf_irqs);
}

/*
 * Restores the LBR control MSR @msr to @val unless a PMI ran since @pmis
 * (wult_rule_lbr_restore()): then it is as perf's handler left it, and the
 * entries read are dropped. A PMI in the two instructions between this
 * check and the write is not seen.
 */
static void wult_lbr_restore(struct wult_branches *br, u32 msr, u64 val,
			     u32 pmis)
{
	if (!wult_rule_lbr_restore(pmis, wult_lbr_pmis())) {
		br->nr = 0;
		br->flags |= WULT_BRF_PMI;
		return;
	}
	wrmsrl_safe(msr, val);
}

/*
 * Every MSR access may fault where a hypervisor does not pass the LBR
 * through: the _safe accessors stop the read at the first fault instead of
 * a kernel warning.
 */
static void wult_lbr_read_model(struct wult_branches *br)
{
	u64 dbg, tos, from, to;
	unsigned int i, idx;
	u32 pmis = wult_lbr_pmis();

	if (rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &dbg) || !(dbg & DEBUGCTLMSR_LBR) ||
	    wult_lbr_frozen()) {
		br->flags |= WULT_BRF_OFF;
		return;
	}
	if (wrmsrl_safe(MSR_IA32_DEBUGCTLMSR, dbg & ~DEBUGCTLMSR_LBR) ||
	    rdmsrl_safe(MSR_LBR_TOS, &tos))
		goto out;
	for (i = 0; i < wult_lbr_depth; i++) {
		idx = (tos - i) & wult_lbr_mask;
		if (rdmsrl_safe(MSR_LBR_NHM_FROM + idx, &from) || !from)
			break;	/* a fault, or never written since reset */
		if (rdmsrl_safe(MSR_LBR_NHM_TO + idx, &to))
			break;
		br->from[br->nr] = wult_lbr_canon(from);
		br->to[br->nr] = wult_lbr_canon(to);
		br->nr++;
	}
out:
	wult_lbr_restore(br, MSR_IA32_DEBUGCTLMSR, dbg, pmis);
}

static void wult_lbr_read_arch(struct wult_branches *br)
{
	u64 ctl, from, to;
	unsigned int i;
	u32 pmis = wult_lbr_pmis();

	br->flags |= WULT_BRF_ARCH;
	if (rdmsrl_safe(MSR_ARCH_LBR_CTL, &ctl) || !(ctl & ARCH_LBR_CTL_LBREN) ||
	    wult_lbr_frozen()) {
		br->flags |= WULT_BRF_OFF;
		return;
	}
	if (wrmsrl_safe(MSR_ARCH_LBR_CTL, ctl & ~ARCH_LBR_CTL_LBREN))
		return;
	for (i = 0; i < wult_lbr_depth; i++) {
		if (rdmsrl_safe(MSR_ARCH_LBR_FROM_0 + i, &from) || !from ||
		    rdmsrl_safe(MSR_ARCH_LBR_TO_0 + i, &to))
			break;
		br->from[br->nr] = from;
		br->to[br->nr] = to;
		br->nr++;
	}
	wult_lbr_restore(br, MSR_ARCH_LBR_CTL, ctl, pmis);
}

/*
 * Entry i: ktime_get+4(i+1) -> wult_lbr_read+4i, addresses any reader can
 * check against kallsyms and wult.ko's symbols.
 */
static void wult_lbr_read_fake(struct wult_branches *br)
{
	unsigned long core = (unsigned long)ktime_get;
	unsigned long mod = (unsigned long)wult_lbr_read;
	unsigned int i;

	br->flags |= WULT_BRF_FAKE;
	for (i = 0; i < WULT_LBR_FAKE_NR; i++) {
		br->from[i] = core + 4 * (i + 1);
		br->to[i] = mod + 4 * i;
	}
	br->nr = WULT_LBR_FAKE_NR;
}

void wult_lbr_read(struct wult_branches *br)
{
	br->nr = 0;
	br->flags = 0;
	switch (wult_lbr_kind) {
	case WULT_LBR_MODEL:
		wult_lbr_read_model(br);
		break;
	case WULT_LBR_ARCH:
		wult_lbr_read_arch(br);
		break;
	case WULT_LBR_FAKE:
		wult_lbr_read_fake(br);
		break;
	default:
		break;
	}
	/* No stale addresses from an earlier wake past nr. */
	memset(&br->from[br->nr], 0, (WULT_BR_MAX - br->nr) * sizeof(br->from[0]));
	memset(&br->to[br->nr], 0, (WULT_BR_MAX - br->nr) * sizeof(br->to[0]));
}

bool wult_lbr_available(void)
{
	return wult_lbr_kind != WULT_LBR_NONE;
}

const char *wult_lbr_name(void)
{
	return wult_lbr_names[wult_lbr_kind];
}

int wult_lbr_init(const char *mode)
{
	wult_lbr_kind = WULT_LBR_NONE;
	wult_lbr_depth = 0;
	if (!strcmp(mode, "off"))
		return 0;
	if (!strcmp(mode, "fake")) {
		wult_lbr_kind = WULT_LBR_FAKE;
		wult_lbr_depth = WULT_LBR_FAKE_NR;
		return 0;
	}
	if (strcmp(mode, "auto"))
		return -EINVAL;

	wult_lbr_pmu_v4 = boot_cpu_data.cpuid_level >= 0xa &&
			  (cpuid_eax(0xa) & 0xff) >= 4;

	wult_lbr_depth = wult_lbr_arch_probe();
	if (wult_lbr_depth) {
		wult_lbr_kind = WULT_LBR_ARCH;
		return 0;
	}
	wult_lbr_depth = wult_lbr_model_probe();
	if (wult_lbr_depth) {
		wult_lbr_kind = WULT_LBR_MODEL;
		wult_lbr_mask = wult_lbr_depth - 1;
	}
	return 0;
}
