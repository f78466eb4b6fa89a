// SPDX-License-Identifier: GPL-2.0
/*
 * wult: measuring without perf.
 *
 * ftrace and trace-cmd users record wult:datapoint, but measurement runs
 * only while a wult perf event is active on a CPU. The debugfs file
 * /sys/kernel/debug/wult/measure creates such events from the kernel
 * (counting, one per CPU) for the CPUs written to it:
 *
 *   echo 1-2 > measure                         # LDist 0-4000 us, hrt
 *   echo "1 ldist=100,1000 source=tdt" > measure
 *   cat measure                                # cpus=1-2 ldist=0,4000 source=hrt
 *   echo none > measure                        # stop
 *
 * Each event holds a reference on the module: rmmod needs "none" first.
 *
 * perf removes the events of a CPU that goes offline, for good: such a
 * CPU leaves the measured set (its event is released), and measuring it
 * again after its return takes a new write.
 */
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "../sources/wult_source.h"
#include "../uapi/linux/wult.h"
#include "wult_measure.h"
#include "wult_pmu.h"

#define WULT_MEASURE_MAX_WRITE	256

static DEFINE_MUTEX(wult_measure_lock);
static DEFINE_PER_CPU(struct perf_event *, wult_measure_ev);
static struct cpumask wult_measure_cpus;
static u64 wult_measure_config;
/*
 * CPUs that died since their event was created: set by the hotplug
 * callback (which cannot take wult_measure_lock: writers hold it while
 * perf takes the hotplug lock), acted on by wult_measure_prune().
 */
static struct cpumask wult_measure_dead;
static int wult_measure_hp;	/* the dynamic hotplug state, > 0 once set up */

static void wult_measure_stop(void)
{
	struct perf_event *ev;
	int cpu;

	for_each_cpu(cpu, &wult_measure_cpus) {
		ev = per_cpu(wult_measure_ev, cpu);
		per_cpu(wult_measure_ev, cpu) = NULL;
		if (ev)
			perf_event_release_kernel(ev);
	}
	cpumask_clear(&wult_measure_cpus);
}

static int wult_measure_start(const struct cpumask *cpus, u64 config)
{
	struct perf_event_attr attr = {
		.type		= wult_pmu_type(),
		.size		= sizeof(attr),
		.config		= config,
		.pinned		= 1,
	};
	struct perf_event *ev;
	int cpu;

	wult_measure_config = config;
	for_each_cpu(cpu, cpus) {
		/* Before the event: a death from now on is this event's. */
		cpumask_clear_cpu(cpu, &wult_measure_dead);
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(ev)) {
			wult_measure_stop();
			return PTR_ERR(ev);
		}
		per_cpu(wult_measure_ev, cpu) = ev;
		cpumask_set_cpu(cpu, &wult_measure_cpus);
	}
	return 0;
}

/* Releases the events of the measured CPUs that went offline. */
static void wult_measure_prune(struct work_struct *work)
{
	struct perf_event *ev;
	int cpu;

	mutex_lock(&wult_measure_lock);
	for_each_cpu(cpu, &wult_measure_cpus) {
		if (!cpumask_test_and_clear_cpu(cpu, &wult_measure_dead))
			continue;
		ev = per_cpu(wult_measure_ev, cpu);
		per_cpu(wult_measure_ev, cpu) = NULL;
		cpumask_clear_cpu(cpu, &wult_measure_cpus);
		if (ev)
			perf_event_release_kernel(ev);
	}
	mutex_unlock(&wult_measure_lock);
}

static DECLARE_WORK(wult_measure_prune_work, wult_measure_prune);

/*
 * After a CPU died, on the CPU that took it down: perf has removed its
 * events by then, so an event created on it before this point is dead.
 */
static int wult_measure_cpu_dead(unsigned int cpu)
{
	cpumask_set_cpu(cpu, &wult_measure_dead);
	queue_work(system_unbound_wq, &wult_measure_prune_work);
	return 0;
}

/* "ldist=MIN,MAX" (us) and "source=hrt|tdt|ipi" into the event config. */
static int wult_measure_option(char *opt, u64 *config)
{
	unsigned int lo, hi, i;
	const char *name;

	if (sscanf(opt, "ldist=%u,%u", &lo, &hi) == 2) {
		if (lo > hi || hi > WULT_LDIST_LIMIT_US || !hi)
			return -EINVAL;
		*config |= wult_cfg_ldist_min_put(lo) | wult_cfg_ldist_max_put(hi);
		return 0;
	}
	if (!strncmp(opt, "source=", 7)) {
		for (i = 0; i < WULT_SOURCE_MAX; i++) {
			name = wult_source_name(i);
			if (name && wult_source_by_id(i) && !strcmp(opt + 7, name)) {
				*config |= wult_cfg_source_put(i);
				return 0;
			}
		}
	}
	return -EINVAL;
}

static int wult_measure_parse(char *buf, struct cpumask *cpus, u64 *config)
{
	char *tok, *s = strim(buf);
	int ret;

	cpumask_clear(cpus);
	*config = 0;
	tok = strsep(&s, " \t");
	if (!tok || !*tok || !strcmp(tok, "none"))
		return s ? -EINVAL : 0;
	ret = cpulist_parse(tok, cpus);
	if (ret)
		return ret;
	if (!cpumask_subset(cpus, cpu_online_mask))
		return -ENODEV;
	while ((tok = strsep(&s, " \t"))) {
		if (!*tok)
			continue;
		ret = wult_measure_option(tok, config);
		if (ret)
			return ret;
	}
	return 0;
}

static ssize_t wult_measure_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct cpumask cpus;
	u64 config;
	char *buf;
	int ret;

	if (count >= WULT_MEASURE_MAX_WRITE)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = wult_measure_parse(buf, &cpus, &config);
	kfree(buf);
	if (ret)
		return ret;

	mutex_lock(&wult_measure_lock);
	wult_measure_stop();
	ret = cpumask_empty(&cpus) ? 0 : wult_measure_start(&cpus, config);
	mutex_unlock(&wult_measure_lock);
	return ret ? ret : count;
}

static int wult_measure_show(struct seq_file *m, void *unused)
{
	u64 c, hi;

	/* The config and the CPU set of one write, both set under the lock. */
	mutex_lock(&wult_measure_lock);
	c = wult_measure_config;
	hi = wult_cfg_ldist_max(c);
	if (cpumask_empty(&wult_measure_cpus))
		seq_puts(m, "none\n");
	else
		seq_printf(m, "cpus=%*pbl ldist=%llu,%llu source=%s\n",
			   cpumask_pr_args(&wult_measure_cpus),
			   wult_cfg_ldist_min(c), hi ? hi : WULT_LDIST_DEF_MAX_US,
			   wult_source_name(wult_cfg_source(c)));
	mutex_unlock(&wult_measure_lock);
	return 0;
}

static int wult_measure_open(struct inode *inode, struct file *file)
{
	return single_open(file, wult_measure_show, NULL);
}

static const struct file_operations wult_measure_fops = {
	.owner		= THIS_MODULE,
	.open		= wult_measure_open,
	.read		= seq_read,
	.write		= wult_measure_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void wult_measure_init(struct dentry *dir)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "wult/measure:dead",
					NULL, wult_measure_cpu_dead);
	if (ret < 0) {
		/* Without it an offlined CPU's dead event would stay listed. */
		pr_info("wult: no CPU hotplug state (%d): no debugfs measure file\n",
			ret);
		return;
	}
	wult_measure_hp = ret;
	debugfs_create_file("measure", 0644, dir, NULL, &wult_measure_fops);
}

/* After the measure file is gone; no measure event exists by then. */
void wult_measure_exit(void)
{
	if (wult_measure_hp > 0)
		cpuhp_remove_state_nocalls(wult_measure_hp);
	cancel_work_sync(&wult_measure_prune_work);
}
