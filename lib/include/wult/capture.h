/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record --stop-on EXPR --capture: what the measured CPU did around
 * the datapoint that stopped the recording, as ftrace recorded it in a
 * tracefs instance of wult record's own. The capture file is text:
 *
 *	# wult capture 1
 *	# cpu 1
 *	# ltime 5123456789		(ns, CLOCK_MONOTONIC: wult.ko's clock)
 *	# ldist 1500000
 *	# tbi 5123000000
 *	# tai 5123456900
 *	# tintr 5123456950
 *	# reqcstate C3
 *	# wakelatency 300123		(ns)
 *	# intrlatency 250		(ns)
 *	# window_ms 10
 *	<ftrace's trace file lines, its "mono" clock: sec.usec>
 *
 * The header lines come first; the ftrace lines follow as the instance's
 * `trace` file printed them (its own '#' comments are skipped). Unknown
 * header keys are ignored (a later writer may add some).
 *
 * The reader pairs each CPU's _entry/_exit events (irq_handler,
 * softirq, hrtimer_expire, timer_expire, the x86 irq_vectors such as
 * local_timer), nmi_handler's delta_ns and cpu_idle's entries and exits
 * into items with a start and an end, and keeps sched_switch and
 * sched_wakeup as points.
 */
#ifndef WULT_CAPTURE_H
#define WULT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_capture;

/* The datapoint that stopped the recording (times in ns, CLOCK_MONOTONIC). */
struct wult_capture_dp {
	int cpu;
	uint64_t ltime, ldist, tbi, tai, tintr;
	int64_t wake_latency, intr_latency;	/* ns */
	char reqcstate[32];
	unsigned int window_ms;
};

enum wult_capture_kind {
	WULT_CAP_IRQ,		/* irq_handler_entry/exit: a device interrupt's handler */
	WULT_CAP_VECTOR,	/* x86 irq_vectors: local_timer, reschedule, ... */
	WULT_CAP_SOFTIRQ,
	WULT_CAP_HRTIMER,	/* an hrtimer's callback */
	WULT_CAP_TIMER,		/* a timer wheel callback */
	WULT_CAP_NMI,		/* nmi_handler: start = end - delta_ns */
	WULT_CAP_IDLE,		/* cpu_idle: from an idle entry to its exit */
	WULT_CAP_SCHED,		/* sched_switch, sched_wakeup: points */
	WULT_CAP_OTHER,		/* any other event: a point */
	WULT_CAP_NR,
};

struct wult_capture_item {
	enum wult_capture_kind kind;
	int cpu;
	uint64_t start, end;	/* ns, mono; end == start for points */
	int open;		/* no end in the capture (entry or exit alone) */
	char what[96];		/* "irq_handler irq=24 name=virtio0", ... */
};

/* Parses a capture's text (@len bytes). -EINVAL with @err for a text that
 * is not a capture (the line said); lines of ftrace that do not parse are
 * counted (wult_capture_skipped()), not fatal. */
int wult_capture_parse(const char *text, size_t len, struct wult_capture **out, char *err,
		       size_t errlen);
/* Reads and parses the file @path. */
int wult_capture_read(const char *path, struct wult_capture **out, char *err, size_t errlen);
void wult_capture_free(struct wult_capture *c);

const struct wult_capture_dp *wult_capture_datapoint(const struct wult_capture *c);
/* The items of every CPU, by start time; *@items valid as long as @c. */
unsigned int wult_capture_items(const struct wult_capture *c,
				const struct wult_capture_item **items);
/*
 * What ran on the datapoint's CPU in its idle period [TBI, TAI]: per kind,
 * the items that overlap it and their durations (whole, not clipped);
 * NMI and idle kinds included. other_wakes: the CPU's idle periods that
 * ended between the arming (LTime - LDist) and TBI, i.e. earlier wakes
 * by something else before the last idle entry.
 */
struct wult_capture_sum {
	unsigned int count[WULT_CAP_NR];
	uint64_t ns[WULT_CAP_NR];
	unsigned int other_wakes;
};

void wult_capture_summarize(const struct wult_capture *c, struct wult_capture_sum *s);
/* Does item @it overlap [@from, @to]? */
int wult_capture_overlaps(const struct wult_capture_item *it, uint64_t from, uint64_t to);

/* ftrace lines that did not parse. */
unsigned int wult_capture_skipped(const struct wult_capture *c);
/* "irq", "vector", "softirq", ... */
const char *wult_capture_kind_name(enum wult_capture_kind k);

/*
 * One ftrace text line: "TASK-PID [CPU] FLAGS SECS.USECS: EVENT: ARGS"
 * (FLAGS absent without the irq-info option). 0 with the fields set
 * (@event and @args point into @line, which is cut), or -EINVAL.
 */
int wult_capture_trace_line(char *line, int *cpu, uint64_t *ts_ns, const char **event,
			    const char **args);

#pragma GCC visibility pop

#endif
