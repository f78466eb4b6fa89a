/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: the counters a wult recording reads with each datapoint (a group read:
 * msr/tsc, aperf, mperf, cstate residencies): their deltas since the
 * previous datapoint of the same CPU become CPUFreq and the CCx%/PCx%
 * metrics. Part of the datapoint decoder (dpdec.c), which holds one.
 */
#ifndef WULT_INTERNAL_DPCTR_H
#define WULT_INTERNAL_DPCTR_H

#include <stdint.h>

#include <wult/dpdec.h>
#include <wult/metrics.h>
#include <wult/perfdata.h>

#define DPCTR_MAX		64	/* counters */
#define DPCTR_MAX_CPUS	4096

enum dpctr_kind { DPCTR_TSC, DPCTR_APERF, DPCTR_MPERF, DPCTR_RES };

struct dpctr {
	struct {
		uint64_t id;
		enum dpctr_kind kind;
		int metric;		/* DPCTR_RES: the residency metric */
	} c[DPCTR_MAX];
	unsigned int nctrs;
	/* previous group-read values per CPU and counter, for deltas */
	uint64_t *prev;
	uint8_t *have_prev;
	/* previous time_enabled/time_running per CPU: the group's own */
	struct { uint64_t en, run; } *prev_t;
};

/* Registers the counter of sample id @id named @name (its event's name):
 * -ENOENT if no metric uses it. */
int dpctr_add(struct dpctr *c, uint64_t id, const char *name);
/* Fills @pt's counter metrics from @s's group read; @khz: the TSC's. */
void dpctr_decode(struct dpctr *c, const struct wult_pd_sample *s, double khz,
		       struct wult_point *pt);
/* The metrics dpctr_decode() fills (CPUFreq needs @have_khz). */
uint64_t dpctr_metrics(const struct dpctr *c, int have_khz);
void dpctr_free(struct dpctr *c);

#endif
