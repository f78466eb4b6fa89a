// SPDX-License-Identifier: GPL-2.0
/*
 * The methods compared: a wake by a timer the CPU's power unit can see
 * coming (hrt, tdt) may cost less than a wake by a device or another CPU
 * (nic, ipi) from the same state, because the hardware starts leaving the
 * state before the timer fires (pre-wake). With inputs of both kinds, each
 * state's WakeLatency by timer is set against the same state's by device
 * or IPI: the difference is what pre-wake saved.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_judge.h"
#include "report_view.h"

#define TIMER_SOURCES	((1U << WULT_SOURCE_HRT) | (1U << WULT_SOURCE_TDT))
#define OTHER_SOURCES	((1U << WULT_SOURCE_IPI) | (1U << WULT_SOURCE_NIC))

/* The statistics compared: median and p99. */
static const int cols[2] = { RPT_S_MEDIAN, RPT_S_P99 };

static int wake_index(const struct rpt_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->ntime; i++)
		if (o->time[i] == WULT_M_WAKE_LATENCY)
			return i;
	return -1;
}

static void put_pair(FILE *out, const struct rpt_opts *o, const struct rpt_file *t,
		     const struct rpt_file *d, int mi)
{
	char a[32], b[32], c[32], sn[64];
	unsigned int i;
	int k;

	fprintf(out, "\nMethods compared (pre-wake): %s (%s) against %s (%s)\n", t->path,
		rpt_sources_name(t->nt.sources, sn, sizeof(sn)), d->path,
		rpt_sources_name(d->nt.sources, sn + 32, sizeof(sn) - 32));
	fprintf(out, "  WakeLatency in %s; Saved: the device or IPI wake's minus the timer's\n"
		"  (above 0: the timer wake was shorter, the hardware saw it coming)\n", o->unit);
	fprintf(out, "  %-12s %-6s %10s %10s %10s %8s\n", "State", "Stat", "Timer", "Other",
		"Saved", "Saved%");
	for (i = 0; i < t->ngroups; i++) {
		const struct rpt_group *gt = t->groups[i], *gd = rpt_find_group(d, gt->name);

		if (!gd)
			continue;
		for (k = 0; k < 2; k++) {
			double vt = rpt_stat_val(&gt->sum[mi], cols[k]);
			double vd = rpt_stat_val(&gd->sum[mi], cols[k]);

			fprintf(out, "  %-12s %-6s %10s %10s %10s", k ? "" : gt->name,
				rpt_stat_names[cols[k]], rpt_fmt_time(a, sizeof(a), o, vt),
				rpt_fmt_time(b, sizeof(b), o, vd),
				rpt_fmt_time(c, sizeof(c), o, vd - vt));
			if (vd > 0 && !isnan(vt))
				fprintf(out, " %7.1f%%\n", 100 * (vd - vt) / vd);
			else
				fprintf(out, " %8s\n", "-");
		}
	}
}

int rpt_methods_kind(const struct rpt_file *f)
{
	if (f->nt.sources && !(f->nt.sources & ~TIMER_SOURCES))
		return 1;
	return f->nt.sources && !(f->nt.sources & ~OTHER_SOURCES) ? 2 : 0;
}

static int is_timer(const struct rpt_file *f)
{
	return rpt_methods_kind(f) == 1;
}

static int is_other(const struct rpt_file *f)
{
	return rpt_methods_kind(f) == 2;
}

int rpt_methods_differ(struct rpt_file *const *files, unsigned int nfiles)
{
	unsigned int i, t = 0, d = 0;

	for (i = 0; i < nfiles; i++) {
		t |= is_timer(files[i]);
		d |= is_other(files[i]);
	}
	return t && d;
}

void rpt_methods_print(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		       unsigned int nfiles)
{
	unsigned int i, j;
	int mi = wake_index(o);

	if (mi < 0)
		return;
	/* Each timer-only input against each device- or IPI-only one. */
	for (i = 0; i < nfiles; i++) {
		if (!is_timer(files[i]))
			continue;
		for (j = 0; j < nfiles; j++)
			if (is_other(files[j]))
				put_pair(out, o, files[i], files[j], mi);
	}
}
