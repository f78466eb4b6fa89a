// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's options: one table (opts.h) gives getopt_long()'s
 * arguments and the usage text; each value is checked here as it comes.
 * A new option is an entry of rpt_opts_parse()'s table and, when it needs
 * more than a flag or a string, a callback.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "report_judge.h"
#include "report_opts.h"
#include "report_view.h"

#define DEF_HIST_BUCKETS	20
#define DEF_BRANCHES		10	/* contexts shown per state */
#define DEF_BR_DEPTH		4	/* branches per context */

/* A time metric the statistics can hold (relative times, not stamps). */
static int time_metric(const char *name, size_t len)
{
	int m = wult_metric_lookup(name, len);

	return m >= 0 && rpt_is_time(m) ? m : -1;
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
	char names[256];
	int m;

	o->ntime = 0;
	while (*p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		m = time_metric(p, end - p);
		if (m < 0) {
			fprintf(stderr, "wult report: --metrics: '%.*s' is not a time metric "
				"(%s)\n", (int)(end - p), p, rpt_time_names(names, sizeof(names)));
			return -EINVAL;
		}
		add_time(o, m);
		o->time_req |= WULT_METRIC_BIT(m);
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
	char err[1024];	/* an unknown metric's message lists every name */
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

void rpt_opts_free(struct rpt_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->ninc; i++)
		wult_filter_free(o->inc[i]);
	for (i = 0; i < o->nexc; i++)
		wult_filter_free(o->exc[i]);
}

/* --hist takes an optional metric; "--hist WakeLatency" works too, unless a
 * file of that name exists. */
static int hist_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;
	struct rpt_opts *o = a->o;
	int argc = a->argc;
	char **argv = a->argv;
	char names[256];
	int m;

	(void)opt;
	if (!arg && optind < argc && time_metric(argv[optind], strlen(argv[optind])) >= 0 &&
	    access(argv[optind], F_OK))
		arg = argv[optind++];
	o->hist = 1;
	if (!arg)
		return 0;
	m = time_metric(arg, strlen(arg));
	if (m < 0) {
		fprintf(stderr, "wult report: --hist: '%s' is not a time metric (%s)\n", arg,
			rpt_time_names(names, sizeof(names)));
		return -EINVAL;
	}
	o->hist_metric = m;
	o->time_req |= WULT_METRIC_BIT(m);
	return 0;
}

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

/*
 * --cstates NAMES names indexes 0, 1, ... in order: an empty name would shift
 * every later one to the wrong index, and a name given twice would merge two
 * states into one group. 0, or -EINVAL (said why).
 */
static int check_cstates(const char *list)
{
	const char *p = list, *end, *q, *qe;
	unsigned int i = 0, j;

	for (;; i++) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (end == p) {
			fprintf(stderr, "wult report: --cstates '%s': index %u has an empty name "
				"(every index from 0 up needs one)\n", list, i);
			return -EINVAL;
		}
		if (i == 64) {
			fprintf(stderr, "wult report: --cstates '%s': more than 64 names\n", list);
			return -EINVAL;
		}
		for (q = list, j = 0; q < p; q = qe + 1, j++) {
			qe = strchr(q, ',');
			if (qe - q == end - p && !strncmp(q, p, end - p)) {
				fprintf(stderr, "wult report: --cstates '%s': '%.*s' names both "
					"index %u and index %u (they would be one group)\n", list,
					(int)(end - p), p, j, i);
				return -EINVAL;
			}
		}
		if (!*end)
			return 0;
		p = end + 1;
	}
}


/* The callbacks: @ctx is the struct rpt_args being filled. */

static int input_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;

	(void)opt;
	return add_arg(a->inputs, &a->ninputs, RPT_MAX_FILES, "inputs", arg);
}

static int filter_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_opts *o = ((struct rpt_args *)ctx)->o;

	if (opt->key == 'x')
		return add_filter(o->exc, &o->nexc, "--exclude", arg);
	return add_filter(o->inc, &o->ninc, "--include", arg);
}

static int plots_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;
	struct rpt_opts *o = a->o;

	if (!strcmp(opt->name, "plot-x")) {
		a->plots = "--plot-x";
		return parse_plot_list("--plot-x", arg, o->plot_x, &o->nplot_x, RPT_MAX_PLOT_X);
	}
	a->plots = "--plots";
	return parse_plot_list("--plots", arg, o->plot, &o->nplot, RPT_MAX_PLOT);
}

static int hist_linear_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;

	(void)opt;
	(void)arg;
	a->o->hist_linear = 1;
	a->hist_shape = "--hist-linear";
	return 0;
}

static int hist_buckets_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;

	(void)opt;
	a->hist_shape = "--hist-buckets";
	return parse_count("hist-buckets", arg, 1000, &a->o->hist_buckets);
}

static int metrics_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;

	(void)opt;
	a->metrics = 1;
	return parse_metrics(a->o, arg);
}

static int unit_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)opt;
	return parse_unit(((struct rpt_args *)ctx)->o, arg);
}

static int cstates_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)opt;
	((struct rpt_args *)ctx)->o->cstate_names = (char *)arg;
	return check_cstates(arg);
}

static int branches_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;
	char **argv = a->argv;

	(void)opt;
	a->o->branches = DEF_BRANCHES;
	/* "--branches N" as --branches=N when N is a count, not a file. */
	if (!arg && optind < a->argc && argv[optind][0] >= '1' && argv[optind][0] <= '9' &&
	    strspn(argv[optind], "0123456789") == strlen(argv[optind]) &&
	    access(argv[optind], F_OK))
		arg = argv[optind++];
	return arg ? parse_count("branches", arg, 1000, &a->o->branches) : 0;
}

static int branch_depth_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)opt;
	return parse_count("branch-depth", arg, WULT_BR_MAX, &((struct rpt_args *)ctx)->o->br_depth);
}

static int module_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_opts *o = ((struct rpt_args *)ctx)->o;

	(void)opt;
	return add_arg(o->modules, &o->nmodules, RPT_MAX_MODULES, "--module", arg);
}

/* --json takes its OUT as --json=OUT; "--json OUT" too when OUT ends in
 * ".json", which no input does (--hist does the same with a metric). */
static int json_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rpt_args *a = ctx;
	size_t n;

	(void)opt;
	if (!arg && optind < a->argc) {
		n = strlen(a->argv[optind]);
		if (n > 5 && !strcmp(a->argv[optind] + n - 5, ".json"))
			arg = a->argv[optind++];
	}
	a->o->json_out = arg ? arg : "-";
	return 0;
}

static int fail_if_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)opt;
	return rpt_gate_add(((struct rpt_args *)ctx)->o, arg);
}

/* --info, --suggest, --suggest-pct, --declared-sysfs: report_declared.c's,
 * opt->data their index there. */
static int decl_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	return rpt_decl_opt(*(const int *)opt->data, arg, ((struct rpt_args *)ctx)->o);
}

static int decl_which[] = { 0, 1, 2, 3 };

#define DEF(x)	WULT_OPT_STR(x)

int rpt_opts_parse(int argc, char **argv, struct rpt_opts *o, struct rpt_args *a)
{
	const struct wult_opt opts[] = {
		WULT_OPT_CALLBACK('i', "input", "FILE", input_opt, NULL,
				  "an input, as a FILE argument (perf's -i)"),
		WULT_OPT_CALLBACK(0, "include", "EXPR", filter_opt, NULL,
				  "keep only datapoints where EXPR holds; repeated:\n"
				  "all must hold (e.g. 'WakeLatency > 50us')"),
		WULT_OPT_CALLBACK('x', "exclude", "EXPR", filter_opt, NULL,
				  "drop datapoints where EXPR holds; repeated: any drops"),
		WULT_OPT_STRING(0, "csv", "OUT", &o->csv_out,
				"write the kept datapoints in intel wult's CSV\n"
				"columns; OUT a directory (existing, or ending in\n"
				"'/'): OUT/datapoints.csv and OUT/info.yml, an intel\n"
				"wult raw result. One FILE only. Refused when it\n"
				"would keep no datapoint (exit 4)"),
		WULT_OPT_STRING(0, "html", "OUT", &o->html_out,
				"also write OUT, one self-contained HTML page: the\n"
				"tables, scatters against SilentTime, histograms and\n"
				"cumulative histograms per state and FILE"),
		WULT_OPT_CALLBACK(0, "plots", "LIST", plots_opt, NULL,
				  "with --html: metrics the page plots, comma-separated\n"
				  "(default WakeLatency,IntrLatency; any numeric metric)"),
		WULT_OPT_CALLBACK(0, "plot-x", "LIST", plots_opt, NULL,
				  "with --html: x axes of the scatters (default\n"
				  "SilentTime; e.g. SilentTime,LDist)"),
		WULT_OPT_CALLBACK_OPTARG(0, "hist", "METRIC", hist_opt, NULL,
					 "a histogram per state (default WakeLatency)"),
		WULT_OPT_CALLBACK_NOARG(0, "hist-linear", hist_linear_opt, NULL,
					"with --hist: linear buckets (default: logarithmic)"),
		WULT_OPT_CALLBACK(0, "hist-buckets", "N", hist_buckets_opt, NULL,
				  "with --hist: buckets per histogram (default "
				  DEF(DEF_HIST_BUCKETS) ")"),
		WULT_OPT_FLAG(0, "raw", &a->raw, "add WakeLatencyRaw and IntrLatencyRaw"),
		WULT_OPT_CALLBACK('m', "metrics", "LIST", metrics_opt, NULL,
				  "time metrics to report, comma-separated (default\n"
				  "WakeLatency,IntrLatency,SilentTime; also LDist,\n"
				  "RunLatency and the *Raw variants)"),
		WULT_OPT_FLAG(0, "per-cpu", &o->per_cpu,
			      "statistics per CPU and state (groups 'CPUn STATE')"),
		WULT_OPT_CALLBACK('u', "unit", "UNIT", unit_opt, NULL,
				  "time unit of the output: ns, us (default; 3\n"
				  "decimals keep every nanosecond) or ms"),
		WULT_OPT_STRING(0, "format", "FILE", &o->format_path,
				"wult:datapoint format for a perf.data without one\n"
				"in its TRACING_DATA (default: tracefs' copy, else\n"
				"the built-in layout)"),
		WULT_OPT_CALLBACK(0, "cstates", "NAMES", cstates_opt, NULL,
				  "names of requested-state indexes 0, 1, ... for\n"
				  "perf.data, comma-separated (default: this machine's\n"
				  "cpuidle names if it recorded the file, else stateN)"),
		WULT_OPT_CALLBACK_OPTARG(0, "branches", "N", branches_opt, NULL,
					 "per state, the N (default " DEF(DEF_BRANCHES)
					 ") most frequent branch\n"
					 "contexts at the wake (LBR; wult record where\n"
					 "wult.ko can read it), symbolized (--branches N\n"
					 "too). One FILE only"),
		WULT_OPT_CALLBACK(0, "branch-depth", "D", branch_depth_opt, NULL,
				  "youngest branches that make a context (default "
				  DEF(DEF_BR_DEPTH) ",\nat most " DEF(WULT_BR_MAX) ")"),
		WULT_OPT_STRING(0, "kallsyms", "FILE", &o->kallsyms,
				"symbols for branch addresses (default /proc/kallsyms;\n"
				"run as root, or kptr_restrict hides them)"),
		WULT_OPT_STRING(0, "vmlinux", "FILE", &o->vmlinux,
				"also the symbols of this vmlinux (ELF)"),
		WULT_OPT_CALLBACK(0, "module", "KO[@ADDR]", module_opt, NULL,
				  "also the symbols of this module ELF, its .text\n"
				  "at ADDR (default: /sys/module/NAME/sections/.text);\n"
				  "repeatable"),
		WULT_OPT_CALLBACK_OPTARG(0, "json", "OUT", json_opt, NULL,
					 "the report as JSON (schema_version "
					 DEF(RPT_JSON_SCHEMA) "): on stdout\n"
					 "instead of the text, or into OUT (--json OUT\n"
					 "too when OUT ends in .json)"),
		WULT_OPT_CALLBACK(0, "fail-if", "COND", fail_if_opt, NULL,
				  "exit 3 when COND holds, e.g. 'C3.p99.9 WakeLatency\n"
				  "> 150us' (STATE.STAT METRIC OP VALUE[UNIT]; OP\n"
				  "< <= > >= == !=); repeatable, any one fails; a\n"
				  "statistic without a value (no datapoint) exits 4"),
		WULT_OPT_FLAG(0, "force", &o->force,
			      "overwrite existing --csv, --html, --json outputs\n"
			      "(default: refused; an input never is)"),
		WULT_OPT_FLAG(0, "allow-empty", &o->allow_empty,
			      "exit 0 when a filter kept nothing, an input lacks a\n"
			      "requested metric or a --fail-if cannot be judged"),
		WULT_OPT_CALLBACK_NOARG(0, "info", decl_opt, &decl_which[0],
					"the recorded system's description (CPU, kernel, idle\n"
					"driver, states, settings) instead of the report;\n"
					"with several FILEs, also the settings that differ"),
		WULT_OPT_CALLBACK_NOARG(0, "suggest", decl_opt, &decl_which[1],
					"per state the exit latency to declare (an\n"
					"intel_idle.table= string) and the PM QoS values\n"
					"that allow each state, with their measured cost"),
		WULT_OPT_CALLBACK(0, "suggest-pct", "P", decl_opt, &decl_which[2],
				  "the WakeLatency percentile --suggest declares\n"
				  "(default 99.99)"),
		WULT_OPT_CALLBACK_NOARG(0, "declared-sysfs", decl_opt, &decl_which[3],
					"declared latencies of an input without a system\n"
					"description from this machine's cpuidle sysfs\n"
					"(right only if this machine recorded it)"),
		WULT_OPT_HELP(),
		WULT_OPT_END(),
	};
	const struct wult_optset set = {
		.head = "usage: wult report [options] [FILE...]\n\n"
			"Per requested C-state (ReqCState) and over all states: count, min, median,\n"
			"p90, p99, p99.9, p99.99, p99.999, max, mean and stddev of the latencies,\n"
			"means of the counter metrics (CC0%, residencies, CPUFreq, SMICnt, NMICnt)\n"
			"and validity counts. With several FILEs, a side-by-side diff against the\n"
			"first.\n\n"
			"FILE is a perf.data (wult record; perf record -R -e wult/datapoints/;\n"
			"perf record -e wult:datapoint; pipe mode; '-' reads stdin), an intel wult\n"
			"raw result directory (datapoints.csv + info.yml) or its datapoints.csv.\n"
			"Without FILE: ./wult.data, else ./perf.data.\n\n",
		.opts = opts,
		.tail = "\nFilter expressions compare metrics (WakeLatency, IntrLatency, SilentTime,\n"
			"LDist, ReqCState, IntrOff, CC0%, CPUFreq, SMICnt, CPU, ...) with numbers,\n"
			"times (ns, us, ms, s; a time metric against a number without a unit:\n"
			"microseconds, as in intel wult) and state names, joined by && || ! and\n"
			"parentheses:\n"
			"  ReqCState == \"C6\" && WakeLatency > 50\n\n"
			"Exit status: 0 done, 1 a data error (unreadable or invalid input), 2 a\n"
			"usage error (an existing output among them), 3 a --fail-if condition\n"
			"held, 4 nothing to report or judge: the filters kept no datapoint, an\n"
			"input lacks a requested metric, a --fail-if statistic has no value, or\n"
			"a --csv export would be empty (the report says which).\n",
		.col = 24,
	};
	int ret;

	*o = (struct rpt_opts){
		.time = { WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_SILENT_TIME },
		.ntime = 3, .hist_metric = WULT_M_WAKE_LATENCY,
		.hist_buckets = DEF_HIST_BUCKETS, .unit_ns = 1e3, .unit = "us",
		.br_depth = DEF_BR_DEPTH,
		.plot = { WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY }, .nplot = 2,
		.plot_x = { WULT_M_SILENT_TIME }, .nplot_x = 1,
	};
	*a = (struct rpt_args){ .o = o, .argc = argc, .argv = argv };
	opterr = 1;
	argv[0] = (char *)"wult report";	/* how getopt's messages name us */
	ret = wult_opts_parse(&set, argc, argv, a);
	if (ret == WULT_OPTS_HELP)
		return ret;
	if (ret) {
		fprintf(stderr, "see 'wult report --help'\n");
		return RPT_EXIT_USAGE;
	}
	return 0;
}

void rpt_opts_finish(struct rpt_opts *o, const struct rpt_args *a)
{
	unsigned int i;

	/* Without -m, WakeLatency is what is asked for: what wult measures. */
	if (!a->metrics)
		o->time_req |= WULT_METRIC_BIT(WULT_M_WAKE_LATENCY);
	if (a->raw) {
		add_time(o, WULT_M_WAKE_LATENCY_RAW);
		add_time(o, WULT_M_INTR_LATENCY_RAW);
		o->time_req |= WULT_METRIC_BIT(WULT_M_WAKE_LATENCY_RAW);
	}
	if (o->hist)
		add_time(o, o->hist_metric);
	/* --fail-if on a time metric the tables lack: added, as --hist's is. */
	for (i = 0; i < o->ngates; i++)
		if (rpt_is_time(o->gate[i].metric)) {
			add_time(o, o->gate[i].metric);
			o->time_req |= WULT_METRIC_BIT(o->gate[i].metric);
		}
}
