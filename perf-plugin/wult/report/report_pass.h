/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report, the pass over one input (report_pass.c) and the --csv export it
 * writes on the way (report_csv.c).
 */
#ifndef WULT_REPORT_PASS_H
#define WULT_REPORT_PASS_H

#include <wult/csv.h>

#include "report.h"

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

#endif
