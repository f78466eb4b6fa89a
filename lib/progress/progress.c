// SPDX-License-Identifier: GPL-2.0
/* wult record's progress reports (wult/progress.h). */
#include <stdio.h>

#include <wult/progress.h>

void wult_progress_init(struct wult_progress *p, int quiet, int is_tty)
{
	p->mode = quiet ? WULT_PROGRESS_NONE : is_tty ? WULT_PROGRESS_TTY : WULT_PROGRESS_LINES;
	p->every = p->mode == WULT_PROGRESS_TTY ? WULT_PROGRESS_TTY_EVERY :
		   WULT_PROGRESS_LINE_EVERY;
	p->last = 0;
	p->midline = 0;
}

size_t wult_progress_line(struct wult_progress *p, double t, uint64_t datapoints,
			  uint64_t lost, char *buf, size_t len)
{
	double rate = t > 0 ? datapoints / t : 0.0;
	int n;

	if (!len)
		return 0;
	buf[0] = '\0';
	/* Nothing at the start: the first report comes one period in. */
	if (p->mode == WULT_PROGRESS_NONE || t - p->last < p->every)
		return 0;
	p->last = t;
	if (p->mode == WULT_PROGRESS_TTY) {
		n = snprintf(buf, len, "\rwult: %llu datapoints, %.0f/s, %llu lost, %.1f s ",
			     (unsigned long long)datapoints, rate, (unsigned long long)lost, t);
		p->midline = 1;
	} else {
		n = snprintf(buf, len, "wult record: %llu datapoints, %.0f/s, %llu lost, "
			     "%.1f s\n", (unsigned long long)datapoints, rate,
			     (unsigned long long)lost, t);
	}
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

const char *wult_progress_break(struct wult_progress *p)
{
	int was = p->midline;

	p->midline = 0;
	return was ? "\n" : "";
}
