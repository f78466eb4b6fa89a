// SPDX-License-Identifier: GPL-2.0
/*
 * wult report --fail-if: conditions on the report's statistics for CI
 * gates, e.g. 'C3.p99.9 WakeLatency > 150us'. lib/stats/gate.c parses them; here
 * they are checked against what the report has (a time metric's eleven
 * statistics, a counter metric's mean) and evaluated on the same values
 * the tables print (rpt_stat_val(), rpt_mean_val()).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report_judge.h"
#include "report_view.h"

/* The metric's index in rpt_ctr_metrics, or -1. */
static int ctr_index(enum wult_metric m)
{
	int i;

	for (i = 0; i < RPT_NCTR; i++)
		if (rpt_ctr_metrics[i] == m)
			return i;
	return -1;
}

int rpt_gate_add(struct rpt_opts *o, const char *expr)
{
	struct wult_gate g;
	const char *stat;
	char err[512], names[256];

	if (o->ngates == RPT_MAX_GATES) {
		fprintf(stderr, "wult report: more than %d --fail-if options\n", RPT_MAX_GATES);
		return -EINVAL;
	}
	if (wult_gate_parse(expr, rpt_stat_names, RPT_S_NR, &g, err, sizeof(err))) {
		fprintf(stderr, "wult report: --fail-if '%s': %s\n", expr, err);
		return -EINVAL;
	}
	stat = rpt_stat_names[g.stat];
	if (!rpt_is_time(g.metric) && (ctr_index(g.metric) < 0 || g.stat != RPT_S_MEAN)) {
		fprintf(stderr, "wult report: --fail-if '%s': the report has no %s of %s (the "
			"time metrics %s have every statistic; the counter metrics CC0%%, "
			"CC6%%, CPUFreq, SMICnt, ... only their mean)\n", expr, stat,
			wult_metric_desc(g.metric)->name, rpt_time_names(names, sizeof(names)));
		return -EINVAL;
	}
	o->gate[o->ngates] = g;
	o->gate_expr[o->ngates++] = expr;
	return 0;
}

/* The states of @f, for a message: "POLL, C1, all". */
static void state_list(const struct rpt_file *f, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < f->ngroups && n < len; i++)
		n += snprintf(buf + n, len - n, "%s, ", f->groups[i]->name);
	if (n < len)
		snprintf(buf + n, len - n, "%s", RPT_ALL);
}

int rpt_gate_check(const struct rpt_opts *o, struct rpt_file *const *files,
		   unsigned int nfiles)
{
	char list[1024];
	unsigned int i, j;

	for (i = 0; i < o->ngates; i++) {
		for (j = 0; j < nfiles && !rpt_find_group(files[j], o->gate[i].state); j++)
			;
		if (j < nfiles || !nfiles)
			continue;
		state_list(files[0], list, sizeof(list));
		fprintf(stderr, "wult report: --fail-if '%s': unknown state '%s' (%s%s has %s)\n",
			o->gate_expr[i], o->gate[i].state, files[0]->path,
			nfiles > 1 ? " and the others" : "", list);
		return RPT_EXIT_USAGE;
	}
	return 0;
}

/* The condition's value in group @g, and it formatted as the report
 * prints it (with the unit) into @buf. NaN when there is none. */
static double gate_value(const struct rpt_opts *o, const struct wult_gate *gt,
			 const struct rpt_group *g, char *buf, size_t len)
{
	char num[64];
	unsigned int i;
	double v = NAN;
	int c = ctr_index(gt->metric);

	if (rpt_is_time(gt->metric)) {
		for (i = 0; i < o->ntime && o->time[i] != gt->metric; i++)
			;
		if (i < o->ntime)
			v = rpt_stat_val(&g->sum[i], gt->stat);
		rpt_fmt_stat(num, sizeof(num), o, gt->stat, v);
		snprintf(buf, len, "%s%s%s", num, gt->stat == RPT_S_COUNT || isnan(v) ? "" : " ",
			 gt->stat == RPT_S_COUNT || isnan(v) ? "" : o->unit);
	} else {
		v = rpt_mean_val(&g->ctr[c]);
		rpt_ctr_fmt(gt->metric, v, buf, len);
	}
	return v;
}

/* Condition @i on one input: 1 when it held, 0 when not, -1 when it cannot
 * be judged (no value: no datapoint has the metric). Said on stderr. */
static int eval_one(const struct rpt_opts *o, unsigned int i, const struct rpt_file *f,
		    const char *tag)
{
	const struct wult_gate *gt = &o->gate[i];
	const struct rpt_group *g = rpt_find_group(f, gt->state);
	char val[96];
	double v;

	if (!g) {
		fprintf(stderr, "wult report: --fail-if '%s': no state %s in %s%s: skipped\n",
			o->gate_expr[i], gt->state, tag, f->path);
		return 0;
	}
	v = gate_value(o, gt, g, val, sizeof(val));
	if (isnan(v)) {
		/* A gate that passes on nothing would let any run through. */
		fprintf(stderr, "wult report: --fail-if '%s' CANNOT BE JUDGED: %s has no %s "
			"of %s in %s%s (%llu datapoints kept)%s\n", o->gate_expr[i], g->name,
			rpt_stat_names[gt->stat], wult_metric_desc(gt->metric)->name, tag,
			f->path, (unsigned long long)g->kept,
			o->allow_empty ? ": taken as not holding (--allow-empty)" : "");
		return o->allow_empty ? 0 : -1;
	}
	if (!wult_gate_holds(gt, v)) {
		fprintf(stderr, "wult report: --fail-if '%s' does not hold: %s %s %s is %s in "
			"%s%s\n", o->gate_expr[i], g->name, rpt_stat_names[gt->stat],
			wult_metric_desc(gt->metric)->name, val, tag, f->path);
		return 0;
	}
	fprintf(stderr, "wult report: --fail-if '%s' HOLDS: %s %s %s is %s in %s%s\n",
		o->gate_expr[i], g->name, rpt_stat_names[gt->stat],
		wult_metric_desc(gt->metric)->name, val, tag, f->path);
	return 1;
}

int rpt_gate_eval(const struct rpt_opts *o, struct rpt_file *const *files,
		  unsigned int nfiles)
{
	unsigned int i, j;
	char tag[16] = "";
	int held = 0, unjudged = 0, r;

	for (i = 0; i < o->ngates; i++) {
		for (j = 0; j < nfiles; j++) {
			if (nfiles > 1)
				snprintf(tag, sizeof(tag), "[%u] ", j + 1);
			r = eval_one(o, i, files[j], tag);
			held |= r > 0;
			unjudged |= r < 0;
		}
	}
	/* A condition that held is the verdict; one that could not be
	 * judged is a failure of its own kind. */
	return held ? RPT_EXIT_GATE : unjudged ? RPT_EXIT_EMPTY : 0;
}
