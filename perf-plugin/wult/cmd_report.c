// SPDX-License-Identifier: GPL-2.0
/*
 * wult report: per-requested-state statistics of recorded datapoints, and
 * side-by-side diffs of several recordings, as intel wult's reports give.
 *
 * Each input is read once, streaming: a datapoint is decoded, filtered and
 * counted into its state's statistics, then forgotten. See report.h for
 * how the pieces divide the work; Documentation/wult-report.md for the
 * command's behaviour.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "report/report.h"

#define DEF_HIST_BUCKETS	20
#define DEF_BRANCHES		10	/* contexts shown per state */
#define DEF_BR_DEPTH		4	/* branches per context */
#define MAX_BR_CONTEXTS		100000	/* distinct contexts kept per state */
#define DEF_WIDTH		80	/* columns, when stdout is not a terminal */
/* Inputs tried without -i or FILE: wult record's default, then perf's. */
#define DEF_INPUT		"wult.data"
#define DEF_INPUT_PERF		"perf.data"

/* Every metric in a CSV export, in intel wult's column order. */
static const enum wult_metric csv_cols[] = {
	WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_SILENT_TIME, WULT_M_LDIST,
	WULT_M_REQ_CSTATE, WULT_M_INTR_OFF, WULT_M_CC0, WULT_M_CC1, WULT_M_CC1_DERIVED,
	WULT_M_CC3, WULT_M_CC6, WULT_M_CC7, WULT_M_CC10, WULT_M_MC1, WULT_M_MC6, WULT_M_PC1,
	WULT_M_PC2, WULT_M_PC3, WULT_M_PC6, WULT_M_PC7, WULT_M_PC8, WULT_M_PC9, WULT_M_PC10,
	WULT_M_CPU_FREQ, WULT_M_SMI_CNT, WULT_M_NMI_CNT, WULT_M_SWIRQ_CNT, WULT_M_CPU, WULT_M_LTIME,
	WULT_M_TBI, WULT_M_TAI,
	WULT_M_TINTR, WULT_M_WAKE_LATENCY_RAW, WULT_M_INTR_LATENCY_RAW, WULT_M_SCALED,
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: wult report [options] [FILE...]\n\n"
		"Per requested C-state (ReqCState) and over all states: count, min, median,\n"
		"p90, p99, p99.9, p99.99, p99.999, max, mean and stddev of the latencies,\n"
		"means of the counter metrics (CC0%%, residencies, CPUFreq, SMICnt, NMICnt)\n"
		"and validity counts. With several FILEs, a side-by-side diff against the\n"
		"first.\n\n"
		"FILE is a perf.data (wult record; perf record -R -e wult/datapoints/;\n"
		"perf record -e wult:datapoint; pipe mode; '-' reads stdin), an intel wult\n"
		"raw result directory (datapoints.csv + info.yml) or its datapoints.csv.\n"
		"Without FILE: ./wult.data, else ./perf.data.\n\n"
		"  -i, --input FILE      an input, as a FILE argument (perf's -i)\n"
		"      --include EXPR    keep only datapoints where EXPR holds; repeated:\n"
		"                        all must hold (e.g. 'WakeLatency > 50us')\n"
		"  -x, --exclude EXPR    drop datapoints where EXPR holds; repeated: any drops\n"
		"      --csv OUT         write the kept datapoints in intel wult's CSV\n"
		"                        columns; OUT a directory (existing, or ending in\n"
		"                        '/'): OUT/datapoints.csv and OUT/info.yml, an intel\n"
		"                        wult raw result. One FILE only\n"
		"      --html OUT        also write OUT, one self-contained HTML page: the\n"
		"                        tables, scatters against SilentTime, histograms and\n"
		"                        cumulative histograms per state and FILE\n"
		"      --plots LIST      metrics the page plots, comma-separated (default\n"
		"                        WakeLatency,IntrLatency; any numeric metric)\n"
		"      --plot-x LIST     x axes of the scatters (default SilentTime; e.g.\n"
		"                        SilentTime,LDist)\n"
		"      --hist[=METRIC]   a histogram per state (default WakeLatency)\n"
		"      --hist-linear     linear buckets (default: logarithmic)\n"
		"      --hist-buckets N  buckets per histogram (default %d)\n"
		"      --raw             add WakeLatencyRaw and IntrLatencyRaw\n"
		"  -m, --metrics LIST    time metrics to report, comma-separated (default\n"
		"                        WakeLatency,IntrLatency,SilentTime; also LDist and\n"
		"                        the *Raw variants)\n"
		"      --per-cpu         statistics per CPU and state (groups 'CPUn STATE')\n"
		"  -u, --unit UNIT       time unit of the output: ns, us (default; 3\n"
		"                        decimals keep every nanosecond) or ms\n"
		"      --format FILE     wult:datapoint format for a perf.data without one\n"
		"                        in its TRACING_DATA (default: tracefs' copy, else\n"
		"                        the built-in layout)\n"
		"      --cstates NAMES   names of requested-state indexes 0, 1, ... for\n"
		"                        perf.data, comma-separated (default: this machine's\n"
		"                        cpuidle names if it recorded the file, else stateN)\n"
		"      --branches[=N]    per state, the N (default %d) most frequent branch\n"
		"                        contexts at the wake (LBR; wult record where\n"
		"                        wult.ko can read it), symbolized. One FILE only\n"
		"      --branch-depth D  youngest branches that make a context (default %d,\n"
		"                        at most %d)\n"
		"      --kallsyms FILE   symbols for branch addresses (default /proc/kallsyms;\n"
		"                        run as root, or kptr_restrict hides them)\n"
		"      --vmlinux FILE    also the symbols of this vmlinux (ELF)\n"
		"      --module KO[@ADDR]  also the symbols of this module ELF, its .text\n"
		"                        at ADDR (default: /sys/module/NAME/sections/.text);\n"
		"                        repeatable\n"
		"      --json[=OUT]      the report as JSON (schema_version %d): on stdout\n"
		"                        instead of the text, or into OUT\n"
		"      --fail-if COND    exit 3 when COND holds, e.g. 'C3.p99.9 WakeLatency\n"
		"                        > 150us' (STATE.STAT METRIC OP VALUE[UNIT]; OP\n"
		"                        < <= > >= == !=); repeatable, any one fails\n"
		"  -h, --help            this text\n\n"
		"Filter expressions compare metrics (WakeLatency, IntrLatency, SilentTime,\n"
		"LDist, ReqCState, IntrOff, CC0%%, CPUFreq, SMICnt, CPU, ...) with numbers,\n"
		"times (ns, us, ms, s; a time metric against a number without a unit:\n"
		"microseconds, as in intel wult) and state names, joined by && || ! and\n"
		"parentheses:\n"
		"  ReqCState == \"C6\" && WakeLatency > 50\n\n"
		"Exit status: 0 done, 1 a data error (unreadable or invalid input), 2 a\n"
		"usage error, 3 a --fail-if condition held.\n", DEF_HIST_BUCKETS, DEF_BRANCHES,
		DEF_BR_DEPTH, WULT_BR_MAX, RPT_JSON_SCHEMA);
}

/* A time metric the statistics can hold (relative times, not stamps). */
static int time_metric(const char *name, size_t len)
{
	int m = wult_metric_lookup(name, len);
	const struct wult_metric_desc *d = m >= 0 ? wult_metric_desc(m) : NULL;

	return d && d->is_time && !strcmp(d->csv_unit, "us") ? m : -1;
}

static int add_time(struct rpt_opts *o, enum wult_metric m)
{
	unsigned int i;

	for (i = 0; i < o->ntime; i++)
		if (o->time[i] == m)
			return 0;
	if (o->ntime == RPT_MAX_TIME)
		return -ENOSPC;
	o->time[o->ntime++] = m;
	return 0;
}

static int parse_metrics(struct rpt_opts *o, const char *list)
{
	const char *p = list, *end;
	int m;

	o->ntime = 0;
	while (*p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		m = time_metric(p, end - p);
		if (m < 0) {
			fprintf(stderr, "wult report: --metrics: '%.*s' is not a time metric "
				"(WakeLatency, IntrLatency, SilentTime, LDist, WakeLatencyRaw, "
				"IntrLatencyRaw)\n", (int)(end - p), p);
			return -EINVAL;
		}
		add_time(o, m);
		p = *end ? end + 1 : end;
	}
	if (!o->ntime) {
		fprintf(stderr, "wult report: --metrics: empty list\n");
		return -EINVAL;
	}
	return 0;
}

/* --plots, --plot-x: numeric metrics (any but ReqCState), at most @max. */
static int parse_plot_list(const char *opt, const char *list, enum wult_metric *arr,
			   unsigned int *n, unsigned int max)
{
	const char *p = list, *end;
	unsigned int i;
	int m;

	*n = 0;
	while (*p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		m = wult_metric_lookup(p, end - p);
		if (m < 0 || wult_metric_desc(m)->type != WULT_VAL_NUM) {
			fprintf(stderr, "wult report: %s: '%.*s' is not a numeric metric "
				"(WakeLatency, IntrLatency, SilentTime, LDist, CC0%%, CPUFreq, "
				"...)\n", opt, (int)(end - p), p);
			return -EINVAL;
		}
		for (i = 0; i < *n && arr[i] != (enum wult_metric)m; i++)
			;
		if (i == *n) {
			if (*n == max) {
				fprintf(stderr, "wult report: %s: more than %u metrics\n", opt, max);
				return -EINVAL;
			}
			arr[(*n)++] = m;
		}
		p = *end ? end + 1 : end;
	}
	if (!*n) {
		fprintf(stderr, "wult report: %s: empty list\n", opt);
		return -EINVAL;
	}
	return 0;
}

/* Compiles a filter; a syntax error shows the expression and a caret. */
static int add_filter(struct wult_filter **arr, unsigned int *n, const char *opt,
		      const char *expr)
{
	char err[256];
	long col;
	int ret;

	if (*n == RPT_MAX_FILTERS) {
		fprintf(stderr, "wult report: more than %d %s options\n", RPT_MAX_FILTERS, opt);
		return -EINVAL;
	}
	ret = wult_filter_compile(expr, wult_metrics_resolve, NULL, &arr[*n], err, sizeof(err));
	if (ret == -ENOMEM) {
		fprintf(stderr, "wult report: out of memory\n");
		return ret;
	}
	if (ret) {
		fprintf(stderr, "wult report: %s: %s\n", opt, err);
		if (sscanf(err, "col %ld", &col) == 1 && col >= 1 && col <= (long)strlen(expr) + 1)
			fprintf(stderr, "  %s\n  %*s^\n", expr, (int)col - 1, "");
		return ret;
	}
	(*n)++;
	return 0;
}

static int parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (end == s || *end || errno || s[0] == '-' || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int out_width(void)
{
	struct winsize ws;

	if (isatty(1) && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		return ws.ws_col > 200 ? 200 : ws.ws_col;
	return DEF_WIDTH;
}

/* ---- the pass over one input ---- */

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
};

/* The statistics are in ns; CSV imports carry fractions of a ns. */
static inline int64_t to_ns(double v)
{
	int64_t r;

	if (!(v > -9e18 && v < 9e18))
		return llround(v);
	r = (int64_t)v;
	return (double)r == v ? r : llround(v);
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
 * 0 or a negative errno: an allocation failure in the statistics must not
 * pass for a result (the summary's percentiles would be NaN).
 */
static int finish_metric(const struct rpt_opts *o, struct rpt_file *f, unsigned int i)
{
	struct wult_stats *all;
	unsigned int k;
	int ret = wult_stats_new(&all);

	for (k = 0; !ret && k < f->ngroups; k++) {
		struct rpt_group *g = f->groups[k];

		ret = wult_stats_summary(g->st[i], &g->sum[i]);
		ret = ret ?: wult_stats_merge(all, g->st[i]);
		f->clamped += g->sum[i].clamped;
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
	for (i = 0; i < o->ntime; i++) {
		ret = finish_metric(o, f, i);
		if (ret) {
			*failed = o->time[i];
			return ret;
		}
	}
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
	free(g->name);
	free(g->hist);
}

static void free_file(struct rpt_file *f)
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
	free(f);
}

/* --csv OUT: a file, or an intel wult result directory. */
struct csv_out {
	FILE *f;
	struct wult_csv_writer *w;
	char *dir;		/* set when OUT is a directory */
	char *path;
	uint64_t nrows;
	double ltime_min, ltime_max;	/* ns, of the rows written */
	unsigned int sources;		/* methods of the rows, a bit each */
};

static int csv_add(struct csv_out *c, const struct wult_point *pt)
{
	double t = pt->v[WULT_M_LTIME].num, src = pt->v[WULT_M_SOURCE].num;

	if (src >= 0 && src < 32)
		c->sources |= 1U << (unsigned int)src;
	if (wult_csv_writer_add(c->w, pt)) {
		fprintf(stderr, "wult report: --csv: write error on %s\n", c->path);
		return -EIO;
	}
	if (!isnan(t)) {
		if (!c->nrows || t < c->ltime_min)
			c->ltime_min = t;
		if (!c->nrows || t > c->ltime_max)
			c->ltime_max = t;
		c->nrows++;
	}
	return 0;
}

/* Would writing @out clobber the input @in (a file, or a result directory)? */
static int same_file(const char *out, const char *in)
{
	struct stat so, si;
	char *csv = NULL;
	int ret;

	if (stat(out, &so))
		return 0;
	if (!stat(in, &si) && so.st_dev == si.st_dev && so.st_ino == si.st_ino)
		return 1;
	if (asprintf(&csv, "%s/datapoints.csv", in) < 0)
		return 0;
	ret = !stat(csv, &si) && so.st_dev == si.st_dev && so.st_ino == si.st_ino;
	free(csv);
	return ret;
}

static int csv_open(const char *out, const char *input, struct csv_out *c)
{
	struct stat st;
	size_t len = strlen(out);

	memset(c, 0, sizeof(*c));
	if ((len && out[len - 1] == '/') || (!stat(out, &st) && S_ISDIR(st.st_mode))) {
		if (mkdir(out, 0777) && errno != EEXIST) {
			fprintf(stderr, "wult report: --csv: cannot create directory %s: %s\n",
				out, strerror(errno));
			return -errno;
		}
		c->dir = strdup(out);
		if (!c->dir || asprintf(&c->path, "%s/datapoints.csv", out) < 0)
			return -ENOMEM;
	} else {
		c->path = strdup(out);
		if (!c->path)
			return -ENOMEM;
	}
	if (same_file(c->path, input)) {
		fprintf(stderr, "wult report: --csv: %s is the input: give another OUT\n",
			c->path);
		return -EEXIST;
	}
	/* "w+": the writer may have to re-read it (see wult/csv.h). */
	c->f = fopen(c->path, "w+");
	if (!c->f) {
		fprintf(stderr, "wult report: --csv: cannot write %s: %s\n", c->path,
			strerror(errno));
		return -errno;
	}
	return wult_csv_writer_new(c->f, csv_cols, sizeof(csv_cols) / sizeof(csv_cols[0]),
				   &c->w);
}

/* An intel wult input's own info.yml value, kept in our export; NULL if
 * none. @buf receives it. */
static const char *input_info(const char *input, const char *key, char *buf, size_t len)
{
	struct wult_csv_reader *r;
	const char *v;
	char err[256];

	if (wult_csv_open(input, &r, err, sizeof(err)))
		return NULL;
	v = wult_csv_info(r, key);
	if (v)
		snprintf(buf, len, "%s", v);
	wult_csv_close(r);
	return v ? buf : NULL;
}

static int write_info(const char *path, const char *input, const struct rpt_src *src,
		      const struct csv_out *c)
{
	char *copy = strdup(input), date[64], devid[64], res[32];
	struct wult_csv_info in = {
		.toolver = WULT_VERSION, .cpu = rpt_src_cpu(src), .duration = NAN,
		.resolution = NAN,
	};
	struct stat st;
	struct tm tm;
	FILE *f;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	/* The report id is the input's name, as intel wult names results. */
	in.reportid = basename(copy);
	in.devid = input_info(input, "devid", devid, sizeof(devid));
	/* intel wult's devid: the timer method's name, or the NIC's address. */
	if (!in.devid)
		in.devid = rpt_src_device(src, devid, sizeof(devid));
	if (!in.devid)
		in.devid = rpt_sources_name(c->sources, devid, sizeof(devid));
	if (input_info(input, "resolution", res, sizeof(res)))
		in.resolution = atof(res);
	in.date = input_info(input, "date", date, sizeof(date));
	/* perf writes a perf.data's header last: its mtime is the end of
	 * the recording, the best date the file has. */
	if (!in.date && !stat(input, &st) && gmtime_r(&st.st_mtime, &tm) &&
	    strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm))
		in.date = date;
	if (c->nrows > 1)
		in.duration = (c->ltime_max - c->ltime_min) / 1e9;
	f = fopen(path, "w");
	if (!f || wult_csv_write_info(f, &in)) {
		fprintf(stderr, "wult report: --csv: cannot write %s: %s\n", path,
			strerror(errno));
		ret = -EIO;
	}
	if (f && fclose(f))
		ret = -EIO;
	free(copy);
	return ret;
}

/* Finishes the export; info.yml needs the input's CPU, known only now. */
static int csv_close(struct csv_out *c, const struct rpt_src *src, const char *input, int ok)
{
	char *ipath = NULL;
	int ret = 0;

	if (c->w && wult_csv_writer_close(c->w))
		ret = -EIO;
	if (c->f && fclose(c->f))
		ret = -EIO;
	if (ret)
		fprintf(stderr, "wult report: --csv: write error on %s\n", c->path);
	/* A partial export would pass for a whole one. */
	if (c->f && (ret || !ok))
		unlink(c->path);
	if (!ret && ok && c->dir) {
		if (asprintf(&ipath, "%s/info.yml", c->dir) < 0)
			ret = -ENOMEM;
		else
			ret = write_info(ipath, input, src, c);
		free(ipath);
	}
	free(c->dir);
	free(c->path);
	return ret;
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

/* note_point()'s and block_note()'s rules, one value at a time. */
static inline unsigned int source_bit(double src)
{
	return src >= 0 && src < 32 ? 1U << (unsigned int)src : 0;
}

/* An ipi datapoint without IntrLatency: a wake by need_resched alone. */
static inline unsigned int flag_wake(double src, double intr)
{
	return src == WULT_SOURCE_IPI && isnan(intr);
}

static inline void note_cpu(struct rpt_file *f, double cpu)
{
	if (cpu >= 0 && cpu < RPT_MAX_CPUS)
		f->cpus[(unsigned int)cpu / 64] |= 1ULL << ((unsigned int)cpu % 64);
}

/* [@mn, @mx] widened to @x (NaN: none yet, or not a value). */
static inline void widen(double *mn, double *mx, double x)
{
	if (isnan(x))
		return;
	if (isnan(*mn) || x < *mn)
		*mn = x;
	if (isnan(*mx) || x > *mx)
		*mx = x;
}

/* What the headers tell of the kept datapoints: CPUs, LDist range, methods. */
static void note_point(struct rpt_file *f, const struct wult_point *pt)
{
	f->flag_wakes += flag_wake(pt->v[WULT_M_SOURCE].num,
				   pt->v[WULT_M_INTR_LATENCY].num);
	f->sources |= source_bit(pt->v[WULT_M_SOURCE].num);
	note_cpu(f, pt->v[WULT_M_CPU].num);
	widen(&f->ldist_min, &f->ldist_max, pt->v[WULT_M_LDIST].num);
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
static void pass_learn(struct pass *ps, const struct rpt_src *src)
{
	uint64_t bits = rpt_src_metrics(src);
	unsigned int i;

	ps->nctr = 0;
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
		      struct csv_out *csv)
{
	struct rpt_group *g;
	char err[256];

	if (ps->nctr < 0)
		pass_learn(ps, src);
	g = group_cached(ps, f, o, src, pt, err, sizeof(err));
	if (!g) {
		fprintf(stderr, "wult report: %s: %s\n", f->path, err);
		return -1;
	}
	if (!keep(o, pt)) {
		g->excluded++;
		return 0;
	}
	note_point(f, pt);
	if (count_point(o, ps, g, pt) || count_branches(o, f, g, src)) {
		fprintf(stderr, "wult report: %s: out of memory\n", f->path);
		return -1;
	}
	return csv->w && csv_add(csv, pt) ? -1 : 0;
}

/*
 * The metrics take_point() reads without --html, --csv and --branches
 * (which read more): those the two-thread pass carries.
 */
static uint64_t counted_metrics(const struct rpt_opts *o)
{
	uint64_t bits = WULT_METRIC_BIT(WULT_M_REQ_CSTATE) | WULT_METRIC_BIT(WULT_M_CPU) |
			WULT_METRIC_BIT(WULT_M_LDIST) | WULT_METRIC_BIT(WULT_M_SOURCE) |
			WULT_METRIC_BIT(WULT_M_SCALED) |
			WULT_METRIC_BIT(WULT_M_INTR_LATENCY);	/* the ipi wake kind */
	unsigned int i, m;

	for (i = 0; i < o->ntime; i++)
		bits |= WULT_METRIC_BIT(o->time[i]);
	for (i = 0; i < RPT_NCTR; i++)
		bits |= WULT_METRIC_BIT(rpt_ctr_metrics[i]);
	for (m = 0; m < WULT_M_NR; m++)
		for (i = 0; i < o->ninc + o->nexc; i++)
			if (wult_filter_reads(i < o->ninc ? o->inc[i] : o->exc[i - o->ninc], m))
				bits |= WULT_METRIC_BIT(m);
	return bits;
}

/*
 * The batch path: what take_point() does without filters, --per-cpu,
 * --csv, --html and --branches, straight from the reading thread's rows
 * instead of a wult_point each (the copy into it, and the reloads that
 * every call into the statistics forces, were most of the counting
 * thread's own time). A block of rows at a time: first each row's group,
 * then the headers' notes and the counter sums a column at a time, then
 * the statistics. Each statistics object and each counter sum still sees
 * its values in input order, and groups are made in input order, so the
 * report is the same to the byte (tests/host/test_report.sh compares it
 * with one thread's).
 */
#define ROWS_BLOCK	64	/* rows per block: a few KiB, in L1 */
#define ROWS_AHEAD	16	/* rows prefetched ahead of the group pass */

/* The columns a batch counts (-1: not carried, NaN on every row). */
struct rows_cols {
	int req, cpu, ldist, source, scaled, intr;
	unsigned int ntime, nctr;
	unsigned int ti[RPT_MAX_TIME], tc[RPT_MAX_TIME];	/* o->time index, column */
	unsigned int ci[RPT_NCTR], cc[RPT_NCTR];		/* rpt_ctr_metrics index, column */
};

static void rows_cols(const struct rpt_opts *o, const struct pass *ps,
		      const struct rpt_rows *rw, struct rows_cols *c)
{
	unsigned int i;
	int col;

	c->req = rw->col[WULT_M_REQ_CSTATE];
	c->cpu = rw->col[WULT_M_CPU];
	c->ldist = rw->col[WULT_M_LDIST];
	c->source = rw->col[WULT_M_SOURCE];
	c->scaled = rw->col[WULT_M_SCALED];
	c->intr = rw->col[WULT_M_INTR_LATENCY];
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

/* note_point() of a block. */
static void block_note(struct rpt_file *f, const struct rows_cols *c, const struct rows_blk *b)
{
	double mn = f->ldist_min, mx = f->ldist_max;
	unsigned int r, s = 0;

	for (r = 0; c->source >= 0 && r < b->n; r++)
		s |= source_bit(b->v[(size_t)r * b->stride + c->source]);
	f->sources |= s;
	for (r = 0; c->source >= 0 && (s & (1U << WULT_SOURCE_IPI)) && r < b->n; r++)
		f->flag_wakes += flag_wake(b->v[(size_t)r * b->stride + c->source],
					   c->intr >= 0 ? b->v[(size_t)r * b->stride + c->intr] :
					   NAN);
	for (r = 0; c->cpu >= 0 && r < b->n; r++)
		note_cpu(f, b->v[(size_t)r * b->stride + c->cpu]);
	for (r = 0; c->ldist >= 0 && r < b->n; r++)
		widen(&mn, &mx, b->v[(size_t)r * b->stride + c->ldist]);
	f->ldist_min = mn;
	f->ldist_max = mx;
}

/* count_point() of a block. 0 or -ENOMEM. */
static int block_count(const struct rows_cols *c, const struct rows_blk *b)
{
	const double *v;
	unsigned int k, r, i;
	double x;

	for (k = 0; k < c->nctr; k++) {
		i = c->ci[k];
		for (r = 0, v = b->v + c->cc[k]; r < b->n; r++, v += b->stride) {
			if (!isnan(*v)) {
				b->g[r]->ctr[i].sum += *v;
				b->g[r]->ctr[i].n++;
			}
		}
	}
	for (r = 0, v = b->v + c->scaled; c->scaled >= 0 && r < b->n; r++, v += b->stride)
		if (*v == 1)
			b->g[r]->scaled++;
	/* Row by row here: consecutive adds go to different objects, whose
	 * batch counters do not wait on each other. */
	for (r = 0, v = b->v; r < b->n; r++, v += b->stride) {
		for (k = 0; k < c->ntime; k++) {
			x = v[c->tc[k]];
			if (!isnan(x) && wult_stats_add(b->g[r]->st[c->ti[k]], to_ns(x)))
				return -ENOMEM;
		}
	}
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
		pass_learn(ps, src);
	rows_cols(o, ps, rw, &c);
	b.stride = rw->stride;
	b.end = rw->val + (size_t)rw->n * rw->stride;
	for (r = 0; r < rw->n; r += b.n) {
		b.n = rw->n - r < ROWS_BLOCK ? rw->n - r : ROWS_BLOCK;
		b.v = rw->val + (size_t)r * rw->stride;
		b.str = rw->str + r;
		if (block_groups(o, ps, f, src, c.req, &b))
			return -1;
		block_note(f, &c, &b);
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
		    struct csv_out *csv)
{
	struct pass ps = { .nctr = -1 };
	struct rpt_pipe *pp = NULL;
	struct wult_point pt;
	int ret;

	if (rpt_src_stable_names(src) && !o->csv_out && !o->html_out && !o->branches &&
	    o->threads)
		rpt_pipe_start(src, counted_metrics(o), &pp);
	if (pp && !o->ninc && !o->nexc && !o->per_cpu) {
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
static int run_file(const struct rpt_opts *o, const char *path, struct rpt_file **out)
{
	struct rpt_file *f;
	struct rpt_src *src = NULL;
	struct csv_out csv = { 0 };
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
	f->ldist_min = f->ldist_max = NAN;
	if (o->html_out && rpt_plot_new(o, 0, &f->all.plot)) {
		fprintf(stderr, "wult report: out of memory\n");
		goto out;
	}
	ret = rpt_src_open(path, o, &src, err, sizeof(err));
	if (ret) {
		data_err(path, err);
		goto out;
	}
	if (o->csv_out && csv_open(o->csv_out, path, &csv))
		goto out;
	ret = pass_run(o, f, src, &csv);
	if (ret > 0)
		goto out;
	if (ret < 0) {
		data_err(path, rpt_src_error(src));
		goto out;
	}
	if (rpt_src_describe(src, f)) {
		fprintf(stderr, "wult report: out of memory\n");
		goto out;
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
	if (o->csv_out && csv_close(&csv, src, path, !status) && !status)
		status = RPT_EXIT_DATA;
	rpt_src_close(src);
	if (status)
		free_file(f);
	else
		*out = f;
	return status;
}

static void free_opts(struct rpt_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->ninc; i++)
		wult_filter_free(o->inc[i]);
	for (i = 0; i < o->nexc; i++)
		wult_filter_free(o->exc[i]);
}

/* --hist takes an optional metric; "--hist WakeLatency" works too, unless a
 * file of that name exists. */
static int hist_arg(struct rpt_opts *o, const char *arg, int argc, char **argv)
{
	int m;

	if (!arg && optind < argc && time_metric(argv[optind], strlen(argv[optind])) >= 0 &&
	    access(argv[optind], F_OK))
		arg = argv[optind++];
	o->hist = 1;
	if (!arg)
		return 0;
	m = time_metric(arg, strlen(arg));
	if (m < 0) {
		fprintf(stderr, "wult report: --hist: '%s' is not a time metric (WakeLatency, "
			"IntrLatency, SilentTime, LDist, WakeLatencyRaw, IntrLatencyRaw)\n", arg);
		return -EINVAL;
	}
	o->hist_metric = m;
	return 0;
}

enum { O_CSV = 256, O_HIST, O_HIST_LIN, O_HIST_BUCKETS, O_RAW, O_FORMAT, O_CSTATES,
       O_BRANCHES, O_BR_DEPTH, O_KALLSYMS, O_VMLINUX, O_MODULE, O_HTML, O_PLOTS,
       O_PLOT_X, O_INCLUDE, O_PER_CPU, O_JSON, O_FAIL_IF };

/* The inputs named on the command line, and --raw until it is applied. */
struct report_args {
	const char *inputs[RPT_MAX_FILES];
	unsigned int ninputs;
	int raw;
};

/* --unit U. 0 or -EINVAL (said why). */
static int parse_unit(struct rpt_opts *o, const char *arg)
{
	if (strcmp(arg, "ns") && strcmp(arg, "us") && strcmp(arg, "ms")) {
		fprintf(stderr, "wult report: --unit: '%s' is not ns, us or ms\n", arg);
		return -EINVAL;
	}
	o->unit = arg;
	o->unit_ns = arg[0] == 'n' ? 1 : arg[0] == 'u' ? 1e3 : 1e6;
	return 0;
}

/* A count in 1..@max for option @name. 0 or -EINVAL (said why). */
static int parse_count(const char *name, const char *arg, unsigned int max, unsigned int *v)
{
	int ret = parse_uint(arg, 1, max, v);

	if (ret)
		fprintf(stderr, "wult report: --%s: '%s' is not a number in 1..%u\n", name, arg,
			max);
	return ret;
}

/* Appends @arg to @list of at most @max (named @what). 0 or -EINVAL. */
static int add_arg(const char **list, unsigned int *n, unsigned int max, const char *what,
		   const char *arg)
{
	if (*n == max) {
		fprintf(stderr, "wult report: more than %u %s\n", max, what);
		return -EINVAL;
	}
	list[(*n)++] = arg;
	return 0;
}

/* The options that set a path or a flag. 0, or -ENOENT when @c is not one. */
static int report_flag(int c, char *arg, struct rpt_opts *o, struct report_args *a)
{
	switch (c) {
	case O_PER_CPU:
		o->per_cpu = 1;
		return 0;
	case O_CSV:
		o->csv_out = arg;
		return 0;
	case O_HIST_LIN:
		o->hist_linear = 1;
		return 0;
	case O_RAW:
		a->raw = 1;
		return 0;
	case O_FORMAT:
		o->format_path = arg;
		return 0;
	case O_CSTATES:
		o->cstate_names = arg;
		return 0;
	case O_KALLSYMS:
		o->kallsyms = arg;
		return 0;
	case O_VMLINUX:
		o->vmlinux = arg;
		return 0;
	case O_HTML:
		o->html_out = arg;
		return 0;
	case O_JSON:
		o->json_out = arg ? arg : "-";
		return 0;
	default:
		return -ENOENT;
	}
}

/* One option. 0, or -EINVAL (said why, or getopt did). */
static int report_opt(int c, char *arg, struct rpt_opts *o, struct report_args *a, int argc,
		      char **argv)
{
	int ret = report_flag(c, arg, o, a);

	if (ret != -ENOENT)
		return ret;
	switch (c) {
	case 'i':
		return add_arg(a->inputs, &a->ninputs, RPT_MAX_FILES, "inputs", arg);
	case O_INCLUDE:
		return add_filter(o->inc, &o->ninc, "--include", arg);
	case 'x':
		return add_filter(o->exc, &o->nexc, "--exclude", arg);
	case O_HIST:
		return hist_arg(o, arg, argc, argv);
	case O_HIST_BUCKETS:
		return parse_count("hist-buckets", arg, 1000, &o->hist_buckets);
	case 'm':
		return parse_metrics(o, arg);
	case 'u':
		return parse_unit(o, arg);
	case O_BRANCHES:
		o->branches = DEF_BRANCHES;
		return arg ? parse_count("branches", arg, 1000, &o->branches) : 0;
	case O_BR_DEPTH:
		return parse_count("branch-depth", arg, WULT_BR_MAX, &o->br_depth);
	case O_MODULE:
		return add_arg(o->modules, &o->nmodules, RPT_MAX_MODULES, "--module", arg);
	case O_PLOTS:
		return parse_plot_list("--plots", arg, o->plot, &o->nplot, RPT_MAX_PLOT);
	case O_PLOT_X:
		return parse_plot_list("--plot-x", arg, o->plot_x, &o->nplot_x, RPT_MAX_PLOT_X);
	case O_FAIL_IF:
		return rpt_gate_add(o, arg);
	default:
		return -EINVAL;	/* getopt said why */
	}
}

/*
 * The inputs: -i and FILE operands, else ./wult.data or ./perf.data.
 * Their number, or an exit status (negated) with the cause said.
 */
static int report_inputs(const struct rpt_opts *o, struct report_args *a, int argc,
			 char **argv)
{
	int i, nfiles = (int)a->ninputs + argc - optind;

	for (i = optind; i < argc && a->ninputs < RPT_MAX_FILES; i++)
		a->inputs[a->ninputs++] = argv[i];
	if (!nfiles) {
		a->inputs[0] = !access(DEF_INPUT, F_OK) ? DEF_INPUT :
			       !access(DEF_INPUT_PERF, F_OK) ? DEF_INPUT_PERF : NULL;
		if (!a->inputs[0]) {
			fprintf(stderr, "wult report: no input: neither ./" DEF_INPUT " nor ./"
				DEF_INPUT_PERF " exists; give FILE or -i FILE\n");
			return -RPT_EXIT_DATA;
		}
		return 1;
	}
	if (nfiles > RPT_MAX_FILES || ((o->csv_out || o->branches) && nfiles > 1)) {
		if (nfiles > RPT_MAX_FILES)
			fprintf(stderr, "wult report: %d FILEs, a diff takes at most %d\n",
				nfiles, RPT_MAX_FILES);
		else
			fprintf(stderr, "wult report: --%s takes one FILE, %d given\n",
				o->csv_out ? "csv" : "branches", nfiles);
		fprintf(stderr, "see 'wult report --help'\n");
		return -RPT_EXIT_USAGE;
	}
	return nfiles;
}

/* --fail-if on a time metric the tables lack: added, as --hist's is. */
static void add_gate_metrics(struct rpt_opts *o)
{
	const struct wult_metric_desc *d;
	unsigned int i;

	for (i = 0; i < o->ngates; i++) {
		d = wult_metric_desc(o->gate[i].metric);
		if (d->is_time && !strcmp(d->csv_unit, "us"))
			add_time(o, o->gate[i].metric);
	}
}

/* --json OUT (not "-"): the JSON document into a file. 0, or an exit
 * status with the cause said. */
static int json_file(const struct rpt_opts *o, struct rpt_file *const *files, int nfiles)
{
	FILE *f = fopen(o->json_out, "w");
	int ret;

	if (!f) {
		fprintf(stderr, "wult report: --json: cannot write %s: %s\n", o->json_out,
			strerror(errno));
		return RPT_EXIT_DATA;
	}
	ret = rpt_json_write(f, o, files, nfiles);
	if (fclose(f) || ret) {
		fprintf(stderr, "wult report: --json: write error on %s\n", o->json_out);
		unlink(o->json_out);	/* a partial document would pass for a report */
		return RPT_EXIT_DATA;
	}
	return 0;
}

/* The report on stdout: text, or JSON with --json alone or --json=-.
 * 0, or RPT_EXIT_DATA for a capture beside an input that does not read. */
static int print_report(const struct rpt_opts *o, struct rpt_file *const *files, int nfiles,
			const struct rpt_diff *d)
{
	int ret = 0;

	if (o->json_out && !strcmp(o->json_out, "-")) {
		rpt_json_write(stdout, o, files, nfiles);
	} else if (nfiles == 1) {
		rpt_print_one(stdout, o, files[0]);
		if (o->branches)
			rpt_print_branches(stdout, o, files[0]);
	} else {
		rpt_print_diff(stdout, o, files, d);
	}
	/* What a wult record --stop-on --capture left beside an input. */
	if (!o->json_out || strcmp(o->json_out, "-"))
		for (int i = 0; i < nfiles; i++)
			if (rpt_capture_print(stdout, files[i]->path))
				ret = RPT_EXIT_DATA;
	return ret;
}

/* Reads every input and prints (and writes) the report; then the
 * --fail-if conditions. An exit status. */
/* Whether a pass may use a second thread (report_pipe.c): more than one CPU
 * online and WULT_REPORT_THREADS is not 0. */
static int threads_wanted(void)
{
	const char *thr = getenv("WULT_REPORT_THREADS");

	return sysconf(_SC_NPROCESSORS_ONLN) > 1 && !(thr && !strcmp(thr, "0"));
}

static int report_run(struct rpt_opts *o, const char *const *inputs, int nfiles)
{
	struct rpt_file **files = calloc(nfiles, sizeof(*files));
	struct rpt_diff *d = NULL;
	int i, status = 0;

	if (!files)
		return RPT_EXIT_DATA;
	o->width = out_width();
	for (i = 0; i < nfiles && !status; i++)
		status = run_file(o, inputs[i], &files[i]);
	/* An unknown state is a usage error: no report that would pass for
	 * a checked one. */
	if (!status)
		status = rpt_gate_check(o, files, nfiles);
	/* The summary both the text and the HTML views lay out. */
	if (!status && (nfiles > 1 || o->html_out) && rpt_diff_new(o, files, nfiles, &d)) {
		fprintf(stderr, "wult report: out of memory\n");
		status = RPT_EXIT_DATA;
	}
	if (!status) {
		status = print_report(o, files, nfiles, d);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "wult report: write error on stdout\n");
			status = RPT_EXIT_DATA;
		}
		if (!status && o->html_out && rpt_html_write(o, files, d))
			status = RPT_EXIT_DATA;
		if (!status && o->json_out && strcmp(o->json_out, "-"))
			status = json_file(o, files, nfiles);
		if (!status)
			status = rpt_gate_eval(o, files, nfiles);
	}
	rpt_diff_free(d);
	for (i = 0; i < nfiles; i++)
		free_file(files[i]);
	free(files);
	return status;
}

int wult_cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "include", required_argument, NULL, O_INCLUDE },
		{ "exclude", required_argument, NULL, 'x' },
		{ "per-cpu", no_argument, NULL, O_PER_CPU },
		{ "csv", required_argument, NULL, O_CSV },
		{ "hist", optional_argument, NULL, O_HIST },
		{ "hist-linear", no_argument, NULL, O_HIST_LIN },
		{ "hist-buckets", required_argument, NULL, O_HIST_BUCKETS },
		{ "raw", no_argument, NULL, O_RAW },
		{ "metrics", required_argument, NULL, 'm' },
		{ "unit", required_argument, NULL, 'u' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "cstates", required_argument, NULL, O_CSTATES },
		{ "branches", optional_argument, NULL, O_BRANCHES },
		{ "branch-depth", required_argument, NULL, O_BR_DEPTH },
		{ "kallsyms", required_argument, NULL, O_KALLSYMS },
		{ "vmlinux", required_argument, NULL, O_VMLINUX },
		{ "module", required_argument, NULL, O_MODULE },
		{ "html", required_argument, NULL, O_HTML },
		{ "plots", required_argument, NULL, O_PLOTS },
		{ "plot-x", required_argument, NULL, O_PLOT_X },
		{ "json", optional_argument, NULL, O_JSON },
		{ "fail-if", required_argument, NULL, O_FAIL_IF },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rpt_opts o = {
		.time = { WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_SILENT_TIME },
		.ntime = 3, .hist_metric = WULT_M_WAKE_LATENCY,
		.hist_buckets = DEF_HIST_BUCKETS, .unit_ns = 1e3, .unit = "us",
		.br_depth = DEF_BR_DEPTH,
		.plot = { WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY }, .nplot = 2,
		.plot_x = { WULT_M_SILENT_TIME }, .nplot_x = 1,
	};
	struct report_args a = { .ninputs = 0 };
	int c, status, nfiles;

	optind = 1;
	opterr = 1;
	argv[0] = (char *)"wult report";	/* how getopt's messages name us */
	while ((c = getopt_long(argc, argv, "i:x:m:u:h", lopts, NULL)) != -1) {
		if (c == 'h') {
			report_usage(stdout);
			free_opts(&o);
			return 0;
		}
		if (report_opt(c, optarg, &o, &a, argc, argv)) {
			fprintf(stderr, "see 'wult report --help'\n");
			free_opts(&o);
			return RPT_EXIT_USAGE;
		}
	}
	nfiles = report_inputs(&o, &a, argc, argv);
	if (nfiles < 0) {
		free_opts(&o);
		return -nfiles;
	}
	if (a.raw) {
		add_time(&o, WULT_M_WAKE_LATENCY_RAW);
		add_time(&o, WULT_M_INTR_LATENCY_RAW);
	}
	if (o.hist)
		add_time(&o, o.hist_metric);
	add_gate_metrics(&o);
	o.threads = threads_wanted();
	status = report_run(&o, a.inputs, nfiles);
	free_opts(&o);
	return status;
}
