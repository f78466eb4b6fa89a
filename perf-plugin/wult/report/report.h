/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report internals, shared by cmd_report.c (options, inputs, the
 * order of the outputs), report_pass.c (the pass over each input),
 * report_input.c (perf.data and intel wult CSV sources), report_csv.c
 * (--csv) and the views: report_fmt.c, report_diff.c, report_print.c,
 * report_json.c, report_html.c.
 *
 * One pass per input: every kept datapoint goes into per-state streaming
 * statistics (wult/stats.h); at the end of the input they are reduced to
 * summaries and freed, so memory follows the value range, never the
 * datapoint count, and a diff of many inputs holds only summaries.
 */
#ifndef WULT_REPORT_H
#define WULT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include <wult/br.h>
#include <wult/csv.h>
#include <wult/dpdec.h>
#include <wult/filter.h>
#include <wult/gate.h>
#include <wult/metrics.h>
#include <wult/perfdata.h>
#include <wult/stats.h>
#include <wult/sysdesc.h>

#define RPT_MAX_TIME	WULT_M_NR	/* time metrics tracked per state */
#define RPT_MAX_STATES	256		/* distinct ReqCState values per input */
#define RPT_MAX_FILTERS	16		/* --include / --exclude each */
#define RPT_MAX_FILES	64		/* inputs of a diff */
#define RPT_MAX_MODULES	64		/* --module */
#define RPT_NCTR	21		/* counter metrics, see rpt_ctr_metrics */
#define RPT_ALL		"all"		/* the group of every state */
#define RPT_MAX_CPUS	4096		/* CPU numbers the header lists */
#define RPT_MAX_PLOT	8		/* metrics plotted in the HTML report */
#define RPT_MAX_PLOT_X	2		/* x axes of its scatters */

/* Exit statuses: usage errors and data errors are told apart, and both
 * from a --fail-if condition that held. */
#define RPT_EXIT_DATA	1
#define RPT_EXIT_USAGE	2
#define RPT_EXIT_GATE	3
/* Nothing to report or judge: the filters kept no datapoint, an input lacks
 * a requested metric, a --fail-if statistic has no value, or a --csv export
 * would be empty. A report on nothing must not pass for a good one. */
#define RPT_EXIT_EMPTY	4

#define RPT_JSON_SCHEMA	1		/* --json's schema_version */
#define RPT_MAX_GATES	32		/* --fail-if */

struct rpt_opts {
	enum wult_metric time[RPT_MAX_TIME];	/* metrics with full statistics */
	const char *time_name[RPT_MAX_TIME];	/* NULL: the metric's name (wult hist's TaiToIntr) */
	unsigned int ntime;
	struct wult_filter *inc[RPT_MAX_FILTERS], *exc[RPT_MAX_FILTERS];
	unsigned int ninc, nexc;
	const char *csv_out;
	int hist;				/* print histograms of hist_metric */
	enum wult_metric hist_metric;
	int hist_linear;
	unsigned int hist_buckets;
	double unit_ns;				/* 1, 1e3 or 1e6 */
	const char *unit;			/* "ns", "us", "ms" */
	const char *format_path;		/* --format */
	char *cstate_names;			/* --cstates, comma-separated */
	int width;				/* output width for histograms */
	unsigned int branches;			/* contexts shown per state, 0: none */
	unsigned int br_depth;			/* entries per context */
	const char *kallsyms, *vmlinux;		/* symbols for branch addresses */
	const char *modules[RPT_MAX_MODULES];	/* --module FILE[@ADDR] */
	unsigned int nmodules;
	const char *html_out;			/* --html */
	enum wult_metric plot[RPT_MAX_PLOT];	/* --plots */
	unsigned int nplot;
	enum wult_metric plot_x[RPT_MAX_PLOT_X];	/* --plot-x */
	unsigned int nplot_x;
	int per_cpu;				/* --per-cpu: a group per CPU and state */
	const char *title;			/* the HTML page's, NULL: "wult report" */
	/* A section the HTML page shows below its header (a sweep's table), NULL: none. */
	void (*html_extra)(FILE *f, const void *ctx);
	const void *html_extra_ctx;
	const char *json_out;			/* --json: "-" is stdout, instead of the text */
	struct wult_gate gate[RPT_MAX_GATES];	/* --fail-if */
	const char *gate_expr[RPT_MAX_GATES];
	unsigned int ngates;
	int threads;				/* a pass may use a second thread */
	int force;				/* --force: overwrite existing outputs */
	int allow_empty;			/* --allow-empty: nothing is exit 0 */
	uint64_t time_req;			/* metrics asked for (WULT_METRIC_BIT) */
	int info;				/* --info: the inputs' descriptions only */
	int suggest;				/* --suggest */
	double suggest_pct;			/* --suggest-pct, 0: none asked */
	int declared_sysfs;			/* --declared-sysfs */
};

/* The governor judged: LDist bands (their lower edges in us, the last open),
 * and the unit SilentTime is counted in, exact against whole-us residencies. */
#define RPT_GOV_BANDS	5
#define RPT_GOV_UNIT	1000
extern const double rpt_gov_band_us[RPT_GOV_BANDS];
extern const char *const rpt_gov_band_names[RPT_GOV_BANDS + 1];	/* and "all" */

/* Counter metrics reported as means (wult_point indexes), report_fmt.c's. */
extern const enum wult_metric rpt_ctr_metrics[RPT_NCTR];

struct rpt_mean {
	double sum;
	uint64_t n;
};

/* A requested state, or every state ("all"). */
struct rpt_group {
	char *name;
	uint64_t kept, excluded, scaled;
	struct wult_stats *st[RPT_MAX_TIME];		/* during the pass */
	struct wult_stats_summary sum[RPT_MAX_TIME];	/* after it */
	struct rpt_mean ctr[RPT_NCTR];
	char *hist;					/* rendered histogram */
	struct wult_br_tally *br;			/* with --branches */
	struct rpt_plot *plot;				/* with --html */
	double pct[RPT_MAX_TIME];			/* o->suggest_pct's, NaN: none */
	/* The governor judged (report_governor.c): SilentTime in units of
	 * RPT_GOV_UNIT ns per LDist band, when the input has a description. */
	struct wult_stats *gov[RPT_GOV_BANDS];
};

/* What an input is, field by field (desc has it as the header's lines):
 * the JSON output's metadata. NULL: unknown or not this kind's. */
struct rpt_meta {
	const char *kind;		/* "perf.data", "intel wult" */
	int pipe;			/* a perf.data in pipe mode */
	char *host, *kernel, *command;	/* the perf.data's features */
	char *format, *format_warning;	/* where the wult:datapoint format came from */
	char *tool, *tool_version, *device, *cpu;	/* an intel wult result's info.yml */
	char **events;			/* the perf.data's event names, distinct */
	unsigned int nevents;
	struct wult_sysdesc *sysdesc;	/* the system description, NULL: none */
	char *sysdesc_err;		/* why the one it carries does not parse */
};

/* One input and what the pass over it found. */
struct rpt_file {
	const char *path;
	char *desc;			/* header lines: what the input is */
	struct rpt_meta meta;
	uint64_t read;			/* datapoints decoded */
	uint64_t kept, excluded;
	uint64_t undecodable;		/* wult samples that did not decode */
	uint64_t lost, lost_records;	/* from PERF_RECORD_LOST / LOST_SAMPLES */
	uint64_t other;			/* samples of other events */
	uint64_t clamped;		/* values outside the statistics' range */
	uint64_t br_read;		/* branch contexts decoded */
	uint64_t br_matched;		/* ... attached to a datapoint */
	uint64_t cpus[RPT_MAX_CPUS / 64];	/* CPUs of the kept datapoints */
	double ldist_min, ldist_max;	/* ns, of the kept datapoints; NaN: none */
	unsigned int sources;		/* their methods (WULT_M_SOURCE), a bit each */
	uint64_t flag_wakes;		/* ipi wakes with no interrupt (no IntrLatency) */
	uint64_t task_wakes;		/* ipi waketask wakes whose task ran (RunLatency) */
	struct rpt_resid *resid;	/* idle residency, NULL: not recorded */
	int khist;			/* wult.ko's histograms (wult hist), no datapoints */
	char *cut;			/* why the input ended early (a pipe or file cut
					 * short), NULL: read whole; the report then
					 * covers the datapoints before it */
	struct rpt_group *groups[RPT_MAX_STATES];	/* sorted after the pass */
	unsigned int ngroups;
	struct rpt_group all;
};

/* ---- report_pass.c: the pass over one input ---- */
/* Reads, filters and counts @path into a new rpt_file (its --csv export
 * written on the way). 0, or RPT_EXIT_DATA with the reason printed. */
int rpt_file_run(const struct rpt_opts *o, const char *path, struct rpt_file **out);
void rpt_file_free(struct rpt_file *f);

/* ---- report_csv.c: --csv ---- */
struct rpt_src;
/* --csv OUT: a file, or an intel wult result directory; zeroed: none. */
struct rpt_csv {
	FILE *f;
	struct wult_csv_writer *w;
	char *dir;		/* set when OUT is a directory */
	char *path;
	int made_dir;		/* dir was created for the export */
	int force;		/* existing files may be replaced */
	uint64_t written;	/* rows written */
	uint64_t nrows;		/* ... of them with an LTime */
	double ltime_min, ltime_max;	/* ns, of the rows written */
	unsigned int sources;		/* methods of the rows, a bit each */
};
/* Opens @out for @input's rows; an existing file is refused unless @force.
 * 0, or -errno (said). */
int rpt_csv_open(const char *out, const char *input, int force, struct rpt_csv *c);
/* One kept datapoint's row. 0, or -EIO (said). */
int rpt_csv_add(struct rpt_csv *c, const struct wult_point *pt);
/* Finishes the export (info.yml from @src, @ok: the pass worked), or
 * removes it when the pass failed or kept no datapoint (-ENODATA). 0, or
 * -errno (said). */
int rpt_csv_close(struct rpt_csv *c, const struct rpt_src *src, const char *input, int ok);

/* Would writing @out clobber input @in (the file, or a result directory's
 * datapoints.csv or info.yml)? */
int rpt_out_is_input(const char *out, const char *in);
/* --csv/--html/--json target @out (@opt names the option) for @inputs:
 * never an input; an existing one only with --force. 0, or RPT_EXIT_USAGE
 * (said). */
int rpt_out_check(const struct rpt_opts *o, const char *opt, const char *out,
		  const char *const *inputs, unsigned int ninputs);

/* ---- report_input.c: a stream of datapoints from one input ---- */
struct rpt_src;

/* Opens @path: a perf.data file ("-": stdin, pipe mode), an intel wult raw
 * result directory or its datapoints.csv. 0, or -errno with @err set. */
int rpt_src_open(const char *path, const struct rpt_opts *o, struct rpt_src **out,
		 char *err, size_t errlen);
/* 1 and fills @pt, 0 at the end, or -errno with the reason in rpt_src_error(). */
int rpt_src_next(struct rpt_src *s, struct wult_point *pt);
const char *rpt_src_error(const struct rpt_src *s);
/* Whether the input carries a system description (known by its first
 * datapoint): the governor is then judged on the way. */
int rpt_src_has_sysdesc(const struct rpt_src *s);
/* Like rpt_src_next() for a perf.data input (rpt_src_stable_names()), but
 * only metrics @m[0..@n-1] into @out and ReqCState's name into *@state:
 * decoding the others is skipped where it can be. */
int rpt_src_next_some(struct rpt_src *s, const enum wult_metric *m, unsigned int n,
		      double *out, const char **state);
/* The metrics the input's datapoints can carry (WULT_METRIC_BIT() set), known
 * once rpt_src_next() returned one; the others are NaN on every datapoint. */
uint64_t rpt_src_metrics(const struct rpt_src *s);
/* 1 when a datapoint's ReqCState name is one string per state index for the
 * whole input (its num), so the name's pointer may key a cache. */
int rpt_src_stable_names(const struct rpt_src *s);
/* The branch context of the datapoint rpt_src_next() returned last (same
 * CPU and LTime, delivered just before it), or NULL. */
const struct wult_branches *rpt_src_branches(const struct rpt_src *s);
/* The idle residency the input's datapoints carried (ownership passes to
 * the caller), or NULL when they carried no idle accounting. */
struct rpt_resid *rpt_src_take_resid(struct rpt_src *s);
/* Fills the input's description, metadata and validity counts into @f.
 * 0 or -ENOMEM. */
int rpt_src_describe(const struct rpt_src *s, struct rpt_file *f);
void rpt_meta_free(struct rpt_meta *m);
/* info.yml values for a CSV export: the CPU and the device. */
int rpt_src_cpu(const struct rpt_src *s);
/* A perf.data input's measured device (the nic method's wult event
 * "device" term) as DOMAIN:BUS:DEV.FN in @buf; NULL if none. */
const char *rpt_src_device(const struct rpt_src *s, char *buf, size_t len);
void rpt_src_close(struct rpt_src *s);

/* ---- report_pipe.c: the source read in a thread of its own ---- */
struct rpt_pipe;

/* Starts reading @src in a new thread; rpt_pipe_next() then returns its
 * datapoints in order with the metrics of @metrics (WULT_METRIC_BIT() set)
 * and ReqCState's name; the others are left as they are in @pt (NaN, from
 * wult_point_clear(), as the input never has them when not in
 * rpt_src_metrics()).
 * Only for inputs whose names are stable (rpt_src_stable_names()). 0 or
 * -ENOMEM / -EAGAIN (then read @src in this thread). */
int rpt_pipe_start(struct rpt_src *src, uint64_t metrics, struct rpt_pipe **out);
/* As rpt_src_next(). */
int rpt_pipe_next(struct rpt_pipe *p, struct wult_point *pt);
/*
 * A batch of datapoints as the reading thread left them, for counting
 * without a wult_point each: row r's metric m is val[r * stride + col[m]],
 * its ReqCState name str[r]; col[m] < 0 where m is not carried (NaN on
 * every datapoint, as rpt_pipe_next() leaves it).
 */
struct rpt_rows {
	const double *val;
	const char *const *str;
	unsigned int n, stride;
	int col[WULT_M_NR];
};

/* The next batch into @rows (the previous one is handed back to the reader):
 * 1, or as rpt_src_next() at the end. A pass takes its datapoints either
 * this way or through rpt_pipe_next(), not both. */
int rpt_pipe_rows(struct rpt_pipe *p, struct rpt_rows *rows);
/* Stops the reading thread and frees @p; @src may then be used again. */
void rpt_pipe_stop(struct rpt_pipe *p);

/* ---- report_resid.c: idle residency from wult.ko's idle accounting ---- */
struct rpt_resid;

int rpt_resid_new(struct rpt_resid **out);
void rpt_resid_free(struct rpt_resid *r);
/* Names requested state @state in the table. */
void rpt_resid_name(struct rpt_resid *r, unsigned int state, const char *name);
/* Is wult event kind @kind one of the idle accounting's (time, entries,
 * interrupt time, interrupts)? */
int rpt_resid_kind(unsigned int kind);
/* Sample id @id is a member counting accounting kind @kind of @state.
 * 0, -EINVAL or -ENOSPC. */
int rpt_resid_add_id(struct rpt_resid *r, uint64_t id, unsigned int kind, unsigned int state);
/* Adds a datapoint's group read: what the members grew by since the
 * previous datapoint of its CPU's group. 0 or -ENOMEM. */
int rpt_resid_sample(struct rpt_resid *r, const struct wult_pd_sample *s);
/* Whether any CPU has a span with accounting members. */
int rpt_resid_any(const struct rpt_resid *r);
/* A row of the residency table, as every output shows it. */
struct rpt_resid_row {
	int cpu;			/* -1: every CPU together ("all") */
	const char *state;		/* "idle": the states together */
	double time_pct;		/* of the span */
	double entries_per_s;
	double time_s, entries;		/* over the span */
	int irq;			/* the interrupt figures were recorded */
	double irq_time_pct;		/* of the state's time */
	double irqs_per_s;
};
typedef void (*rpt_resid_fn)(const struct rpt_resid_row *row, void *ctx);
/* The span (ns) the table covers, its CPUs, whether it has interrupt figures. */
void rpt_resid_totals(const struct rpt_resid *r, double *span_ns, unsigned int *ncpus,
		      int *irq);
/* Each row of the table in order: per CPU, then every CPU when several. */
void rpt_resid_foreach(const struct rpt_resid *r, rpt_resid_fn fn, void *ctx);
/* The residency table: per CPU, and every CPU together when several. */
void rpt_resid_print(FILE *out, const struct rpt_resid *r);

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

/* ---- report_gate.c: --fail-if ---- */
/* Parses condition @expr into o->gate. 0, or -EINVAL (said why). */
int rpt_gate_add(struct rpt_opts *o, const char *expr);
/* Whether every condition's state is in some input: 0, or RPT_EXIT_USAGE
 * with the unknown state said. */
int rpt_gate_check(const struct rpt_opts *o, struct rpt_file *const *files,
		   unsigned int nfiles);
/* Evaluates the conditions on every input, saying each one's result on
 * stderr: RPT_EXIT_GATE when one held, else RPT_EXIT_EMPTY when one had no
 * value (unless --allow-empty), else 0. */
int rpt_gate_eval(const struct rpt_opts *o, struct rpt_file *const *files,
		  unsigned int nfiles);

/* ---- report_json.c ---- */
/* Writes the report of @files to @f as JSON (schema RPT_JSON_SCHEMA). 0 or
 * -EIO. */
int rpt_json_write(FILE *f, const struct rpt_opts *o, struct rpt_file *const *files,
		   unsigned int nfiles);

/* ---- report_fmt.c: the values as every view reads and prints them ---- */
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

/* ---- report_html.c ---- */
/* Writes the HTML report of @files to o->html_out, its summary from @d
 * (rpt_diff_new() of the same files). 0, or -errno (printed). */
int rpt_html_write(const struct rpt_opts *o, struct rpt_file *const *files,
		   const struct rpt_diff *d);

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

/* ---- report_declared.c: declared against measured, --suggest ---- */
/* Flags: p99.99 above the declared exit latency, or below this fraction
 * of it. */
#define RPT_DECL_FAR_BELOW	0.5
#define RPT_SUGGEST_PCT		99.99	/* --suggest's percentile by default */
enum rpt_decl_src {
	RPT_DECL_NONE,		/* unknown: the input carries no description */
	RPT_DECL_RECORDED,	/* the recording's system description */
	RPT_DECL_SYSFS,		/* this machine's cpuidle sysfs (--declared-sysfs) */
};
struct rpt_decl_row {
	const struct rpt_group *g;
	const char *name;		/* the state's name in the description */
	double lat_us, res_us;		/* declared; NaN: unknown */
	double v[4];			/* measured ns: median, p99, p99.99, max */
	double ratio;			/* p99.99 / declared latency; NaN */
	const char *flag;		/* NULL, "exceeds", "far-below" */
};
struct rpt_decl {
	enum rpt_decl_src src;
	const char *src_text;		/* where the declared values come from */
	const char *driver;		/* the cpuidle driver, NULL: unknown */
	enum wult_metric metric;	/* measured: WakeLatency */
	int mi;				/* its index in o->time, -1: not reported */
	int synthetic;
	unsigned int n;
	struct rpt_decl_row *rows;
};
/* The measured stats beside the declared ones of @f's states. 0 or -ENOMEM. */
int rpt_decl_new(const struct rpt_opts *o, const struct rpt_file *f, struct rpt_decl **out);
void rpt_decl_free(struct rpt_decl *d);
/* The text block; nothing when the declared values are unknown, unless
 * @always. */
void rpt_decl_print(FILE *out, const struct rpt_opts *o, const struct rpt_file *f,
		    const struct rpt_decl *d, int always);
/* --suggest: latencies to declare, the intel_idle.table= string, PM QoS. */
void rpt_suggest_print(FILE *out, const struct rpt_opts *o, const struct rpt_file *f,
		       const struct rpt_decl *d);
/* The exit latency to declare for row @r (us): the measured
 * o->suggest_pct percentile rounded up; NaN: none. */
double rpt_suggest_us(const struct rpt_decl *d, const struct rpt_decl_row *r);
/* The intel_idle.table= value into @buf; how many states it sets. */
unsigned int rpt_suggest_table(const struct rpt_decl *d, char *buf, size_t len);
/* The text report's declared-against-measured block of each input (when
 * known; with --suggest always) and --suggest's. */
void rpt_decl_print_all(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
			unsigned int nfiles);
/* Option @which of --info, --suggest, --suggest-pct P, --declared-sysfs
 * (0-3) into @o. 0, or -EINVAL (said why). */
int rpt_decl_opt(int which, const char *arg, struct rpt_opts *o);

/* ---- report_governor.c: the governor's picks judged ---- */
/* Adds a kept datapoint's SilentTime (ns) to @g's band of LDist @ldist (ns).
 * 0 or -ENOMEM. */
int rpt_gov_add(struct rpt_group *g, double ldist, double silent);
void rpt_gov_free(struct rpt_group *g);
/* The picks of one LDist band (or of all): counts, and what they cost. */
struct rpt_gov_cell {
	uint64_t n, shallow, right, deep;
	double idle_ns;		/* the idle periods (SilentTime) summed */
	double lost_ns;		/* ... of the too-shallow picks: residency lost */
	double added_us;	/* declared exit latency added by too-deep picks */
};
struct rpt_gov {
	const char *governor;	/* the description's, NULL: unknown */
	double qos_us;		/* PM QoS CPU latency limit, NaN: unknown */
	uint64_t unjudged;	/* datapoints of states the description lacks */
	struct rpt_gov_cell band[RPT_GOV_BANDS + 1];	/* the last: every band */
};
/* @f's model: 0, -ENOENT (no description, or no SilentTime and LDist) or
 * -ENOMEM. */
int rpt_gov_new(const struct rpt_file *f, struct rpt_gov *g);
/* Each input's governor block (only those with a description). */
void rpt_gov_print_all(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		       unsigned int nfiles);
/* The state index of group @name in description @sd ("C6", "stateN", with
 * --per-cpu "CPU1 C6": *@cpu becomes its CPU), or -1 (report_declared.c). */
int rpt_decl_state_index(const struct wult_sysdesc *sd, const char *name, int *cpu);

/* ---- report_methods.c: the methods compared (pre-wake) ---- */
/* With inputs of different methods: per state, the timer's wake against
 * the device's or IPI's. Nothing when the inputs' methods do not differ. */
void rpt_methods_print(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		       unsigned int nfiles);
/* Whether @files hold a timer-only input and a device- or IPI-only one. */
int rpt_methods_differ(struct rpt_file *const *files, unsigned int nfiles);
/* 1: @f's datapoints are all by timer (hrt, tdt); 2: all by a device or
 * IPI (nic, ipi); 0: neither or mixed. */
int rpt_methods_kind(const struct rpt_file *f);

/* ---- report_sweep.c: a wult sweep's directory (wult report DIR) ---- */
/* Whether one of @inputs is a directory holding a sweep manifest (sweep.json). */
int rpt_sweep_any(const char *const *inputs, unsigned int n);
/* Every point of the sweep in @inputs[0] compared: the text table, --json,
 * --html (a sweep is reported alone). An exit status (the causes said). */
int rpt_sweep_run(struct rpt_opts *o, const char *const *inputs, unsigned int n);

/* ---- report_capture.c: a --stop-on capture beside the input ---- */
/* Prints @data_path.capture's story, if there is one. 0 or -errno (said). */
int rpt_capture_print(FILE *out, const char *data_path);

#endif
