// SPDX-License-Identifier: GPL-2.0
/*
 * wult hist --html: the in-kernel histograms on wult report's HTML page
 * (report_html.c), so both commands export one summary shape. Each CPU's
 * requested state is a group ("CPU1 C6", as wult report --per-cpu names
 * them), each metric a column; "all" adds every group up. The bins become
 * wult_stats (each bin's samples at its lower bound, the overflow at its
 * start, the underflow one bin below its end), which give the page's
 * histograms; count, min, avg and max are
 * the kernel's exact ones and the percentiles follow wult hist's rule (the
 * lower bound of the bin holding the sample of that rank, the overflow's
 * start or the underflow's end for one in them), on the added-up bins for
 * "all" too, so the page's numbers are the text table's. The library has
 * no metric TIntr - TAI: tai_to_intr's column is carried by WULT_M_TINTR
 * (a time in ns too) under the name TaiToIntr. The kernel keeps no sum of squares: no
 * stddev.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist_html.h"
#include "report/report_view.h"

struct exact {
	uint64_t count;
	int64_t sum_ns, min_ns, max_ns;
};

struct hist_html {
	struct rpt_opts o;
	struct rpt_file f;
	struct wult_stats *all[RPT_MAX_TIME];	/* every group's bins, per metric */
	struct exact all_x[RPT_MAX_TIME];
	uint64_t *all_n[RPT_MAX_TIME];		/* underflow, all_nb bins, overflow */
	size_t all_nb[RPT_MAX_TIME];
	int64_t all_lo[RPT_MAX_TIME];		/* us, where the bins begin */
	unsigned int all_bin[RPT_MAX_TIME];	/* us */
	const char *dir;
	unsigned int bin_us;
};

/* wult hist's metrics, in its order. */
static const enum wult_metric metric_of[] = {
	WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_SILENT_TIME, WULT_M_TINTR,
};
static const char *const name_of[] = { NULL, NULL, NULL, "TaiToIntr" };
#define NMETRICS (sizeof(metric_of) / sizeof(metric_of[0]))

int hist_html_new(const char *out, const char *dir, int metric, struct hist_html **ret)
{
	struct hist_html *h = calloc(1, sizeof(*h));
	unsigned int i, lo = metric < 0 ? 0 : metric, hi = metric < 0 ? NMETRICS : lo + 1;

	*ret = NULL;
	if (!h)
		return -ENOMEM;
	h->o.html_out = out;
	h->o.title = "wult hist";
	/* Its own temporary file, renamed over OUT each round (cmd_hist.c). */
	h->o.force = 1;
	h->o.unit = "us";
	h->o.unit_ns = 1e3;
	for (i = lo; i < hi; i++) {
		h->o.time_name[h->o.ntime] = name_of[i];
		h->o.time[h->o.ntime] = metric_of[i];
		h->o.plot[h->o.nplot++] = metric_of[i];
		if (wult_stats_new(&h->all[h->o.ntime++]))
			goto nomem;
	}
	h->dir = h->f.path = dir;
	rpt_notes_init(&h->f.nt);
	h->f.khist = 1;
	h->f.all.name = strdup(RPT_ALL);
	if (!h->f.all.name || rpt_plot_new(&h->o, 0, &h->f.all.plot))
		goto nomem;
	*ret = h;
	return 0;
nomem:
	hist_html_free(h);
	return -ENOMEM;
}

static void free_group(struct rpt_group *g)
{
	rpt_plot_free(g->plot);
	free(g->name);
}

void hist_html_free(struct hist_html *h)
{
	unsigned int i;

	if (!h)
		return;
	for (i = 0; i < h->f.ngroups; i++) {
		free_group(h->f.groups[i]);
		free(h->f.groups[i]);
	}
	free_group(&h->f.all);
	for (i = 0; i < RPT_MAX_TIME; i++) {
		wult_stats_free(h->all[i]);
		free(h->all_n[i]);
	}
	free(h->f.desc);
	free(h);
}

static const double pcts[] = { 50, 90, 99, 99.9, 99.99, 99.999 };
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

/* A summary with the kernel's exact figures and @pv, the values at pcts[]. */
static void summarize(const struct exact *x, const double *pv, struct wult_stats_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->count = x->count;
	s->stddev = NAN;
	s->mean = x->count ? (double)x->sum_ns / x->count : NAN;
	s->min = x->min_ns;
	s->max = x->max_ns;
	s->median = pv[0];
	s->p90 = pv[1];
	s->p99 = pv[2];
	s->p99_9 = pv[3];
	s->p99_99 = pv[4];
	s->p99_999 = pv[5];
}

/* Slot of a bin starting at @us among all_n[mi]'s (clamped to the flows). */
static size_t all_slot(const struct hist_html *h, unsigned int mi, int64_t us)
{
	uint64_t b;

	if (us < h->all_lo[mi])
		return 0;
	/* Unsigned: us - all_lo may not fit in int64_t. */
	b = ((uint64_t)us - (uint64_t)h->all_lo[mi]) / h->all_bin[mi];
	return b < h->all_nb[mi] ? (size_t)b + 1 : h->all_nb[mi] + 1;
}

/*
 * Every group's bins added up, per metric, for the "all" percentiles; the
 * first state with samples sets the layout (one module wrote them all).
 */
static int all_add(struct hist_html *h, unsigned int mi, const struct wult_khist_state *s,
		   unsigned int bin_us)
{
	size_t i;

	if (!h->all_n[mi]) {
		h->all_lo[mi] = s->under_us;
		h->all_bin[mi] = bin_us;
		/* At most 10^6 bins: wult_khist_parse() checked. */
		h->all_nb[mi] = s->over_us > s->under_us ?
			((uint64_t)s->over_us - (uint64_t)s->under_us) / bin_us : 0;
		h->all_n[mi] = calloc(h->all_nb[mi] + 2, sizeof(uint64_t));
		if (!h->all_n[mi])
			return -ENOMEM;
	}
	for (i = 0; i < s->nbins; i++)
		h->all_n[mi][all_slot(h, mi, s->bin_us[i])] += s->bin_n[i];
	h->all_n[mi][0] += s->under;
	h->all_n[mi][h->all_nb[mi] + 1] += s->over;
	return 0;
}

/* wult_khist_percentile()'s rule on the added-up bins: ns, NaN if none. */
static double all_pct(const struct hist_html *h, unsigned int mi, double pct)
{
	uint64_t rank = (uint64_t)ceil(pct * h->all_x[mi].count / 100), seen = 0;
	size_t b;

	if (!h->all_x[mi].count || !h->all_n[mi])
		return NAN;
	rank = rank ? rank : 1;
	if (h->all_n[mi][0] >= rank)
		return (double)h->all_lo[mi] * 1e3;	/* the underflow's end */
	seen = h->all_n[mi][0];
	for (b = 0; b < h->all_nb[mi] && seen + h->all_n[mi][b + 1] < rank; b++)
		seen += h->all_n[mi][b + 1];
	return ((double)h->all_lo[mi] + (double)b * h->all_bin[mi]) * 1e3;
}

static struct rpt_group *group_of(struct hist_html *h, const char *name)
{
	struct rpt_group *g;
	unsigned int i;

	for (i = 0; i < h->f.ngroups; i++)
		if (!strcmp(h->f.groups[i]->name, name))
			return h->f.groups[i];
	if (h->f.ngroups == RPT_MAX_STATES)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->name = strdup(name)) || rpt_plot_new(&h->o, 0, &g->plot)) {
		if (g)
			free_group(g);
		free(g);
		return NULL;
	}
	h->f.groups[h->f.ngroups++] = g;
	return g;
}

static void add_exact(struct exact *x, const struct wult_khist_state *s)
{
	if (!s->count)
		return;
	if (!x->count || s->min_ns < x->min_ns)
		x->min_ns = s->min_ns;
	if (!x->count || s->max_ns > x->max_ns)
		x->max_ns = s->max_ns;
	x->count += s->count;
	x->sum_ns += s->sum_ns;
}

/* One state's section into its group's column @mi. 0 or -errno. */
static int add_state(struct hist_html *h, int cpu, unsigned int mi,
		     const struct wult_khist_state *s)
{
	struct exact x = { 0 };
	double pv[NPCTS];
	struct wult_stats *st;
	int64_t us;
	struct rpt_group *g;
	char name[96];
	size_t b;
	int ret = 0;

	snprintf(name, sizeof(name), "CPU%d %s", cpu, s->name);
	g = group_of(h, name);
	if (wult_stats_new(&st) || !g) {
		wult_stats_free(st);
		return -ENOMEM;
	}
	for (b = 0; b < s->nbins && !ret; b++)
		ret = wult_stats_add_n(st, s->bin_us[b] * 1000, s->bin_n[b]);
	if (!ret && s->under)
		ret = wult_stats_add_n(st, (s->under_us - (int64_t)h->bin_us) * 1000, s->under);
	if (!ret && s->over)
		ret = wult_stats_add_n(st, (int64_t)s->over_us * 1000, s->over);
	if (!ret)
		ret = wult_stats_merge(h->all[mi], st);
	if (!ret)
		ret = rpt_plot_hist_from(g->plot, &h->o, h->o.time[mi], st);
	if (!ret && s->count)
		ret = all_add(h, mi, s, h->bin_us);
	if (!ret) {
		add_exact(&x, s);
		add_exact(&h->all_x[mi], s);
		for (b = 0; b < NPCTS; b++)
			pv[b] = wult_khist_percentile(s, pcts[b], &us) < 0 ? NAN : (double)us * 1e3;
		summarize(&x, pv, &g->sum[mi]);
		if (s->count > g->kept)
			g->kept = s->count;
		if (cpu >= 0 && cpu < RPT_MAX_CPUS)
			h->f.nt.cpus[cpu / 64] |= 1ULL << (cpu % 64);
	}
	wult_stats_free(st);
	return ret;
}

int hist_html_add(struct hist_html *h, int cpu, int metric, const struct wult_khist *k)
{
	unsigned int mi;
	size_t i;
	int ret;

	for (mi = 0; mi < h->o.ntime && h->o.time[mi] != metric_of[metric]; mi++)
		;
	if (mi == h->o.ntime)
		return 0;
	h->bin_us = wult_khist_bin_us(k);
	for (i = 0; i < wult_khist_nstates(k); i++) {
		ret = add_state(h, cpu, mi, wult_khist_state(k, i));
		if (ret)
			return ret;
	}
	return 0;
}

static int group_cmp(const void *a, const void *b)
{
	const struct rpt_group *x = *(const struct rpt_group *const *)a;
	const struct rpt_group *y = *(const struct rpt_group *const *)b;

	return rpt_state_cmp(x->name, y->name);
}

int hist_html_write(struct hist_html *h)
{
	unsigned int i;
	int ret;

	free(h->f.desc);
	if (asprintf(&h->f.desc, "  wult.ko's in-kernel histograms in %s, bins of %u us\n",
		     h->dir, h->bin_us) < 0)
		h->f.desc = NULL;
	qsort(h->f.groups, h->f.ngroups, sizeof(h->f.groups[0]), group_cmp);
	h->f.all.kept = 0;
	for (i = 0; i < h->f.ngroups; i++)
		h->f.all.kept += h->f.groups[i]->kept;
	h->f.read = h->f.kept = h->f.all.kept;
	for (i = 0; i < h->o.ntime; i++) {
		double pv[NPCTS];
		size_t k;

		for (k = 0; k < NPCTS; k++)
			pv[k] = all_pct(h, i, pcts[k]);
		summarize(&h->all_x[i], pv, &h->f.all.sum[i]);
		ret = rpt_plot_hist_from(h->f.all.plot, &h->o, h->o.time[i], h->all[i]);
		if (ret)
			return ret;
	}
	{
		struct rpt_file *files[1] = { &h->f };
		struct rpt_diff *d;

		ret = rpt_diff_new(&h->o, files, 1, &d);
		if (!ret)
			ret = rpt_html_write(&h->o, files, d);
		rpt_diff_free(d);
		return ret;
	}
}
