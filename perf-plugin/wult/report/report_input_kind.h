/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The input kinds behind rpt_src (report_input.h): each
 * kind is one file with one ops table, as kernel/wult_source.h does for
 * event sources. report_input.c picks the kind by the path and dispatches;
 * nothing outside a kind's file knows its state.
 *	report_input_pd.c	perf.data, a file or a pipe (stdin)
 *	report_input_csv.c	an intel wult raw result or its datapoints.csv
 * A new kind is a file, its ops and a line in report_input.c's choice.
 * What the kinds share is report_input_kind.c's (the "For the kinds"
 * functions below), under both them and report_input.c: no loop.
 */
#ifndef WULT_REPORT_INPUT_KIND_H
#define WULT_REPORT_INPUT_KIND_H

#include "report_input.h"

/* What every kind keeps; a kind's own state embeds it first. */
struct rpt_src {
	const struct rpt_src_ops *ops;
	const char *path;
	const struct rpt_opts *o;
	int cpu;			/* first datapoint's CPU, -1 unknown */
	uint64_t read;			/* datapoints returned */
	char err[1024];			/* rpt_src_error() */
};

/*
 * One input kind. Required: size, open, next, describe, meta, close; a
 * NULL optional one means what its rpt_src_*() says for an input without
 * it (no branch contexts, every metric possible, ...).
 */
struct rpt_src_ops {
	size_t size;		/* of the kind's struct, which starts with rpt_src */
	/* 0, or -errno with @err set; close() then frees what was got. */
	int (*open)(struct rpt_src *s, char *err, size_t errlen);
	int (*next)(struct rpt_src *s, struct wult_point *pt);
	/* rpt_src_next_some() */
	int (*next_some)(struct rpt_src *s, uint64_t set, unsigned int stride, double *out,
			 const char **state, unsigned int max, unsigned int *got);
	uint64_t (*metrics)(const struct rpt_src *s);
	int stable_names;	/* rpt_src_stable_names() */
	int (*has_sysdesc)(const struct rpt_src *s);
	/* The recorded CPU when no datapoint gave one. */
	int (*info_cpu)(const struct rpt_src *s);
	const char *(*device)(const struct rpt_src *s, char *buf, size_t len);
	const struct wult_branches *(*branches)(const struct rpt_src *s);
	struct rpt_resid *(*take_resid)(struct rpt_src *s);
	/* @f's description lines (rpt_desc_add()) and validity counts. */
	int (*describe)(const struct rpt_src *s, struct rpt_file *f);
	/* @m (zeroed) filled. 0 or -ENOMEM. */
	int (*meta)(const struct rpt_src *s, struct rpt_meta *m);
	void (*close)(struct rpt_src *s);
};

extern const struct rpt_src_ops rpt_src_pd_ops, rpt_src_pipe_ops, rpt_src_csv_ops;

/* For the kinds (report_input_kind.c). */
void rpt_src_err(struct rpt_src *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What the input is asked for (filters, --hist, --plots and, with @time,
 * --metrics) against the metrics @bits it provides. 0 or -EINVAL (why in
 * s->err). */
int rpt_src_check_metrics(struct rpt_src *s, uint64_t bits, int time);
/* A line of @f's description. */
void rpt_desc_add(struct rpt_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A copy of @v into *@dst (NULL stays NULL). 0 or -ENOMEM. */
int rpt_meta_str(char **dst, const char *v);

#endif
