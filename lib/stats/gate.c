// SPDX-License-Identifier: GPL-2.0
/* The --fail-if conditions' parser (wult/gate.h). */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <wult/args.h>
#include <wult/gate.h>

#include "internal/err.h"

static const char *const op_str[] = {
	[WULT_GATE_LT] = "<", [WULT_GATE_LE] = "<=", [WULT_GATE_GT] = ">",
	[WULT_GATE_GE] = ">=", [WULT_GATE_EQ] = "==", [WULT_GATE_NE] = "!=",
};

const char *wult_gate_op_str(enum wult_gate_op op)
{
	return (unsigned int)op < sizeof(op_str) / sizeof(op_str[0]) ? op_str[op] : "?";
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* The statistic at @p when a blank or the end follows it: its index, or -1. */
static int stat_at(const char *p, const char *const *stats, unsigned int nstats)
{
	unsigned int k;
	size_t n;

	for (k = 0; k < nstats; k++) {
		n = strlen(stats[k]);
		if (n && !strncmp(p, stats[k], n) && (is_blank(p[n]) || !p[n]))
			return (int)k;
	}
	return -1;
}

/* @names joined by ", " into @buf, for messages. */
static const char *join(const char *const *names, unsigned int n, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
	return buf;
}

/* "STATE.STAT": the first '.' that a statistic and a blank follow ends
 * STATE (state names may hold dots). Returns the text after STAT. */
static const char *parse_selector(const char *expr, const char *const *stats,
				  unsigned int nstats, struct wult_gate *g, int *ret,
				  char *err, size_t errlen)
{
	const char *p = skip_blanks(expr), *dot, *end;
	char list[256];
	int k = -1;
	size_t n;

	for (dot = strchr(p, '.'); dot && (k = stat_at(dot + 1, stats, nstats)) < 0;
	     dot = strchr(dot + 1, '.'))
		;
	if (!dot) {
		dot = strchr(p, '.');
		if (!dot || dot == p) {
			*ret = wult_err_set(err, errlen, -EINVAL, "'%s': no STATE.STAT at its "
					    "start (e.g. C6.p99 WakeLatency > 100us)", expr);
			return NULL;
		}
		n = strcspn(dot + 1, " \t");
		*ret = wult_err_set(err, errlen, -EINVAL, "unknown statistic '%.*s' (%s)",
				    (int)n, dot + 1, join(stats, nstats, list, sizeof(list)));
		return NULL;
	}
	for (end = dot; end > p && is_blank(end[-1]); end--)
		;
	n = end - p;
	if (!n) {
		*ret = wult_err_set(err, errlen, -EINVAL, "no state before '.%s'", stats[k]);
		return NULL;
	}
	if (n >= sizeof(g->state)) {
		*ret = wult_err_set(err, errlen, -EINVAL, "state name '%.16s...' longer than "
				    "%d bytes", p, WULT_GATE_STATE_MAX - 1);
		return NULL;
	}
	memcpy(g->state, p, n);
	g->state[n] = '\0';
	g->stat = (unsigned int)k;
	return dot + 1 + strlen(stats[k]);
}

static const char *parse_metric(const char *p, struct wult_gate *g, int *ret, char *err,
				size_t errlen)
{
	size_t n;
	int m;

	p = skip_blanks(p);
	n = strcspn(p, " \t<>=!");
	if (!n) {
		*ret = wult_err_set(err, errlen, -EINVAL, "no metric after the statistic");
		return NULL;
	}
	m = wult_metric_lookup(p, n);
	if (m < 0) {
		*ret = wult_err_set(err, errlen, -EINVAL, "unknown metric '%.*s'", (int)n, p);
		return NULL;
	}
	if (wult_metric_desc(m)->type != WULT_VAL_NUM) {
		*ret = wult_err_set(err, errlen, -EINVAL, "'%.*s' is not a numeric metric",
				    (int)n, p);
		return NULL;
	}
	g->metric = m;
	return p + n;
}

static const char *parse_op(const char *p, struct wult_gate *g, int *ret, char *err,
			    size_t errlen)
{
	static const enum wult_gate_op order[] = {
		WULT_GATE_LE, WULT_GATE_GE, WULT_GATE_EQ, WULT_GATE_NE, WULT_GATE_LT, WULT_GATE_GT,
	};
	unsigned int i;
	size_t n;

	p = skip_blanks(p);
	/* Two-character operators first: "<=" is not "<" and "=". */
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		n = strlen(op_str[order[i]]);
		if (!strncmp(p, op_str[order[i]], n)) {
			g->op = order[i];
			return p + n;
		}
	}
	n = strcspn(p, " \t");
	*ret = wult_err_set(err, errlen, -EINVAL, "'%.*s' is not an operator (<, <=, >, >=, "
			    "==, !=)", (int)(n ? n : 1), n ? p : "?");
	return NULL;
}

/* @is_time: the value is a time (a time metric's statistic, not its count). */
static int parse_value(const char *p, struct wult_gate *g, int is_time, char *err,
		       size_t errlen)
{
	const struct wult_metric_desc *d = wult_metric_desc(g->metric);
	size_t n, un;
	double v, scale = 1;
	char *num;

	p = skip_blanks(p);
	n = wult_number_len(p, 1);	/* no hex, inf or nan */
	if (!n)
		return wult_err_set(err, errlen, -EINVAL, "'%s' is not a number", *p ? p : "");
	num = strndup(p, n);
	if (!num)
		return -ENOMEM;
	v = strtod(num, NULL);
	free(num);
	p = skip_blanks(p + n);	/* "1 us" as "1us", as the filters take it */
	un = strcspn(p, " \t");
	if (un && is_time) {
		scale = wult_time_unit(p, un, 0);
		if (!scale)
			return wult_err_set(err, errlen, -EINVAL, "unknown unit '%.*s' (ns, us, "
					    "ms, s)", (int)un, p);
	} else if (un) {
		return wult_err_set(err, errlen, -EINVAL, "%s%s takes no unit, '%.*s' given",
				    d->is_time ? "a count of " : "", d->name, (int)un, p);
	} else if (is_time) {
		scale = 1e3;	/* microseconds, as the filters take them */
	}
	v *= scale;
	if (!isfinite(v))
		return wult_err_set(err, errlen, -EINVAL, "value out of range");
	p = skip_blanks(p + un);
	if (*p)
		return wult_err_set(err, errlen, -EINVAL, "'%s' after the value", p);
	g->value = v;
	return 0;
}

int wult_gate_parse(const char *expr, const char *const *stats, unsigned int nstats,
		    struct wult_gate *out, char *err, size_t errlen)
{
	struct wult_gate g = { .stat = 0 };
	const char *p;
	int ret = -EINVAL;

	p = parse_selector(expr, stats, nstats, &g, &ret, err, errlen);
	if (p)
		p = parse_metric(p, &g, &ret, err, errlen);
	if (p)
		p = parse_op(p, &g, &ret, err, errlen);
	if (!p)
		return ret;
	/* A count is a number of datapoints, whatever the metric. */
	ret = parse_value(p, &g, wult_metric_desc(g.metric)->is_time &&
			  strcmp(stats[g.stat], "count"), err, errlen);
	if (!ret)
		*out = g;
	return ret;
}

int wult_gate_holds(const struct wult_gate *g, double v)
{
	if (isnan(v))
		return 0;
	switch (g->op) {
	case WULT_GATE_LT: return v < g->value;
	case WULT_GATE_LE: return v <= g->value;
	case WULT_GATE_GT: return v > g->value;
	case WULT_GATE_GE: return v >= g->value;
	case WULT_GATE_EQ: return v == g->value;
	default: return v != g->value;
	}
}
