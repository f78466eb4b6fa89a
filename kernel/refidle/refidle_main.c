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
 *   C3    like C2 (bit 2 of irqs_off); CPUIDLE_FLAG_TIMER_STOP if timer_stop,
 *         leaving the broadcast at the wake (refidle_enter_timer_stop()).
 *
 * The exit latency told to cpuidle is exit_us plus the driver's own
 * detection cost (one IRR scan), measured at load. This file is the
 * driver: its parameters, its states, registration and unloading; what
 * the other files hold, refidle.h says.
 */
#include <linux/cpu.h>
#include <linux/cpuidle.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/tsc.h>

#include "refidle.h"

static char *profile = "ref";
static unsigned int exit_us[REFIDLE_STATES] = { 1, 20, 80 };
static unsigned int target_us[REFIDLE_STATES] = { 2, 100, 400 };
static unsigned int prewake_us[REFIDLE_STATES];
static unsigned int n_exit, n_target, n_prewake;
static unsigned int irqs_off;
static unsigned int masked_max_us = 5000;
static bool timer_stop;

module_param(profile, charp, 0444);
MODULE_PARM_DESC(profile, "state table: ref (the parameters below), skx, icx or spr (intel_idle's) (default ref)");
module_param_array(exit_us, uint, &n_exit, 0444);
MODULE_PARM_DESC(exit_us, "injected exit latency of C1,C2,C3 in us (default 1,20,80; with a profile, injected instead of its declared ones)");
module_param_array(target_us, uint, &n_target, 0444);
MODULE_PARM_DESC(target_us, "target residency of C1,C2,C3 in us (default 2,100,400)");
module_param_array(prewake_us, uint, &n_prewake, 0444);
MODULE_PARM_DESC(prewake_us, "part of the exit latency of C1,C2,C3 a local timer wake saves, in us (default 0,0,0)");
module_param(irqs_off, uint, 0444);
MODULE_PARM_DESC(irqs_off, "mask of states left with interrupts off: bit 0 C1 .. bit 2 C3 (default 0)");
module_param(masked_max_us, uint, 0444);
MODULE_PARM_DESC(masked_max_us, "longest polling wait in us; past it the wait goes on in hlt (default 5000)");
module_param(timer_stop, bool, 0444);
MODULE_PARM_DESC(timer_stop, "flag C3 (a profile's deep states) CPUIDLE_FLAG_TIMER_STOP (default 0)");

static const char *const refidle_wait_names[] = {
	[REFIDLE_HLT]		= "hlt",
	[REFIDLE_IRQ_ON]	= "irqs_on",
	[REFIDLE_MASKED]	= "irqs_off",
};

static struct cpuidle_driver refidle_driver = {
	.name	= "wult_refidle",
};

/* The profile in use, NULL for ref. */
static const struct refidle_profile *refidle_prof;

/*
 * debugfs wult_refidle/states: per state after POLL, what sysfs does not
 * show: "NAME intel_flags=X|- cpuidle_flags=X wait=KIND inject_us=N
 * prewake_us=N", intel_flags being the profile's intel_idle flags word.
 */
static int refidle_states_show(struct seq_file *m, void *v)
{
	const struct cpuidle_state *s;
	int i;

	for (i = 1; i <= REFIDLE_STATES; i++) {
		s = &refidle_driver.states[i];
		seq_printf(m, "%s intel_flags=", s->name);
		if (refidle_prof)
			seq_printf(m, "0x%x", refidle_prof->states[i - 1].flags);
		else
			seq_puts(m, "-");
		seq_printf(m, " cpuidle_flags=0x%x wait=%s inject_us=%u prewake_us=%u\n",
			   s->flags, refidle_wait_names[refidle_waits[i]],
			   exit_us[i - 1], prewake_us[i - 1]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refidle_states);

/* debugfs wult_refidle: bench, kick, states, halt_exit. */
static struct dentry *refidle_dir;

/* State @index of the ref profile, from the module parameters. */
static void refidle_init_ref(struct cpuidle_state *s, int index, u64 base_ns)
{
	unsigned int c = index - 1;
	bool masked = irqs_off & BIT(c);

	snprintf(s->name, CPUIDLE_NAME_LEN, "C%d", index);
	snprintf(s->desc, CPUIDLE_DESC_LEN, "%s, exit %u us",
		 masked ? "IRQs off wait" : "hlt", exit_us[c]);
	refidle_waits[index] = masked ? REFIDLE_MASKED : REFIDLE_HLT;
	s->exit_latency = exit_us[c] + DIV_ROUND_UP_ULL(base_ns, NSEC_PER_USEC);
	s->target_residency = max(target_us[c], s->exit_latency);
	if (index == 3 && timer_stop)
		s->flags |= CPUIDLE_FLAG_TIMER_STOP;
}

/* The parameters against the profile, before anything is set up. */
static int refidle_check_params(const struct refidle_profile *p)
{
	if (!p && !sysfs_streq(profile, "ref")) {
		pr_err("wult_refidle: profile=%s: not one of ref, skx, icx, spr\n",
		       profile);
		return -EINVAL;
	}
	if (p && (n_target || irqs_off)) {
		pr_err("wult_refidle: profile=%s sets its own residencies and wait kinds: target_us and irqs_off apply to profile=ref\n",
		       profile);
		return -EINVAL;
	}
	if (irqs_off & ~GENMASK(REFIDLE_STATES - 1, 0)) {
		pr_err("wult_refidle: irqs_off=%#x: only bits 0-2 (C1-C3) exist\n",
		       irqs_off);
		return -EINVAL;
	}
	return 0;
}

/* The enter() callback, the injected cycles and the pre-wake of @index. */
static int refidle_init_wait(struct cpuidle_state *s, int index)
{
	unsigned int c = index - 1;

	if (prewake_us[c] > exit_us[c]) {
		pr_err("wult_refidle: prewake_us of %s (%u) exceeds its exit latency (%u us)\n",
		       s->name, prewake_us[c], exit_us[c]);
		return -EINVAL;
	}
	if (s->flags & CPUIDLE_FLAG_TIMER_STOP) {
		if (refidle_waits[index] == REFIDLE_IRQ_ON) {
			pr_err("wult_refidle: %s: no timer-stop IRQs-on state\n",
			       s->name);
			return -EINVAL;
		}
		s->flags |= CPUIDLE_FLAG_RCU_IDLE;
	}
	s->enter = refidle_enter_of(refidle_waits[index],
				    s->flags & CPUIDLE_FLAG_TIMER_STOP);
	refidle_cycles[index] = refidle_ns_cycles((u64)exit_us[c] *
						  NSEC_PER_USEC);
	refidle_prewake_cycles[index] = refidle_ns_cycles((u64)prewake_us[c] *
							  NSEC_PER_USEC);
	return 0;
}

static int __init refidle_init(void)
{
	const struct refidle_profile *p = refidle_find_profile(profile);
	struct cpuidle_driver *cur = cpuidle_get_driver();
	struct cpuidle_state *s;
	u64 base_ns;
	int i, ret;

	if (cur) {
		pr_err("wult_refidle: cpuidle driver '%s' is registered already\n",
		       cur->name);
		return -EBUSY;
	}
	ret = refidle_check_params(p);
	if (ret)
		return ret;
	refidle_prof = p;
	if (!tsc_khz) {
		pr_err("wult_refidle: no TSC frequency to time the exit latency\n");
		return -ENODEV;
	}

	base_ns = refidle_detect_ns();
	refidle_masked_max_cycles = refidle_ns_cycles((u64)masked_max_us *
						      NSEC_PER_USEC);
	cpuidle_poll_state_init(&refidle_driver);
	for (i = 1; i <= REFIDLE_STATES; i++) {
		s = &refidle_driver.states[i];
		if (p) {
			refidle_init_intel(s, i, &p->states[i - 1], timer_stop);
			/* Those exit_us leaves out are the declared ones. */
			if (i > n_exit)
				exit_us[i - 1] = p->states[i - 1].exit_latency;
		} else {
			refidle_init_ref(s, i, base_ns);
		}
		ret = refidle_init_wait(s, i);
		if (ret)
			return ret;
		if (s->flags & CPUIDLE_FLAG_TIMER_STOP)
			refidle_ts_used = true;
	}
	refidle_driver.state_count = REFIDLE_STATES + 1;

	ret = refidle_ts_init();
	if (ret)
		return ret;
	ret = cpuidle_register(&refidle_driver, NULL);
	if (ret) {
		pr_err("wult_refidle: cpuidle_register failed (%d)%s\n", ret,
		       ret == -ENODEV ? ": cpuidle is off" : "");
		refidle_ts_exit();
		return ret;
	}
	refidle_dir = debugfs_create_dir("wult_refidle", NULL);
	refidle_bench_init(refidle_dir);
	refidle_kick_init(refidle_dir);
	debugfs_create_file("states", 0444, refidle_dir, NULL,
			    &refidle_states_fops);
	refidle_halt_init(refidle_dir);
	pr_info("wult_refidle: profile %s, exit %u/%u/%u us, pre-wake %u/%u/%u us, residency %u/%u/%u us, waits %s/%s/%s (at most %u us), timer_stop %d, detection %llu ns\n",
		p ? p->name : "ref", exit_us[0], exit_us[1], exit_us[2],
		prewake_us[0], prewake_us[1], prewake_us[2],
		refidle_driver.states[1].target_residency,
		refidle_driver.states[2].target_residency,
		refidle_driver.states[3].target_residency,
		refidle_wait_names[refidle_waits[1]],
		refidle_wait_names[refidle_waits[2]],
		refidle_wait_names[refidle_waits[3]], masked_max_us,
		refidle_ts_used, base_ns);
	return 0;
}

/*
 * Unloading must not free this module's text while a CPU still runs it.
 * cpuidle_unregister() clears cpuidle's "initialized" and waits for an RCU
 * grace period (cpuidle_uninstall_idle_handler(), 6.1 and 6.12 alike):
 * every CPU that read our driver then either went elsewhere or is past the
 * RCU-watched part of cpuidle_enter_state(), with IRQs off since before
 * the read, so it may still be on its way into our enter(), inside it, or
 * in its last instructions after it cleared refidle_inside (the epilogue).
 * RCU cannot see those CPUs: enter() runs after ct_idle_enter().
 *
 * Each enter() has IRQs on only in its sleep (hlt, or the moment an
 * IRQs-on state takes its wake interrupt), after refidle_in() and before
 * refidle_out(). Hence, for each CPU:
 *   1. an IPI waited for runs either in such a window, with
 *      refidle_inside set, or after enter() returned;
 *   2. waiting for refidle_inside to clear then waits out every CPU that
 *      was inside: each is past its last IRQs-on window;
 *   3. a second IPI waited for runs only once each CPU enables IRQs
 *      again, which is in cpuidle's code after enter() returned: the
 *      epilogue is done. (An IPI to a CPU that advertises polling is a
 *      need_resched write, its function run by do_idle(): later still.)
 * No CPU enters our enter() after step 1: none reads the driver any more.
 */
static void refidle_ipi_nop(void *info)
{
}

static void refidle_wait_enters(void)
{
	int cpu;

	cpus_read_lock();
	on_each_cpu(refidle_ipi_nop, NULL, 1);
	for_each_online_cpu(cpu) {
		/* Pairs with refidle_out(). */
		while (smp_load_acquire(per_cpu_ptr(&refidle_inside, cpu)))
			usleep_range(10, 100);
	}
	on_each_cpu(refidle_ipi_nop, NULL, 1);
	cpus_read_unlock();
}

static void __exit refidle_exit(void)
{
	debugfs_remove_recursive(refidle_dir);
	refidle_bench_exit();
	refidle_kick_exit();
	refidle_halt_fini();
	cpuidle_unregister(&refidle_driver);
	refidle_wait_enters();
	refidle_ts_exit();
}

module_init(refidle_init);
module_exit(refidle_exit);

MODULE_DESCRIPTION("wult_refidle: reference cpuidle driver with injected exit latencies");
MODULE_LICENSE("GPL");
