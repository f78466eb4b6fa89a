// SPDX-License-Identifier: GPL-2.0
/*
 * libwult TSC evaluation's verdict (wult/tsc.h): fit, unfit or undecided
 * from what tsc_eval.c measured, with the reasons in words.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include <wult/tsc.h>
#include "internal/tsc.h"

/* Appends "; reason" to why, keeping it NUL-terminated. */
static void add_reason(char *why, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_reason(char *why, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!why || *used + 1 >= len)
		return;
	if (*used) {
		n = snprintf(why + *used, len - *used, "; ");
		*used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
	}
	va_start(ap, fmt);
	n = vsnprintf(why + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n < len - *used ? (size_t)n : len - *used - 1;
}

/* Proven problems: each makes the TSC unfit whatever the shift bound. */
static int unfit_reasons(const struct wult_tsc_eval *ev, char *why, size_t len, size_t *used)
{
	const struct wult_tsc_eval_summary *s = &ev->sum;
	int unfit = 0;

	if (!s->info.constant_tsc) {
		add_reason(why, len, used, "no constant_tsc: the rate follows CPU frequency");
		unfit = 1;
	}
	if (!s->info.nonstop_tsc) {
		add_reason(why, len, used, "no nonstop_tsc: the TSC may stop in deep C-states");
		unfit = 1;
	}
	if (!s->advancing) {
		add_reason(why, len, used, "the TSC did not advance on every CPU");
		unfit = 1;
	}
	/* One window with a backward step may be a fluke; a repeat is not. */
	if (s->windows_violating > 1) {
		add_reason(why, len, used, "TSC went backwards across CPUs in %u windows (%lu steps)",
			   s->windows_violating, s->violations);
		unfit = 1;
	}
	if (s->switch_violations) {
		add_reason(why, len, used, "TSC went backwards %lu times when switching CPUs",
			   s->switch_violations);
		unfit = 1;
	}
	if (ev->inconsistent) {
		add_reason(why, len, used, "shift bounds contradict each other across windows: the TSCs drift apart");
		unfit = 1;
	}
	if (s->max_pace_ppm > ev->opts.max_pace_ppm) {
		add_reason(why, len, used, "CPU rates differ by %.1f ppm (limit %u)",
			   s->max_pace_ppm, ev->opts.max_pace_ppm);
		unfit = 1;
	}
	return unfit;
}

/* Some CPU's shift lies wholly beyond the limit: proven, not just unbounded. */
static int shift_beyond(const struct wult_tsc_eval *ev, char *why, size_t len, size_t *used)
{
	uint64_t hz = ev->cpus[0].hz ? ev->cpus[0].hz : 1000000000u;
	int64_t lim = (int64_t)((unsigned __int128)ev->opts.max_shift_ns * hz / 1000000000u);
	unsigned int c;

	for (c = 1; c < ev->sum.ncpus; c++) {
		const struct wult_tsc_eval_cpu *e = &ev->cpus[c];
		int64_t lo = e->shift_lo > e->switch_lo ? e->shift_lo : e->switch_lo;
		int64_t hi = e->shift_hi < e->switch_hi ? e->shift_hi : e->switch_hi;

		if (lo > lim || hi < -lim) {
			add_reason(why, len, used, "CPU %d's TSC is %" PRId64 "..%" PRId64
				   " ticks from CPU %d's, beyond %u ns", e->cpu, lo, hi,
				   ev->sum.base_cpu, ev->opts.max_shift_ns);
			return 1;
		}
	}
	return 0;
}

const char *wult_tsc_method_name(enum wult_tsc_method m)
{
	switch (m) {
	case WULT_TSC_BY_CAS:
		return "CAS-ordered probes";
	case WULT_TSC_BY_SWITCHING:
		return "CPU switching";
	default:
		return "a single CPU";
	}
}

enum wult_tsc_verdict wult_tsc_eval_verdict(const struct wult_tsc_eval *ev, char *why, size_t len)
{
	const struct wult_tsc_eval_summary *s;
	size_t used = 0;

	if (why && len)
		why[0] = '\0';
	if (!ev) {
		add_reason(why, len, &used, "no evaluation");
		return WULT_TSC_UNFIT;
	}
	s = &ev->sum;
	if (unfit_reasons(ev, why, len, &used) | shift_beyond(ev, why, len, &used))
		return WULT_TSC_UNFIT;
	if (s->shift_bound_ns > ev->opts.max_shift_ns) {
		add_reason(why, len, &used, "the shift is only bounded to %" PRIu64 " ticks (%" PRIu64
			   " ns) by %s, more than the %u ns limit: %s", s->shift_bound,
			   s->shift_bound_ns, wult_tsc_method_name(s->method), ev->opts.max_shift_ns,
			   s->windows_kept ? "the TSCs may be apart" :
			   "the CPUs never ran together long enough for CAS-ordered probes");
		return WULT_TSC_UNDECIDED;
	}
	add_reason(why, len, &used, "shift within %" PRIu64 " ticks (%" PRIu64 " ns), bounded by %s",
		   s->shift_bound, s->shift_bound_ns, wult_tsc_method_name(s->method));
	return WULT_TSC_FIT;
}
