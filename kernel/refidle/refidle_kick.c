// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle's remote wakeups, for the tests (tests/vm/remote.sh): debugfs
 * wult_refidle/kick. "CPU NS" written on one CPU starts a pinned hard
 * hrtimer there that queues an empty cross-CPU call to CPU every NS ns;
 * to a CPU that advertises polling (the interrupts-off wait, POLL)
 * the kernel sends no interrupt for it and only sets need_resched, as for
 * a remote task wakeup. "off" stops it. Reading gives "cpu=C period=NS
 * sent=N busy=B": calls queued, and periods skipped because the last one
 * had not run yet.
 *
 * While it kicks, the kicking CPU's polling waits halt at once: under
 * QEMU's round-robin vCPUs (vm-run --clock icount) a polling vCPU keeps
 * its turn for up to masked_max_us, and the kicked CPU would run only
 * after both a kick and its timer had come, seeing them together.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../wult_compat.h"
#include "refidle.h"

#define REFIDLE_KICK_MAX_WRITE	32

static DEFINE_MUTEX(refidle_kick_lock);
static struct hrtimer refidle_kick_timer;
static int refidle_kick_cpu = -1;
static int refidle_kick_from;
static u64 refidle_kick_period;
static unsigned long refidle_kick_sent, refidle_kick_busy;

static void refidle_kick_fn(void *info)
{
}

static call_single_data_t refidle_kick_csd = CSD_INIT(refidle_kick_fn, NULL);

static enum hrtimer_restart refidle_kick_timer_fn(struct hrtimer *timer)
{
	if (smp_call_function_single_async(refidle_kick_cpu, &refidle_kick_csd))
		WRITE_ONCE(refidle_kick_busy, refidle_kick_busy + 1);
	else
		WRITE_ONCE(refidle_kick_sent, refidle_kick_sent + 1);
	hrtimer_forward_now(timer, ns_to_ktime(refidle_kick_period));
	return HRTIMER_RESTART;
}

/* The timer, then the last call queued: it runs our function. */
static void refidle_kick_stop(void)
{
	if (refidle_kick_cpu < 0)
		return;
	hrtimer_cancel(&refidle_kick_timer);
	/* As csd_lock_wait(): the call's last access precedes the unlock. */
	while (smp_load_acquire(&refidle_kick_csd.node.u_flags) & CSD_FLAG_LOCK)
		usleep_range(100, 1000);
	WRITE_ONCE(per_cpu(refidle_kicker, refidle_kick_from), false);
	refidle_kick_cpu = -1;
}

static ssize_t refidle_kick_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char buf[REFIDLE_KICK_MAX_WRITE];
	unsigned int cpu;
	u64 ns;
	int ret = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	mutex_lock(&refidle_kick_lock);
	refidle_kick_stop();
	if (sysfs_streq(buf, "off"))
		goto out;
	if (sscanf(buf, "%u %llu", &cpu, &ns) != 2 || ns < NSEC_PER_USEC ||
	    cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		ret = -EINVAL;
		goto out;
	}
	refidle_kick_period = ns;
	WRITE_ONCE(refidle_kick_sent, 0);
	WRITE_ONCE(refidle_kick_busy, 0);
	/* Pinned: on this, the writer's, CPU, which must not be the target. */
	preempt_disable();
	if (cpu == smp_processor_id()) {
		ret = -EINVAL;
	} else {
		refidle_kick_cpu = cpu;
		refidle_kick_from = smp_processor_id();
		WRITE_ONCE(per_cpu(refidle_kicker, refidle_kick_from), true);
		hrtimer_start(&refidle_kick_timer, ns_to_ktime(ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	preempt_enable();
out:
	mutex_unlock(&refidle_kick_lock);
	return ret ? ret : len;
}

static int refidle_kick_show(struct seq_file *m, void *v)
{
	mutex_lock(&refidle_kick_lock);
	seq_printf(m, "cpu=%d period=%llu sent=%lu busy=%lu\n", refidle_kick_cpu,
		   refidle_kick_period, READ_ONCE(refidle_kick_sent),
		   READ_ONCE(refidle_kick_busy));
	mutex_unlock(&refidle_kick_lock);
	return 0;
}

static int refidle_kick_open(struct inode *inode, struct file *file)
{
	return single_open(file, refidle_kick_show, NULL);
}

static const struct file_operations refidle_kick_fops = {
	.owner		= THIS_MODULE,
	.open		= refidle_kick_open,
	.read		= seq_read,
	.write		= refidle_kick_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void refidle_kick_init(struct dentry *dir)
{
	wult_hrtimer_setup(&refidle_kick_timer, refidle_kick_timer_fn,
			   CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	debugfs_create_file("kick", 0600, dir, NULL, &refidle_kick_fops);
}

/* After the file was removed. */
void refidle_kick_exit(void)
{
	mutex_lock(&refidle_kick_lock);
	refidle_kick_stop();
	mutex_unlock(&refidle_kick_lock);
}
