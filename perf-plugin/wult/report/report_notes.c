// SPDX-License-Identifier: GPL-2.0
/*
 * What the header says of the kept datapoints: their CPUs, LDist range,
 * methods, and the ipi wakes by flag or with a task. Unions, sums and
 * extremes: the same whatever the order, so a pass gathers them where it
 * is cheapest (the reading thread, report_pipe.c, when every datapoint is
 * kept).
 */
#include <math.h>
#include <string.h>

#include "report.h"

void rpt_notes_init(struct rpt_notes *nt)
{
	memset(nt, 0, sizeof(*nt));
	nt->ldist_min = nt->ldist_max = NAN;
}

static inline unsigned int source_bit(double src)
{
	return src >= 0 && src < 32 ? 1U << (unsigned int)src : 0;
}

/* An ipi datapoint without IntrLatency: a wake by need_resched alone. */
static inline unsigned int flag_wake(double src, double intr)
{
	return src == WULT_SOURCE_IPI && isnan(intr);
}

static inline void note_cpu(struct rpt_notes *nt, double cpu)
{
	if (cpu >= 0 && cpu < RPT_MAX_CPUS)
		nt->cpus[(unsigned int)cpu / 64] |= 1ULL << ((unsigned int)cpu % 64);
}

/* [@mn, @mx] widened to @x (NaN: none yet, or not a value). */
static inline void widen(double *mn, double *mx, double x)
{
	if (isnan(x))
		return;
	if (isnan(*mn) || x < *mn)
		*mn = x;
	if (isnan(*mx) || x > *mx)
		*mx = x;
}

void rpt_notes_point(struct rpt_notes *nt, const struct wult_point *pt)
{
	nt->flag_wakes += flag_wake(pt->v[WULT_M_SOURCE].num, pt->v[WULT_M_INTR_LATENCY].num);
	nt->sources |= source_bit(pt->v[WULT_M_SOURCE].num);
	nt->task_wakes += !isnan(pt->v[WULT_M_RUN_LATENCY].num);
	note_cpu(nt, pt->v[WULT_M_CPU].num);
	widen(&nt->ldist_min, &nt->ldist_max, pt->v[WULT_M_LDIST].num);
}

/* A column at a time: each loop is short and predictable. */
void rpt_notes_rows(struct rpt_notes *nt, const double *v, unsigned int n, unsigned int stride,
		    const int *col)
{
	int source = col[WULT_M_SOURCE], intr = col[WULT_M_INTR_LATENCY];
	int run = col[WULT_M_RUN_LATENCY], cpuc = col[WULT_M_CPU], ldist = col[WULT_M_LDIST];
	double mn = nt->ldist_min, mx = nt->ldist_max, cpu;
	unsigned int r, s = 0;
	uint64_t low = 0;

	for (r = 0; source >= 0 && r < n; r++)
		s |= source_bit(v[(size_t)r * stride + source]);
	nt->sources |= s;
	for (r = 0; source >= 0 && (s & (1U << WULT_SOURCE_IPI)) && r < n; r++)
		nt->flag_wakes += flag_wake(v[(size_t)r * stride + source],
					    intr >= 0 ? v[(size_t)r * stride + intr] : NAN);
	for (r = 0; run >= 0 && r < n; r++)
		nt->task_wakes += !isnan(v[(size_t)r * stride + run]);
	/* CPUs below 64 in a register: or-ing into cpus[] each row made
	 * each row wait for the previous row's store */
	for (r = 0; cpuc >= 0 && r < n; r++) {
		cpu = v[(size_t)r * stride + cpuc];
		if (cpu >= 0 && cpu < 64)
			low |= 1ULL << (unsigned int)cpu;
		else
			note_cpu(nt, cpu);
	}
	nt->cpus[0] |= low;
	for (r = 0; ldist >= 0 && r < n; r++)
		widen(&mn, &mx, v[(size_t)r * stride + ldist]);
	nt->ldist_min = mn;
	nt->ldist_max = mx;
}
