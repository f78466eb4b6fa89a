/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Datapoint filters: the --include / --exclude expression language.
 *
 *   ReqCState == "C1" && WakeLatency > 50us
 *   !(IntrOff == 1) || (LDist >= 1ms and SilentTime < 0.5ms)
 *
 * An expression is compiled once against a metric resolver (names become
 * indexes) and then evaluated per datapoint against an array of values, so
 * the per-datapoint cost has no string lookups. Nothing here knows about
 * wult's metrics: the same code can run inside a perf dlfilter.
 * Documentation/datapath.md describes the grammar.
 */
#ifndef WULT_FILTER_H
#define WULT_FILTER_H

#include <stddef.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_filter;

enum wult_val_type {
	WULT_VAL_NUM,		/* a number; time metrics are in ns */
	WULT_VAL_STR,		/* a name, e.g. a C-state */
};

/* A metric's value for one datapoint. A missing value (NaN number or NULL
 * string) makes every comparison involving it false.
 */
struct wult_val {
	double num;
	const char *str;
};

struct wult_filter_metric {
	unsigned int index;	/* into the array wult_filter_eval() gets */
	enum wult_val_type type;
	int is_time;		/* values in ns: bare and unit numbers both fit */
	const char *avail;	/* on failure, optional: the names that resolve */
};

/* Resolves the metric @name (@len bytes, not NUL-terminated): 0 and fills
 * @m, -ENOENT (no such metric) or -ENODATA (a metric this input does not
 * provide). On failure the resolver may point m->avail at the names that
 * would resolve; the compile error then lists them.
 */
typedef int (*wult_filter_resolve_fn)(void *ctx, const char *name, size_t len,
				      struct wult_filter_metric *m);

/* Compiles @expr. Returns 0, or -EINVAL with "col N: why" in @err (a syntax
 * or type error) or -ENOMEM.
 */
int wult_filter_compile(const char *expr, wult_filter_resolve_fn resolve, void *ctx,
			struct wult_filter **out, char *err, size_t errlen);
/* 1 if the datapoint with metric values @vals matches, else 0. */
int wult_filter_eval(const struct wult_filter *f, const struct wult_val *vals);
/* The largest metric index + 1 the filter reads (size @vals at least so). */
unsigned int wult_filter_nvals(const struct wult_filter *f);
/* Does the filter read metric @index? */
int wult_filter_reads(const struct wult_filter *f, unsigned int index);
void wult_filter_free(struct wult_filter *f);

#pragma GCC visibility pop

#endif
