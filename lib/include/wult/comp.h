/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules every wult decoder applies to a raw datapoint, in one place:
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

#endif
