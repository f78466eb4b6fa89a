// SPDX-License-Identifier: GPL-2.0
/*
 * What the HTML report draws of one state of one input, collected during the
 * single pass over it: per plotted metric, exact statistics (wult/stats.h)
 * that become a histogram and a cumulative histogram at the end of the
 * input, and per (metric, x metric) a reduced scatter.
 *
 * Scatter reduction, per series: the TOP_N datapoints with the highest
 * metric value are kept (a min-heap); every other datapoint is kept when its
 * cell of a grid of 1/16 octave in both x and y holds fewer than CELL_KEEP
 * kept points. So the tail and every point of a sparse region are in the
 * page exactly, and dense regions are thinned to CELL_KEEP points per cell.
 * Memory and output follow the number of occupied cells, not the number of
 * datapoints.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_view.h"

#define TOP_N		500	/* highest values kept per series */
#define CELL_KEEP	2	/* points kept per grid cell */
#define HIST_BUCKETS	100	/* buckets of a page histogram */

struct pt2 {
	double x, y;
};

struct series {
	enum wult_metric xm, ym;
	uint64_t total;			/* datapoints with both values */
	struct pt2 top[TOP_N];		/* min-heap on y */
	unsigned int ntop;
	struct pt2 *pts;		/* kept by the grid rule */
	size_t npts, cap;
	uint32_t *cells;		/* open addressing: (key + 1) << 8 | kept */
	size_t ncells, hcap;
};

struct rpt_plot {
	unsigned int nm, nser;
	struct wult_stats *st[RPT_MAX_PLOT];
	struct rpt_plot_hist hist[RPT_MAX_PLOT];
	struct series *ser[RPT_MAX_PLOT * RPT_MAX_PLOT_X];
};

/* A metric's values as the integers the statistics count: time in ns,
 * percent in 1/100, MHz in 1/10, counts as they are. */
double rpt_plot_scale(enum wult_metric m)
{
	const struct wult_metric_desc *d = wult_metric_desc(m);

	if (d->is_time)
		return 1;
	if (!strcmp(d->csv_unit, "%"))
		return 100;
	return !strcmp(d->csv_unit, "MHz") ? 10 : 1;
}

int rpt_plot_new(const struct rpt_opts *o, int scatter, struct rpt_plot **out)
{
	struct rpt_plot *p = calloc(1, sizeof(*p));
	unsigned int i, k;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->nm = o->nplot;
	for (i = 0; i < o->nplot; i++) {
		/* A metric of the tables has statistics already (rpt_plot_hist_from). */
		for (k = 0; k < o->ntime && o->time[k] != o->plot[i]; k++)
			;
		if (k == o->ntime && wult_stats_new(&p->st[i]))
			goto nomem;
		for (k = 0; scatter && k < o->nplot_x; k++) {
			struct series *s;

			if (o->plot_x[k] == o->plot[i])
				continue;
			s = calloc(1, sizeof(*s));
			if (!s)
				goto nomem;
			s->xm = o->plot_x[k];
			s->ym = o->plot[i];
			p->ser[p->nser++] = s;
		}
	}
	*out = p;
	return 0;
nomem:
	rpt_plot_free(p);
	return -ENOMEM;
}

static void free_series(struct series *s)
{
	if (!s)
		return;
	free(s->pts);
	free(s->cells);
	free(s);
}

void rpt_plot_free(struct rpt_plot *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < RPT_MAX_PLOT; i++) {
		wult_stats_free(p->st[i]);
		free(p->hist[i].edge);
		free(p->hist[i].cnt);
	}
	for (i = 0; i < p->nser; i++)
		free_series(p->ser[i]);
	free(p);
}

/* The grid cell of a value, 12 bits: its sign, the low 7 bits of its
 * exponent and 4 mantissa bits, i.e. 16 cells per octave without a log()
 * (values 2^128 apart share cells: no metric spans that). */
static uint32_t cell_of(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return (uint32_t)((bits >> 63) << 11 | ((bits >> 48) & 0x7ff));
}

/* A point's cell key, 1..2^24 (0 marks a free slot). */
static uint32_t key_of(double x, double y)
{
	return ((cell_of(x) << 12) | cell_of(y)) + 1;
}

static size_t slot_of(uint32_t key, size_t cap)
{
	return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

static int grow_cells(struct series *s)
{
	size_t ncap = s->hcap ? s->hcap * 2 : 1024, i, j;
	uint32_t *cells = calloc(ncap, sizeof(*cells));

	if (!cells)
		return -ENOMEM;
	for (i = 0; i < s->hcap; i++) {
		if (!s->cells[i])
			continue;
		for (j = slot_of(s->cells[i] >> 8, ncap); cells[j]; j = (j + 1) & (ncap - 1))
			;
		cells[j] = s->cells[i];
	}
	free(s->cells);
	s->cells = cells;
	s->hcap = ncap;
	return 0;
}

/* The grid rule for a point that is not (or no longer) among the top. */
static int grid_add(struct series *s, struct pt2 pt)
{
	uint32_t key = key_of(pt.x, pt.y);
	size_t j;

	if (s->ncells * 4 >= s->hcap * 3 && grow_cells(s))
		return -ENOMEM;
	for (j = slot_of(key, s->hcap); s->cells[j] && s->cells[j] >> 8 != key;
	     j = (j + 1) & (s->hcap - 1))
		;
	if (!s->cells[j]) {
		s->cells[j] = key << 8;
		s->ncells++;
	}
	if ((s->cells[j] & 0xff) >= CELL_KEEP)
		return 0;
	s->cells[j]++;
	if (s->npts == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		struct pt2 *n = realloc(s->pts, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->pts = n;
		s->cap = ncap;
	}
	s->pts[s->npts++] = pt;
	return 0;
}

static void sift_down(struct pt2 *h, unsigned int n, unsigned int i)
{
	struct pt2 t;
	unsigned int c;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && h[c + 1].y < h[c].y)
			c++;
		if (h[i].y <= h[c].y)
			break;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
	}
}

static int series_add(struct series *s, struct pt2 pt)
{
	struct pt2 out;
	unsigned int i;

	s->total++;
	if (s->ntop < TOP_N) {
		/* Sift up. */
		for (i = s->ntop++; i && s->top[(i - 1) / 2].y > pt.y; i = (i - 1) / 2)
			s->top[i] = s->top[(i - 1) / 2];
		s->top[i] = pt;
		return 0;
	}
	if (pt.y <= s->top[0].y)
		return grid_add(s, pt);
	out = s->top[0];
	s->top[0] = pt;
	sift_down(s->top, s->ntop, 0);
	return grid_add(s, out);
}

/*
 * One datapoint into the plots, metric m's value being @get(@src, m): a
 * wult_point's, or a row's of the two-thread pass (inlined, so each caller
 * gets its own loop).
 */
static inline __attribute__((always_inline)) int
plot_add(struct rpt_plot *p, const struct rpt_opts *o,
	 double (*get)(const void *src, enum wult_metric m), const void *src)
{
	unsigned int i;
	double v;

	for (i = 0; i < p->nm; i++) {
		v = get(src, o->plot[i]);
		if (p->st[i] && !isnan(v) && wult_stats_add(p->st[i], llround(v * rpt_plot_scale(o->plot[i]))))
			return -ENOMEM;
	}
	/* The cell lookups miss the cache: start them all, then use them. */
	for (i = 0; i < p->nser; i++) {
		struct series *s = p->ser[i];

		if (s->hcap)
			__builtin_prefetch(&s->cells[slot_of(key_of(get(src, s->xm),
								    get(src, s->ym)), s->hcap)]);
	}
	for (i = 0; i < p->nser; i++) {
		struct series *s = p->ser[i];
		struct pt2 q = { get(src, s->xm), get(src, s->ym) };

		if (!isnan(q.x) && !isnan(q.y) && series_add(s, q))
			return -ENOMEM;
	}
	return 0;
}

static inline double point_get(const void *src, enum wult_metric m)
{
	return ((const struct wult_point *)src)->v[m].num;
}

int rpt_plot_add(struct rpt_plot *p, const struct rpt_opts *o, const struct wult_point *pt)
{
	return plot_add(p, o, point_get, pt);
}

/* A row and its pass's columns (rpt_plot_add_row()). */
struct row_src {
	const double *v;
	const int *col;
};

static inline double row_get(const void *src, enum wult_metric m)
{
	const struct row_src *r = src;

	return r->col[m] >= 0 ? r->v[r->col[m]] : NAN;
}

int rpt_plot_add_row(struct rpt_plot *p, const struct rpt_opts *o, const double *v,
		     const int *col)
{
	struct row_src r = { v, col };

	return plot_add(p, o, row_get, &r);
}

int rpt_plot_merge(struct rpt_plot *dst, const struct rpt_plot *src)
{
	unsigned int i;

	for (i = 0; i < dst->nm && i < src->nm; i++)
		if (dst->st[i] && src->st[i] && wult_stats_merge(dst->st[i], src->st[i]))
			return -ENOMEM;
	return 0;
}

struct hist_fill {
	const int64_t *edge;
	uint64_t *cnt;
	unsigned int n, cur;
};

static int fill(int64_t val, uint64_t cnt, void *ctx)
{
	struct hist_fill *h = ctx;

	while (h->cur + 1 < h->n && val >= h->edge[h->cur + 1])
		h->cur++;
	h->cnt[h->cur] += cnt;
	return 0;
}

/* The histogram of metric @i from @st: the same bucket rule as the text
 * report's --hist (log buckets for times, linear otherwise). */
static int hist_from(struct rpt_plot *p, const struct rpt_opts *o, unsigned int i,
		     const struct wult_stats *st)
{
	struct rpt_plot_hist *h = &p->hist[i];
	struct wult_stats_summary sum;
	struct hist_fill hf = { 0 };
	int ret;

	ret = wult_stats_summary(st, &sum);
	if (ret)
		return ret;
	h->total = sum.count;
	if (!sum.count || h->edge)
		return 0;
	h->edge = calloc(HIST_BUCKETS + 1, sizeof(*h->edge));
	h->cnt = calloc(HIST_BUCKETS, sizeof(*h->cnt));
	if (!h->edge || !h->cnt)
		return -ENOMEM;
	/* Logarithmic buckets for times, unless some are negative (TaiToIntr). */
	h->n = rpt_hist_edges(!wult_metric_desc(o->plot[i])->is_time || sum.min < 0,
			      sum.min, sum.max, h->edge, HIST_BUCKETS);
	hf.edge = h->edge;
	hf.cnt = h->cnt;
	hf.n = h->n;
	return wult_stats_foreach(st, fill, &hf);
}

int rpt_plot_hist_from(struct rpt_plot *p, const struct rpt_opts *o, enum wult_metric m,
		       const struct wult_stats *st)
{
	unsigned int i;

	for (i = 0; p && i < p->nm; i++)
		if (o->plot[i] == m && !p->st[i])
			return hist_from(p, o, i, st);
	return 0;
}

int rpt_plot_finish(struct rpt_plot *p, const struct rpt_opts *o)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < p->nm; i++) {
		if (!p->st[i])
			continue;
		if (!ret)
			ret = hist_from(p, o, i, p->st[i]);
		wult_stats_free(p->st[i]);
		p->st[i] = NULL;
	}
	return ret;
}

const struct rpt_plot_hist *rpt_plot_hist(const struct rpt_plot *p, unsigned int i)
{
	return p && i < p->nm ? &p->hist[i] : NULL;
}

unsigned int rpt_plot_nseries(const struct rpt_plot *p)
{
	return p ? p->nser : 0;
}

/* A point and its x as an unsigned key in x's order (-0 and +0 equal). */
struct keyed {
	uint64_t key;
	struct pt2 pt;
};

static inline uint64_t x_key(double x)
{
	uint64_t b;

	if (x == 0)
		x = 0;
	memcpy(&b, &x, sizeof(b));
	return b >> 63 ? ~b : b | UINT64_C(1) << 63;
}

#define SORT_BITS	16
#define SORT_N		(1U << SORT_BITS)

/*
 * @a's @n points (none NaN) in ascending x, points of equal x in their
 * order in @a, as glibc's merge sort behind qsort() kept them: a radix
 * sort of x_key(), least significant 16 bits first, a pass skipped where
 * every key has the same digit. qsort() with a comparison call was half of
 * a 1M-datapoint page's writing (88M instructions), and from glibc 2.37
 * on it no longer keeps equal points in order. 0, or -ENOMEM.
 */
static int sort_x(struct pt2 *a, size_t n)
{
	struct keyed *src = malloc(2 * (n ? n : 1) * sizeof(*src)), *dst, *t;
	uint32_t *cnt = malloc(SORT_N * sizeof(*cnt)), sum, c;
	unsigned int sh, d;
	size_t i;

	if (!src || !cnt) {
		free(src);
		free(cnt);
		return -ENOMEM;
	}
	dst = src + n;
	for (i = 0; i < n; i++) {
		src[i].key = x_key(a[i].x);
		src[i].pt = a[i];
	}
	for (sh = 0; sh < 64; sh += SORT_BITS) {
		memset(cnt, 0, SORT_N * sizeof(*cnt));
		for (i = 0; i < n; i++)
			cnt[(src[i].key >> sh) & (SORT_N - 1)]++;
		if (n && cnt[(src[0].key >> sh) & (SORT_N - 1)] == n)
			continue;
		for (d = 0, sum = 0; d < SORT_N; d++) {
			c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(src[i].key >> sh) & (SORT_N - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	for (i = 0; i < n; i++)
		a[i] = src[i].pt;
	free(src < dst ? src : dst);
	free(cnt);
	return 0;
}

/* Series @i: its metrics, datapoint count and kept points in ascending x
 * (Chart.js takes unparsed data as sorted). -ENOMEM when they cannot be
 * sorted, else the datapoint count. */
int64_t rpt_plot_series(const struct rpt_plot *p, unsigned int i, enum wult_metric *xm,
			enum wult_metric *ym, void (*emit)(double x, double y, void *ctx),
			void *ctx)
{
	const struct series *s = p->ser[i];
	struct pt2 *all;
	size_t k, n = s->ntop + s->npts;

	*xm = s->xm;
	*ym = s->ym;
	if (!emit)
		return s->total;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	memcpy(all, s->top, s->ntop * sizeof(*all));
	if (s->npts)
		memcpy(all + s->ntop, s->pts, s->npts * sizeof(*all));
	if (sort_x(all, n)) {
		free(all);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++)
		emit(all[k].x, all[k].y, ctx);
	free(all);
	return s->total;
}
