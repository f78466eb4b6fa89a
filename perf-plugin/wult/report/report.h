/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report's model, shared by all its files: the options as parsed
 * (struct rpt_opts, report_opts.c), an input and what the pass over it
 * found (struct rpt_file, its groups and metadata), the limits and the exit
 * statuses. The functions are declared by role, each header naming its files:
 *	report_opts.h	the options
 *	report_input.h	reading an input (and report_input_kind.h, its kinds)
 *	report_resid.h	idle residency from wult.ko's accounting
 *	report_pass.h	the pass over an input, the --csv export on the way
 *	report_view.h	the values, the diff model, text, JSON and HTML
 *	report_judge.h	--fail-if, declared latencies, governor, methods
 *	report_sweep.h	a wult sweep's directory as the input
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
#include <wult/filter.h>
#include <wult/gate.h>
#include <wult/metrics.h>
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
	/* A section the HTML page shows first, below its header (a sweep's table). */
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
	struct rpt_gov_count *gov[RPT_GOV_BANDS];
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

/*
 * What the header says of the kept datapoints (report_notes.c): none of it
 * depends on their order, so the reading thread may gather it
 * (report_pipe.c) where every datapoint is kept.
 */
struct rpt_notes {
	uint64_t cpus[RPT_MAX_CPUS / 64];	/* their CPUs */
	double ldist_min, ldist_max;	/* ns; NaN: none */
	unsigned int sources;		/* their methods (WULT_M_SOURCE), a bit each */
	uint64_t flag_wakes;		/* ipi wakes with no interrupt (no IntrLatency) */
	uint64_t task_wakes;		/* ipi waketask wakes whose task ran (RunLatency) */
};

void rpt_notes_init(struct rpt_notes *nt);
void rpt_notes_point(struct rpt_notes *nt, const struct wult_point *pt);
/* @n rows of @stride doubles from @v, metric m in column @col[m] (-1: not
 * carried, NaN on every row). */
void rpt_notes_rows(struct rpt_notes *nt, const double *v, unsigned int n, unsigned int stride,
		    const int *col);

struct rpt_gov_count;

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
	struct rpt_notes nt;		/* what the kept datapoints were */
	struct rpt_resid *resid;	/* idle residency, NULL: not recorded */
	int khist;			/* wult.ko's histograms (wult hist), no datapoints */
	char *cut;			/* why the input ended early (a pipe or file cut
					 * short), NULL: read whole; the report then
					 * covers the datapoints before it */
	struct rpt_group *groups[RPT_MAX_STATES];	/* sorted after the pass */
	unsigned int ngroups;
	struct rpt_group all;
};

#endif
