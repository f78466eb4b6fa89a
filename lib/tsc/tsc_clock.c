// SPDX-License-Identifier: GPL-2.0
/*
 * libwult TSC: the TSC against CLOCK_MONOTONIC_RAW, the clock reads that
 * calibration (tsc_conv.c) and the cross-CPU evaluation (tsc_eval.c) both
 * take (internal/tsc.h).
 */
#include <stdint.h>
#include <time.h>

#include <wult/tsc.h>
#include "internal/tsc.h"

#define PAIR_TRIES	7	/* clock reads to pick the narrowest bracket from */

uint64_t tsc_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t tsc_clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	/* A preempted or interrupted read shows as a wide bracket: keep the narrowest. */
	for (i = 0; i < PAIR_TRIES; i++) {
		uint64_t t0 = wult_tsc_read_ordered();
		uint64_t n = tsc_raw_ns();
		uint64_t t1 = wult_tsc_read_ordered();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
	return best;
}
