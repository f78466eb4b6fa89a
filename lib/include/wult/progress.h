/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's progress reports. On a terminal, one line rewritten in
 * place (carriage return) twice a second; elsewhere (a log file, a CI
 * job's pipe) the carriage returns would pile up into one huge line, so a
 * plain line every 10 s instead; nothing with -q. The caller owns the
 * clock and says whether stderr is a terminal, so the rules are tested
 * without either (tests/unit/test_progress.c).
 */
#ifndef WULT_PROGRESS_H
#define WULT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

#define WULT_PROGRESS_TTY_EVERY		0.5	/* s between terminal updates */
#define WULT_PROGRESS_LINE_EVERY	10.0	/* s between plain lines */

enum wult_progress_mode {
	WULT_PROGRESS_NONE,	/* -q */
	WULT_PROGRESS_TTY,	/* one line, rewritten */
	WULT_PROGRESS_LINES,	/* a line every WULT_PROGRESS_LINE_EVERY s */
};

struct wult_progress {
	enum wult_progress_mode mode;
	double every;		/* s between reports */
	double last;		/* time of the last report */
	int midline;		/* a terminal line was written without its newline */
};

void wult_progress_init(struct wult_progress *p, int quiet, int is_tty);

/*
 * At @t s since the start, with @datapoints and @lost so far: the report
 * due now into @buf (NUL-terminated, ending in "\n" for a plain line,
 * starting with "\r" on a terminal), its length, or 0 when none is due.
 */
size_t wult_progress_line(struct wult_progress *p, double t, uint64_t datapoints,
			  uint64_t lost, char *buf, size_t len);

/* What ends the progress output before other messages and the summary:
 * "\n" after a terminal line, else "". Resets it. */
const char *wult_progress_break(struct wult_progress *p);

#pragma GCC visibility pop

#endif
