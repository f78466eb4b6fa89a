/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult.ko's per-CPU counters as read from /sys/kernel/debug/wult/stats
 * (one line per CPU, "cpuN key=value ...", Documentation/kernel.md), and
 * what a measurement's counters say: whether enough of the armed events
 * became valid datapoints, and whether an LDist range can yield any.
 */
#ifndef WULT_KSTATS_H
#define WULT_KSTATS_H

#include <stddef.h>
#include <stdint.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

/* The counters of one CPU (or a sum); absent keys read as 0. */
struct wult_kstats {
	uint64_t armed;		/* delayed events armed */
	uint64_t emitted;	/* valid datapoints */
	uint64_t early_wake;	/* idle exits that were not the event's wake */
	uint64_t not_idle;	/* fired before the CPU was idle */
	uint64_t stale_tai;	/* something else ended the idle period */
	uint64_t other_intr;	/* another interrupt between the halves */
	uint64_t invalid;	/* times out of order */
	uint64_t cancelled;	/* armed when measuring stopped */
	uint64_t delivery_failed;
	/* The LDist floor (ns) over floor_n arm-to-idle times; not a counter. */
	uint64_t floor_ns;
	uint64_t floor_n;
	uint64_t other_wake;	/* an exit after LTime that may not be ours */
	uint64_t tsc_unstable;	/* TSC-clocked, the TSC marked unstable */
};

/*
 * The line of CPU @cpu in the stats text (@len bytes, need not be
 * NUL-terminated). Unknown keys are skipped (later modules add some).
 * 0, -ENOENT if there is no line for @cpu, -EINVAL if it is malformed
 * (the reason in @err).
 */
int wult_kstats_parse(const char *buf, size_t len, int cpu,
		      struct wult_kstats *ks, char *err, size_t errlen);

/* @d = @after - @before, counter by counter; the floor is @after's. */
void wult_kstats_delta(struct wult_kstats *d, const struct wult_kstats *after,
		       const struct wult_kstats *before);

/* Adds @b's counters to @sum; its floor becomes the larger measured one. */
void wult_kstats_add(struct wult_kstats *sum, const struct wult_kstats *b);

/*
 * Did fewer than half of the armed events of a measurement (@d, a delta)
 * become valid datapoints? 1 and a sentence in @buf (the counts and the
 * main drop reasons, largest first, with what to do), or 0.
 */
int wult_kstats_low_yield(const struct wult_kstats *d, char *buf, size_t len);

/*
 * Can an LDist range whose max is @ldist_max_us yield a valid datapoint on
 * a CPU with these counters? 0 if it can, or the floor is not known yet
 * (WULT_FLOOR_MIN_N); 1 if its max is below the floor, with @min_us the
 * smallest max that is not (the rule wult.ko applies at event_init).
 */
int wult_kstats_ldist_unreachable(const struct wult_kstats *ks,
				  uint64_t ldist_max_us, uint64_t *min_us);

#pragma GCC visibility pop

#endif
