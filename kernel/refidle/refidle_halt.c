// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle's halting exit waits: debugfs wult_refidle/halt_exit, a CPU
 * list, read and written; the wait itself is refidle_wait_halted()
 * (refidle_wait.c), which says what it does and why.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <asm/apic.h>
#include <asm/processor.h>
#include <asm/tsc.h>

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
