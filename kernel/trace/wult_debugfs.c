// SPDX-License-Identifier: GPL-2.0
/*
 * wult: debugfs view of the engine's per-CPU counters.
 *
 * /sys/kernel/debug/wult/stats: one line per possible CPU,
 *   cpuN armed=A emitted=E early_wake=W not_idle=I stale_tai=S other_intr=O
 *        invalid=V cancelled=C delivery_failed=F branches=B branches_off=O
 *        floor_ns=L floor_n=N held_off=H arm_failed=R other_wake=X
 *        tsc_unstable=U no_wait=N
 * (on one line). Counters are cumulative since module load; floor_ns is
 * the CPU's LDist floor (wult_rules.h) over floor_n intervals, 0 if none.
 * New keys go at the end: readers skip keys they do not know.
 * /sys/kernel/debug/wult/source: per measured CPU, its delayed-event source
 * ("cpu1 hrt").
 * /sys/kernel/debug/wult/lbr: the branch-record reader: arch, model, fake
 * or none.
 * /sys/kernel/debug/wult/hist/: the latency histograms (wult_hist.c).
 * /sys/kernel/debug/wult/events: wult events in existence; the cpu_idle
 * probe is registered exactly while this is not 0.
 * /sys/kernel/debug/wult/measure: measuring without perf (wult_measure.c).
 * /sys/kernel/debug/wult/refusals: why events were refused (wult_refusal.c).
 * /sys/kernel/debug/wult/ipi: the ipi source's launches and task wakes.
 * /sys/kernel/debug/wult/fail_arms: fault injection, root only: write N and
 * the next N arms fail (counted arm_failed, retried: wult_engine.h).
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "../accounting/wult_hist.h"
#include "../accounting/wult_lbr.h"
#include "../core/wult_engine.h"
#include "../core/wult_measure.h"
#include "../sources/nic/wult_dev.h"
#include "../sources/wult_ipi.h"
#include "../sources/wult_source.h"
#include "wult_debugfs.h"
#include "wult_refusal.h"

static struct dentry *wult_dir;

static int stats_show(struct seq_file *m, void *unused)
{
	struct wult_stats s;
	unsigned int cpu;
	u64 floor, n;

	for_each_possible_cpu(cpu) {
		wult_engine_stats(cpu, &s);
		floor = wult_engine_floor(cpu, &n);
		seq_printf(m, "cpu%u armed=%llu emitted=%llu early_wake=%llu not_idle=%llu stale_tai=%llu other_intr=%llu invalid=%llu cancelled=%llu delivery_failed=%llu branches=%llu branches_off=%llu floor_ns=%llu floor_n=%llu held_off=%llu arm_failed=%llu other_wake=%llu tsc_unstable=%llu no_wait=%llu\n",
			   cpu, s.armed, s.emitted, s.early_wake, s.not_idle,
			   s.stale_tai, s.other_intr, s.invalid, s.cancelled,
			   s.delivery_failed, s.branches, s.branches_off, floor, n,
			   s.held_off, s.arm_failed, s.other_wake,
			   s.tsc_unstable, s.no_wait);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* Per CPU measured, its source: "cpu1 tdt". */
static int source_show(struct seq_file *m, void *unused)
{
	const struct wult_source *src;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		src = wult_engine_source(cpu);
		if (src)
			seq_printf(m, "cpu%u %s\n", cpu, wult_source_name(src->id));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(source);

static int lbr_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%s\n", wult_lbr_name());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lbr);

static int events_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%u\n", wult_engine_users());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(events);

/* Best effort: the counters are a diagnostic, not needed to measure. */
void wult_debugfs_init(void)
{
	wult_dir = debugfs_create_dir("wult", NULL);
	debugfs_create_file("stats", 0444, wult_dir, NULL, &stats_fops);
	debugfs_create_file("source", 0444, wult_dir, NULL, &source_fops);
	debugfs_create_file("events", 0444, wult_dir, NULL, &events_fops);
	debugfs_create_file("lbr", 0444, wult_dir, NULL, &lbr_fops);
	debugfs_create_atomic_t("fail_arms", 0600, wult_dir,
				&wult_engine_fail_arms);
	wult_measure_init(wult_dir);
	wult_hist_debugfs_init(wult_dir);
	wult_refusal_debugfs_init(wult_dir);
	wult_ipi_debugfs_init(wult_dir);
	wult_nic_debugfs_init(wult_dir);
}

void wult_debugfs_exit(void)
{
	debugfs_remove_recursive(wult_dir);
	wult_measure_exit();
}
