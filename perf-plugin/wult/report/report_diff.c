// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's diff model: the states of several inputs (the union of
 * theirs, "all" last), each input's group of a state, and the rows a diff
 * shows (datapoints kept and excluded, each statistic of each time
 * metric, the counter means that some input has), with each input's
 * value. Built once per report; the text view (report_print.c) and the
 * HTML view (report_html.c) only lay it out, each cell formatted by
 * rpt_diff_cell() so both show the same numbers and changes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_view.h"

/* The change of @v against @base: absolute (in @abs) and relative (@pct);
 * @o for times, else @prec decimals. */
void rpt_fmt_change(const struct rpt_opts *o, int prec, int k, double base, double v,
		    char *abs, char *pct, size_t len)
{
	double d = v - base;

	if (isnan(base) || isnan(v)) {
		snprintf(abs, len, "-");
		snprintf(pct, len, "-");
		return;
	}
	if (k == RPT_S_COUNT)
		snprintf(abs, len, "%+.0f", d);
	else if (o)
		snprintf(abs, len, "%+.*f", o->unit_ns == 1 ? (d == floor(d) ? 0 : 1) :
			 o->unit_ns == 1e3 ? 3 : 6, d / o->unit_ns);
	else
		snprintf(abs, len, "%+.*f", prec, d);
	if (d == 0)
		snprintf(pct, len, "0.00%%");
	else if (base == 0)
		snprintf(pct, len, "-");
	else
		snprintf(pct, len, "%+.2f%%", d / fabs(base) * 100);
}

/* The union of the inputs' state names, ordered, "all" last. */
unsigned int rpt_state_union(struct rpt_file *const *files, unsigned int nfiles,
			     const char **names, unsigned int max)
{
	unsigned int n = 0, i, j, k;

	for (j = 0; j < nfiles; j++) {
		for (i = 0; i < files[j]->ngroups; i++) {
			const char *s = files[j]->groups[i]->name;

			for (k = 0; k < n && strcmp(names[k], s); k++)
				;
			if (k == n && n < max - 1)
				names[n++] = s;
		}
	}
	/* Insertion sort: a few dozen names at most. */
	for (i = 1; i < n; i++) {
		const char *s = names[i];

		for (k = i; k > 0 && rpt_state_cmp(names[k - 1], s) > 0; k--)
			names[k] = names[k - 1];
		names[k] = s;
	}
	names[n++] = RPT_ALL;
	return n;
}

void rpt_diff_cell(const struct rpt_opts *o, const struct rpt_diff_row *r, unsigned int j,
		   char *val, char *abs, char *pct, size_t len)
{
	int is_time = r->ctr < 0 && r->k != RPT_S_COUNT;
	int prec = r->ctr < 0 ? 0 : rpt_ctr_prec(r->ctr);

	if (r->ctr >= 0)
		rpt_ctr_fmt(r->ctr, r->v[j], val, len);
	else
		rpt_fmt_stat(val, len, o, r->k, r->v[j]);
	if (j)
		rpt_fmt_change(is_time ? o : NULL, prec, r->k, r->v[0], r->v[j], abs, pct, len);
}

/* The rows of state @st, each with room for @n values taken from @v. */
static void state_rows(const struct rpt_opts *o, struct rpt_diff_state *st, unsigned int n,
		       double *v)
{
	unsigned int i, j, r = 0;
	int k;

	st->kept = (struct rpt_diff_row){ "kept", RPT_S_COUNT, -1, v };
	st->excluded = (struct rpt_diff_row){ "excluded", RPT_S_COUNT, -1, v + n };
	for (j = 0; j < n; j++) {
		st->kept.v[j] = st->g[j] ? st->g[j]->kept : 0;
		st->excluded.v[j] = st->g[j] ? st->g[j]->excluded : 0;
	}
	v += 2 * n;
	for (i = 0; i < o->ntime; i++) {
		for (k = 0; k < RPT_S_NR; k++, r++, v += n) {
			st->time[r] = (struct rpt_diff_row){ rpt_stat_names[k], k, -1, v };
			for (j = 0; j < n; j++)
				v[j] = st->g[j] ? rpt_stat_val(&st->g[j]->sum[i], k) : NAN;
		}
	}
	for (i = 0; i < RPT_NCTR; i++) {
		enum wult_metric m = rpt_ctr_metrics[i];
		int any = 0;

		for (j = 0; j < n; j++) {
			v[j] = st->g[j] ? rpt_mean_val(&st->g[j]->ctr[i]) : NAN;
			any |= !isnan(v[j]);
		}
		if (!any)
			continue;
		st->ctr[st->nctr++] = (struct rpt_diff_row){ wult_metric_desc(m)->name,
							     RPT_S_MEAN, m, v };
		v += n;
	}
}

int rpt_diff_new(const struct rpt_opts *o, struct rpt_file *const *files, unsigned int nfiles,
		 struct rpt_diff **out)
{
	const char *names[RPT_MAX_STATES + 1];
	unsigned int nrows = 2 + o->ntime * RPT_S_NR + RPT_NCTR, s, j;
	struct rpt_diff *d;

	*out = NULL;
	if (nfiles > RPT_MAX_FILES)
		nfiles = RPT_MAX_FILES;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->nfiles = nfiles;
	d->nstates = rpt_state_union(files, nfiles, names, RPT_MAX_STATES + 1);
	d->st = calloc(d->nstates, sizeof(*d->st));
	if (!d->st) {
		rpt_diff_free(d);
		return -ENOMEM;
	}
	for (s = 0; s < d->nstates; s++) {
		struct rpt_diff_state *st = &d->st[s];

		st->name = names[s];
		st->g = calloc(nfiles, sizeof(*st->g));
		st->time = calloc(o->ntime * RPT_S_NR + 1, sizeof(*st->time));
		st->ctr = calloc(RPT_NCTR, sizeof(*st->ctr));
		st->vals = calloc((size_t)nrows * nfiles, sizeof(*st->vals));
		if (!st->g || !st->time || !st->ctr || !st->vals) {
			rpt_diff_free(d);
			return -ENOMEM;
		}
		for (j = 0; j < nfiles; j++)
			st->g[j] = rpt_find_group(files[j], names[s]);
		state_rows(o, st, nfiles, st->vals);
	}
	*out = d;
	return 0;
}

void rpt_diff_free(struct rpt_diff *d)
{
	unsigned int s;

	if (!d)
		return;
	for (s = 0; d->st && s < d->nstates; s++) {
		free(d->st[s].g);
		free(d->st[s].time);
		free(d->st[s].ctr);
		free(d->st[s].vals);
	}
	free(d->st);
	free(d);
}
