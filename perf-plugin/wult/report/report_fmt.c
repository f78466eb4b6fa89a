// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's values as every view reads and prints them: the rows of a
 * statistics table, the counter metrics shown as means, a time in the
 * chosen unit, a counter mean, a state's group, the order of state names.
 * The text (report_print.c), HTML (report_html.c) and JSON (report_json.c)
 * views and the diff model (report_diff.c) take them from here, so they
 * agree to the digit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/dpdec.h>

#include "report_view.h"

int rpt_is_time(enum wult_metric m)
{
	const struct wult_metric_desc *d = wult_metric_desc(m);

	return d && d->is_time && !strcmp(d->csv_unit, "us");
}

const char *rpt_time_names(char *buf, size_t len)
{
	size_t n = 0;
	int m;

	buf[0] = '\0';
	for (m = 0; m < WULT_M_NR; m++)
		if (rpt_is_time(m) && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      wult_metric_desc(m)->name);
	return buf;
}

const enum wult_metric rpt_ctr_metrics[RPT_NCTR] = {
	WULT_M_CC0, WULT_M_CC1, WULT_M_CC1_DERIVED, WULT_M_CC3, WULT_M_CC6, WULT_M_CC7,
	WULT_M_CC10, WULT_M_MC1, WULT_M_MC6, WULT_M_PC1, WULT_M_PC2, WULT_M_PC3, WULT_M_PC6,
	WULT_M_PC7, WULT_M_PC8, WULT_M_PC9, WULT_M_PC10, WULT_M_CPU_FREQ, WULT_M_SMI_CNT,
	WULT_M_NMI_CNT, WULT_M_SWIRQ_CNT,
};

const char *const rpt_stat_names[RPT_S_NR] = {
	"count", "min", "median", "p90", "p99", "p99.9", "p99.99", "p99.999", "max",
	"mean", "stddev",
};

double rpt_stat_val(const struct wult_stats_summary *s, int k)
{
	if (!s->count)
		return k == RPT_S_COUNT ? 0 : NAN;
	switch (k) {
	case RPT_S_COUNT: return s->count;
	case RPT_S_MIN: return s->min;
	case RPT_S_MEDIAN: return s->median;
	case RPT_S_P90: return s->p90;
	case RPT_S_P99: return s->p99;
	case RPT_S_P99_9: return s->p99_9;
	case RPT_S_P99_99: return s->p99_99;
	case RPT_S_P99_999: return s->p99_999;
	case RPT_S_MAX: return s->max;
	case RPT_S_MEAN: return s->mean;
	default: return s->count > 1 ? s->stddev : NAN;
	}
}

/* A time (ns) in the output unit; "-" when there is none. */
const char *rpt_fmt_time(char *buf, size_t len, const struct rpt_opts *o, double ns)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (o->unit_ns == 1)
		snprintf(buf, len, ns == floor(ns) ? "%.0f" : "%.1f", ns);
	else
		snprintf(buf, len, "%.*f", o->unit_ns == 1e3 ? 3 : 6, ns / o->unit_ns);
	return buf;
}

const char *rpt_fmt_stat(char *buf, size_t len, const struct rpt_opts *o, int k, double v)
{
	if (k == RPT_S_COUNT && !isnan(v)) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	return rpt_fmt_time(buf, len, o, v);
}

/* Decimals of a counter metric's mean: MHz, rare-event counts, percent. */
int rpt_ctr_prec(enum wult_metric m)
{
	return m == WULT_M_CPU_FREQ ? 1 : m == WULT_M_SMI_CNT || m == WULT_M_NMI_CNT ||
	       m == WULT_M_SWIRQ_CNT ? 3 : 2;
}

const char *rpt_ctr_fmt(enum wult_metric m, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", rpt_ctr_prec(m), v);
	return buf;
}

double rpt_mean_val(const struct rpt_mean *m)
{
	return m->n ? m->sum / m->n : NAN;
}

const struct rpt_group *rpt_find_group(const struct rpt_file *f, const char *name)
{
	unsigned int i;

	if (!strcmp(name, RPT_ALL))
		return &f->all;
	for (i = 0; i < f->ngroups; i++)
		if (!strcmp(f->groups[i]->name, name))
			return f->groups[i];
	return NULL;
}

/* ---- state order ---- */

/* POLL first, then by letters, number and suffix: C1 < C1E < C3 < C6 < C10. */
static int state_cmp(const char *a, const char *b)
{
	size_t la, lb;
	unsigned long na, nb;
	char *ea, *eb;
	int r;

	if (!strcmp(a, b))
		return 0;
	if (!strcmp(a, "POLL") || !strcmp(b, "POLL"))
		return !strcmp(a, "POLL") ? -1 : 1;
	la = strcspn(a, "0123456789");
	lb = strcspn(b, "0123456789");
	r = strncmp(a, b, la < lb ? la : lb);
	if (r || la != lb || !a[la] || !b[lb])
		return r ? r : la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
	na = strtoul(a + la, &ea, 10);
	nb = strtoul(b + lb, &eb, 10);
	if (na != nb)
		return na < nb ? -1 : 1;
	return strcmp(ea, eb);
}

/*
 * --per-cpu's groups, "CPUn STATE": by CPU, then each CPU's states in the
 * order the report without --per-cpu has them (POLL, C1, C6; not C1, C6,
 * POLL as the whole names would sort).
 */
int rpt_state_cmp(const char *a, const char *b)
{
	const char *sa = strchr(a, ' '), *sb = strchr(b, ' ');
	char ca[32], cb[32];
	int r;

	if (!sa || !sb || sa - a >= (long)sizeof(ca) || sb - b >= (long)sizeof(cb))
		return state_cmp(a, b);
	snprintf(ca, sizeof(ca), "%.*s", (int)(sa - a), a);
	snprintf(cb, sizeof(cb), "%.*s", (int)(sb - b), b);
	r = state_cmp(ca, cb);
	return r ? r : state_cmp(sa + 1, sb + 1);
}

const char *rpt_sources_name(unsigned int sources, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	if (!sources || !len)
		return NULL;
	buf[0] = '\0';
	for (i = 0; i < 32 && n < len; i++)
		if (sources & (1U << i))
			n += snprintf(buf + n, len - n, "%s%s", n ? "+" : "",
				      wult_dpdec_source_name(i));
	return buf;
}
