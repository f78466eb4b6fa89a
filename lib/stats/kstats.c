// SPDX-License-Identifier: GPL-2.0
/*
 * libwult: wult.ko's per-CPU counters (wult/kstats.h). The parser works on
 * the bytes given, without copying or NUL-terminating them: a line is
 * "cpuN" then blank-separated key=value pairs of unsigned decimals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/wult.h>
#include <wult/kstats.h>

#include "internal/err.h"

/* The counters by name, as the module prints them. */
static const struct {
	const char *key;
	size_t off;
} ks_keys[] = {
#define KS_KEY(f) { #f, offsetof(struct wult_kstats, f) }
	KS_KEY(armed), KS_KEY(emitted), KS_KEY(early_wake), KS_KEY(not_idle),
	KS_KEY(stale_tai), KS_KEY(other_intr), KS_KEY(invalid),
	KS_KEY(cancelled), KS_KEY(delivery_failed), KS_KEY(floor_ns),
	KS_KEY(floor_n), KS_KEY(other_wake), KS_KEY(tsc_unstable),
#undef KS_KEY
};

#define KS_NKEYS (sizeof(ks_keys) / sizeof(ks_keys[0]))

static uint64_t *ks_field(struct wult_kstats *ks, size_t i)
{
	return (uint64_t *)((char *)ks + ks_keys[i].off);
}

static uint64_t ks_get(const struct wult_kstats *ks, size_t i)
{
	return *(const uint64_t *)((const char *)ks + ks_keys[i].off);
}

/* The floor is a measurement, not a counter: deltas and sums skip it. */
static bool ks_counter(size_t i)
{
	return ks_keys[i].off != offsetof(struct wult_kstats, floor_ns) &&
	       ks_keys[i].off != offsetof(struct wult_kstats, floor_n);
}

/* An unsigned decimal filling [s, e) exactly, without overflow. */
static bool ks_u64(const char *s, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (s == e)
		return false;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9' ||
		    x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

/* One "key=value" token [s, e) into @ks; unknown keys are skipped. */
static int ks_token(const char *s, const char *e, struct wult_kstats *ks,
		    char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', e - s);
	size_t i;

	if (!eq || eq == s)
		return wult_err_set(err, errlen, -EINVAL, "'%.*s' is not key=value",
				    (int)(e - s > 40 ? 40 : e - s), s);
	for (i = 0; i < KS_NKEYS; i++) {
		if (strlen(ks_keys[i].key) != (size_t)(eq - s) ||
		    memcmp(ks_keys[i].key, s, eq - s))
			continue;
		if (!ks_u64(eq + 1, e, ks_field(ks, i)))
			return wult_err_set(err, errlen, -EINVAL, "%s: bad value '%.*s'",
					    ks_keys[i].key,
					    (int)(e - eq - 1 > 40 ? 40 : e - eq - 1), eq + 1);
		return 0;
	}
	return 0;
}

/* The tokens of one line [s, e) after its "cpuN". */
static int ks_line(const char *s, const char *e, struct wult_kstats *ks,
		   char *err, size_t errlen)
{
	const char *t;
	int ret;

	memset(ks, 0, sizeof(*ks));
	while (s < e) {
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		for (t = s; t < e && *t != ' ' && *t != '\t'; t++)
			;
		if (t > s) {
			ret = ks_token(s, t, ks, err, errlen);
			if (ret)
				return ret;
		}
		s = t;
	}
	return 0;
}

int wult_kstats_parse(const char *buf, size_t len, int cpu,
		      struct wult_kstats *ks, char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len;
	char name[24];
	size_t n = snprintf(name, sizeof(name), "cpu%d", cpu);

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > n && !memcmp(p, name, n) &&
		    (p[n] == ' ' || p[n] == '\t'))
			return ks_line(p + n, le, ks, err, errlen);
		p = nl ? nl + 1 : end;
	}
	return wult_err_set(err, errlen, -ENOENT, "no line for CPU %d", cpu);
}

void wult_kstats_delta(struct wult_kstats *d, const struct wult_kstats *after,
		       const struct wult_kstats *before)
{
	size_t i;

	*d = *after;
	for (i = 0; i < KS_NKEYS; i++)
		if (ks_counter(i))
			*ks_field(d, i) -= ks_get(before, i);
}

void wult_kstats_add(struct wult_kstats *sum, const struct wult_kstats *b)
{
	size_t i;

	for (i = 0; i < KS_NKEYS; i++)
		if (ks_counter(i))
			*ks_field(sum, i) += ks_get(b, i);
	if (b->floor_n && (!sum->floor_n || b->floor_ns > sum->floor_ns)) {
		sum->floor_ns = b->floor_ns;
		sum->floor_n = b->floor_n;
	}
}

/* The ways an armed event ends without a datapoint, and what to do. */
struct ks_reason {
	const char *name;
	uint64_t n;
	const char *why;
};

static int ks_by_count(const void *a, const void *b)
{
	const struct ks_reason *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

/* The hint for the main reason. */
static const char *ks_hint(const struct ks_reason *top, const struct wult_kstats *d)
{
	if (!strcmp(top->name, "not_idle"))
		return d->floor_n ? "raise --ldist well above the floor" :
				    "raise --ldist";
	if (!strcmp(top->name, "invalid"))
		return "report it: the module found times out of order";
	return "keep other work and interrupts off the measured CPUs";
}

int wult_kstats_low_yield(const struct wult_kstats *d, char *buf, size_t len)
{
	struct ks_reason r[] = {
		{ "not_idle", d->not_idle, "fired before the CPU was idle: LDist too short" },
		{ "early_wake", d->early_wake, "the CPU left idle for something else" },
		{ "stale_tai", d->stale_tai, "something else ended the idle period" },
		{ "other_intr", d->other_intr, "another interrupt during the wake" },
		{ "other_wake", d->other_wake, "woken by something else just before LTime" },
		{ "tsc_unstable", d->tsc_unstable, "the kernel marked the TSC unstable" },
		{ "invalid", d->invalid, "times out of order" },
	};
	/* The event armed when measuring stopped had no chance. */
	uint64_t ended = d->armed > d->cancelled ? d->armed - d->cancelled : 0;
	size_t i, n = sizeof(r) / sizeof(r[0]), o;

	if (!ended || d->emitted * 2 >= ended) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	qsort(r, n, sizeof(r[0]), ks_by_count);
	o = snprintf(buf, len, "only %" PRIu64 " of %" PRIu64 " armed datapoints "
		     "(%.1f%%) were valid;", d->emitted, ended,
		     100.0 * d->emitted / ended);
	for (i = 0; i < n && i < 3 && r[i].n; i++)
		if (o < len)
			o += snprintf(buf + o, len - o, "%s %s %" PRIu64 " (%s)",
				      i ? "," : "", r[i].name, r[i].n, r[i].why);
	if (o < len && d->floor_n)
		o += snprintf(buf + o, len - o, "; LDist floor %" PRIu64 ".%" PRIu64
			      " us", d->floor_ns / 1000, d->floor_ns % 1000 / 100);
	if (o < len && r[0].n)
		snprintf(buf + o, len - o, ": %s", ks_hint(&r[0], d));
	return 1;
}

int wult_kstats_ldist_unreachable(const struct wult_kstats *ks,
				  uint64_t ldist_max_us, uint64_t *min_us)
{
	if (ks->floor_n < WULT_FLOOR_MIN_N || ldist_max_us > UINT64_MAX / 1000 ||
	    ldist_max_us * 1000 >= ks->floor_ns)
		return 0;
	*min_us = (ks->floor_ns + 999) / 1000;
	return 1;
}
