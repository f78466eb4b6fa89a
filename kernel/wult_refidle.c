// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle: a reference cpuidle driver with known exit latencies.
 *
 * Machines without a cpuidle driver (VMs, the test guests) have one idle
 * state, so the paths wult must get right on real hardware never run there:
 * a governor choosing among several states, states left with interrupts
 * masked (the idle exit runs before the wake interrupt), timer-stop states.
 * This driver provides them, with an exit latency injected by the driver
 * itself, so that what wult measures can be checked against a known answer.
 *
 *   POLL  cpuidle's polling state.
 *   C1    "sti; hlt", interrupts on: the wake interrupt runs at once.
 *   C2    like C1, or, with bit 1 of irqs_off, left with interrupts off.
 *   C3    like C2 (bit 2 of irqs_off); CPUIDLE_FLAG_TIMER_STOP if timer_stop.
 *
 * The injected latency (exit_us) delays what the hardware would delay:
 *   - interrupts on: "hlt" returns into the interrupt handler as soon as the
 *     CPU wakes, which cannot be delayed; the driver then waits exit_us with
 *     interrupts off before it returns, so the idle exit (TAI) carries it;
 *   - interrupts off: the CPU waits with interrupts masked, polling the
 *     local APIC's interrupt request register (IRR) and need_resched(),
 *     notices the wake, waits exit_us and returns; the idle exit runs, then
 *     the interrupt is taken when cpuidle enables interrupts, so both TAI
 *     and the interrupt carry the latency. The CPU spins meanwhile: it
 *     stands in for mwait, whose interrupt-masked wake-up a VM does not
 *     provide.
 * What it cannot simulate: power saved, caches or TLBs lost, package states,
 * a wake latency that varies with what woke the CPU, and the interrupt
 * delay of an interrupts-on state. An NMI ends the hlt wait (hlt returns
 * after its handler) but not the masked one (the loop goes on after it).
 *
 * The exit latency told to cpuidle is exit_us plus the driver's own
 * detection cost (one IRR scan), measured at load.
 */
#include <linux/cpuidle.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <asm/apic.h>
#include <asm/irqflags.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/tsc.h>

#define REFIDLE_STATES		3	/* C1..C3, after POLL */
#define REFIDLE_IRR_REGS	8	/* 256 vectors, 32 per register */

static unsigned int exit_us[REFIDLE_STATES] = { 1, 20, 80 };
static unsigned int target_us[REFIDLE_STATES] = { 2, 100, 400 };
static unsigned int n_exit, n_target;
static unsigned int irqs_off;
static unsigned int masked_max_us = 5000;
static bool timer_stop;

module_param_array(exit_us, uint, &n_exit, 0444);
MODULE_PARM_DESC(exit_us, "injected exit latency of C1,C2,C3 in us (default 1,20,80)");
module_param_array(target_us, uint, &n_target, 0444);
MODULE_PARM_DESC(target_us, "target residency of C1,C2,C3 in us (default 2,100,400)");
module_param(irqs_off, uint, 0444);
MODULE_PARM_DESC(irqs_off, "mask of states left with interrupts off: bit 0 C1 .. bit 2 C3 (default 0)");
module_param(masked_max_us, uint, 0444);
MODULE_PARM_DESC(masked_max_us, "longest interrupts-off wait in us; past it the wait goes on with interrupts on (default 5000)");
module_param(timer_stop, bool, 0444);
MODULE_PARM_DESC(timer_stop, "flag C3 CPUIDLE_FLAG_TIMER_STOP (default 0)");

/* Injected latency of each cpuidle state index, in TSC cycles. */
static u64 refidle_cycles[REFIDLE_STATES + 1];
static u64 refidle_masked_max_cycles;

/*
 * One turn of a wait loop. No pause (cpu_relax()): under QEMU's TCG every
 * pause leaves translated code for the main loop (helper_pause), so a loop
 * with one advances the guest's instruction-counted clock (vm-run --clock
 * icount) about a hundred times more slowly than one without, in host
 * time; a masked C3 entered for a long sleep then stalls the guest for
 * minutes. The loops are bounded by a TSC deadline or a pending interrupt.
 */
static __always_inline void refidle_spin(void)
{
	barrier();
}

static notrace void refidle_wait(int index)
{
	u64 end = rdtsc() + refidle_cycles[index];

	while ((s64)(rdtsc() - end) < 0)
		refidle_spin();
}

/* Is an interrupt waiting to be taken? Interrupts are masked here. */
static notrace bool refidle_irq_pending(void)
{
	unsigned int i;

	for (i = 0; i < REFIDLE_IRR_REGS; i++)
		if (apic->read(APIC_IRR + i * 0x10))
			return true;
	return false;
}

/* Interrupts on: hlt takes the wake interrupt, then the exit waits. */
static notrace int refidle_enter_halt(struct cpuidle_device *dev,
				      struct cpuidle_driver *drv, int index)
{
	if (!need_resched()) {
		raw_safe_halt();
		raw_local_irq_disable();
	}
	refidle_wait(index);
	return index;
}

/*
 * Interrupts off: wait for a pending interrupt, as mwait would. The spin
 * is bounded (masked_max_us): a long sleep, say seconds with nothing
 * measured, would otherwise spin for all of it, which on the
 * instruction-counted clock costs host time in proportion. Past the bound
 * the wait goes on as C1's, interrupts on; a wake after it is an IntrOff=0
 * one.
 */
static notrace int refidle_enter_masked(struct cpuidle_device *dev,
					struct cpuidle_driver *drv, int index)
{
	u64 limit = rdtsc() + refidle_masked_max_cycles;

	while (!need_resched() && !refidle_irq_pending()) {
		if ((s64)(rdtsc() - limit) >= 0) {
			raw_safe_halt();
			raw_local_irq_disable();
			break;
		}
		refidle_spin();
	}
	refidle_wait(index);
	return index;
}

static struct cpuidle_driver refidle_driver = {
	.name	= "wult_refidle",
};

/* The cost of one IRR scan, the resolution of the masked wait, in ns. */
static u64 refidle_detect_ns(void)
{
	unsigned long flags;
	u64 t0, best = U64_MAX;
	int i;

	for (i = 0; i < 16; i++) {
		local_irq_save(flags);
		t0 = rdtsc_ordered();
		refidle_irq_pending();
		best = min(best, rdtsc_ordered() - t0);
		local_irq_restore(flags);
	}
	return div_u64(best * 1000000, tsc_khz);
}

static void refidle_init_state(struct cpuidle_state *s, int index, u64 base_ns)
{
	unsigned int c = index - 1;
	bool masked = irqs_off & BIT(c);

	snprintf(s->name, CPUIDLE_NAME_LEN, "C%d", index);
	snprintf(s->desc, CPUIDLE_DESC_LEN, "%s, exit %u us",
		 masked ? "IRQs off wait" : "hlt", exit_us[c]);
	s->enter = masked ? refidle_enter_masked : refidle_enter_halt;
	s->exit_latency = exit_us[c] + DIV_ROUND_UP_ULL(base_ns, NSEC_PER_USEC);
	s->target_residency = max(target_us[c], s->exit_latency);
	if (index == 3 && timer_stop)
		s->flags |= CPUIDLE_FLAG_TIMER_STOP;
	refidle_cycles[index] = div_u64((u64)exit_us[c] * tsc_khz, 1000);
}

static int __init refidle_init(void)
{
	struct cpuidle_driver *cur = cpuidle_get_driver();
	u64 base_ns;
	int i, ret;

	if (cur) {
		pr_err("wult_refidle: cpuidle driver '%s' is registered already\n",
		       cur->name);
		return -EBUSY;
	}
	if (irqs_off & ~GENMASK(REFIDLE_STATES - 1, 0)) {
		pr_err("wult_refidle: irqs_off=%#x: only bits 0-2 (C1-C3) exist\n",
		       irqs_off);
		return -EINVAL;
	}
	if (!tsc_khz) {
		pr_err("wult_refidle: no TSC frequency to time the exit latency\n");
		return -ENODEV;
	}

	base_ns = refidle_detect_ns();
	refidle_masked_max_cycles = div_u64((u64)masked_max_us * tsc_khz, 1000);
	cpuidle_poll_state_init(&refidle_driver);
	for (i = 1; i <= REFIDLE_STATES; i++)
		refidle_init_state(&refidle_driver.states[i], i, base_ns);
	refidle_driver.state_count = REFIDLE_STATES + 1;

	ret = cpuidle_register(&refidle_driver, NULL);
	if (ret) {
		pr_err("wult_refidle: cpuidle_register failed (%d)%s\n", ret,
		       ret == -ENODEV ? ": cpuidle is off" : "");
		return ret;
	}
	pr_info("wult_refidle: exit %u/%u/%u us, residency %u/%u/%u us, irqs_off %#x (at most %u us), timer_stop %d, detection %llu ns\n",
		exit_us[0], exit_us[1], exit_us[2], target_us[0], target_us[1],
		target_us[2], irqs_off, masked_max_us, timer_stop, base_ns);
	return 0;
}

static void __exit refidle_exit(void)
{
	cpuidle_unregister(&refidle_driver);
}

module_init(refidle_init);
module_exit(refidle_exit);

MODULE_DESCRIPTION("wult_refidle: reference cpuidle driver with injected exit latencies");
MODULE_LICENSE("GPL");
