/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report, the views of the counted inputs: the values as every view prints them
 * (report_fmt.c), the diff model (report_diff.c), the text (report_print.c),
 * JSON (report_json.c) and HTML (report_plot.c, report_html.c) outputs, the
 * recorded system (report_sysinfo.c) and a capture beside an input
 * (report_capture.c).
 */
#ifndef WULT_REPORT_VIEW_H
#define WULT_REPORT_VIEW_H

#include "report.h"

/* ---- report_fmt.c: the values as every view reads and prints them ---- */
/* Counter metrics reported as means (wult_point indexes), report_fmt.c's. */
extern const enum wult_metric rpt_ctr_metrics[RPT_NCTR];
/* The rows of a statistics table. */
enum {
	RPT_S_COUNT, RPT_S_MIN, RPT_S_MEDIAN, RPT_S_P90, RPT_S_P99, RPT_S_P99_9, RPT_S_P99_99,
	RPT_S_P99_999, RPT_S_MAX, RPT_S_MEAN, RPT_S_STDDEV, RPT_S_NR,
};
extern const char *const rpt_stat_names[RPT_S_NR];
/* A time metric the statistics hold (a relative time in us, not a stamp). */
int rpt_is_time(enum wult_metric m);
/* Their names, from libwult's metric table, ", "-separated (messages). */
const char *rpt_time_names(char *buf, size_t len);
/* Row @k of @s (NaN: none), as every output prints it. */
double rpt_stat_val(const struct wult_stats_summary *s, int k);
double rpt_mean_val(const struct rpt_mean *m);
/* Formatting shared by the text and HTML reports: a time (ns) in o's unit,
 * a table cell, a counter mean. */
const char *rpt_fmt_time(char *buf, size_t len, const struct rpt_opts *o, double ns);
const char *rpt_fmt_stat(char *buf, size_t len, const struct rpt_opts *o, int k, double v);
const char *rpt_ctr_fmt(enum wult_metric m, double v, char *buf, size_t len);
int rpt_ctr_prec(enum wult_metric m);
/* A file's group of state @name, NULL if it has none. */
const struct rpt_group *rpt_find_group(const struct rpt_file *f, const char *name);
/* Orders requested-state names as people list them: POLL, C1, C1E, C6, C10. */
int rpt_state_cmp(const char *a, const char *b);
/* "hrt", "tdt", "hrt+tdt" for a set of methods (bit = enum wult_source_id);
 * NULL for none. */
const char *rpt_sources_name(unsigned int sources, char *buf, size_t len);

/* ---- report_diff.c: the diff model, computed once for every view ---- */
/* One row of the summary: each input's value of one statistic. */
struct rpt_diff_row {
	const char *label;		/* the statistic's name, or the counter's */
	int k;				/* RPT_S_* */
	int ctr;			/* the counter metric, -1: a count or a time */
	double *v;			/* each input's value, NaN: none */
};
/* One state of the union of the inputs' states. */
struct rpt_diff_state {
	const char *name;
	const struct rpt_group **g;	/* each input's group, NULL: none */
	struct rpt_diff_row kept, excluded;
	struct rpt_diff_row *time;	/* RPT_S_NR rows per time metric, o->time's order */
	struct rpt_diff_row *ctr;	/* the counter means some input has */
	unsigned int nctr;
	double *vals;			/* the rows' values */
};
struct rpt_diff {
	unsigned int nfiles, nstates;
	struct rpt_diff_state *st;	/* ordered as people list states, "all" last */
};
/* The model of @files (one or more). 0, or -ENOMEM. */
int rpt_diff_new(const struct rpt_opts *o, struct rpt_file *const *files, unsigned int nfiles,
		 struct rpt_diff **out);
void rpt_diff_free(struct rpt_diff *d);
/* Input @j's cell of row @r: its value, and (@j > 0) its change against
 * the first input, absolute and relative. Each buffer @len bytes. */
void rpt_diff_cell(const struct rpt_opts *o, const struct rpt_diff_row *r, unsigned int j,
		   char *val, char *abs, char *pct, size_t len);
/* The change of @v against @base: absolute (in @abs) and relative (@pct);
 * @o for times, else @prec decimals. */
void rpt_fmt_change(const struct rpt_opts *o, int prec, int k, double base, double v,
		    char *abs, char *pct, size_t len);
/* The state names of several files, ordered, "all" last. */
unsigned int rpt_state_union(struct rpt_file *const *files, unsigned int nfiles,
			     const char **names, unsigned int max);

/* ---- report_print.c ---- */
/* Histogram bucket edges from @min to @max + 1 (log unless @linear), the
 * bucket count returned: the text --hist and the HTML page share them. */
unsigned int rpt_hist_edges(int linear, int64_t min, int64_t max, int64_t *edge,
			    unsigned int n);
/* Appends a histogram of @st to @g->hist. 0 or -ENOMEM. */
int rpt_hist_render(const struct rpt_opts *o, struct rpt_group *g, const struct wult_stats *st);
/* The input's datapoint and validity counts, as the header prints them. */
void rpt_print_validity(FILE *out, const struct rpt_file *f);
void rpt_print_one(FILE *out, const struct rpt_opts *o, const struct rpt_file *f);
/* The --branches section: each state's most frequent contexts, symbolized. */
void rpt_print_branches(FILE *out, const struct rpt_opts *o, const struct rpt_file *f);
/* The diff of @files, laid out from @d (rpt_diff_new() of the same files). */
void rpt_print_diff(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		    const struct rpt_diff *d);

/* ---- report_json.c ---- */
/* Writes the report of @files to @f as JSON (schema RPT_JSON_SCHEMA). 0 or
 * -EIO. */
int rpt_json_write(FILE *f, const struct rpt_opts *o, struct rpt_file *const *files,
		   unsigned int nfiles);

/* ---- report_plot.c: what the HTML page draws of a group ---- */
struct rpt_plot;

/* A histogram the C code computed: bucket b is [edge[b], edge[b + 1]), in
 * the metric's integer units (rpt_plot_scale()). */
struct rpt_plot_hist {
	int64_t *edge;
	uint64_t *cnt;
	unsigned int n;
	uint64_t total;
};

/* Integer units per metric unit: 1 for ns, 100 for %, 10 for MHz. */
double rpt_plot_scale(enum wult_metric m);
/* For o->plot; with @scatter also the reduced scatters against o->plot_x. */
int rpt_plot_new(const struct rpt_opts *o, int scatter, struct rpt_plot **out);
int rpt_plot_add(struct rpt_plot *p, const struct rpt_opts *o, const struct wult_point *pt);
/* The same from a row of the two-thread pass: metric m in @v[@col[m]],
 * not carried where @col[m] < 0 (NaN). */
int rpt_plot_add_row(struct rpt_plot *p, const struct rpt_opts *o, const double *v,
		     const int *col);
/* Adds @src's statistics (not its scatter) to @dst: the "all" group. */
int rpt_plot_merge(struct rpt_plot *dst, const struct rpt_plot *src);
/* The histogram of a plotted metric that the tables have statistics of
 * (o->time), from those: they are not kept twice. 0 or -ENOMEM. */
int rpt_plot_hist_from(struct rpt_plot *p, const struct rpt_opts *o, enum wult_metric m,
		       const struct wult_stats *st);
/* Turns the other metrics' statistics into histograms and frees them. */
int rpt_plot_finish(struct rpt_plot *p, const struct rpt_opts *o);
const struct rpt_plot_hist *rpt_plot_hist(const struct rpt_plot *p, unsigned int i);
unsigned int rpt_plot_nseries(const struct rpt_plot *p);
/* Series @i: its metrics and datapoint count; with @emit, its kept points
 * in ascending x. -ENOMEM when they cannot be sorted. */
int64_t rpt_plot_series(const struct rpt_plot *p, unsigned int i, enum wult_metric *xm,
			enum wult_metric *ym, void (*emit)(double x, double y, void *ctx),
			void *ctx);
void rpt_plot_free(struct rpt_plot *p);

/* ---- report_html.c ---- */
/* Writes the HTML report of @files to o->html_out, its summary from @d
 * (rpt_diff_new() of the same files). 0, or -errno (printed). */
int rpt_html_write(const struct rpt_opts *o, struct rpt_file *const *files,
		   const struct rpt_diff *d);

/* ---- report_sysinfo.c: the recorded system's description ---- */
/* Parses the description @text (NULL: none) into @m. 0 or -ENOMEM; a bad
 * one leaves m->sysdesc NULL and says why in m->sysdesc_err. */
int rpt_sysinfo_parse(struct rpt_meta *m, const char *text);
/* --info: each input's description. */
void rpt_sysinfo_print(FILE *out, struct rpt_file *const *files, unsigned int nfiles);
/* Of several inputs: the settings whose values differ, if any. */
void rpt_sysinfo_print_diff(FILE *out, struct rpt_file *const *files, unsigned int nfiles);
/* The settings that differ: calls @fn per key with each input's value
 * (NULL: not in it); inputs without a description are left out. Returns
 * how many keys differ. */
unsigned int rpt_sysinfo_diff(struct rpt_file *const *files, unsigned int nfiles,
			      void (*fn)(const char *key, const char *const *vals, void *ctx),
			      void *ctx);

/* ---- report_capture.c: a --stop-on capture beside the input ---- */
/* Prints @data_path.capture's story, if there is one. 0 or -errno (said). */
int rpt_capture_print(FILE *out, const char *data_path);

#endif
