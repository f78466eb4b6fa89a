// SPDX-License-Identifier: GPL-2.0
/*
 * A stop-on capture (lib/capture/capture.c): ftrace text lines of both kernels'
 * shapes, the header, entry/exit pairing, and what ran in the datapoint's
 * idle period, on tests/data/stop.capture (a hand-made capture whose
 * answers are known: a device interrupt, a softirq and an NMI inside
 * [TBI, TAI], the wake's own timer interrupt, one earlier wake).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <wult/capture.h>

#include "wt.h"
#include "wt_data.h"

static void lines(void)
{
	char l[256];
	const char *ev, *args;
	uint64_t ts;
	int cpu;

	snprintf(l, sizeof(l), "  <idle>-0  [001] d.h1.   123.456789: local_timer_entry: vector=236\n");
	WT_EQ(wult_capture_trace_line(l, &cpu, &ts, &ev, &args), 0);
	WT_CHECK(cpu == 1 && ts == 123456789000ULL && !strcmp(ev, "local_timer_entry") &&
		 !strcmp(args, "vector=236"), "%d %llu '%s' '%s'", cpu,
		 (unsigned long long)ts, ev, args);
	/* No irq-info flags, a task name with spaces and brackets, ns digits. */
	snprintf(l, sizeof(l), "kworker [x] 1-9 [003] 5.000000001: cpu_idle: state=1 cpu_id=3");
	WT_EQ(wult_capture_trace_line(l, &cpu, &ts, &ev, &args), 0);
	WT_CHECK(cpu == 3 && ts == 5000000001ULL && !strcmp(ev, "cpu_idle"), "%d %llu '%s'",
		 cpu, (unsigned long long)ts, ev);
	snprintf(l, sizeof(l), "# tracer: nop");
	WT_EQ(wult_capture_trace_line(l, &cpu, &ts, &ev, &args), -EINVAL);
	snprintf(l, sizeof(l), "x-1 [001] d.h1. 12.5x: e: a");
	WT_EQ(wult_capture_trace_line(l, &cpu, &ts, &ev, &args), -EINVAL);
	snprintf(l, sizeof(l), "x-1 [001] d.h1. 12.5: : a");
	WT_EQ(wult_capture_trace_line(l, &cpu, &ts, &ev, &args), -EINVAL);
}

static const struct wult_capture_item *find(const struct wult_capture_item *it, unsigned int n,
					    const char *what)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strstr(it[i].what, what))
			return &it[i];
	return NULL;
}

static void file(void)
{
	const struct wult_capture_item *it, *x;
	const struct wult_capture_dp *dp;
	struct wult_capture_sum s;
	struct wult_capture *c;
	char err[256], path[PATH_MAX + 32];
	unsigned int n;

	snprintf(path, sizeof(path), "%s/stop.capture", wt_data_dir());
	WT_EQ(wult_capture_read(path, &c, err, sizeof(err)), 0);
	if (!c)
		return;
	dp = wult_capture_datapoint(c);
	WT_CHECK(dp->cpu == 1 && dp->tbi == 100000020000ULL && dp->tai == 100001800500ULL &&
		 dp->wake_latency == 300400 && !strcmp(dp->reqcstate, "C3") &&
		 dp->window_ms == 10, "cpu %d tbi %llu", dp->cpu, (unsigned long long)dp->tbi);
	WT_EQ(wult_capture_skipped(c), 1);
	n = wult_capture_items(c, &it);
	x = find(it, n, "irq_handler irq=24");
	WT_CHECK(x && x->kind == WULT_CAP_IRQ && !x->open && x->end - x->start == 12000, "irq");
	x = find(it, n, "wult_hrt_fn");
	WT_CHECK(x && x->kind == WULT_CAP_HRTIMER && x->end - x->start == 1000, "hrtimer");
	x = find(it, n, "nmi perf_event_nmi_handler");
	WT_CHECK(x && x->start == 100001000000ULL - 2500, "nmi");
	x = find(it, n, "softirq vec=1");
	WT_CHECK(x && x->open && strstr(x->what, "exit only"), "an exit alone");
	x = find(it, n, "idle state=3");
	WT_CHECK(x && x->start == 100000020000ULL && x->end == 100001800000ULL, "idle period");
	for (unsigned int i = 1; i < n; i++)
		WT_CHECK(it[i - 1].start <= it[i].start, "sorted at %u", i);
	wult_capture_summarize(c, &s);
	WT_EQ(s.count[WULT_CAP_IRQ], 1);
	WT_EQ(s.ns[WULT_CAP_IRQ], 12000);
	WT_EQ(s.count[WULT_CAP_SOFTIRQ], 1);
	WT_EQ(s.count[WULT_CAP_NMI], 1);
	WT_EQ(s.count[WULT_CAP_VECTOR], 1);	/* the wake's local_timer */
	WT_EQ(s.count[WULT_CAP_HRTIMER], 1);
	WT_EQ(s.count[WULT_CAP_SCHED], 0);	/* before TBI */
	WT_EQ(s.other_wakes, 0);
	wult_capture_free(c);
}

/* A real one (Debian 6.1 guest): every ftrace line parses, and the wake's
 * own timer interrupt is in the idle period. */
static void real(void)
{
	const struct wult_capture_item *it, *x;
	struct wult_capture_sum s;
	struct wult_capture *c;
	char err[256], path[PATH_MAX + 32];
	unsigned int n;

	snprintf(path, sizeof(path), "%s/stop-6.1.capture", wt_data_dir());
	WT_EQ(wult_capture_read(path, &c, err, sizeof(err)), 0);
	if (!c)
		return;
	WT_EQ(wult_capture_skipped(c), 0);
	n = wult_capture_items(c, &it);
	x = find(it, n, "hrtimer_expire wult_hrt_fn");
	WT_CHECK(x != NULL, "the wult timer");
	wult_capture_summarize(c, &s);
	WT_EQ(s.count[WULT_CAP_VECTOR], 1);
	WT_EQ(s.count[WULT_CAP_HRTIMER], 1);
	WT_EQ(s.count[WULT_CAP_IRQ], 0);
	/* call_function_single woke the CPU after the arming, before TBI. */
	WT_EQ(s.other_wakes, 1);
	wult_capture_free(c);
}

static void bad(void)
{
	struct wult_capture *c;
	char err[256];
	static const char nohdr[] = "# wult capture 1\n  x-1 [001] 1.0: e: a\n";
	static const char wake[] = "# wult capture 1\n# cpu 0\n# ltime 3000000000\n"
		"# ldist 2000000000\n# tbi 2500000000\n# tai 3000000000\n"
		"x-0 [000] 1.5: cpu_idle: state=1 cpu_id=0\n"
		"x-0 [000] 2.0: cpu_idle: state=4294967295 cpu_id=0\n"
		"x-0 [000] 2.5: cpu_idle: state=1 cpu_id=0\n";
	struct wult_capture_sum s;

	WT_EQ(wult_capture_parse("hello\n", 6, &c, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "not a wult capture") != NULL, "'%s'", err);
	WT_CHECK(c == NULL, "no object");
	WT_EQ(wult_capture_parse(nohdr, sizeof(nohdr) - 1, &c, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "names no datapoint") != NULL, "'%s'", err);
	WT_EQ(wult_capture_parse("", 0, &c, err, sizeof(err)), -EINVAL);
	/* An idle period that ended after the arming, before TBI: a wake. */
	WT_EQ(wult_capture_parse(wake, sizeof(wake) - 1, &c, err, sizeof(err)), 0);
	if (c) {
		wult_capture_summarize(c, &s);
		WT_EQ(s.other_wakes, 1);
		wult_capture_free(c);
	}
}

int main(void)
{
	lines();
	file();
	real();
	bad();
	return wt_done();
}
