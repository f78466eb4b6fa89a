// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle's profiles: intel_idle's state tables
 * (drivers/idle/intel_idle.c), the figures of Debian's 6.1 and 6.12
 * kernels, which agree: name, description, flags
 * word, exit latency and target residency (us). The flags word is
 * intel_idle's: the MWAIT hint in its top byte, cpuidle's flags, and
 * intel_idle's own from bit 14 on. What the driver makes of them, as
 * intel_idle does:
 *   - IRQ_ENABLE: entered with interrupts on; the idle task advertises
 *     polling (mwait_idle_with_hints()), so a remote wakeup only writes
 *     need_resched and the write ends the wait, as it ends mwait; an
 *     interrupt runs inside the state once the CPU is awake;
 *   - no IRQ_ENABLE: entered and left with interrupts off (mwait's
 *     break-on-interrupt), polling advertised the same way;
 *   - a hint deeper than C1: the local APIC timer stops where it lacks
 *     ARAT, so CPUIDLE_FLAG_TIMER_STOP then (or with timer_stop=1);
 *   - CPUIDLE_FLAG_TLB_FLUSHED: kept (cpuidle leaves the mm before it).
 * ALWAYS_ENABLE (a _CST matter), IBRS and INIT_XSTATE (the MSR write and
 * the FPU reset around mwait) change nothing here. intel_idle also lowers
 * SKX's and SPR's C6 when the BIOS limits package C-states (to 92/276 and
 * 190/600 us); these are the tables as written.
 */
#include <linux/bits.h>
#include <linux/cpuidle.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/mwait.h>

#include "refidle.h"

#define REFIDLE_MWAIT(hint)	((u32)(hint) << 24)
#define REFIDLE_HINT(flags)	((flags) >> 24)
#define REFIDLE_IRQ_ENABLE	BIT(14)
#define REFIDLE_ALWAYS_ENABLE	BIT(15)
#define REFIDLE_IBRS		BIT(16)
#define REFIDLE_INIT_XSTATE	BIT(17)

static const struct refidle_profile refidle_profiles[] = {
	{ "skx", {
		{ "C1", "MWAIT 0x00", REFIDLE_MWAIT(0x00) | REFIDLE_IRQ_ENABLE,
		  2, 2 },
		{ "C1E", "MWAIT 0x01", REFIDLE_MWAIT(0x01) | REFIDLE_ALWAYS_ENABLE,
		  10, 20 },
		{ "C6", "MWAIT 0x20", REFIDLE_MWAIT(0x20) |
		  CPUIDLE_FLAG_TLB_FLUSHED | REFIDLE_IBRS, 133, 600 },
	} },
	{ "icx", {
		{ "C1", "MWAIT 0x00", REFIDLE_MWAIT(0x00) | REFIDLE_IRQ_ENABLE,
		  1, 1 },
		{ "C1E", "MWAIT 0x01", REFIDLE_MWAIT(0x01) | REFIDLE_ALWAYS_ENABLE,
		  4, 4 },
		{ "C6", "MWAIT 0x20", REFIDLE_MWAIT(0x20) |
		  CPUIDLE_FLAG_TLB_FLUSHED, 170, 600 },
	} },
	{ "spr", {
		{ "C1", "MWAIT 0x00", REFIDLE_MWAIT(0x00), 1, 1 },
		{ "C1E", "MWAIT 0x01", REFIDLE_MWAIT(0x01) | REFIDLE_ALWAYS_ENABLE,
		  2, 4 },
		{ "C6", "MWAIT 0x20", REFIDLE_MWAIT(0x20) |
		  CPUIDLE_FLAG_TLB_FLUSHED | REFIDLE_INIT_XSTATE, 290, 800 },
	} },
};

/*
 * State @index of an intel_idle profile, declared as intel_idle declares
 * it (the latency injected is its declared one unless exit_us says
 * otherwise: the caller's part).
 */
void refidle_init_intel(struct cpuidle_state *s, int index,
			const struct refidle_cstate *cs, bool timer_stop)
{
	strscpy(s->name, cs->name, CPUIDLE_NAME_LEN);
	strscpy(s->desc, cs->desc, CPUIDLE_DESC_LEN);
	s->exit_latency = cs->exit_latency;
	s->target_residency = cs->target_residency;
	s->flags = cs->flags & CPUIDLE_FLAG_TLB_FLUSHED;
	refidle_waits[index] = cs->flags & REFIDLE_IRQ_ENABLE ?
			       REFIDLE_IRQ_ON : REFIDLE_MASKED;
	/* intel_idle_state_needs_timer_stop(): deeper than C1, no ARAT. */
	if ((REFIDLE_HINT(cs->flags) >> MWAIT_SUBSTATE_SIZE) &
	    MWAIT_CSTATE_MASK &&
	    (timer_stop || !boot_cpu_has(X86_FEATURE_ARAT)))
		s->flags |= CPUIDLE_FLAG_TIMER_STOP;
}

/* The profile called @name, NULL if none is. */
const struct refidle_profile *refidle_find_profile(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refidle_profiles); i++)
		if (sysfs_streq(name, refidle_profiles[i].name))
			return &refidle_profiles[i];
	return NULL;
}
