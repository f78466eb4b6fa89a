// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the reasons of refused events, kept for their openers.
 *
 * perf_event_open() returns an errno only, and the kernel log is neither
 * the opener's nor tied to its open. The last WULT_REFUSALS refusals that
 * gave a reason are kept, oldest first, one line each in
 * /sys/kernel/debug/wult/refusals:
 *
 *   seq=S time_ns=T pid=P cpu=C errno=E REASON
 *
 * S numbers the refusals since the module loaded; T is CLOCK_MONOTONIC at
 * the refusal; P the opener's thread in the reader's pid namespace (0 if
 * not there); C the event's CPU; E the errno the open failed with. The
 * reason for an open that failed with E on C is the newest line of the
 * opener's thread with T not before the open began: a line of another
 * task, or of the same thread's earlier open, is not it, and with no line
 * the refusal was perf's own (or gave no reason).
 *
 * A check gives its reason where it refuses, before the event's CPU is
 * known to it (a source's usable()): the reason is staged then, and shown
 * once event_init returns (wult_refusal_done()), so that a line is whole
 * when a reader sees it.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "wult_refusal.h"

/*
 * Room for several openers at once, each reading its own line right
 * after its open failed.
 */
#define WULT_REFUSALS		16
#define WULT_REFUSAL_LEN	256

struct wult_refusal {
	u64 seq;		/* 0: an empty slot */
	u64 time_ns;
	struct pid *pid;	/* the opener's thread, referenced */
	int cpu;
	int err;		/* positive, as user space's errno */
	bool done;		/* false while its event_init runs */
	char reason[WULT_REFUSAL_LEN];
};

static DEFINE_MUTEX(wult_refusal_lock);
static struct wult_refusal wult_refusals[WULT_REFUSALS];
static unsigned int wult_refusal_oldest;	/* the slot reused next */
static u64 wult_refusal_seq;

int wult_refuse_rs(struct ratelimit_state *rs, int err, const char *fmt, ...)
{
	struct wult_refusal *r;
	struct pid *old;
	va_list ap;

	mutex_lock(&wult_refusal_lock);
	r = &wult_refusals[wult_refusal_oldest];
	wult_refusal_oldest = (wult_refusal_oldest + 1) % WULT_REFUSALS;
	old = r->pid;
	WRITE_ONCE(wult_refusal_seq, wult_refusal_seq + 1);
	r->seq = wult_refusal_seq;
	r->time_ns = ktime_get_ns();
	r->pid = get_pid(task_pid(current));
	r->cpu = -1;
	r->err = -err;
	r->done = false;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	/* One line per refusal, in the file as in the log. */
	strreplace(r->reason, '\n', ' ');
	if (rs && __ratelimit(rs))
		pr_info("wult: %s\n", r->reason);
	mutex_unlock(&wult_refusal_lock);
	put_pid(old);
	return err;
}

/* A reason staged after this value was given during the caller's event_init. */
u64 wult_refusal_begin(void)
{
	return READ_ONCE(wult_refusal_seq);
}

void wult_refusal_done(int cpu, int err, u64 since)
{
	struct pid *me = task_pid(current);
	unsigned int i;

	mutex_lock(&wult_refusal_lock);
	for (i = 0; i < WULT_REFUSALS; i++) {
		struct wult_refusal *r = &wult_refusals[i];

		if (r->seq > since && !r->done && r->pid == me) {
			r->cpu = cpu;
			r->err = -err;
			r->done = true;
		}
	}
	mutex_unlock(&wult_refusal_lock);
}

static int refusals_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	mutex_lock(&wult_refusal_lock);
	for (i = 0; i < WULT_REFUSALS; i++) {
		const struct wult_refusal *r =
			&wult_refusals[(wult_refusal_oldest + i) % WULT_REFUSALS];

		if (!r->seq || !r->done)
			continue;
		seq_printf(m, "seq=%llu time_ns=%llu pid=%d cpu=%d errno=%d %s\n",
			   r->seq, r->time_ns, pid_vnr(r->pid), r->cpu, r->err,
			   r->reason);
	}
	mutex_unlock(&wult_refusal_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refusals);

/* Best effort, like the other debugfs files. */
void wult_refusal_debugfs_init(struct dentry *parent)
{
	debugfs_create_file("refusals", 0444, parent, NULL, &refusals_fops);
}

void wult_refusal_exit(void)
{
	unsigned int i;

	for (i = 0; i < WULT_REFUSALS; i++) {
		put_pid(wult_refusals[i].pid);
		wult_refusals[i].pid = NULL;
		wult_refusals[i].seq = 0;
	}
}
