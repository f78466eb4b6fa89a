// SPDX-License-Identifier: GPL-2.0
/*
 * wult record's progress reports (lib/progress/progress.c) on a fake clock: a
 * terminal gets a carriage-return line twice a second and a newline at the
 * end; anything else a plain line every 10 s and nothing to end; -q
 * nothing at all.
 */
#include <stdio.h>
#include <string.h>

#include <wult/progress.h>

#include "wt.h"

/* Reports due over @secs of fake time in @step_ms steps, 1000 datapoints
 * a second; the last one in @last. Integer milliseconds keep the fake
 * times exact. */
static unsigned int run_clock(struct wult_progress *p, unsigned int secs, unsigned int step_ms,
			      char *last, size_t len)
{
	char buf[160];
	unsigned int n = 0, ms;

	last[0] = '\0';
	for (ms = step_ms; ms <= secs * 1000; ms += step_ms) {
		if (wult_progress_line(p, ms / 1000.0, ms, 2, buf, sizeof(buf))) {
			n++;
			snprintf(last, len, "%s", buf);
		}
	}
	return n;
}

static void tty(void)
{
	struct wult_progress p;
	char last[160];

	wult_progress_init(&p, 0, 1);
	WT_EQ(p.mode, WULT_PROGRESS_TTY);
	WT_CHECK(!strcmp(wult_progress_break(&p), ""), "no line yet, no newline");
	/* 25 ms steps, as wult record's loop: 60 reports in 30 s. */
	WT_EQ(run_clock(&p, 30, 25, last, sizeof(last)), 60);
	WT_CHECK(last[0] == '\r' && !strchr(last, '\n'), "'%s'", last);
	WT_CHECK(strstr(last, "30000 datapoints, 1000/s, 2 lost, 30.0 s") != NULL, "'%s'", last);
	WT_CHECK(!strcmp(wult_progress_break(&p), "\n"), "the line ends before the summary");
	WT_CHECK(!strcmp(wult_progress_break(&p), ""), "once");
}

static void lines(void)
{
	struct wult_progress p;
	char last[160];

	wult_progress_init(&p, 0, 0);
	WT_EQ(p.mode, WULT_PROGRESS_LINES);
	WT_EQ(run_clock(&p, 9, 25, last, sizeof(last)), 0);
	wult_progress_init(&p, 0, 0);
	WT_EQ(run_clock(&p, 35, 25, last, sizeof(last)), 3);
	WT_CHECK(!strchr(last, '\r'), "no carriage return in '%s'", last);
	WT_CHECK(!strcmp(last, "wult record: 30000 datapoints, 1000/s, 2 lost, 30.0 s\n"),
		 "'%s'", last);
	WT_CHECK(!strcmp(wult_progress_break(&p), ""), "plain lines need no break");
	/* A loop that stalls reports once when it comes back, not per period missed. */
	wult_progress_init(&p, 0, 0);
	WT_EQ(run_clock(&p, 45, 45000, last, sizeof(last)), 1);
}

static void quiet(void)
{
	struct wult_progress p;
	char last[160];

	wult_progress_init(&p, 1, 1);
	WT_EQ(run_clock(&p, 60, 25, last, sizeof(last)), 0);
	wult_progress_init(&p, 1, 0);
	WT_EQ(run_clock(&p, 60, 25, last, sizeof(last)), 0);
	WT_CHECK(!strcmp(wult_progress_break(&p), ""), "nothing to end");
}

/* A buffer too short still gets a NUL-terminated prefix. */
static void small_buffer(void)
{
	struct wult_progress p;
	char buf[8];
	size_t n;

	wult_progress_init(&p, 0, 0);
	n = wult_progress_line(&p, 10, 5, 0, buf, sizeof(buf));
	WT_EQ(n, 7);
	WT_CHECK(!strcmp(buf, "wult re"), "'%s'", buf);
	WT_EQ(wult_progress_line(&p, 20, 5, 0, buf, 0), 0);
}

int main(void)
{
	tty();
	lines();
	quiet();
	small_buffer();
	return wt_done();
}
