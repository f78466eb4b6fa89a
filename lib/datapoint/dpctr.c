// SPDX-License-Identifier: GPL-2.0
/*
 * The datapoint decoder's group-read counters (internal/dpctr.h): which
 * counters a recording's events are, their per-CPU deltas, multiplexing's
 * scale, and the metrics they make.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/dpctr.h"

static int classify(const char *name, enum dpctr_kind *kind, int *metric)
{
	static const struct { const char *pat; int metric; } res[] = {
		{ "cstate_core/c1-residency", WULT_M_CC1 },
		{ "cstate_core/c3-residency", WULT_M_CC3 },
		{ "cstate_core/c6-residency", WULT_M_CC6 },
		{ "cstate_core/c7-residency", WULT_M_CC7 },
		{ "cstate_pkg/c2-residency", WULT_M_PC2 },
		{ "cstate_pkg/c3-residency", WULT_M_PC3 },
		{ "cstate_pkg/c6-residency", WULT_M_PC6 },
		{ "cstate_pkg/c7-residency", WULT_M_PC7 },
	};
	size_t i;

	if (strstr(name, "msr/tsc")) {
		*kind = DPCTR_TSC;
		return 0;
	}
	if (strstr(name, "msr/aperf")) {
		*kind = DPCTR_APERF;
		return 0;
	}
	if (strstr(name, "msr/mperf")) {
		*kind = DPCTR_MPERF;
		return 0;
	}
	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		if (strstr(name, res[i].pat)) {
			*kind = DPCTR_RES;
			*metric = res[i].metric;
			return 0;
		}
	}
	return -ENOENT;
}

int dpctr_add(struct dpctr *dp, uint64_t id, const char *name)
{
	enum dpctr_kind kind;
	int i;
	int metric = -1;

	if (classify(name, &kind, &metric))
		return -ENOENT;		/* a counter no metric uses */
	if (dp->nctrs == DPCTR_MAX)
		return -ENOSPC;
	i = dp->nctrs++;
	dp->c[i].id = id;
	dp->c[i].kind = kind;
	dp->c[i].metric = metric;
	if (dp->prev)
		return 0;
	dp->prev = calloc((size_t)DPCTR_MAX_CPUS * DPCTR_MAX, sizeof(*dp->prev));
	dp->have_prev = calloc((size_t)DPCTR_MAX_CPUS * DPCTR_MAX, 1);
	dp->prev_t = calloc(DPCTR_MAX_CPUS, sizeof(*dp->prev_t));
	if (dp->prev && dp->have_prev && dp->prev_t)
		return 0;
	/* The arrays are made with the first counter: none is left. */
	dpctr_free(dp);
	return -ENOMEM;
}

/*
 * The factor that turns this sample's counter deltas into full-time
 * values: while multiplexed, a counter counts only for part of the time
 * since the previous sample, delta-running of delta-enabled. The
 * cumulative times would apply the whole run's average to each delta,
 * wrong as soon as the share changes. NaN: the group did not run at all
 * since the previous sample, so its deltas say nothing.
 */
static double mux_scale(struct dpctr *dp, const struct wult_pd_sample *s,
			unsigned int cpu, struct wult_point *pt)
{
	const struct perf_event_attr *at = &s->attr->attr;
	uint64_t den, drun, want = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
	double scale = 1;

	pt->v[WULT_M_SCALED].num = 0;
	if ((at->read_format & want) != want)
		return 1;
	den = s->read.time_enabled - dp->prev_t[cpu].en;
	drun = s->read.time_running - dp->prev_t[cpu].run;
	dp->prev_t[cpu].en = s->read.time_enabled;
	dp->prev_t[cpu].run = s->read.time_running;
	if (drun > den || !den)
		return 1;	/* not multiplexed (or clocks disagree) */
	if (!drun) {
		pt->v[WULT_M_SCALED].num = 1;
		return NAN;
	}
	if (drun < den) {
		scale = (double)den / (double)drun;
		pt->v[WULT_M_SCALED].num = 1.0 / scale < WULT_DP_SCALE_THRESHOLD;
	}
	return scale;
}

/* Group-read counters: deltas since the previous datapoint of the CPU. */
void dpctr_decode(struct dpctr *dp, const struct wult_pd_sample *s, double khz,
		       struct wult_point *pt)
{
	double d[4] = { NAN, NAN, NAN, NAN }, res[WULT_M_NR], scale;
	unsigned int cpu = (unsigned int)pt->v[WULT_M_CPU].num, i, k;
	int have_res = 0;

	if (!dp->nctrs || isnan(pt->v[WULT_M_CPU].num) || cpu >= DPCTR_MAX_CPUS ||
	    !(s->attr->attr.sample_type & PERF_SAMPLE_READ))
		return;
	scale = mux_scale(dp, s, cpu, pt);
	for (i = 0; i < s->read.nr; i++) {
		const struct wult_pd_read_value *rv = &s->read.values[i];

		for (k = 0; k < dp->nctrs; k++) {
			size_t slot = (size_t)cpu * DPCTR_MAX + k;
			double delta;

			if (dp->c[k].id != rv->id)
				continue;
			delta = (double)(rv->value - dp->prev[slot]) * scale;
			if (dp->have_prev[slot]) {
				if (dp->c[k].kind == DPCTR_RES) {
					res[dp->c[k].metric] = delta;
					have_res |= 1;
					pt->v[dp->c[k].metric].num = delta; /* made % below */
				} else {
					d[dp->c[k].kind] = delta;
				}
			}
			dp->prev[slot] = rv->value;
			dp->have_prev[slot] = 1;
		}
	}
	/* MPERF ticks at the TSC rate, APERF at the actual one. */
	if (d[DPCTR_APERF] >= 0 && d[DPCTR_MPERF] > 0 && khz > 0)
		pt->v[WULT_M_CPU_FREQ].num = khz / 1e3 * d[DPCTR_APERF] / d[DPCTR_MPERF];
	for (i = WULT_M_CC1; i <= WULT_M_PC7; i++) {
		if (!have_res || isnan(pt->v[i].num))
			continue;
		pt->v[i].num = d[DPCTR_TSC] > 0 ? fmin(100.0, res[i] / d[DPCTR_TSC] * 100) : NAN;
	}
}

uint64_t dpctr_metrics(const struct dpctr *dp, int have_khz)
{
	unsigned int have = 0, k;
	uint64_t bits = 0;

	if (!dp->nctrs)
		return 0;
	for (k = 0; k < dp->nctrs; k++)
		have |= 1U << dp->c[k].kind;
	for (k = 0; k < dp->nctrs; k++)
		if (dp->c[k].kind == DPCTR_RES && (have & (1U << DPCTR_TSC)))
			bits |= WULT_METRIC_BIT(dp->c[k].metric);
	if ((have & (1U << DPCTR_APERF)) && (have & (1U << DPCTR_MPERF)) && have_khz)
		bits |= WULT_METRIC_BIT(WULT_M_CPU_FREQ);
	return bits | WULT_METRIC_BIT(WULT_M_SCALED);
}

void dpctr_free(struct dpctr *dp)
{
	free(dp->prev);
	free(dp->have_prev);
	free(dp->prev_t);
	dp->prev = NULL;
	dp->have_prev = NULL;
	dp->prev_t = NULL;
	dp->nctrs = 0;
}
