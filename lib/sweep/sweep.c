// SPDX-License-Identifier: GPL-2.0
/*
 * A sweep's axes, their product and the points' monikers (wult/sweep.h).
 * Each axis is a row of axes[]: its name, the wult record option it sets
 * and how a value given on the command line becomes that option's value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/args.h>
#include <wult/sweep.h>

#include "internal/err.h"
#include "internal/sweep.h"

/* The largest CPU number a cpu value may name (NR_CPUS of large configs). */
#define SW_MAX_CPUS	8192
/* A moniker and ".data" fit a file name (NAME_MAX 255). */
#define SW_MAX_MONIKER	200

/* How a value becomes the record option's value. */
enum sw_kind {
	SW_NAME,	/* one name, as given */
	SW_SET,		/* names joined by '+', given to record comma-separated */
	SW_RANGE,	/* an LDist range MIN-MAX (or one time): MIN,MAX */
	SW_CPUS,	/* a CPU list, '+' for perf's ',' */
};

static const struct {
	const char *name, *option;
	enum sw_kind kind;
} axes[WULT_SWEEP_NR_AXES] = {
	[WULT_SWEEP_STATES] = { "states", "--states", SW_SET },
	[WULT_SWEEP_DEEPEST] = { "deepest-state", "--deepest-state", SW_NAME },
	[WULT_SWEEP_GOVERNOR] = { "governor", "--idle-governor", SW_NAME },
	[WULT_SWEEP_METHOD] = { "method", "--method", SW_NAME },
	[WULT_SWEEP_LDIST] = { "ldist", "--ldist", SW_RANGE },
	[WULT_SWEEP_CPU] = { "cpu", "--cpus", SW_CPUS },
};

int wult_sweep_axis_lookup(const char *name, size_t len)
{
	int a;

	for (a = 0; a < WULT_SWEEP_NR_AXES; a++)
		if (strlen(axes[a].name) == len && !strncmp(axes[a].name, name, len))
			return a;
	return -1;
}

const char *wult_sweep_axis_name(enum wult_sweep_axis a)
{
	return (unsigned int)a < WULT_SWEEP_NR_AXES ? axes[a].name : "?";
}

const char *wult_sweep_axis_option(enum wult_sweep_axis a)
{
	return (unsigned int)a < WULT_SWEEP_NR_AXES ? axes[a].option : "?";
}

int wult_sweep_new(struct wult_sweep **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void free_points(struct wult_sweep *s)
{
	unsigned int p;

	for (p = 0; p < s->npt; p++) {
		free(s->pt[p].moniker);
		free(s->pt[p].file);
		free(s->pt[p].vi);
	}
	free(s->pt);
	s->pt = NULL;
	s->npt = 0;
}

void wult_sweep_free(struct wult_sweep *s)
{
	unsigned int i, v;

	if (!s)
		return;
	free_points(s);
	for (i = 0; i < s->nax; i++) {
		for (v = 0; v < s->ax[i].n; v++) {
			free(s->ax[i].v[v].text);
			free(s->ax[i].v[v].arg);
		}
		free(s->ax[i].v);
	}
	for (i = 0; i < s->nropts; i++)
		free(s->ropts[i]);
	free(s->ropts);
	free(s->host);
	free(s);
}

/* Characters a name item may not hold: the separators and the blanks. */
#define SW_BAD_NAME	",+= \t\n/"

/* Value @val (@n bytes) of axis @a into its record option's value *@arg. */
static int value_arg(enum wult_sweep_axis a, const char *val, size_t n, char **arg,
		     char *err, size_t errlen)
{
	const char *name = axes[a].name;
	unsigned char *set;
	double lo, hi;
	char *s, *dash;
	size_t i;
	int ret;

	s = strndup(val, n);
	if (!s)
		return -ENOMEM;
	switch (axes[a].kind) {
	case SW_NAME:
	case SW_SET:
		for (i = 0; i < n; i++) {
			if (s[i] == '+' && axes[a].kind == SW_SET &&
			    i && i + 1 < n && s[i + 1] != '+') {
				s[i] = ',';
				continue;
			}
			if (strchr(SW_BAD_NAME, s[i]) || (unsigned char)s[i] < ' ') {
				ret = wult_err_set(err, errlen, -EINVAL, "%s: bad value '%.*s'%s",
						   name, (int)n, val, axes[a].kind == SW_SET ?
						   " (names joined by '+')" : " (one name)");
				free(s);
				return ret;
			}
		}
		break;
	case SW_RANGE:
		/* MIN-MAX, or one time T as T,T. */
		dash = strchr(s, '-');
		if (dash) {
			*dash = ',';
		} else {
			char *two = malloc(2 * n + 2);

			if (!two) {
				free(s);
				return -ENOMEM;
			}
			snprintf(two, 2 * n + 2, "%s,%s", s, s);
			free(s);
			s = two;
		}
		ret = wult_time_range_parse(s, WULT_TIME_BARE_US, WULT_TIME_ZERO, &lo, &hi, NULL,
					    0);
		if (ret || strchr(s, '+') || (dash && strchr(dash + 1, '-'))) {
			free(s);
			return wult_err_set(err, errlen, -EINVAL, "ldist: bad value '%.*s' (MIN-MAX "
					    "or one time, e.g. 100-200, 1ms-2ms, 500us)", (int)n, val);
		}
		break;
	case SW_CPUS:
		for (i = 0; i < n; i++)
			if (s[i] == '+')
				s[i] = ',';
		set = malloc(SW_MAX_CPUS);
		if (!set) {
			free(s);
			return -ENOMEM;
		}
		ret = wult_cpulist_parse(s, set, SW_MAX_CPUS, NULL, 0);
		free(set);
		if (ret < 0) {
			free(s);
			return wult_err_set(err, errlen, -EINVAL, "cpu: bad value '%.*s' (a CPU, "
					    "a range 0-3, or CPUs joined by '+')", (int)n, val);
		}
		break;
	}
	*arg = s;
	return 0;
}

int wult_sweep_add_axis(struct wult_sweep *s, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *p, *end;
	struct sw_axis *ax;
	unsigned int i, v;
	char list[160];
	int a, ret;

	a = eq ? wult_sweep_axis_lookup(spec, eq - spec) : -1;
	if (a < 0) {
		for (i = 0, list[0] = '\0'; i < WULT_SWEEP_NR_AXES; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", axes[i].name);
		if (!eq)
			return wult_err_set(err, errlen, -EINVAL, "'%s' is not AXIS=VALUES (axes: "
					    "%s)", spec, list);
		return wult_err_set(err, errlen, -EINVAL, "unknown axis '%.*s' (axes: %s)",
				    (int)(eq - spec), spec, list);
	}
	for (i = 0; i < s->nax; i++)
		if ((int)s->ax[i].id == a)
			return wult_err_set(err, errlen, -EINVAL, "axis %s given twice (list "
					    "its values once, comma-separated)", axes[a].name);
	if (s->nax == WULT_SWEEP_NR_AXES)
		return -EINVAL;		/* unreachable: each axis once */
	ax = &s->ax[s->nax];
	memset(ax, 0, sizeof(*ax));
	ax->id = a;
	s->nax++;	/* from here on, wult_sweep_free() frees what it holds */
	for (p = eq + 1;; p = end + 1) {
		end = p + strcspn(p, ",");
		if (end == p)
			return wult_err_set(err, errlen, -EINVAL, "%s: an empty value in '%s'",
					    axes[a].name, spec);
		for (v = 0; v < ax->n; v++)
			if (strlen(ax->v[v].text) == (size_t)(end - p) &&
			    !strncmp(ax->v[v].text, p, end - p))
				return wult_err_set(err, errlen, -EINVAL, "%s: value '%.*s' given "
						    "twice", axes[a].name, (int)(end - p), p);
		if (ax->n % 8 == 0) {
			struct sw_value *nv = realloc(ax->v, (ax->n + 8) * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			ax->v = nv;
		}
		ax->v[ax->n].text = strndup(p, end - p);
		ax->v[ax->n].arg = NULL;
		if (!ax->v[ax->n].text)
			return -ENOMEM;
		ax->n++;
		ret = value_arg(a, p, end - p, &ax->v[ax->n - 1].arg, err, errlen);
		if (ret)
			return ret;
		if (!*end)
			return 0;
	}
}

/* The moniker of point @p (its value indexes @vi) into a new string. */
static char *moniker_of(const struct wult_sweep *s, const unsigned int *vi)
{
	char buf[1024];
	size_t n = 0, k;
	unsigned int i;
	const char *t;

	for (i = 0; i < s->nax && n < sizeof(buf) - 1; i++) {
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s-", i ? "_" : "",
			      axes[s->ax[i].id].name);
		if (n >= sizeof(buf))
			break;
		for (t = s->ax[i].v[vi[i]].text; *t && n < sizeof(buf) - 1; t++) {
			k = (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
			    (*t >= '0' && *t <= '9') || strchr(".+-", *t);
			buf[n++] = k ? *t : '_';
		}
		buf[n] = '\0';
	}
	return strdup(buf);
}

int sw_point_file(struct sw_point *pt)
{
	size_t n = strlen(pt->moniker) + sizeof(".data");

	pt->file = malloc(n);
	if (!pt->file)
		return -ENOMEM;
	snprintf(pt->file, n, "%s.data", pt->moniker);
	return 0;
}

int wult_sweep_build(struct wult_sweep *s, char *err, size_t errlen)
{
	unsigned long long total = 1;
	unsigned int i, p, q, rest;

	free_points(s);
	if (!s->nax)
		return wult_err_set(err, errlen, -EINVAL, "no axis: give at least one "
				    "AXIS=VALUES");
	for (i = 0; i < s->nax; i++)
		for (q = 0; q < s->nax; q++)
			if (s->ax[i].id == WULT_SWEEP_STATES && s->ax[q].id == WULT_SWEEP_DEEPEST)
				return wult_err_set(err, errlen, -EINVAL, "the states and "
						    "deepest-state axes exclude each other (both "
						    "choose the enabled states)");
	for (i = 0; i < s->nax; i++) {
		total *= s->ax[i].n;
		if (total > WULT_SWEEP_MAX_POINTS)
			return wult_err_set(err, errlen, -EINVAL, "more than %d points",
					    WULT_SWEEP_MAX_POINTS);
	}
	s->pt = calloc(total, sizeof(*s->pt));
	if (!s->pt)
		return -ENOMEM;
	for (p = 0; p < total; p++) {
		struct sw_point *pt = &s->pt[p];

		s->npt++;
		pt->vi = calloc(s->nax, sizeof(*pt->vi));
		if (!pt->vi)
			return -ENOMEM;
		/* The last axis varies fastest. */
		for (rest = p, i = s->nax; i-- > 0;) {
			pt->vi[i] = rest % s->ax[i].n;
			rest /= s->ax[i].n;
		}
		pt->moniker = moniker_of(s, pt->vi);
		if (!pt->moniker || sw_point_file(pt))
			return -ENOMEM;
		if (strlen(pt->moniker) > SW_MAX_MONIKER)
			return wult_err_set(err, errlen, -EINVAL, "point %s: the name is longer "
					    "than %d characters (shorter values)", pt->moniker,
					    SW_MAX_MONIKER);
		for (q = 0; q < p; q++)
			if (!strcmp(s->pt[q].moniker, pt->moniker))
				return wult_err_set(err, errlen, -EINVAL, "two points would both "
						    "be named %s (values that differ only in "
						    "characters a file name cannot keep)",
						    pt->moniker);
	}
	return (int)s->npt;
}

int wult_sweep_set_run(struct wult_sweep *s, const char *host, char *const *ropts,
		       unsigned int nropts)
{
	unsigned int i;

	free(s->host);
	s->host = NULL;
	if (host) {
		s->host = strdup(host);
		if (!s->host)
			return -ENOMEM;
	}
	for (i = 0; i < s->nropts; i++)
		free(s->ropts[i]);
	free(s->ropts);
	s->nropts = 0;
	s->ropts = calloc(nropts + 1, sizeof(*s->ropts));
	if (!s->ropts)
		return -ENOMEM;
	for (i = 0; i < nropts; i++) {
		s->ropts[i] = strdup(ropts[i]);
		if (!s->ropts[i])
			return -ENOMEM;
		s->nropts++;
	}
	return 0;
}

const char *wult_sweep_host(const struct wult_sweep *s)
{
	return s->host;
}

unsigned int wult_sweep_nropts(const struct wult_sweep *s)
{
	return s->nropts;
}

const char *wult_sweep_ropt(const struct wult_sweep *s, unsigned int i)
{
	return i < s->nropts ? s->ropts[i] : NULL;
}

unsigned int wult_sweep_naxes(const struct wult_sweep *s)
{
	return s->nax;
}

enum wult_sweep_axis wult_sweep_axis(const struct wult_sweep *s, unsigned int i)
{
	return s->ax[i].id;
}

unsigned int wult_sweep_nvalues(const struct wult_sweep *s, unsigned int i)
{
	return s->ax[i].n;
}

const char *wult_sweep_value(const struct wult_sweep *s, unsigned int i, unsigned int v)
{
	return s->ax[i].v[v].text;
}

unsigned int wult_sweep_npoints(const struct wult_sweep *s)
{
	return s->npt;
}

const char *wult_sweep_moniker(const struct wult_sweep *s, unsigned int p)
{
	return s->pt[p].moniker;
}

const char *wult_sweep_file(const struct wult_sweep *s, unsigned int p)
{
	return s->pt[p].file;
}

const char *wult_sweep_point_value(const struct wult_sweep *s, unsigned int p, unsigned int i)
{
	return s->ax[i].v[s->pt[p].vi[i]].text;
}

unsigned int wult_sweep_point_args(const struct wult_sweep *s, unsigned int p,
				   const char **argv, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->nax && n + 2 <= max; i++) {
		argv[n++] = axes[s->ax[i].id].option;
		argv[n++] = s->ax[i].v[s->pt[p].vi[i]].arg;
	}
	return n;
}

void wult_sweep_set_status(struct wult_sweep *s, unsigned int p, enum wult_sweep_status st,
			   int code)
{
	s->pt[p].status = st;
	s->pt[p].code = code;
}

enum wult_sweep_status wult_sweep_status(const struct wult_sweep *s, unsigned int p, int *code)
{
	if (code)
		*code = s->pt[p].code;
	return s->pt[p].status;
}

static const char *const status_names[] = {
	[WULT_SWEEP_PENDING] = "pending",
	[WULT_SWEEP_DONE] = "done",
	[WULT_SWEEP_FAILED] = "failed",
	[WULT_SWEEP_STOPPED] = "stopped",
};

const char *wult_sweep_status_name(enum wult_sweep_status st)
{
	return (unsigned int)st <= WULT_SWEEP_STOPPED ? status_names[st] : "?";
}

int sw_status_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i <= WULT_SWEEP_STOPPED; i++)
		if (!strcmp(status_names[i], name))
			return i;
	return -1;
}

int sw_value_arg(enum wult_sweep_axis a, const char *val, char **arg, char *err, size_t errlen)
{
	return value_arg(a, val, strlen(val), arg, err, errlen);
}
