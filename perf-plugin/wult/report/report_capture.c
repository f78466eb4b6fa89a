// SPDX-License-Identifier: GPL-2.0
/*
 * wult report: the capture `wult record --stop-on EXPR --capture` left
 * beside a perf.data (FILE.capture, wult/capture.h): for the datapoint
 * that stopped the recording, what ran on its CPU in its idle period
 * (TBI..TAI) and around it, from the arming to just after the wake.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <wult/capture.h>

#include "report_view.h"

/* After TAI (or TIntr), the listing goes on this long: the wake's own
 * handler and softirqs. */
#define AFTER_NS	100000

struct mark {
	uint64_t t;
	const char *what;
};

static double rel_us(uint64_t t, uint64_t tbi)
{
	return ((double)t - (double)tbi) / 1e3;
}

static void summary_line(FILE *out, const struct wult_capture_sum *s)
{
	static const enum wult_capture_kind kinds[] = {
		WULT_CAP_IRQ, WULT_CAP_VECTOR, WULT_CAP_SOFTIRQ, WULT_CAP_HRTIMER,
		WULT_CAP_TIMER, WULT_CAP_NMI, WULT_CAP_SCHED, WULT_CAP_OTHER,
	};
	unsigned int i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		fprintf(out, "%s%u %s (%.3f us)", i ? ", " : "", s->count[kinds[i]],
			wult_capture_kind_name(kinds[i]), s->ns[kinds[i]] / 1e3);
}

static void row(FILE *out, const struct wult_capture_item *it, const struct wult_capture_dp *dp)
{
	const char *when = it->end < dp->tbi ? "before" :
			   wult_capture_overlaps(it, dp->tbi, dp->tai) ? "idle" : "after";
	char dur[32];

	if (it->open)
		snprintf(dur, sizeof(dur), "open");
	else if (it->kind == WULT_CAP_SCHED || it->kind == WULT_CAP_OTHER)
		snprintf(dur, sizeof(dur), "-");
	else
		snprintf(dur, sizeof(dur), "%.3f", (it->end - it->start) / 1e3);
	fprintf(out, "  %12.3f %10s  %-6s  %s\n", rel_us(it->start, dp->tbi), dur, when,
		it->what);
}

int rpt_capture_print(FILE *out, const char *data_path)
{
	char path[4096], err[512];
	const struct wult_capture_item *it;
	const struct wult_capture_dp *dp;
	struct wult_capture_sum s;
	struct wult_capture *c;
	struct mark marks[4];
	uint64_t arm, to;
	unsigned int n, i, m = 0, nm;
	int ret;

	if (!data_path || !strcmp(data_path, "-"))
		return 0;
	snprintf(path, sizeof(path), "%s.capture", data_path);
	if (access(path, F_OK))
		return 0;
	ret = wult_capture_read(path, &c, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult report: %s\n", err);
		return ret;
	}
	dp = wult_capture_datapoint(c);
	wult_capture_summarize(c, &s);
	arm = dp->ltime > dp->ldist ? dp->ltime - dp->ldist : 0;
	to = (dp->tai > dp->tintr ? dp->tai : dp->tintr) + AFTER_NS;
	fprintf(out, "\ncapture (%s: the %u ms before the datapoint that stopped the "
		"recording, ftrace's mono clock, 1 us resolution):\n", path, dp->window_ms);
	fprintf(out, "  datapoint: CPU %d, %s, WakeLatency %.3f us, IntrLatency %.3f us, "
		"LDist %.3f us, idle period TBI..TAI %.3f us\n", dp->cpu, dp->reqcstate,
		dp->wake_latency / 1e3, dp->intr_latency / 1e3, dp->ldist / 1e3,
		rel_us(dp->tai, dp->tbi));
	fprintf(out, "  in the idle period: ");
	summary_line(out, &s);
	fprintf(out, "; %u other wakes between the arming and TBI\n", s.other_wakes);
	if (wult_capture_skipped(c))
		fprintf(out, "  (%u lines of the capture were not ftrace events)\n",
			wult_capture_skipped(c));
	fprintf(out, "  CPU %d from the arming to TAI + %u us; times from TBI (us):\n", dp->cpu,
		AFTER_NS / 1000);
	fprintf(out, "  %12s %10s  %-6s  %s\n", "Start", "Duration", "When", "What");
	marks[m++] = (struct mark){ arm, "-- armed (LTime - LDist)" };
	marks[m++] = (struct mark){ dp->ltime, "-- LTime: the event due" };
	marks[m++] = (struct mark){ dp->tintr, "-- TIntr: its interrupt handler" };
	marks[m++] = (struct mark){ dp->tai, "-- TAI: idle exit" };
	/* In time order: TIntr comes after TAI for a state left with IRQs off. */
	for (i = 1; i < m; i++)
		for (nm = i; nm > 0 && marks[nm - 1].t > marks[nm].t; nm--) {
			struct mark t = marks[nm];

			marks[nm] = marks[nm - 1];
			marks[nm - 1] = t;
		}
	nm = 0;
	n = wult_capture_items(c, &it);
	for (i = 0; i < n; i++) {
		if (it[i].cpu != dp->cpu || it[i].end < arm || it[i].start > to)
			continue;
		for (; nm < m && marks[nm].t <= it[i].start; nm++)
			fprintf(out, "  %12.3f %10s  %-6s  %s\n", rel_us(marks[nm].t, dp->tbi), "",
				"", marks[nm].what);
		row(out, &it[i], dp);
	}
	for (; nm < m; nm++)
		fprintf(out, "  %12.3f %10s  %-6s  %s\n", rel_us(marks[nm].t, dp->tbi), "", "",
			marks[nm].what);
	wult_capture_free(c);
	return 0;
}
