/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules every wult decoder applies to a raw datapoint, in one place
 * (the derivation of its latencies, overhead compensation included):
 * libwult's decoder (dpdec.c), the libtraceevent plugin (which cannot link
 * libwult: perf's own tep_* symbols would interpose) and, by a test that
 * compares them on the same file, scripts/perf/wult_perf.py.
 *
 * Overhead compensation follows intel wult: the stamp taken second carries
 * the cost of the probe that ran first. When the after-idle probe ran
 * before the timer interrupt (IntrOff = 1) it delayed the interrupt by
 * (ai_ts2 - ai_ts1) TSC cycles, which IntrLatency sheds; otherwise the
 * interrupt handler delayed TAI by (intr_ts2 - intr_ts1) cycles, which
 * WakeLatency sheds. Cycles become whole ns, floored (as python's //), so
 * compensated latencies stay integers and every decoder agrees to the ns.
 *
 * Header only: each user compiles its own copy of these few lines.
 */
#ifndef WULT_COMP_H
#define WULT_COMP_H

#include <stdint.h>
#include <stdio.h>

#include <linux/wult.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

/* floor(@cycles * 10^6 / @khz) ns; 0 without a TSC frequency. */
static inline int64_t wult_comp_cyc2ns(int64_t cycles, uint64_t khz)
{
	__int128 n = (__int128)cycles * 1000000;
	__int128 q;

	if (!khz)
		return 0;
	q = n / (__int128)khz;
	if (q * (__int128)khz > n)	/* C truncates toward zero: floor it */
		q--;
	return (int64_t)q;
}

/*
 * The overhead (ns) the datapoint's later stamp carries, given the two
 * probes' stamps: the one IntrOff selects. Garbage IntrOff (neither 0 nor
 * 1): no compensation.
 */
static inline int64_t wult_comp_overhead(uint32_t intr_off, uint64_t ai_ts1, uint64_t ai_ts2,
					 uint64_t intr_ts1, uint64_t intr_ts2, uint64_t khz)
{
	if (intr_off == 1)
		return wult_comp_cyc2ns((int64_t)(ai_ts2 - ai_ts1), khz);
	if (intr_off == 0)
		return wult_comp_cyc2ns((int64_t)(intr_ts2 - intr_ts1), khz);
	return 0;
}

/*
 * Compensates the raw latencies (ns) in place: IntrOff = 1 takes the
 * overhead off IntrLatency, IntrOff = 0 off WakeLatency.
 */
static inline void wult_comp_latencies(uint32_t intr_off, int64_t ovh, int64_t *wake,
				       int64_t *intr)
{
	if (intr_off == 1)
		*intr -= ovh;
	else if (intr_off == 0)
		*wake -= ovh;
}

/* The metrics every decoder derives from one datapoint (ns). */
struct wult_comp_lat {
	int64_t wake_raw;	/* WakeLatencyRaw: TAI - LTime */
	int64_t intr_raw;	/* IntrLatencyRaw: TIntr - LTime */
	int64_t wake;		/* WakeLatency: wake_raw, compensated */
	int64_t intr;		/* IntrLatency: intr_raw, compensated */
	int64_t silent;		/* SilentTime: LTime - TBI */
	int no_intr;		/* a flag wake: IntrLatency does not exist */
};

/*
 * The derivation, in one place: the latencies of a datapoint from its
 * times, its IntrOff and flags, and the overhead (ns) its later stamp
 * carries (wult_comp_overhead(), or a faster equal conversion). The
 * differences wrap instead of overflowing on garbage stamps. A flag wake
 * (WULT_DPF_FLAG_WAKE: an ipi woke a polling CPU by need_resched, no
 * interrupt) has no IntrLatency; TIntr is when the queued call ran.
 */
static inline void wult_comp_derive(uint64_t ltime, uint64_t tbi, uint64_t tai, uint64_t tintr,
				    uint32_t intr_off, uint32_t flags, int64_t ovh,
				    struct wult_comp_lat *l)
{
	l->wake_raw = (int64_t)(tai - ltime);
	l->intr_raw = (int64_t)(tintr - ltime);
	l->silent = (int64_t)(ltime - tbi);
	l->wake = l->wake_raw;
	l->intr = l->intr_raw;
	wult_comp_latencies(intr_off, ovh, &l->wake, &l->intr);
	l->no_intr = !!(flags & WULT_DPF_FLAG_WAKE);
}

/*
 * A requested idle state's name when nothing better is known (no cpuidle
 * names in the input, none in sysfs): the kernel's default idle without a
 * cpuidle driver reports 0 for polling (idle=poll) and 1 for the
 * architecture's default idle, HLT = C1 on x86.
 */
static inline void wult_comp_state_fallback(int idx, char *buf, size_t len)
{
	if (idx == 0)
		snprintf(buf, len, "POLL");
	else if (idx == 1)
		snprintf(buf, len, "C1");
	else
		snprintf(buf, len, "state%d", idx);
}

#pragma GCC visibility pop

#endif
