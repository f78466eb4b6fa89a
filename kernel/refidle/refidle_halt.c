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
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <asm/tsc.h>

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
	u32 c0, c1;
	u64 t0, t1;
	int i;

	for (i = 0; i < 10 && !refidle_apic_cycles; i++) {
		local_irq_save(flags);
		c0 = refidle_apic_read(APIC_TMCCT);
		t0 = rdtsc_ordered();
		/* 20 us, interrupts off: the tick must not re-arm meanwhile. */
		while (rdtsc() - t0 < 20ULL * tsc_khz / 1000)
			cpu_relax();
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
}

static DEFINE_MUTEX(refidle_halt_lock);
static struct cpumask refidle_halt_mask;

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
	if (__this_cpu_read(refidle_halt_exit))
		refidle_handover_pause();
}

static void refidle_handover_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "hrtimer_expire_exit"))
		refidle_handover_tp = tp;
}

/* Under refidle_halt_lock. */
static int refidle_handover_set(bool on)
{
	int ret;

	if (on == refidle_handover_on)
		return 0;
	if (!refidle_handover_tp)
		for_each_kernel_tracepoint(refidle_handover_find, NULL);
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
 * measured CPU's exit wait sends to the halt_exit CPUs.
 */
static bool refidle_nmi_registered;

static int refidle_nmi(unsigned int type, struct pt_regs *regs)
{
	return refidle_nmi_take() ? NMI_HANDLED : NMI_DONE;
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
	mutex_lock(&refidle_halt_lock);
	refidle_handover_set(false);
	refidle_nmi_targets(cpu_none_mask);
	mutex_unlock(&refidle_halt_lock);
	tracepoint_synchronize_unregister();
	if (refidle_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "wult_refidle");
}

static ssize_t refidle_halt_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	cpumask_var_t mask;
	int cpu, ret;

	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = cpumask_parselist_user(ubuf, len, mask);
	if (!ret && !cpumask_empty(mask) && !refidle_apic_cycles)
		ret = -EOPNOTSUPP;
	if (!ret) {
		mutex_lock(&refidle_halt_lock);
		cpumask_copy(&refidle_halt_mask, mask);
		for_each_possible_cpu(cpu)
			WRITE_ONCE(per_cpu(refidle_halt_exit, cpu),
				   cpumask_test_cpu(cpu, mask));
		WRITE_ONCE(refidle_yield_on, !cpumask_empty(mask));
		refidle_nmi_set(mask);
		/* On failure the waits halt, without the hand-over. */
		ret = refidle_handover_set(!cpumask_empty(mask));
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
	refidle_apic_calibrate();
	debugfs_create_file("halt_exit", 0600, dir, NULL, &refidle_halt_fops);
}
