// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle's instruction benchmark (tests/bench/vm_insns.sh,
 * Documentation/bench.md).
 * On the instruction-counted clock of the test guests a TSC difference is
 * the number of instructions executed between two TSC reads, so stamps put
 * at the right places count the instructions of a path exactly. Beside the
 * exit stamp (refidle_exit_tsc), debugfs wult_refidle/bench offers stamps that exist
 * only while asked for, so they cost nothing otherwise:
 *
 *   idle_first  a cpu_idle probe run before wult's (higher priority);
 *   idle_last   one run after it (lower priority), also at idle entry;
 *   lt_first    a local_timer_entry probe run before wult's tdt probe;
 *   lt_second   another one, run after lt_first;
 *   timer=NS    a pinned hard hrtimer firing every NS ns on the writer's
 *               CPU, its callback doing nothing but record its stamp and
 *               re-arm: a wake of the same kind as wult's, without wult.
 *
 * Each stamp function's first instruction after an optional endbr64 is the
 * TSC read, which is checked when they are started: the instructions from
 * a stamp function's entry to its TSC read are then known (its "head").
 * Writing a list of the above (or "off") stops what runs, clears the record
 * and starts the list; reading gives the heads and the records of the
 * writer's CPU, in order: "KIND TSC AUX" with KIND
 *   X  idle_first at idle exit, AUX = refidle_exit_tsc (the idle exit);
 *   L  idle_last at idle exit, AUX = refidle_exit_tsc;
 *   E  idle_last at idle entry, AUX = the state;
 *   1, 2  lt_first, lt_second, AUX = refidle_exit_tsc;
 *   T  the timer's callback.
 */
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <trace/events/power.h>

#include "../wult_compat.h"
#include "refidle.h"

#define REFIDLE_RECS		8192
#define REFIDLE_PRIO_FIRST	(TRACEPOINT_DEFAULT_PRIO + 1)
#define REFIDLE_PRIO_LAST	(TRACEPOINT_DEFAULT_PRIO - 1)
#define REFIDLE_FIRST		((void *)1UL)
#define REFIDLE_LAST		((void *)2UL)
#define REFIDLE_BENCH_MAX_WRITE	128

enum {
	REFIDLE_B_IDLE_FIRST	= BIT(0),
	REFIDLE_B_IDLE_LAST	= BIT(1),
	REFIDLE_B_LT_FIRST	= BIT(2),
	REFIDLE_B_LT_SECOND	= BIT(3),
	REFIDLE_B_TIMER		= BIT(4),
};

struct refidle_rec {
	u64 tsc;
	u64 aux;
	char kind;
};

static DEFINE_MUTEX(refidle_bench_lock);
static struct refidle_rec *refidle_recs;
static unsigned int refidle_nrecs;
static int refidle_bench_cpu = -1;
static unsigned int refidle_bench_on;
static u64 refidle_bench_period;
static struct hrtimer refidle_bench_timer;
static struct tracepoint *refidle_lt_tp;

/* IRQs off, on the benchmark's CPU only. */
static notrace void refidle_note(char kind, u64 tsc, u64 aux)
{
	unsigned int n = READ_ONCE(refidle_nrecs);

	if (raw_smp_processor_id() != READ_ONCE(refidle_bench_cpu) ||
	    n >= REFIDLE_RECS)
		return;
	refidle_recs[n].tsc = tsc;
	refidle_recs[n].aux = aux;
	refidle_recs[n].kind = kind;
	WRITE_ONCE(refidle_nrecs, n + 1);
}

/*
 * The stamp functions: the TSC read first, everything else in a tail call
 * (a value kept across a call would need a register saved before it).
 */
static noinline notrace void refidle_idle_rest(void *data, unsigned int state,
					       u64 tsc)
{
	if (state == PWR_EVENT_EXIT)
		refidle_note(data == REFIDLE_FIRST ? 'X' : 'L', tsc,
			     __this_cpu_read(refidle_exit_tsc));
	else if (data == REFIDLE_LAST)
		refidle_note('E', tsc, state);
}

static notrace void refidle_stamp_idle(void *data, unsigned int state,
				       unsigned int cpu)
{
	refidle_idle_rest(data, state, rdtsc());
}

static noinline notrace void refidle_lt_rest(void *data, u64 tsc)
{
	refidle_note(data == REFIDLE_FIRST ? '1' : '2', tsc,
		     __this_cpu_read(refidle_exit_tsc));
}

static notrace void refidle_stamp_lt(void *data, int vector)
{
	refidle_lt_rest(data, rdtsc());
}

static noinline notrace enum hrtimer_restart
refidle_timer_rest(struct hrtimer *timer, u64 tsc)
{
	refidle_note('T', tsc, 0);
	hrtimer_forward_now(timer, ns_to_ktime(refidle_bench_period));
	return HRTIMER_RESTART;
}

static notrace enum hrtimer_restart refidle_stamp_timer(struct hrtimer *timer)
{
	return refidle_timer_rest(timer, rdtsc());
}

/*
 * Instructions from @fn's entry to its TSC read, that read included: 1, or
 * 2 after an endbr64; -1 if the compiler put anything else first.
 */
static int refidle_head(const void *fn)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const u8 rdtsc_op[] = { 0x0f, 0x31 };
	const u8 *p = fn;
	int head = 1;

	if (!memcmp(p, endbr64, sizeof(endbr64))) {
		p += sizeof(endbr64);
		head++;
	}
	return memcmp(p, rdtsc_op, sizeof(rdtsc_op)) ? -1 : head;
}

static void refidle_bench_stop(void)
{
	unsigned int on = refidle_bench_on;

	refidle_bench_on = 0;
	if (on & REFIDLE_B_TIMER)
		hrtimer_cancel(&refidle_bench_timer);
	if (on & REFIDLE_B_IDLE_FIRST)
		unregister_trace_cpu_idle(refidle_stamp_idle, REFIDLE_FIRST);
	if (on & REFIDLE_B_IDLE_LAST)
		unregister_trace_cpu_idle(refidle_stamp_idle, REFIDLE_LAST);
	if (on & REFIDLE_B_LT_FIRST)
		tracepoint_probe_unregister(refidle_lt_tp, refidle_stamp_lt,
					    REFIDLE_FIRST);
	if (on & REFIDLE_B_LT_SECOND)
		tracepoint_probe_unregister(refidle_lt_tp, refidle_stamp_lt,
					    REFIDLE_LAST);
	if (on)
		tracepoint_synchronize_unregister();
}

static int refidle_bench_start(unsigned int want)
{
	int ret = 0;

	if (refidle_head(refidle_stamp_idle) < 0 ||
	    refidle_head(refidle_stamp_lt) < 0 ||
	    refidle_head(refidle_stamp_timer) < 0) {
		pr_err("wult_refidle: bench: a stamp function does not start with its TSC read\n");
		return -ENOEXEC;
	}
	if ((want & (REFIDLE_B_LT_FIRST | REFIDLE_B_LT_SECOND)) && !refidle_lt_tp)
		return -EOPNOTSUPP;
	if (!refidle_recs) {
		refidle_recs = kvcalloc(REFIDLE_RECS, sizeof(*refidle_recs),
					GFP_KERNEL);
		if (!refidle_recs)
			return -ENOMEM;
	}
	WRITE_ONCE(refidle_nrecs, 0);
	WRITE_ONCE(refidle_bench_cpu, get_cpu());
	put_cpu();

	if (want & REFIDLE_B_IDLE_FIRST) {
		ret = register_trace_prio_cpu_idle(refidle_stamp_idle,
						   REFIDLE_FIRST,
						   REFIDLE_PRIO_FIRST);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_IDLE_FIRST;
	}
	if (want & REFIDLE_B_IDLE_LAST) {
		ret = register_trace_prio_cpu_idle(refidle_stamp_idle,
						   REFIDLE_LAST,
						   REFIDLE_PRIO_LAST);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_IDLE_LAST;
	}
	if (want & REFIDLE_B_LT_FIRST) {
		ret = tracepoint_probe_register_prio(refidle_lt_tp,
						     refidle_stamp_lt,
						     REFIDLE_FIRST,
						     REFIDLE_PRIO_FIRST);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_LT_FIRST;
	}
	if (want & REFIDLE_B_LT_SECOND) {
		ret = tracepoint_probe_register_prio(refidle_lt_tp,
						     refidle_stamp_lt,
						     REFIDLE_LAST,
						     TRACEPOINT_DEFAULT_PRIO);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_LT_SECOND;
	}
	if (want & REFIDLE_B_TIMER) {
		/* Pinned: on this, the writer's, CPU. */
		preempt_disable();
		hrtimer_start(&refidle_bench_timer,
			      ns_to_ktime(refidle_bench_period),
			      HRTIMER_MODE_REL_PINNED_HARD);
		preempt_enable();
		refidle_bench_on |= REFIDLE_B_TIMER;
	}
	return 0;
}

static int refidle_bench_parse(char *buf, unsigned int *want)
{
	char *tok;
	u64 ns;

	*want = 0;
	while ((tok = strsep(&buf, " \t\n"))) {
		if (!*tok || !strcmp(tok, "off"))
			continue;
		if (!strcmp(tok, "idle_first")) {
			*want |= REFIDLE_B_IDLE_FIRST;
		} else if (!strcmp(tok, "idle_last")) {
			*want |= REFIDLE_B_IDLE_LAST;
		} else if (!strcmp(tok, "lt_first")) {
			*want |= REFIDLE_B_LT_FIRST;
		} else if (!strcmp(tok, "lt_second")) {
			*want |= REFIDLE_B_LT_SECOND;
		} else if (!strncmp(tok, "timer=", 6)) {
			if (kstrtou64(tok + 6, 10, &ns) || ns < NSEC_PER_USEC)
				return -EINVAL;
			refidle_bench_period = ns;
			*want |= REFIDLE_B_TIMER;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static ssize_t refidle_bench_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	unsigned int want;
	char *buf;
	int ret;

	if (len > REFIDLE_BENCH_MAX_WRITE)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = refidle_bench_parse(buf, &want);
	kfree(buf);
	if (ret)
		return ret;

	mutex_lock(&refidle_bench_lock);
	refidle_bench_stop();
	if (want) {
		ret = refidle_bench_start(want);
		if (ret)
			refidle_bench_stop();
	}
	mutex_unlock(&refidle_bench_lock);
	return ret ? ret : len;
}

static int refidle_bench_show(struct seq_file *m, void *v)
{
	unsigned int i, n;

	mutex_lock(&refidle_bench_lock);
	n = READ_ONCE(refidle_nrecs);
	seq_printf(m, "# heads idle=%d lt=%d timer=%d records=%u\n",
		   refidle_head(refidle_stamp_idle),
		   refidle_head(refidle_stamp_lt),
		   refidle_head(refidle_stamp_timer), n);
	for (i = 0; i < n; i++)
		seq_printf(m, "%c %llu %llu\n", refidle_recs[i].kind,
			   refidle_recs[i].tsc, refidle_recs[i].aux);
	mutex_unlock(&refidle_bench_lock);
	return 0;
}

static int refidle_bench_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, refidle_bench_show, NULL,
				(REFIDLE_RECS + 1) * 48);
}

static const struct file_operations refidle_bench_fops = {
	.owner		= THIS_MODULE,
	.open		= refidle_bench_open,
	.read		= seq_read,
	.write		= refidle_bench_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void refidle_bench_init(struct dentry *dir)
{
	wult_hrtimer_setup(&refidle_bench_timer, refidle_stamp_timer,
			   CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	refidle_lt_tp = refidle_tp_find("local_timer_entry");
	debugfs_create_file("bench", 0600, dir, NULL, &refidle_bench_fops);
}

/* After the file was removed. */
void refidle_bench_exit(void)
{
	mutex_lock(&refidle_bench_lock);
	refidle_bench_stop();
	mutex_unlock(&refidle_bench_lock);
	kvfree(refidle_recs);
}
