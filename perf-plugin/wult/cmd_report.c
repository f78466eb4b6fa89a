// SPDX-License-Identifier: GPL-2.0
/*
 * wult report: per-requested-state statistics of recorded datapoints, and
 * side-by-side diffs of several recordings, as intel wult's reports give.
 *
 * This file is the command: its inputs and the order of its outputs (its
 * options: report/report_opts.c). Each input is read once, streaming, by
 * report/report_pass.c: a datapoint is decoded, filtered and counted into
 * its state's statistics, then forgotten. See report/report.h for how the
 * pieces divide the work; Documentation/wult-report.md for the command's
 * behaviour.
 */
#include <errno.h>
#include <getopt.h>	/* optind */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmds.h"
#include "opts.h"
#include "report/report_judge.h"
#include "report/report_opts.h"
#include "report/report_pass.h"
#include "report/report_sweep.h"
#include "report/report_view.h"

#define DEF_WIDTH		80	/* columns, when stdout is not a terminal */
/* Inputs tried without -i or FILE: wult record's default, then perf's. */
#define DEF_INPUT		"wult.data"
#define DEF_INPUT_PERF		"perf.data"

static int out_width(void)
{
	struct winsize ws;

	if (isatty(1) && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		return ws.ws_col > 200 ? 200 : ws.ws_col;
	return DEF_WIDTH;
}

/*
 * The inputs: -i and FILE operands, else ./wult.data or ./perf.data.
 * Their number, or an exit status (negated) with the cause said.
 */
static int report_inputs(const struct rpt_opts *o, struct rpt_args *a, int argc,
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

/* The outputs named on the command line: never an input, never an existing
 * file unless --force. 0, or an exit status (said why). */
static int outputs_check(const struct rpt_opts *o, const struct rpt_args *a,
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
	struct rpt_opts o;
	struct rpt_args a;
	int status, nfiles;

	status = rpt_opts_parse(argc, argv, &o, &a);
	if (status) {
		rpt_opts_free(&o);
		return status == WULT_OPTS_HELP ? 0 : status;
	}
	nfiles = report_inputs(&o, &a, argc, argv);
	if (nfiles < 0) {
		rpt_opts_free(&o);
		return -nfiles;
	}
	status = outputs_check(&o, &a, nfiles);
	if (status) {
		rpt_opts_free(&o);
		return status;
	}
	rpt_opts_finish(&o, &a);
	o.threads = threads_wanted();
	/* A wult sweep's directory: its points compared (report/report_sweep.c). */
	if (rpt_sweep_any(a.inputs, nfiles))
		status = rpt_sweep_run(&o, a.inputs, nfiles);
	else
		status = report_run(&o, a.inputs, nfiles);
	rpt_opts_free(&o);
	return status;
}
