// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's pass over one input: each datapoint decoded (report_input.c,
 * in a second thread by report_pipe.c where it can), filtered, put in its
 * group (its requested state, or state and CPU with --per-cpu), counted
 * into the group's statistics, plots and branch tallies, and exported
 * (--csv, report_csv.c); at the end, the statistics reduced to what the
 * views print.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "report_pass.h"
#include "report_input.h"
#include "report_judge.h"
#include "report_resid.h"
#include "report_view.h"

#define MAX_BR_CONTEXTS		100000	/* distinct contexts kept per state */

static struct rpt_group *group_of(struct rpt_file *f, const struct rpt_opts *o,
				  const char *name, char *err, size_t errlen)
{
	struct rpt_group *g;
	unsigned int i;

	if (!name)
		name = "-";	/* no requested state: still counted in "all" */
	for (i = 0; i < f->ngroups; i++)
		if (!strcmp(f->groups[i]->name, name))
			return f->groups[i];
	if (f->ngroups == RPT_MAX_STATES) {
		snprintf(err, errlen, "more than %d distinct ReqCState values", RPT_MAX_STATES);
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g || !(g->name = strdup(name)))
		goto nomem;
	for (i = 0; i < o->ntime; i++) {
		if (wult_stats_new(&g->st[i]))
			goto nomem;
	}
	if (o->html_out && rpt_plot_new(o, 1, &g->plot))
		goto nomem;
	f->groups[f->ngroups++] = g;
	return g;
nomem:
	if (g) {
		for (i = 0; i < o->ntime; i++)
			wult_stats_free(g->st[i]);
		rpt_plot_free(g->plot);
		free(g->name);
	}
	free(g);
	snprintf(err, errlen, "out of memory");
	return NULL;
}

static int keep(const struct rpt_opts *o, const struct wult_point *pt)
{
	unsigned int i;

	for (i = 0; i < o->ninc; i++)
		if (!wult_filter_eval(o->inc[i], pt->v))
			return 0;
	for (i = 0; i < o->nexc; i++)
		if (wult_filter_eval(o->exc[i], pt->v))
			return 0;
	return 1;
}

/*
 * What the pass over one input learns once instead of per datapoint: the
 * group of each requested-state index (when the input's names are stable)
 * and the counter metrics it can carry at all.
 */
#define GCACHE_N	64
struct pass {
	struct rpt_group *g[GCACHE_N];
	const char *name[GCACHE_N];
	unsigned int ctr[RPT_NCTR];	/* rpt_ctr_metrics indexes */
	int nctr;			/* -1: not known yet */
	int gov;			/* judge the governor (report_governor.c) */
};

/* The statistics are in ns; CSV imports carry fractions of a ns. */
static inline int64_t to_ns(double v)
{
	int64_t r;

#if defined(__x86_64__)
	/*
	 * cvttsd2si is defined for every double (out of range: INT64_MIN,
	 * which converts back equal only to -2^63, its own value), so the
	 * range test is not needed: 4 instructions instead of 11, three
	 * times a datapoint.
	 */
	r = _mm_cvttsd_si64(_mm_set_sd(v));
	if (__builtin_expect((double)r == v, 1))
		return r;
	return llround(v);
#else
	if (!(v > -9e18 && v < 9e18))
		return llround(v);
	r = (int64_t)v;
	return (double)r == v ? r : llround(v);
#endif
}

static int count_point(const struct rpt_opts *o, const struct pass *ps, struct rpt_group *g,
		       const struct wult_point *pt)
{
	unsigned int i, k;
	double v;

	g->kept++;
	for (i = 0; i < o->ntime; i++) {
		v = pt->v[o->time[i]].num;
		if (!isnan(v) && wult_stats_add(g->st[i], to_ns(v)))
			return -ENOMEM;
	}
	for (k = 0; k < (unsigned int)ps->nctr; k++) {
		i = ps->ctr[k];
		v = pt->v[rpt_ctr_metrics[i]].num;
		if (!isnan(v)) {
			g->ctr[i].sum += v;
			g->ctr[i].n++;
		}
	}
	if (pt->v[WULT_M_SCALED].num == 1)
		g->scaled++;
	if (ps->gov && rpt_gov_add(g, pt->v[WULT_M_LDIST].num, pt->v[WULT_M_SILENT_TIME].num))
		return -ENOMEM;
	if (g->plot && rpt_plot_add(g->plot, o, pt))
		return -ENOMEM;
	return 0;
}

static int group_sort_cmp(const void *a, const void *b)
{
	const struct rpt_group *x = *(const struct rpt_group *const *)a;
	const struct rpt_group *y = *(const struct rpt_group *const *)b;

	return rpt_state_cmp(x->name, y->name);
}

/* --html: each state's histograms, and those of "all" from theirs. */
static int finish_plots(const struct rpt_opts *o, struct rpt_file *f)
{
	unsigned int k;

	if (!f->all.plot)
		return 0;
	for (k = 0; k < f->ngroups; k++)
		if (rpt_plot_merge(f->all.plot, f->groups[k]->plot) ||
		    rpt_plot_finish(f->groups[k]->plot, o))
			return -ENOMEM;
	return rpt_plot_finish(f->all.plot, o);
}

/*
 * Time metric @i of every group summarised (with its histograms), "all"
 * merged from the states; each histogram's memory is freed once summarised.
 * Values out of range are added to *@clamped. 0 or a negative errno: an
 * allocation failure in the statistics must not pass for a result (the
 * summary's percentiles would be NaN).
 */
static int finish_metric(const struct rpt_opts *o, struct rpt_file *f, unsigned int i,
			 uint64_t *clamped)
{
	struct wult_stats *all;
	unsigned int k;
	int ret = wult_stats_new(&all);

	for (k = 0; !ret && k < f->ngroups; k++) {
		struct rpt_group *g = f->groups[k];

		ret = wult_stats_summary(g->st[i], &g->sum[i]);
		/* --suggest-pct's percentile, before the histogram goes */
		g->pct[i] = o->suggest_pct > 0 ? wult_stats_percentile(g->st[i], o->suggest_pct) :
			    NAN;
		ret = ret ?: wult_stats_merge(all, g->st[i]);
		*clamped += g->sum[i].clamped;
		if (!ret && o->hist && o->time[i] == o->hist_metric)
			ret = rpt_hist_render(o, g, g->st[i]);
		if (!ret)
			ret = rpt_plot_hist_from(g->plot, o, o->time[i], g->st[i]);
		wult_stats_free(g->st[i]);
		g->st[i] = NULL;
	}
	ret = ret ?: wult_stats_summary(all, &f->all.sum[i]);
	if (!ret && o->hist && o->time[i] == o->hist_metric)
		ret = rpt_hist_render(o, &f->all, all);
	if (!ret)
		ret = rpt_plot_hist_from(f->all.plot, o, o->time[i], all);
	wult_stats_free(all);
	return ret;
}

/*
 * The time metrics finished by two threads where there are two CPUs: each
 * takes the next metric not taken. A metric's summaries read and free only
 * its own statistics, and its fields of each group, so the two never
 * touch the same memory; not with --html, whose plots a group shares
 * across metrics. Summarising was a tenth of a report, after the last
 * datapoint, on one CPU.
 */
struct fin {
	const struct rpt_opts *o;
	struct rpt_file *f;
	unsigned int next;		/* the next metric, taken atomically */
	int ret[RPT_MAX_TIME];
	uint64_t clamped[RPT_MAX_TIME];
};

static void *fin_worker(void *arg)
{
	struct fin *fn = arg;
	unsigned int i;

	while ((i = __atomic_fetch_add(&fn->next, 1, __ATOMIC_RELAXED)) < fn->o->ntime)
		fn->ret[i] = finish_metric(fn->o, fn->f, i, &fn->clamped[i]);
	return NULL;
}

/* Every time metric finished: 0, or the first failure's errno with its
 * metric in *@failed. */
static int finish_metrics(const struct rpt_opts *o, struct rpt_file *f, enum wult_metric *failed)
{
	struct fin fn = { .o = o, .f = f };
	pthread_t t;
	int helper;
	unsigned int i;

	helper = o->threads && o->ntime > 1 && !f->all.plot &&
		 !pthread_create(&t, NULL, fin_worker, &fn);
	fin_worker(&fn);
	if (helper)
		pthread_join(t, NULL);
	for (i = 0; i < o->ntime; i++) {
		f->clamped += fn.clamped[i];
		if (fn.ret[i]) {
			*failed = o->time[i];
			return fn.ret[i];
		}
	}
	return 0;
}

/* Totals and summaries of every group. 0, or a negative errno with the
 * metric that failed in *@failed. */
static int finish(const struct rpt_opts *o, struct rpt_file *f, enum wult_metric *failed)
{
	unsigned int i, k;
	int ret;

	qsort(f->groups, f->ngroups, sizeof(f->groups[0]), group_sort_cmp);
	for (k = 0; k < f->ngroups; k++) {
		struct rpt_group *g = f->groups[k];

		f->all.kept += g->kept;
		f->all.excluded += g->excluded;
		f->all.scaled += g->scaled;
		for (i = 0; i < RPT_NCTR; i++) {
			f->all.ctr[i].sum += g->ctr[i].sum;
			f->all.ctr[i].n += g->ctr[i].n;
		}
	}
	ret = finish_metrics(o, f, failed);
	if (ret)
		return ret;
	f->kept = f->all.kept;
	f->excluded = f->all.excluded;
	ret = finish_plots(o, f);
	if (ret)
		*failed = WULT_M_NR;
	return ret;
}

static void free_group(struct rpt_group *g)
{
	unsigned int i;

	wult_br_tally_free(g->br);
	rpt_plot_free(g->plot);
	for (i = 0; i < RPT_MAX_TIME; i++)
		wult_stats_free(g->st[i]);
	rpt_gov_free(g);
	free(g->name);
	free(g->hist);
}

void rpt_file_free(struct rpt_file *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; i < f->ngroups; i++) {
		free_group(f->groups[i]);
		free(f->groups[i]);
	}
	free_group(&f->all);
	rpt_resid_free(f->resid);
	rpt_meta_free(&f->meta);
	free(f->desc);
	free(f->cut);
	free(f);
}

/* "wult report: PATH: why", without PATH twice when @why names it already. */
static void data_err(const char *path, const char *why)
{
	if (!strncmp(why, path, strlen(path)))
		fprintf(stderr, "wult report: %s\n", why);
	else
		fprintf(stderr, "wult report: %s: %s\n", path, why);
}

static int tally_add(const struct rpt_opts *o, struct wult_br_tally **t,
		     const struct wult_branches *br)
{
	if (!*t && wult_br_tally_new(o->br_depth, MAX_BR_CONTEXTS, t))
		return -ENOMEM;
	return wult_br_tally_add(*t, br);
}

/* With --branches: the kept datapoint's branch context, if it has one. */
static int count_branches(const struct rpt_opts *o, struct rpt_file *f, struct rpt_group *g,
			  const struct rpt_src *src)
{
	/* Asked only with --branches: then the pass has one thread. */
	const struct wult_branches *br = o->branches ? rpt_src_branches(src) : NULL;

	if (!br)
		return 0;
	if (tally_add(o, &g->br, br) || tally_add(o, &f->all.br, br))
		return -ENOMEM;
	return 0;
}

/* The group of a datapoint: its requested state, with --per-cpu its CPU too. */
static const char *group_name(const struct rpt_opts *o, const struct wult_point *pt,
			      char *buf, size_t len)
{
	const char *state = pt->v[WULT_M_REQ_CSTATE].str;
	double cpu = pt->v[WULT_M_CPU].num;

	if (!o->per_cpu)
		return state;
	if (isnan(cpu))
		snprintf(buf, len, "CPU? %s", state ? state : "-");
	else
		snprintf(buf, len, "CPU%.0f %s", cpu, state ? state : "-");
	return buf;
}

/* The counter metrics @src can carry, learnt at its first datapoint. */
static void pass_learn(struct pass *ps, const struct rpt_opts *o, const struct rpt_src *src)
{
	uint64_t bits = rpt_src_metrics(src);
	unsigned int i;

	ps->nctr = 0;
	/* Not per CPU: a histogram per CPU, state and band is too much. */
	ps->gov = !o->per_cpu && rpt_src_has_sysdesc(src);
	for (i = 0; i < RPT_NCTR; i++)
		if (bits & WULT_METRIC_BIT(rpt_ctr_metrics[i]))
			ps->ctr[ps->nctr++] = i;
}

/* The group of requested state @state (index @idx), through the cache
 * where the input's names are stable. */
static struct rpt_group *group_state(struct pass *ps, struct rpt_file *f,
				     const struct rpt_opts *o, const struct rpt_src *src,
				     const char *state, double idx, char *err, size_t errlen)
{
	unsigned int i;

	if (!state || !(idx >= 0 && idx < GCACHE_N) || !rpt_src_stable_names(src))
		return group_of(f, o, state, err, errlen);
	i = (unsigned int)idx;
	if (ps->name[i] != state) {
		ps->g[i] = group_of(f, o, state, err, errlen);
		ps->name[i] = ps->g[i] ? state : NULL;
	}
	return ps->g[i];
}

/* group_of() through the cache by requested-state index. */
static struct rpt_group *group_cached(struct pass *ps, struct rpt_file *f,
				      const struct rpt_opts *o, const struct rpt_src *src,
				      const struct wult_point *pt, char *err, size_t errlen)
{
	char name[64];

	if (o->per_cpu)
		return group_of(f, o, group_name(o, pt, name, sizeof(name)), err, errlen);
	return group_state(ps, f, o, src, pt->v[WULT_M_REQ_CSTATE].str,
			   pt->v[WULT_M_REQ_CSTATE].num, err, errlen);
}

/* One datapoint into its group's counts. 0, or -1 with the cause printed. */
static int take_point(const struct rpt_opts *o, struct pass *ps, struct rpt_file *f,
		      const struct rpt_src *src, const struct wult_point *pt,
		      struct rpt_csv *csv)
{
	struct rpt_group *g;
	char err[256];

	if (ps->nctr < 0)
		pass_learn(ps, o, src);
	g = group_cached(ps, f, o, src, pt, err, sizeof(err));
	if (!g) {
		fprintf(stderr, "wult report: %s: %s\n", f->path, err);
		return -1;
	}
	if (!keep(o, pt)) {
		g->excluded++;
		return 0;
	}
	rpt_notes_point(&f->nt, pt);
	if (count_point(o, ps, g, pt) || count_branches(o, f, g, src)) {
		fprintf(stderr, "wult report: %s: out of memory\n", f->path);
		return -1;
	}
	return csv->w && rpt_csv_add(csv, pt) ? -1 : 0;
}

/*
 * The metrics take_point() reads without --csv and --branches (which read
 * more): those the two-thread pass carries; with --html, the plotted ones
 * and their x axes too. By default, of a perf.data without counters,
 * WULT_METRICS_SUMMARY (the decoder's fastest set): a metric added here
 * belongs there too.
 */
static uint64_t counted_metrics(const struct rpt_opts *o)
{
	uint64_t bits = WULT_METRIC_BIT(WULT_M_REQ_CSTATE) | WULT_METRIC_BIT(WULT_M_CPU) |
			WULT_METRIC_BIT(WULT_M_LDIST) | WULT_METRIC_BIT(WULT_M_SOURCE) |
			WULT_METRIC_BIT(WULT_M_SCALED) |
			WULT_METRIC_BIT(WULT_M_SILENT_TIME) |	/* the governor judged */
			WULT_METRIC_BIT(WULT_M_INTR_LATENCY) |	/* the ipi wake kind */
			WULT_METRIC_BIT(WULT_M_RUN_LATENCY);	/* and its task */
	unsigned int i, m;

	for (i = 0; i < o->ntime; i++)
		bits |= WULT_METRIC_BIT(o->time[i]);
	for (i = 0; i < RPT_NCTR; i++)
		bits |= WULT_METRIC_BIT(rpt_ctr_metrics[i]);
	for (m = 0; m < WULT_M_NR; m++)
		for (i = 0; i < o->ninc + o->nexc; i++)
			if (wult_filter_reads(i < o->ninc ? o->inc[i] : o->exc[i - o->ninc], m))
				bits |= WULT_METRIC_BIT(m);
	for (i = 0; o->html_out && i < o->nplot; i++)
		bits |= WULT_METRIC_BIT(o->plot[i]);
	for (i = 0; o->html_out && i < o->nplot_x; i++)
		bits |= WULT_METRIC_BIT(o->plot_x[i]);
	return bits;
}

/*
 * The batch path: what take_point() does without filters, --per-cpu,
 * --csv and --branches, straight from the reading thread's rows
 * instead of a wult_point each (the copy into it, and the reloads that
 * every call into the statistics forces, were most of the counting
 * thread's own time). A block of rows at a time: first each row's group,
 * then the counter sums, the statistics, the governor's counts and with
 * --html the plots, each a row at a time (the header's notes are the
 * reading thread's, see rpt_pipe_start()). Each statistics object and each
 * counter sum still sees its values in input order, and groups are made in
 * input order, so the report is the same to the byte
 * (tests/host/test_report.sh compares it with one thread's).
 */
#define ROWS_BLOCK	64	/* rows per block: a few KiB, in L1 */
#define ROWS_AHEAD	16	/* rows prefetched ahead of the group pass */

/* The columns a batch counts (-1: not carried, NaN on every row). */
struct rows_cols {
	const struct rpt_opts *o;
	const int *col;			/* metric -> column, for the plots */
	int req, ldist, scaled;
	int silent;			/* -1 too when the governor is not judged */
	unsigned int ntime, nctr;
	unsigned int ti[RPT_MAX_TIME], tc[RPT_MAX_TIME];	/* o->time index, column */
	unsigned int ci[RPT_NCTR], cc[RPT_NCTR];		/* rpt_ctr_metrics index, column */
};

static void rows_cols(const struct rpt_opts *o, const struct pass *ps,
		      const struct rpt_rows *rw, struct rows_cols *c)
{
	unsigned int i;
	int col;

	c->o = o;
	c->col = rw->col;
	c->req = rw->col[WULT_M_REQ_CSTATE];
	c->ldist = rw->col[WULT_M_LDIST];
	c->scaled = rw->col[WULT_M_SCALED];
	c->silent = ps->gov ? rw->col[WULT_M_SILENT_TIME] : -1;
	c->ntime = c->nctr = 0;
	for (i = 0; i < o->ntime; i++) {
		col = rw->col[o->time[i]];
		if (col >= 0) {
			c->ti[c->ntime] = i;
			c->tc[c->ntime++] = col;
		}
	}
	for (i = 0; i < (unsigned int)ps->nctr; i++) {
		col = rw->col[rpt_ctr_metrics[ps->ctr[i]]];
		if (col >= 0) {
			c->ci[c->nctr] = ps->ctr[i];
			c->cc[c->nctr++] = col;
		}
	}
}

/* @n rows from @v (@stride doubles each; the batch ends at @end), their
 * names and groups. */
struct rows_blk {
	const double *v, *end;
	const char *const *str;
	unsigned int n, stride;
	struct rpt_group *g[ROWS_BLOCK];
};

/* Each row's group, in input order (so groups are made in it), and its
 * kept count. 0, or -1 with the cause printed. */
static int block_groups(const struct rpt_opts *o, struct pass *ps, struct rpt_file *f,
			const struct rpt_src *src, int req, struct rows_blk *b)
{
	const double *v = b->v;
	struct rpt_group *g;
	char err[256];
	unsigned int r, i;
	double idx;

	for (r = 0; r < b->n; r++, v += b->stride) {
		/* the rows come from the reading CPU's cache: ask ahead */
		if (b->end - v > (ROWS_AHEAD + 1) * b->stride) {
			__builtin_prefetch(v + ROWS_AHEAD * b->stride);
			__builtin_prefetch(v + (ROWS_AHEAD + 1) * b->stride - 1);
		}
		idx = req >= 0 ? v[req] : NAN;
		/* group_state()'s cache, hit inline */
		if (idx >= 0 && idx < GCACHE_N && b->str[r] &&
		    ps->name[i = (unsigned int)idx] == b->str[r])
			g = ps->g[i];
		else
			g = group_state(ps, f, o, src, b->str[r], idx, err, sizeof(err));
		if (!g) {
			fprintf(stderr, "wult report: %s: %s\n", f->path, err);
			return -1;
		}
		g->kept++;
		b->g[r] = g;
	}
	return 0;
}

/* Counter @i's sum from row @v, column @col: a number counts, NaN not. */
#define CTR_ADD(m, v, col, i) do {					\
		double x_ = (v)[col];					\
		if (!isnan(x_)) {					\
			(m)[i].sum += x_;				\
			(m)[i].n++;					\
		}							\
	} while (0)

/* @x into statistics @st, unless NaN: wult_stats_add()'s return. */
#define STATS_ADD(st, x) ({						\
		double x_ = (x);					\
		isnan(x_) ? 0 : wult_stats_add(st, to_ns(x_)); })

/* count_point() of a block. 0 or -ENOMEM. */
static int __attribute__((flatten)) block_count(const struct rows_cols *c, const struct rows_blk *b)
{
	const double *v;
	unsigned int k, r;

	if (c->nctr == 3) {
		/* A perf.data's CC0%, SMICnt and NMICnt: a row at a time, the
		 * columns and sums in registers (the general loop below for
		 * these and the three time metrics' too: 150 instructions a
		 * datapoint for the block instead of 119). */
		unsigned int c0 = c->cc[0], c1 = c->cc[1], c2 = c->cc[2];
		unsigned int i0 = c->ci[0], i1 = c->ci[1], i2 = c->ci[2];
		struct rpt_mean *m;

		for (r = 0, v = b->v; r < b->n; r++, v += b->stride) {
			m = b->g[r]->ctr;
			CTR_ADD(m, v, c0, i0);
			CTR_ADD(m, v, c1, i1);
			CTR_ADD(m, v, c2, i2);
		}
	} else {
		for (r = 0, v = b->v; r < b->n; r++, v += b->stride)
			for (k = 0; k < c->nctr; k++)
				CTR_ADD(b->g[r]->ctr, v, c->cc[k], c->ci[k]);
	}
	for (r = 0, v = b->v + c->scaled; c->scaled >= 0 && r < b->n; r++, v += b->stride)
		if (*v == 1)
			b->g[r]->scaled++;
	/* Row by row here: consecutive adds go to different objects, whose
	 * batch counters do not wait on each other. */
	if (c->ntime == 3) {
		/* The default three, their columns in registers */
		unsigned int t0 = c->tc[0], t1 = c->tc[1], t2 = c->tc[2];
		unsigned int s0 = c->ti[0], s1 = c->ti[1], s2 = c->ti[2];
		struct wult_stats *const *st;

		for (r = 0, v = b->v; r < b->n; r++, v += b->stride) {
			st = b->g[r]->st;
			if (STATS_ADD(st[s0], v[t0]) || STATS_ADD(st[s1], v[t1]) ||
			    STATS_ADD(st[s2], v[t2]))
				return -ENOMEM;
		}
	} else {
		for (r = 0, v = b->v; r < b->n; r++, v += b->stride)
			for (k = 0; k < c->ntime; k++)
				if (STATS_ADD(b->g[r]->st[c->ti[k]], v[c->tc[k]]))
					return -ENOMEM;
	}
	for (r = 0, v = b->v; c->silent >= 0 && r < b->n; r++, v += b->stride)
		if (rpt_gov_add(b->g[r], c->ldist >= 0 ? v[c->ldist] : NAN, v[c->silent]))
			return -ENOMEM;
	/* --html: the groups' plots */
	for (r = 0, v = b->v; c->o->html_out && r < b->n; r++, v += b->stride)
		if (b->g[r]->plot && rpt_plot_add_row(b->g[r]->plot, c->o, v, c->col))
			return -ENOMEM;
	return 0;
}

/* Every row of @rw into its group. 0, or -1 with the cause printed. */
static int count_rows(const struct rpt_opts *o, struct pass *ps, struct rpt_file *f,
		      const struct rpt_src *src, const struct rpt_rows *rw)
{
	struct rows_cols c;
	struct rows_blk b;
	unsigned int r;

	if (ps->nctr < 0)
		pass_learn(ps, o, src);
	rows_cols(o, ps, rw, &c);
	b.stride = rw->stride;
	b.end = rw->val + (size_t)rw->n * rw->stride;
	for (r = 0; r < rw->n; r += b.n) {
		b.n = rw->n - r < ROWS_BLOCK ? rw->n - r : ROWS_BLOCK;
		b.v = rw->val + (size_t)r * rw->stride;
		b.str = rw->str + r;
		if (block_groups(o, ps, f, src, c.req, &b))
			return -1;
		if (block_count(&c, &b)) {
			fprintf(stderr, "wult report: %s: out of memory\n", f->path);
			return -1;
		}
	}
	return 0;
}

/*
 * Every datapoint of @src counted: rpt_src_next()'s last return, or 1 when
 * counting failed (the cause printed). Where there are two CPUs another
 * thread reads and decodes meanwhile (report_pipe.c), unless
 * WULT_REPORT_THREADS=0.
 */
static int pass_run(const struct rpt_opts *o, struct rpt_file *f, struct rpt_src *src,
		    struct rpt_csv *csv)
{
	struct pass ps = { .nctr = -1 };
	struct rpt_pipe *pp = NULL;
	/* Rows: every datapoint kept, so the reading thread notes them. */
	int rows = !o->ninc && !o->nexc && !o->per_cpu;
	struct wult_point pt;
	int ret;

	if (rpt_src_stable_names(src) && !o->csv_out && !o->branches && o->threads)
		rpt_pipe_start(src, counted_metrics(o), rows ? &f->nt : NULL, &pp);
	if (pp && rows) {
		struct rpt_rows rw;

		while ((ret = rpt_pipe_rows(pp, &rw)) > 0)
			if (count_rows(o, &ps, f, src, &rw)) {
				ret = 1;
				break;
			}
		rpt_pipe_stop(pp);
		return ret;
	}
	wult_point_clear(&pt);
	while ((ret = pp ? rpt_pipe_next(pp, &pt) : rpt_src_next(src, &pt)) > 0)
		if (take_point(o, &ps, f, src, &pt, csv)) {
			ret = 1;
			break;
		}
	rpt_pipe_stop(pp);
	return ret;
}

/* Reads one input into @out. 0, or an exit status with the cause printed. */
int rpt_file_run(const struct rpt_opts *o, const char *path, struct rpt_file **out)
{
	struct rpt_file *f;
	struct rpt_src *src = NULL;
	struct rpt_csv csv = { 0 };
	enum wult_metric failed;
	char err[1024];
	int ret, status = RPT_EXIT_DATA;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->all.name = strdup(RPT_ALL))) {
		fprintf(stderr, "wult report: out of memory\n");
		free(f);
		return RPT_EXIT_DATA;
	}
	f->path = path;
	rpt_notes_init(&f->nt);
	if (o->html_out && rpt_plot_new(o, 0, &f->all.plot)) {
		fprintf(stderr, "wult report: out of memory\n");
		goto out;
	}
	ret = rpt_src_open(path, o, &src, err, sizeof(err));
	if (ret) {
		data_err(path, err);
		goto out;
	}
	if (o->csv_out && rpt_csv_open(o->csv_out, path, o->force, &csv))
		goto out;
	ret = pass_run(o, f, src, &csv);
	if (ret > 0)
		goto out;
	if (rpt_src_describe(src, f)) {
		fprintf(stderr, "wult report: out of memory\n");
		goto out;
	}
	if (ret < 0 && !f->read) {
		data_err(path, rpt_src_error(src));
		goto out;
	}
	/* Cut short (a pipe whose writer died, a file copied in part): the
	 * datapoints before the cut are whole, so they are reported, and the
	 * caller's exit status says the input was not. */
	if (ret < 0) {
		f->cut = strdup(rpt_src_error(src));
		if (!f->cut) {
			fprintf(stderr, "wult report: out of memory\n");
			goto out;
		}
		fprintf(stderr, "wult report: %s: the input ends early (%s): the report covers "
			"the %llu datapoints before that%s\n", path, f->cut,
			(unsigned long long)f->read, o->csv_out ? "; no --csv written" : "");
	}
	f->resid = rpt_src_take_resid(src);
	if (!f->read) {
		fprintf(stderr, "wult report: %s: no wult datapoints", path);
		if (f->undecodable)
			fprintf(stderr, " (%llu wult samples did not decode: payloads shorter "
				"than the wult:datapoint format; give the recording module's "
				"format with --format)\n", (unsigned long long)f->undecodable);
		else
			fprintf(stderr, " (%llu samples of other events): record with wult "
				"record, or perf record -R -e wult/datapoints/ ..., or perf "
				"record -e wult:datapoint ...\n", (unsigned long long)f->other);
		goto out;
	}
	ret = finish(o, f, &failed);
	if (ret) {
		fprintf(stderr, "wult report: %s: statistics of %s: %s\n", path,
			failed < WULT_M_NR ? wult_metric_desc(failed)->name : "the plots",
			strerror(-ret));
		goto out;
	}
	status = 0;
out:
	if (o->csv_out && !status && !f->cut) {
		ret = rpt_csv_close(&csv, src, path, 1);
		status = ret == -ENODATA ? RPT_EXIT_EMPTY : ret ? RPT_EXIT_DATA : 0;
	} else if (o->csv_out) {
		rpt_csv_close(&csv, src, path, 0);
	}
	rpt_src_close(src);
	if (status)
		rpt_file_free(f);
	else
		*out = f;
	return status;
}
