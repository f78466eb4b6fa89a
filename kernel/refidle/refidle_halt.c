// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle's halting exit waits: debugfs wult_refidle/halt_exit, a CPU
 * list, read and written; the wait itself is refidle_wait_halted()
 * (refidle_wait.c), which says what it does and why.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <asm/tsc.h>
#include <trace/events/power.h>

#include "../wult_compat.h"
#include "refidle.h"

/*
 * The APIC timer's rate against the TSC, for halt_exit: two reads of its
 * current count around a short delay, while the kernel's one-shot timer
 * runs (it is re-armed at every tick of this busy CPU).
 */
static void refidle_apic_calibrate(void)
{
	unsigned long flags;
	u64 t0, t1, span = refidle_ns_cycles(20 * NSEC_PER_USEC);
	u32 c0, c1;
	int i;

	for (i = 0; i < 10 && !refidle_apic_cycles; i++) {
		local_irq_save(flags);
		c0 = refidle_apic_read(APIC_TMCCT);
		t0 = rdtsc_ordered();
		/*
		 * 20 us, interrupts off: the tick must not re-arm meanwhile.
		 * No pause: under TCG it handed the turn to a CPU spinning in a
		 * masked state, which kept it past the timer's expiry (count 0
		 * at the second read, every try, on 6.12-rt with irqs_off=6).
		 */
		while (rdtsc() - t0 < span)
			barrier();
		c1 = refidle_apic_read(APIC_TMCCT);
		t1 = rdtsc_ordered();
		local_irq_restore(flags);
		if (c1 && c1 < c0 && t1 > t0) {
			refidle_apic_ticks = c0 - c1;
			refidle_apic_cycles = t1 - t0;
		} else {
			usleep_range(1000, 2000);
		}
	}
	if (!refidle_apic_cycles)
		pr_info("wult_refidle: APIC timer rate not measured: count %u, then %u, lvtt %#x\n",
			c0, c1, refidle_apic_read(APIC_LVTT));
}

static DEFINE_MUTEX(refidle_halt_lock);
static struct cpumask refidle_halt_mask;

/*
 * The echo. The NMI yield (refidle_wait.c) starts with a measured CPU's
 * exit wait, after its wake interrupt's handler, but under QEMU 7.2's
 * round-robin TCG the wake interrupt itself could wait for a listed CPU's
 * run: with both vCPUs running the turns alternate at each virtual-clock
 * deadline, and the slice's two deadlines a period (vm-run.md, "Slices")
 * could leave the woken CPU with the 10 ns turns (make run: IntrLatency
 * up to +804 us). So a listed CPU gets a local timer interrupt of its own
 * REFIDLE_ECHO_LEAD_NS before a measured CPU's sleep ends, from a pinned
 * hard hrtimer armed for then (refidle_due, cpuidle's next_hrtimer), and
 * from just before the wake pauses in the callback until the measured
 * CPU's handler is done and its exit wait over: whatever turns the
 * deadlines give, the listed vCPU hands them back. The timer is armed
 * from an irq_work that the NMI of the measured CPU's idle entry queues
 * (refidle_echo_send(), refidle_wait.c), or by a listed CPU that slept
 * meanwhile after the hrtimer callback that woke it (the hand-over's
 * probe, below). Tried: an echo at the wake's own deadline put the listed
 * vCPU's interrupt entry (0.65 us) before the measured CPU's handler in
 * half of make run's datapoints, and 1 us after it, inside the handler. On
 * hardware the CPUs run at once: the pauses give the measured vCPU the
 * turns a real CPU would not need.
 */
#define REFIDLE_ECHO_LEAD_NS	2000	/* the echo's lead on the wake */
#define REFIDLE_ECHO_EDGE_NS	200	/* pausing from this before it */
#define REFIDLE_ECHO_LATE_NS	50000	/* a wake this far past is given up */

static DEFINE_PER_CPU(struct hrtimer, refidle_echo_timer);
static DEFINE_PER_CPU(struct irq_work, refidle_echo_work);
static DEFINE_PER_CPU(unsigned long, refidle_echo_armed);
static DEFINE_PER_CPU(unsigned long, refidle_echo_paused);

/* The earliest wake of a measured CPU asleep (its CPU in @of), 0 if none. */
static notrace s64 refidle_due_first(int *of)
{
	s64 due, first = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		due = READ_ONCE(per_cpu(refidle_due, cpu));
		if (due && (!first || due < first)) {
			first = due;
			*of = cpu;
		}
	}
	return first;
}

/* On a listed CPU, interrupts off: the echo timer for the next wake. */
static notrace void refidle_echo_arm(void)
{
	int cpu;
	s64 due = refidle_due_first(&cpu);

	if (!due || due == __this_cpu_read(refidle_echo_at))
		return;
	__this_cpu_write(refidle_echo_at, due);
	due -= REFIDLE_ECHO_LEAD_NS;
	if (due <= ktime_get_mono_fast_ns())
		return;
	hrtimer_start(this_cpu_ptr(&refidle_echo_timer), ns_to_ktime(due),
		      HRTIMER_MODE_ABS_PINNED_HARD);
	__this_cpu_inc(refidle_echo_armed);
}

static void refidle_echo_work_fn(struct irq_work *work)
{
	if (__this_cpu_read(refidle_halt_exit))
		refidle_echo_arm();
}

/*
 * A measured CPU's wake within REFIDLE_ECHO_LEAD_NS or come but its exit
 * wait not started (its handler runs): 0 if none, else its time, and the
 * CPU in @of. A wake long past is given up: that CPU's timer was moved,
 * and pausing while it sleeps would only crawl.
 */
static notrace s64 refidle_due_near(s64 *now, int *of)
{
	s64 due = refidle_due_first(of);

	if (!due)
		return 0;
	*now = ktime_get_mono_fast_ns();
	if (*now < due - REFIDLE_ECHO_LEAD_NS ||
	    *now > due + REFIDLE_ECHO_LATE_NS)
		return 0;
	return due;
}

/*
 * Until REFIDLE_ECHO_EDGE_NS before the wake the CPU spins without a pause:
 * while the measured vCPU halts that is one turn, where a pause each step
 * would crawl (a QEMU round per few guest instructions). Then it pauses in
 * a loop of a few instructions until the measured CPU's exit wait starts
 * (the wake is over) and while any exit wait is left: rounds start at vCPU
 * 0, and when the listed CPU is vCPU 0 it takes the first turn after the
 * wake's deadline, which then ends within a few instructions.
 */
static notrace void refidle_echo_pause(void)
{
	s64 due, now, left;
	u64 end, cycles;
	int cpu;

	due = refidle_due_near(&now, &cpu);
	if (!due && !arch_atomic_read(&refidle_exits))
		return;
	__this_cpu_inc(refidle_echo_paused);
	if (due) {
		left = due - now - REFIDLE_ECHO_EDGE_NS;
		end = rdtsc();
		if (left > 0) {
			end += refidle_ns_cycles(left);
			while ((s64)(rdtsc() - end) < 0 &&
			       READ_ONCE(per_cpu(refidle_due, cpu)) == due)
				barrier();
		}
		cycles = refidle_ns_cycles(REFIDLE_ECHO_EDGE_NS +
					   REFIDLE_ECHO_LATE_NS);
		while (READ_ONCE(per_cpu(refidle_due, cpu)) == due &&
		       (s64)(rdtsc() - end - cycles) < 0)
			cpu_relax();
	}
	while (arch_atomic_read(&refidle_exits))
		cpu_relax();
}

static enum hrtimer_restart refidle_echo_fire(struct hrtimer *timer)
{
	if (__this_cpu_read(refidle_halt_exit))
		refidle_echo_pause();
	return HRTIMER_NORESTART;
}

/*
 * The hand-over: while halt_exit lists a CPU, a listed CPU pauses after
 * each hrtimer callback it runs (tracepoint timer:hrtimer_expire_exit).
 * Under QEMU's round-robin TCG the pause ends the vCPU's turn, so what the
 * callback gave another CPU (an ipi launcher's wake) runs at once, as on
 * hardware. Without it the launcher's turn ended at the APIC timer write
 * of its hrtimer_interrupt() when that moved QEMU's next deadline, else at
 * its exit wait's pause after the interrupt: on 6.12 ipi WakeLatency lay
 * in a 1.4 or a 3.3 us mode by the launcher's idle state (tests/vm/ipi.sh).
 * Registered only while a CPU is listed: otherwise no probe of this module
 * runs on a measured CPU's wake path.
 */
static struct tracepoint *refidle_handover_tp;
static bool refidle_handover_on;

/*
 * The CPU has yet to program its next timer event: a polling wait elsewhere
 * pauses while it is counted in refidle_handovers (refidle_wait.c).
 */
static notrace void refidle_handover(void *data, struct hrtimer *timer)
{
	if (__this_cpu_read(refidle_halt_exit)) {
		/* First: what the callback gave another CPU runs at once. */
		refidle_handover_pause();
		if (refidle_echo_on) {
			refidle_echo_arm();
			refidle_echo_pause();
		}
	}
}

/* Under refidle_halt_lock. */
static int refidle_handover_set(bool on)
{
	int ret;

	if (on == refidle_handover_on)
		return 0;
	if (!refidle_handover_tp)
		refidle_handover_tp = refidle_tp_find("hrtimer_expire_exit");
	if (!refidle_handover_tp)
		return -EOPNOTSUPP;
	if (on)
		ret = tracepoint_probe_register(refidle_handover_tp,
						refidle_handover, NULL);
	else
		ret = tracepoint_probe_unregister(refidle_handover_tp,
						  refidle_handover, NULL);
	if (!ret)
		refidle_handover_on = on;
	return ret;
}

/*
 * The NMI yield (refidle_wait.c says why): the handler for the NMIs a
 * measured CPU sends to the halt_exit CPUs as it starts an exit wait, and
 * as it goes to sleep (the echo, above).
 */
static bool refidle_nmi_registered;

static int refidle_nmi(unsigned int type, struct pt_regs *regs)
{
	s64 due;
	int cpu;

	if (!refidle_nmi_take())
		return NMI_DONE;
	due = refidle_due_first(&cpu);
	if (due && due != __this_cpu_read(refidle_echo_at))
		irq_work_queue(this_cpu_ptr(&refidle_echo_work));
	refidle_yield();
	return NMI_HANDLED;
}

/* Under refidle_halt_lock: the CPUs the NMIs go to (once a handler is in). */
static void refidle_nmi_set(const struct cpumask *mask)
{
	refidle_nmi_targets(cpu_none_mask);
	if (!refidle_nmi_registered && !cpumask_empty(mask))
		refidle_nmi_registered =
			!register_nmi_handler(NMI_LOCAL, refidle_nmi, 0,
					      "wult_refidle");
	if (refidle_nmi_registered)
		refidle_nmi_targets(mask);
}

/* At unload, after the debugfs files are gone. */
void refidle_halt_fini(void)
{
	int cpu;

	mutex_lock(&refidle_halt_lock);
	refidle_handover_set(false);
	refidle_nmi_targets(cpu_none_mask);
	mutex_unlock(&refidle_halt_lock);
	tracepoint_synchronize_unregister();
	if (refidle_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "wult_refidle");
	for_each_possible_cpu(cpu) {
		irq_work_sync(per_cpu_ptr(&refidle_echo_work, cpu));
		hrtimer_cancel(per_cpu_ptr(&refidle_echo_timer, cpu));
	}
}

static ssize_t refidle_halt_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	cpumask_var_t mask;
	int cpu, ret;

	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = cpumask_parselist_user(ubuf, len, mask);
	if (!ret) {
		mutex_lock(&refidle_halt_lock);
		if (!cpumask_empty(mask) && !refidle_apic_cycles) {
			/* Measured again: the load's tries all timed out. */
			refidle_apic_calibrate();
			if (!refidle_apic_cycles)
				ret = -EOPNOTSUPP;
		}
		if (!ret) {
			cpumask_copy(&refidle_halt_mask, mask);
			for_each_possible_cpu(cpu)
				WRITE_ONCE(per_cpu(refidle_halt_exit, cpu),
					   cpumask_test_cpu(cpu, mask));
			WRITE_ONCE(refidle_yield_on, !cpumask_empty(mask));
			refidle_nmi_set(mask);
			/* On failure the waits halt, without the hand-over. */
			ret = refidle_handover_set(!cpumask_empty(mask));
		}
		mutex_unlock(&refidle_halt_lock);
	}
	free_cpumask_var(mask);
	return ret ? ret : len;
}

static int refidle_halt_show(struct seq_file *m, void *v)
{
	mutex_lock(&refidle_halt_lock);
	seq_printf(m, "%*pbl\n", cpumask_pr_args(&refidle_halt_mask));
	mutex_unlock(&refidle_halt_lock);
	return 0;
}

/* debugfs echo: per CPU, the echo timers armed and those that paused. */
static int refidle_echo_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_possible_cpu(cpu)
		seq_printf(m, "cpu%d armed=%lu paused=%lu\n", cpu,
			   per_cpu(refidle_echo_armed, cpu),
			   per_cpu(refidle_echo_paused, cpu));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refidle_echo);

static int refidle_halt_open(struct inode *inode, struct file *file)
{
	return single_open(file, refidle_halt_show, NULL);
}

static const struct file_operations refidle_halt_fops = {
	.owner		= THIS_MODULE,
	.open		= refidle_halt_open,
	.read		= seq_read,
	.write		= refidle_halt_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void refidle_halt_init(struct dentry *dir)
{
	struct hrtimer *timer;
	int cpu;

	for_each_possible_cpu(cpu) {
		timer = per_cpu_ptr(&refidle_echo_timer, cpu);
		hrtimer_init(timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_PINNED_HARD);
		timer->function = refidle_echo_fire;
		/* In hard interrupt context on PREEMPT_RT too. */
		*per_cpu_ptr(&refidle_echo_work, cpu) =
			IRQ_WORK_INIT_HARD(refidle_echo_work_fn);
	}
	refidle_apic_calibrate();
	debugfs_create_file("halt_exit", 0600, dir, NULL, &refidle_halt_fops);
	debugfs_create_file("echo", 0400, dir, NULL, &refidle_echo_fops);
}
