/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Gates: the conditions of `wult report --fail-if`, which let a CI job
 * fail on a statistic, e.g. "C3.p99.9 WakeLatency > 150us":
 *
 *	STATE.STAT METRIC OP VALUE[UNIT]
 *
 * STATE is a report group's name (it may hold spaces and dots, as
 * "CPU1 C6" does with --per-cpu); STAT one of the caller's statistic names
 * (the first '.' followed by one of them and a blank ends STATE); METRIC a
 * numeric metric; OP one of < <= > >= == !=; VALUE a finite decimal number,
 * for a time metric with a unit ns, us, ms or s (none: us, as the filters
 * take it), for another metric, or the statistic named "count" (datapoints),
 * without one. The parser knows nothing of
 * the report: whether STATE exists and METRIC has STAT is the caller's to
 * check.
 */
#ifndef WULT_GATE_H
#define WULT_GATE_H

#include <stddef.h>

#include <wult/metrics.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

#define WULT_GATE_STATE_MAX	64	/* bytes of STATE, with its NUL */

enum wult_gate_op { WULT_GATE_LT, WULT_GATE_LE, WULT_GATE_GT, WULT_GATE_GE, WULT_GATE_EQ,
		    WULT_GATE_NE };

struct wult_gate {
	char state[WULT_GATE_STATE_MAX];
	unsigned int stat;		/* index into the caller's statistic names */
	enum wult_metric metric;
	enum wult_gate_op op;
	double value;			/* ns for a time metric, else the metric's unit */
};

/*
 * Parses @expr; @stats are the @nstats statistic names STAT may take.
 * 0, or -EINVAL with @err naming the part that is wrong (the state, the
 * statistic, the metric, the operator, the value or its unit).
 */
int wult_gate_parse(const char *expr, const char *const *stats, unsigned int nstats,
		    struct wult_gate *out, char *err, size_t errlen);

/* Whether the condition holds for @measured; never for NaN (no value). */
int wult_gate_holds(const struct wult_gate *g, double measured);

/* "<", "<=", ... */
const char *wult_gate_op_str(enum wult_gate_op op);

#pragma GCC visibility pop

#endif
