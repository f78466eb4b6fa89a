/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why wult.ko refused an event: perf_event_open() returns an errno only,
 * and wult.ko keeps the reason for the opener in debugfs
 * (Documentation/kernel.md, "Refusals"), one line per refusal:
 * "seq=S time_ns=T pid=TID cpu=C errno=E REASON". The reason for an open
 * is the newest line of the opening thread with its CPU and errno,
 * stamped at or after the open began: another thread's line, or one of
 * the same thread's earlier opens, is not it, and with none the refusal
 * was perf's own.
 *
 * Usage: mark = wult_refusal_mark(); open; if it failed with errno E,
 * wult_refusal_read(mark, cpu, E, ...).
 */
#ifndef WULT_REFUSAL_H
#define WULT_REFUSAL_H

#include <stddef.h>
#include <stdint.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

#define WULT_REFUSALS_PATH	"/sys/kernel/debug/wult/refusals"

/* Now on wult.ko's clock for refusals (CLOCK_MONOTONIC, ns): before the open. */
uint64_t wult_refusal_mark(void);

/*
 * In the text of the refusals file (@buf, @len bytes, need not be
 * NUL-terminated), the reason for the open by thread @tid on @cpu (-1:
 * any CPU) that failed with @errnum and began at @mark: 1 with it in
 * @why (truncated to @whylen), or 0 if no line is that open's.
 * Malformed lines are skipped.
 */
int wult_refusal_find(const char *buf, size_t len, int tid, int cpu, int errnum,
		      uint64_t mark, char *why, size_t whylen);

/*
 * The same for the calling thread, read from WULT_REFUSALS_PATH: 1 (the
 * reason in @why), 0 (none: perf refused, or wult.ko gave no reason), or
 * a negative errno when the file cannot be read, with where the reason
 * may be found instead in @err (debugfs not mounted: -ENODEV; no such
 * file in it, an older wult.ko: -ENOENT).
 */
int wult_refusal_read(uint64_t mark, int cpu, int errnum, char *why, size_t whylen,
		      char *err, size_t errlen);

#pragma GCC visibility pop

#endif
