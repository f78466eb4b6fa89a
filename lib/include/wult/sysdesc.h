/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A system's description: ordered "key=value" settings (CPU, TSC, kernel,
 * cpuidle driver, governor and states, PM QoS, MSRs, BIOS) that wult
 * record stores in every perf.data (wult/pdwrite.h) and wult report shows
 * and compares. The text form is
 *
 *	wult-sysdesc 1
 *	cpu.vendor=GenuineIntel
 *	state2.latency_us=170
 *
 * with '\\', newlines, tabs and other control bytes of a value escaped
 * (\\ \n \t \xHH). Keys are 1-127 of [A-Za-z0-9_.-]. Keys a reader does
 * not know are kept, so newer writers add keys without a new version.
 *
 * Idle states: "stateK.FIELD" describes state K of the first measured CPU;
 * another measured CPU N has "cpuN.stateK.FIELD" only where it differs
 * (wult_sysdesc_state() looks both up).
 */
#ifndef WULT_SYSDESC_H
#define WULT_SYSDESC_H

#include <stddef.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

#define WULT_SYSDESC_MAGIC	"wult-sysdesc 1\n"
#define WULT_SYSDESC_MAX_ENTRIES 4096		/* more is corrupt input */
#define WULT_SYSDESC_MAX_TEXT	(1U << 20)	/* bytes of the text form */

struct wult_sysdesc;

int wult_sysdesc_new(struct wult_sysdesc **out);
void wult_sysdesc_free(struct wult_sysdesc *sd);

/* Sets @key to @value (replacing an earlier value, keeping its place).
 * 0, -EINVAL (a bad key, or too many entries) or -ENOMEM. */
int wult_sysdesc_set(struct wult_sysdesc *sd, const char *key, const char *value);
int wult_sysdesc_setf(struct wult_sysdesc *sd, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* @key's value, or NULL. */
const char *wult_sysdesc_get(const struct wult_sysdesc *sd, const char *key);
/* Field @field ("name", "latency_us", ...) of idle state @k of CPU @cpu:
 * cpuN.stateK.FIELD, else stateK.FIELD. NULL when neither is there. */
const char *wult_sysdesc_state(const struct wult_sysdesc *sd, int cpu, unsigned int k,
			       const char *field);

/* A value (of _get() or _state()) as a number: NAN when NULL, empty or not
 * wholly a number ("unreadable: ...", "n/a"). */
double wult_sysdesc_num(const char *value);

unsigned int wult_sysdesc_nr(const struct wult_sysdesc *sd);
/* Entry @i in order: 0, or -ERANGE. */
int wult_sysdesc_entry(const struct wult_sysdesc *sd, unsigned int i, const char **key,
		       const char **value);

/* The text form (NUL-terminated, the caller frees *@text). 0 or -ENOMEM. */
int wult_sysdesc_format(const struct wult_sysdesc *sd, char **text);
/* Parses a text form of @len bytes (NUL padding after it is allowed).
 * 0, or -EINVAL with @err naming the line, or -ENOMEM. */
int wult_sysdesc_parse(const char *text, size_t len, struct wult_sysdesc **out,
		       char *err, size_t errlen);

#pragma GCC visibility pop

#endif
