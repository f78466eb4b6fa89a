// SPDX-License-Identifier: GPL-2.0
/*
 * wult report: per-requested-state statistics of recorded datapoints, and
 * side-by-side diffs of several recordings, as intel wult's reports give.
 *
 * This file is the command: its options, its inputs, and the order of its
 * outputs. Each input is read once, streaming, by report/report_pass.c: a
 * datapoint is decoded, filtered and counted into its state's statistics,
 * then forgotten. See report/report.h for how the pieces divide the work;
 * Documentation/wult-report.md for the command's behaviour.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmds.h"
#include "report/report.h"

#define DEF_HIST_BUCKETS	20
#define DEF_BRANCHES		10	/* contexts shown per state */
#define DEF_BR_DEPTH		4	/* branches per context */
#define DEF_WIDTH		80	/* columns, when stdout is not a terminal */
/* Inputs tried without -i or FILE: wult record's default, then perf's. */
#define DEF_INPUT		"wult.data"
#define DEF_INPUT_PERF		"perf.data"

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
		"                        wult raw result. One FILE only. Refused when it\n"
		"                        would keep no datapoint (exit 4)\n"
		"      --html OUT        also write OUT, one self-contained HTML page: the\n"
		"                        tables, scatters against SilentTime, histograms and\n"
		"                        cumulative histograms per state and FILE\n"
		"      --plots LIST      with --html: metrics the page plots, comma-separated\n"
		"                        (default WakeLatency,IntrLatency; any numeric metric)\n"
		"      --plot-x LIST     with --html: x axes of the scatters (default\n"
		"                        SilentTime; e.g. SilentTime,LDist)\n"
		"      --hist[=METRIC]   a histogram per state (default WakeLatency)\n"
		"      --hist-linear     with --hist: linear buckets (default: logarithmic)\n"
		"      --hist-buckets N  with --hist: buckets per histogram (default %d)\n"
		"      --raw             add WakeLatencyRaw and IntrLatencyRaw\n"
		"  -m, --metrics LIST    time metrics to report, comma-separated (default\n"
		"                        WakeLatency,IntrLatency,SilentTime; also LDist,\n"
		"                        RunLatency and the *Raw variants)\n"
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
		"                        contexts at the wake (--branches N too)\n"
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
		"                        instead of the text, or into OUT (--json OUT\n"
		"                        too when OUT ends in .json)\n"
		"      --fail-if COND    exit 3 when COND holds, e.g. 'C3.p99.9 WakeLatency\n"
		"                        > 150us' (STATE.STAT METRIC OP VALUE[UNIT]; OP\n"
		"                        < <= > >= == !=); repeatable, any one fails; a\n"
		"                        statistic without a value (no datapoint) exits 4\n"
		"      --force           overwrite existing --csv, --html, --json outputs\n"
		"                        (default: refused; an input never is)\n"
		"      --allow-empty     exit 0 when a filter kept nothing, an input lacks a\n"
		"                        requested metric or a --fail-if cannot be judged\n"
		"      --info            the recorded system's description (CPU, kernel, idle\n"
		"                        driver, states, settings) instead of the report;\n"
		"                        with several FILEs, also the settings that differ\n"
		"      --suggest         per state the exit latency to declare (an\n"
		"                        intel_idle.table= string) and the PM QoS values\n"
		"                        that allow each state, with their measured cost\n"
		"      --suggest-pct P   the WakeLatency percentile --suggest declares\n"
		"                        (default 99.99)\n"
		"      --declared-sysfs  declared latencies of an input without a system\n"
		"                        description from this machine's cpuidle sysfs\n"
		"                        (right only if this machine recorded it)\n"
		"  -h, --help            this text\n\n"
		"Filter expressions compare metrics (WakeLatency, IntrLatency, SilentTime,\n"
		"LDist, ReqCState, IntrOff, CC0%%, CPUFreq, SMICnt, CPU, ...) with numbers,\n"
		"times (ns, us, ms, s; a time metric against a number without a unit:\n"
		"microseconds, as in intel wult) and state names, joined by && || ! and\n"
		"parentheses:\n"
		"  ReqCState == \"C6\" && WakeLatency > 50\n\n"
		"Exit status: 0 done, 1 a data error (unreadable or invalid input), 2 a\n"
		"usage error (an existing output among them), 3 a --fail-if condition\n"
		"held, 4 nothing to report or judge: the filters kept no datapoint, an\n"
		"input lacks a requested metric, a --fail-if statistic has no value, or\n"
		"a --csv export would be empty (the report says which).\n", DEF_HIST_BUCKETS, DEF_BRANCHES,
		DEF_BR_DEPTH, WULT_BR_MAX, RPT_JSON_SCHEMA);
}

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

static int out_width(void)
{
	struct winsize ws;

	if (isatty(1) && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		return ws.ws_col > 200 ? 200 : ws.ws_col;
	return DEF_WIDTH;
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
	char names[256];
	int m;

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

enum { O_CSV = 256, O_HIST, O_HIST_LIN, O_HIST_BUCKETS, O_RAW, O_FORMAT, O_CSTATES,
       O_BRANCHES, O_BR_DEPTH, O_KALLSYMS, O_VMLINUX, O_MODULE, O_HTML, O_PLOTS,
       O_PLOT_X, O_INCLUDE, O_PER_CPU, O_JSON, O_FAIL_IF, O_FORCE, O_ALLOW_EMPTY,
       O_JSON_NEXT, O_INFO, O_SUGGEST, O_SUGGEST_PCT, O_DECL_SYSFS };

/* The inputs named on the command line, and --raw until it is applied. */
struct report_args {
	const char *inputs[RPT_MAX_FILES];
	unsigned int ninputs;
	int raw;
	int metrics;		/* -m given: its list is what is asked for */
	const char *hist_shape;	/* --hist-linear or --hist-buckets given */
	const char *plots;	/* --plots or --plot-x given */
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

/* The options that set a path or a flag. 0, or -ENOENT when @c is not one. */
static int report_flag(int c, char *arg, struct rpt_opts *o, struct report_args *a)
{
	switch (c) {
	case O_PER_CPU:
		o->per_cpu = 1;
		return 0;
	case O_FORCE:
		o->force = 1;
		return 0;
	case O_ALLOW_EMPTY:
		o->allow_empty = 1;
		return 0;
	case O_CSV:
		o->csv_out = arg;
		return 0;
	case O_HIST_LIN:
		o->hist_linear = 1;
		a->hist_shape = "--hist-linear";
		return 0;
	case O_RAW:
		a->raw = 1;
		return 0;
	case O_FORMAT:
		o->format_path = arg;
		return 0;
	case O_CSTATES:
		o->cstate_names = arg;
		return check_cstates(arg);
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
	case O_JSON_NEXT:	/* "--json OUT.json": see report_opt() */
		o->json_out = arg;
		return 0;
	case O_INFO:
	case O_SUGGEST:
	case O_SUGGEST_PCT:
	case O_DECL_SYSFS:
		return rpt_decl_opt(c - O_INFO, arg, o);
	default:
		return -ENOENT;
	}
}

/* One option. 0, or -EINVAL (said why, or getopt did). */
static int report_opt(int c, char *arg, struct rpt_opts *o, struct report_args *a, int argc,
		      char **argv)
{
	int ret;

	/* --json takes its OUT as --json=OUT; "--json OUT" too when OUT ends in
	 * ".json", which no input does (--hist does the same with a metric). */
	if (c == O_JSON && !arg && optind < argc) {
		size_t n = strlen(argv[optind]);

		if (n > 5 && !strcmp(argv[optind] + n - 5, ".json")) {
			c = O_JSON_NEXT;
			arg = argv[optind++];
		}
	}
	ret = report_flag(c, arg, o, a);
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
		a->hist_shape = "--hist-buckets";
		return parse_count("hist-buckets", arg, 1000, &o->hist_buckets);
	case 'm':
		a->metrics = 1;
		return parse_metrics(o, arg);
	case 'u':
		return parse_unit(o, arg);
	case O_BRANCHES:
		o->branches = DEF_BRANCHES;
		/* "--branches N" as --branches=N when N is a count, not a file. */
		if (!arg && optind < argc && argv[optind][0] >= '1' && argv[optind][0] <= '9' &&
		    strspn(argv[optind], "0123456789") == strlen(argv[optind]) &&
		    access(argv[optind], F_OK))
			arg = argv[optind++];
		return arg ? parse_count("branches", arg, 1000, &o->branches) : 0;
	case O_BR_DEPTH:
		return parse_count("branch-depth", arg, WULT_BR_MAX, &o->br_depth);
	case O_MODULE:
		return add_arg(o->modules, &o->nmodules, RPT_MAX_MODULES, "--module", arg);
	case O_PLOTS:
		a->plots = "--plots";
		return parse_plot_list("--plots", arg, o->plot, &o->nplot, RPT_MAX_PLOT);
	case O_PLOT_X:
		a->plots = "--plot-x";
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
	unsigned int i;

	for (i = 0; i < o->ngates; i++)
		if (rpt_is_time(o->gate[i].metric)) {
			add_time(o, o->gate[i].metric);
			o->time_req |= WULT_METRIC_BIT(o->gate[i].metric);
		}
}

/* The outputs named on the command line: never an input, never an existing
 * file unless --force. 0, or an exit status (said why). */
static int outputs_check(const struct rpt_opts *o, const struct report_args *a,
			 unsigned int nfiles)
{
	int ret = 0;

	/* An option that shapes an output not asked for is a mistake, not a no-op. */
	if (a->hist_shape && !o->hist) {
		fprintf(stderr, "wult report: %s shapes --hist's histograms: give --hist too\n",
			a->hist_shape);
		return RPT_EXIT_USAGE;
	}
	if (a->plots && !o->html_out) {
		fprintf(stderr, "wult report: %s chooses the plots of --html's page: give "
			"--html OUT too\n", a->plots);
		return RPT_EXIT_USAGE;
	}
	if (o->csv_out)
		ret = rpt_out_check(o, "--csv", o->csv_out, a->inputs, nfiles);
	if (!ret && o->html_out)
		ret = rpt_out_check(o, "--html", o->html_out, a->inputs, nfiles);
	if (!ret && o->json_out && strcmp(o->json_out, "-"))
		ret = rpt_out_check(o, "--json", o->json_out, a->inputs, nfiles);
	return ret;
}

/*
 * A report on nothing must not pass for a good one: an input whose filters
 * kept no datapoint, or none of whose kept datapoints has a requested time
 * metric. Said for each; RPT_EXIT_EMPTY unless --allow-empty, else 0.
 */
static int nothing_check(const struct rpt_opts *o, struct rpt_file *const *files, int nfiles)
{
	unsigned int i;
	int j, empty = 0;

	for (j = 0; j < nfiles; j++) {
		const struct rpt_file *f = files[j];

		if (!f->all.kept) {
			fprintf(stderr, "wult report: %s: no datapoint kept (%llu read, %llu "
				"excluded by filters): the report is empty\n", f->path,
				(unsigned long long)f->read, (unsigned long long)f->excluded);
			empty = 1;
			continue;
		}
		for (i = 0; i < o->ntime; i++)
			if (!f->all.sum[i].count && (o->time_req & WULT_METRIC_BIT(o->time[i]))) {
				fprintf(stderr, "wult report: %s: none of its %llu kept datapoints "
					"has %s: not in the report\n", f->path,
					(unsigned long long)f->all.kept,
					wult_metric_desc(o->time[i])->name);
				empty = 1;
			}
	}
	if (!empty)
		return 0;
	if (o->allow_empty)
		return 0;
	fprintf(stderr, "wult report: nothing to report: exit status %d (--allow-empty: 0)%s\n",
		RPT_EXIT_EMPTY, o->html_out || (o->json_out && strcmp(o->json_out, "-")) ?
		"; --html and --json not written" : "");
	return RPT_EXIT_EMPTY;
}

/* --json OUT (not "-"): the JSON document into a file. 0, or an exit
 * status with the cause said. */
static int json_file(const struct rpt_opts *o, struct rpt_file *const *files, int nfiles)
{
	/* "x": an existing file is not ours to replace unless --force said so. */
	FILE *f = fopen(o->json_out, o->force ? "w" : "wx");
	int ret;

	if (!f) {
		fprintf(stderr, "wult report: --json: cannot write %s: %s%s\n", o->json_out,
			strerror(errno), errno == EEXIST ? " (--force to overwrite it)" : "");
		return errno == EEXIST ? RPT_EXIT_USAGE : RPT_EXIT_DATA;
	}
	ret = rpt_json_write(f, o, files, nfiles);
	if (fclose(f) || ret) {
		fprintf(stderr, "wult report: --json: write error on %s\n", o->json_out);
		unlink(o->json_out);	/* a partial document would pass for a report */
		return RPT_EXIT_DATA;
	}
	fprintf(stderr, "wult report: wrote %s\n", o->json_out);
	return 0;
}

/* The report on stdout: text, or JSON with --json alone or --json=-.
 * 0, or RPT_EXIT_DATA for a capture beside an input that does not read. */
static int print_report(const struct rpt_opts *o, struct rpt_file *const *files, int nfiles,
			const struct rpt_diff *d)
{
	int ret = 0;

	if (o->info) {
		rpt_sysinfo_print(stdout, files, nfiles);
		return 0;
	}
	if (o->json_out && !strcmp(o->json_out, "-")) {
		rpt_json_write(stdout, o, files, nfiles);
	} else if (nfiles == 1) {
		rpt_print_one(stdout, o, files[0]);
		if (o->branches)
			rpt_print_branches(stdout, o, files[0]);
	} else {
		rpt_print_diff(stdout, o, files, d);
		rpt_sysinfo_print_diff(stdout, files, nfiles);
	}
	if (!o->json_out || strcmp(o->json_out, "-")) {
		rpt_decl_print_all(stdout, o, files, nfiles);
		rpt_gov_print_all(stdout, o, files, nfiles);
		rpt_methods_print(stdout, o, files, nfiles);
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
		status = rpt_file_run(o, inputs[i], &files[i]);
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
		for (i = 0; i < nfiles && !status; i++)
			if (files[i]->cut)
				status = RPT_EXIT_DATA;	/* said when it was read */
		if (!status && !o->info)
			status = nothing_check(o, files, nfiles);
		if (!status && o->html_out) {
			int ret = rpt_html_write(o, files, d);

			status = ret == -EEXIST ? RPT_EXIT_USAGE : ret ? RPT_EXIT_DATA : 0;
			if (!ret)
				fprintf(stderr, "wult report: wrote %s\n", o->html_out);
		}
		if (!status && o->json_out && strcmp(o->json_out, "-"))
			status = json_file(o, files, nfiles);
		if (!status)
			status = rpt_gate_eval(o, files, nfiles);
	}
	rpt_diff_free(d);
	for (i = 0; i < nfiles; i++)
		rpt_file_free(files[i]);
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
		{ "force", no_argument, NULL, O_FORCE },
		{ "allow-empty", no_argument, NULL, O_ALLOW_EMPTY },
		{ "info", no_argument, NULL, O_INFO },
		{ "suggest", no_argument, NULL, O_SUGGEST },
		{ "suggest-pct", required_argument, NULL, O_SUGGEST_PCT },
		{ "declared-sysfs", no_argument, NULL, O_DECL_SYSFS },
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
	/* Without -m, WakeLatency is what is asked for: what wult measures. */
	if (!a.metrics)
		o.time_req |= WULT_METRIC_BIT(WULT_M_WAKE_LATENCY);
	status = outputs_check(&o, &a, nfiles);
	if (status) {
		free_opts(&o);
		return status;
	}
	if (a.raw) {
		add_time(&o, WULT_M_WAKE_LATENCY_RAW);
		add_time(&o, WULT_M_INTR_LATENCY_RAW);
		o.time_req |= WULT_METRIC_BIT(WULT_M_WAKE_LATENCY_RAW);
	}
	if (o.hist)
		add_time(&o, o.hist_metric);
	add_gate_metrics(&o);
	o.threads = threads_wanted();
	/* A wult sweep's directory: its points compared (report/report_sweep.c). */
	if (rpt_sweep_any(a.inputs, nfiles))
		status = rpt_sweep_run(&o, a.inputs, nfiles);
	else
		status = report_run(&o, a.inputs, nfiles);
	free_opts(&o);
	return status;
}
