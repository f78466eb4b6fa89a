// SPDX-License-Identifier: GPL-2.0
/*
 * wult: in-kernel latency histograms, the -rt latency_hist way.
 *
 * For each CPU measured since the module was loaded, and each idle state
 * it could request, one histogram per metric (WakeLatency = TAI - LTime,
 * IntrLatency = TIntr - LTime, SilentTime = LTime - TBI, TaiToIntr =
 * TIntr - TAI, all raw ns) of every emitted datapoint, so that week-long
 * runs need neither storage nor a reader. Beside the bins (hist_bins of
 * hist_bin_us each, plus underflow and overflow counts) the exact count,
 * sum, minimum and maximum are kept.
 *
 * TaiToIntr is negative when the interrupt handler ran before the CPU
 * left idle (states entered with IRQs on, e.g. hlt) and positive when it
 * ran after (IRQs off): its histograms are bipolar, as latency_hist's
 * offset ones were, with half the bins below zero. The other metrics
 * cannot be negative (wult_emit() drops such datapoints), so theirs start
 * at 0 and a bipolar option for them would only waste half their bins.
 *
 * They exist only when the module is loaded with hist_bins > 0 (e.g.
 * "modprobe wult hist_bins=10240"; off by default).
 *
 * A CPU's histograms are allocated when the first wult datapoint event for
 * it is created (process context) and kept until the module is unloaded:
 * nothing is allocated while measuring, so a long run cannot grow memory.
 * Their states are those of the cpuidle driver of that moment; a later
 * event that finds another driver (swapped, or states added) starts them
 * over with its states, and until then the datapoints of another driver
 * only count as "other states": a state index names a state only within
 * one driver.
 * They are written only by their CPU, with IRQs off, from wult_emit(), and
 * cleared by that CPU too (reset sends it an IPI), so updates need no lock;
 * readers anywhere get single-copy-atomic words (READ_ONCE), which while a
 * measurement runs may be a few datapoints apart from each other.
 *
 * debugfs, wult/hist/: <metric>/CPU<N> in the latency_hist layout, one
 * section per idle state opened by "#State: NAME"; writing 1 to reset
 * clears every histogram.
 */
#include <linux/cpu.h>
#include <linux/cpuidle.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/local64.h>

#include "wult_hist.h"

/* The metrics and their folders' names: the uapi header's, "wult hist"'s. */
static const char *const wult_hm_names[WULT_HM_MAX] = WULT_HM_NAMES;

/* Metrics that can be negative: half their bins lie below zero. */
static const bool wult_hm_bipolar[WULT_HM_MAX] = {
	[WULT_HM_TAI_INTR] = true,
};

/*
 * Off unless asked for at load: their update is about 110 instructions a
 * datapoint (Documentation/bench.md), paid by every event, counting ones
 * included, whether or not anyone reads them.
 */
static unsigned int hist_bins;
module_param(hist_bins, uint, 0444);
MODULE_PARM_DESC(hist_bins, "latency histogram bins (default 0: no histograms; wult hist needs them, e.g. 10240; tai_to_intr puts half below zero)");

static unsigned int hist_bin_us = 1;
module_param(hist_bin_us, uint, 0444);
MODULE_PARM_DESC(hist_bin_us, "latency histogram bin width, microseconds (default 1)");

#define WULT_HIST_NAME_LEN	16	/* CPUIDLE_NAME_LEN */

/*
 * Bin i holds [i * bin - base, (i + 1) * bin - base), base = off * bin.
 * The counts and the sum are local64_t: their owner CPU adds with one
 * instruction (a WRITE_ONCE() of the sum took a load, an add and a store),
 * and readers elsewhere get whole words.
 */
struct wult_hist {
	local64_t count;
	local64_t sum;		/* ns */
	s64 min;		/* ns, S64_MAX while count is 0 */
	s64 max;		/* ns, S64_MIN while count is 0 */
	local64_t under;	/* samples < -base */
	local64_t over;		/* samples >= hist_bins * bin - base */
	local64_t bins[];
};

struct wult_hist_cpu {
	const struct cpuidle_driver *drv;	/* whose states these are */
	unsigned int nstates;
	u64 nohist;	/* datapoints of a state beyond nstates */
	char names[WULT_IDLE_STATES][WULT_HIST_NAME_LEN];
	struct wult_hist *h[WULT_HM_MAX][WULT_IDLE_STATES];
};

static DEFINE_PER_CPU(struct wult_hist_cpu *, wult_hists);
static DEFINE_MUTEX(wult_hist_lock);	/* allocation and reset */
static u32 wult_bin_ns;
bool wult_hist_on;

static void wult_hist_free_cpu(struct wult_hist_cpu *hc)
{
	int m, s;

	for (m = 0; m < WULT_HM_MAX; m++)
		for (s = 0; s < WULT_IDLE_STATES; s++)
			vfree(hc->h[m][s]);
	kfree(hc);
}

/* The states this CPU can request now, and their names. */
static void wult_hist_states(struct wult_hist_cpu *hc)
{
	struct cpuidle_driver *drv = cpuidle_get_driver();
	int s;

	hc->drv = drv;
	if (!drv) {
		/* cpu_idle_poll() traces state 0, default_idle_call() 1. */
		hc->nstates = 2;
		strscpy(hc->names[0], "POLL", WULT_HIST_NAME_LEN);
		strscpy(hc->names[1], "default_idle", WULT_HIST_NAME_LEN);
		return;
	}
	hc->nstates = min_t(int, drv->state_count, WULT_IDLE_STATES);
	for (s = 0; s < hc->nstates; s++)
		strscpy(hc->names[s], drv->states[s].name, WULT_HIST_NAME_LEN);
}

/*
 * Empty: min and max start at the far ends, so that the first datapoint
 * replaces both without a test of count (wult_hist_put()).
 */
static void wult_hist_empty(struct wult_hist *h)
{
	WRITE_ONCE(h->min, S64_MAX);
	WRITE_ONCE(h->max, S64_MIN);
}

static struct wult_hist_cpu *wult_hist_alloc_cpu(void)
{
	struct wult_hist_cpu *hc;
	struct wult_hist *h;
	size_t size = struct_size(h, bins, hist_bins);
	int m, s;

	hc = kzalloc(sizeof(*hc), GFP_KERNEL);
	if (!hc)
		return NULL;
	wult_hist_states(hc);
	for (m = 0; m < WULT_HM_MAX; m++) {
		for (s = 0; s < hc->nstates; s++) {
			hc->h[m][s] = vzalloc(size);
			if (!hc->h[m][s]) {
				wult_hist_free_cpu(hc);
				return NULL;
			}
			wult_hist_empty(hc->h[m][s]);
		}
	}
	return hc;
}

/* Are @hc's states no longer the driver's (swapped, states added)? */
static bool wult_hist_stale(const struct wult_hist_cpu *hc)
{
	struct wult_hist_cpu now;
	unsigned int s;

	wult_hist_states(&now);
	if (now.drv != hc->drv || now.nstates != hc->nstates)
		return true;
	for (s = 0; s < now.nstates; s++)
		if (strcmp(now.names[s], hc->names[s]))
			return true;
	return false;
}

int wult_hist_get(int cpu)
{
	struct wult_hist_cpu *hc, *old;
	int ret = 0;

	if (!wult_bin_ns)
		return 0;	/* hist_bins=0: no histograms */
	mutex_lock(&wult_hist_lock);
	old = per_cpu(wult_hists, cpu);
	if (!old || wult_hist_stale(old)) {
		hc = wult_hist_alloc_cpu();
		if (!hc) {
			ret = -ENOMEM;
		} else {
			/* wult_hist_add() sees the names and pointers filled in. */
			smp_store_release(per_cpu_ptr(&wult_hists, cpu), hc);
			if (old) {
				pr_info("wult: CPU%d: the cpuidle driver changed: its histograms start over\n",
					cpu);
				/* Lets a wult_hist_add() that has the old one finish. */
				synchronize_rcu();
				wult_hist_free_cpu(old);
			}
		}
	}
	mutex_unlock(&wult_hist_lock);
	return ret;
}

static inline void wult_inc(u64 *p)
{
	WRITE_ONCE(*p, *p + 1);
}

/* Bins of metric @m below zero. */
static unsigned int wult_hist_off(int m)
{
	return wult_hm_bipolar[m] ? hist_bins / 2 : 0;
}

/*
 * The bin of @v (ns) for @off bins below zero: -1 below the first. Inlined
 * like wult_hist_put(): per datapoint, where @off is mostly a constant 0.
 */
static __always_inline s64 wult_hist_bin(s64 v, unsigned int off)
{
	s64 base = (s64)off * wult_bin_ns;

	if (v < -base)
		return -1;
	return div_u64(v + base, wult_bin_ns);
}

/* Four per datapoint: inlined, which spares their calls (bench.md). */
static __always_inline void wult_hist_put(struct wult_hist *h, s64 v,
					  unsigned int off)
{
	s64 bin = wult_hist_bin(v, off);

	if (bin < 0)
		local64_inc(&h->under);
	else if (bin < hist_bins)
		local64_inc(&h->bins[bin]);
	else
		local64_inc(&h->over);
	if (v < h->min)
		WRITE_ONCE(h->min, v);
	if (v > h->max)
		WRITE_ONCE(h->max, v);
	local64_add(v, &h->sum);
	local64_inc(&h->count);
}

void wult_hist_add(const struct wult_dp *dp)
{
	/* Pairs with wult_hist_get()'s release. */
	struct wult_hist_cpu *hc = smp_load_acquire(this_cpu_ptr(&wult_hists));
	u32 s = dp->req_cstate;

	if (!hc)
		return;
	/* Another driver's state index, until an event refreshes them. */
	if (s >= hc->nstates || cpuidle_get_driver() != hc->drv) {
		wult_inc(&hc->nohist);
		return;
	}
	/* wult_emit() made sure that these differences are not negative. */
	wult_hist_put(hc->h[WULT_HM_WAKE][s], dp->wake_latency, 0);
	wult_hist_put(hc->h[WULT_HM_INTR][s], dp->intr_latency, 0);
	wult_hist_put(hc->h[WULT_HM_SILENT][s], dp->ltime - dp->tbi, 0);
	wult_hist_put(hc->h[WULT_HM_TAI_INTR][s], (s64)(dp->tintr - dp->tai),
		      wult_hist_off(WULT_HM_TAI_INTR));
}

/* Only the bins between min and max can be non-zero. */
static void wult_hist_clear(struct wult_hist *h, unsigned int off)
{
	s64 lo, hi;

	if (local64_read(&h->count)) {
		lo = max_t(s64, wult_hist_bin(h->min, off), 0);
		hi = min_t(s64, wult_hist_bin(h->max, off), hist_bins - 1);
		if (lo <= hi)
			memset(&h->bins[lo], 0, (hi - lo + 1) * sizeof(h->bins[0]));
	}
	local64_set(&h->count, 0);
	local64_set(&h->sum, 0);
	wult_hist_empty(h);
	local64_set(&h->under, 0);
	local64_set(&h->over, 0);
}

/* On the histograms' own CPU with IRQs off, or on an offline one. */
static void wult_hist_clear_cpu(void *arg)
{
	struct wult_hist_cpu *hc = arg;
	int m, s;

	for (m = 0; m < WULT_HM_MAX; m++)
		for (s = 0; s < hc->nstates; s++)
			wult_hist_clear(hc->h[m][s], wult_hist_off(m));
	WRITE_ONCE(hc->nohist, 0);
}

static void wult_hist_reset(void)
{
	struct wult_hist_cpu *hc;
	int cpu;

	mutex_lock(&wult_hist_lock);
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		hc = per_cpu(wult_hists, cpu);
		if (!hc)
			continue;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, wult_hist_clear_cpu, hc, 1);
		else
			wult_hist_clear_cpu(hc);
	}
	cpus_read_unlock();
	mutex_unlock(&wult_hist_lock);
}

/*
 * One "#State:" section in the latency_hist layout; a bipolar one (@off
 * bins below zero) has rows of negative microseconds, as its offset
 * histograms had. Each row is its bin's lower bound.
 */
static void wult_hist_show_one(struct seq_file *m, const char *name,
			       const struct wult_hist *h, unsigned int off)
{
	u64 count = local64_read(&h->count);
	s64 sum = local64_read(&h->sum);
	/* Read after count: 0 for an empty one, not the sentinels. */
	s64 min = count ? READ_ONCE(h->min) : 0, max = count ? READ_ONCE(h->max) : 0;
	s64 avg = count ? div64_s64(sum, count) : 0;
	s64 lo_us = -(s64)off * hist_bin_us;
	unsigned int i;
	u64 n;

	seq_printf(m, "#State: %s\n", name);
	seq_printf(m, "#Minimum latency: %lld microseconds\n", div_s64(min, NSEC_PER_USEC));
	seq_printf(m, "#Average latency: %lld microseconds\n", div_s64(avg, NSEC_PER_USEC));
	seq_printf(m, "#Maximum latency: %lld microseconds\n", div_s64(max, NSEC_PER_USEC));
	seq_printf(m, "#Total samples: %llu\n", count);
	seq_printf(m, "#There are %llu samples lower than %lld microseconds.\n",
		   (u64)local64_read(&h->under), lo_us);
	seq_printf(m, "#There are %llu samples greater or equal than %lld microseconds.\n",
		   (u64)local64_read(&h->over), lo_us + (s64)hist_bins * hist_bin_us);
	seq_printf(m, "#Exact: count %llu sum %lld min %lld max %lld nanoseconds\n",
		   count, sum, min, max);
	seq_printf(m, "#usecs\t%16s\n", "samples");
	for (i = 0; i < hist_bins; i++) {
		n = local64_read(&h->bins[i]);
		if (n)
			seq_printf(m, "%5lld\t%16llu\n", lo_us + (s64)i * hist_bin_us, n);
	}
}

/* The file's private data: metric << 16 | cpu. */
static int hist_show(struct seq_file *m, void *unused)
{
	unsigned long id = (unsigned long)m->private;
	unsigned int metric = id >> 16, cpu = id & 0xffff, s;
	struct wult_hist_cpu *hc;

	seq_printf(m, "#CPU: %u\n#Metric: %s\n#Bin width: %u microseconds\n",
		   cpu, wult_hm_names[metric], hist_bin_us);
	/* Held so that a new driver's histograms cannot free these. */
	mutex_lock(&wult_hist_lock);
	hc = per_cpu(wult_hists, cpu);
	if (hc) {
		seq_printf(m, "#Datapoints of other states: %llu\n",
			   READ_ONCE(hc->nohist));
		for (s = 0; s < hc->nstates; s++)
			wult_hist_show_one(m, hc->names[s], hc->h[metric][s],
					   wult_hist_off(metric));
	}
	mutex_unlock(&wult_hist_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hist);

static ssize_t reset_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	if (!on)
		return -EINVAL;
	wult_hist_reset();
	return count;
}

static const struct file_operations reset_fops = {
	.owner = THIS_MODULE,
	.write = reset_write,
	.llseek = noop_llseek,
};

void wult_hist_init(void)
{
	if (!hist_bins)
		return;
	if (!hist_bin_us) {
		pr_warn("wult: hist_bin_us=0 is not a width, using 1\n");
		hist_bin_us = 1;
	}
	/* At most 10^6 each: bin bounds stay far inside u64 ns. */
	hist_bins = min(hist_bins, 1000000U);
	hist_bin_us = min(hist_bin_us, 1000000U);
	wult_bin_ns = hist_bin_us * NSEC_PER_USEC;
	wult_hist_on = true;
}

/* Best effort, like the other debugfs files. */
void wult_hist_debugfs_init(struct dentry *parent)
{
	struct dentry *dir, *mdir;
	char name[16];
	unsigned long id;
	int m, cpu;

	if (!wult_bin_ns)
		return;
	dir = debugfs_create_dir("hist", parent);
	debugfs_create_file("reset", 0200, dir, NULL, &reset_fops);
	for (m = 0; m < WULT_HM_MAX; m++) {
		mdir = debugfs_create_dir(wult_hm_names[m], dir);
		for_each_possible_cpu(cpu) {
			snprintf(name, sizeof(name), "CPU%d", cpu);
			id = (unsigned long)m << 16 | cpu;
			debugfs_create_file(name, 0444, mdir, (void *)id,
					    &hist_fops);
		}
	}
}

/* The debugfs files are gone and no event exists: nobody uses them. */
void wult_hist_exit(void)
{
	struct wult_hist_cpu *hc;
	int cpu;

	for_each_possible_cpu(cpu) {
		hc = per_cpu(wult_hists, cpu);
		if (hc)
			wult_hist_free_cpu(hc);
		per_cpu(wult_hists, cpu) = NULL;
	}
}
