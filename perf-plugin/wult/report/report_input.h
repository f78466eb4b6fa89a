/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report, reading an input: its datapoints as a stream (report_input.c, the kinds
 * behind it in report_input_kind.h), read in a thread of its own
 * (report_pipe.c).
 */
#ifndef WULT_REPORT_INPUT_H
#define WULT_REPORT_INPUT_H

#include <wult/metrics.h>

#include "report.h"

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
 * up to @max datapoints at once (*@got of them), of each only the metrics
 * of @set (WULT_METRIC_BIT() bits) in ascending order into a row of @out
 * (@stride doubles apart) and ReqCState's name into @state[]: decoding the
 * others is skipped where it can be. The last datapoint's return: 1 when
 * @max were read. */
int rpt_src_next_some(struct rpt_src *s, uint64_t set, unsigned int stride, double *out,
		      const char **state, unsigned int max, unsigned int *got);
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
 * Only for inputs whose names are stable (rpt_src_stable_names()). With
 * @nt, the reading thread notes every datapoint there (rpt_notes_rows(),
 * the counting thread's work moved where it is cheaper: for a pass that
 * keeps every datapoint); @nt is the caller's again after rpt_pipe_stop().
 * 0 or -ENOMEM / -EAGAIN (then read @src in this thread). */
int rpt_pipe_start(struct rpt_src *src, uint64_t metrics, struct rpt_notes *nt,
		   struct rpt_pipe **out);
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

#endif
