// SPDX-License-Identifier: GPL-2.0
/* A stop-on capture: its header and ftrace lines, paired into items
 * (wult/capture.h). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/capture.h>

#include "internal/err.h"

#define MAGIC		"# wult capture 1"
/* How far back an exit looks for its entry: nesting is shallow, and a
 * capture of a few ms holds a few thousand events at most. */
#define PAIR_LOOKBACK	4096
#define IDLE_EXIT	"4294967295"	/* cpu_idle's state on exit: (u32)-1 */

struct item {
	struct wult_capture_item pub;
	char key[64];		/* pairs an exit with its entry: "irq_handler irq=24" */
};

struct wult_capture {
	struct wult_capture_dp dp;
	struct item *it;
	unsigned int n, cap;
	unsigned int skipped;
	struct wult_capture_item *sorted;
};

static const char *const kind_names[WULT_CAP_NR] = {
	[WULT_CAP_IRQ] = "irq",
	[WULT_CAP_VECTOR] = "vector",
	[WULT_CAP_SOFTIRQ] = "softirq",
	[WULT_CAP_HRTIMER] = "hrtimer",
	[WULT_CAP_TIMER] = "timer",
	[WULT_CAP_NMI] = "nmi",
	[WULT_CAP_IDLE] = "idle",
	[WULT_CAP_SCHED] = "sched",
	[WULT_CAP_OTHER] = "other",
};

const char *wult_capture_kind_name(enum wult_capture_kind k)
{
	return k < WULT_CAP_NR ? kind_names[k] : "?";
}

/* "SECS.FRAC" (FRAC 1-9 digits) to ns; @end past it. 0 or -1. */
static int parse_ts(const char *s, uint64_t *ns, const char **end)
{
	uint64_t sec = 0, frac = 0;
	const char *p = s;
	int d = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > UINT64_MAX / 10 / 1000000000)
			return -1;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (*p++ != '.')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++, d++) {
		if (d == 9)
			return -1;
		frac = frac * 10 + (uint64_t)(*p - '0');
	}
	if (!d)
		return -1;
	for (; d < 9; d++)
		frac *= 10;
	*ns = sec * 1000000000 + frac;
	*end = p;
	return 0;
}

int wult_capture_trace_line(char *line, int *cpu, uint64_t *ts_ns, const char **event,
			    const char **args)
{
	char *p = line, *q, *ev;
	const char *after;
	long c;

	line[strcspn(line, "\n")] = '\0';
	/* The CPU: the first " [digits]" (a task name may hold brackets, but
	 * not this shape followed by the timestamp, checked below). */
	for (;;) {
		p = strstr(p, " [");
		if (!p)
			return -EINVAL;
		p += 2;
		c = strtol(p, &q, 10);
		if (q != p && *q == ']' && c >= 0 && c < 65536)
			break;
	}
	p = q + 1;
	p += strspn(p, " ");
	/* FLAGS (irq-info), then the timestamp ending in ':' */
	if (parse_ts(p, ts_ns, &after) || *after != ':') {
		p += strcspn(p, " ");
		p += strspn(p, " ");
		if (parse_ts(p, ts_ns, &after) || *after != ':')
			return -EINVAL;
	}
	ev = (char *)after + 1;
	ev += strspn(ev, " ");
	q = strchr(ev, ':');
	if (!q || q == ev || memchr(ev, ' ', (size_t)(q - ev)))
		return -EINVAL;
	*q = '\0';
	q++;
	q += strspn(q, " ");
	*cpu = (int)c;
	*event = ev;
	*args = q;
	return 0;
}

static struct item *add(struct wult_capture *c)
{
	struct item *n;

	if (c->n == c->cap) {
		unsigned int cap = c->cap ? c->cap * 2 : 256;

		n = realloc(c->it, cap * sizeof(*n));
		if (!n)
			return NULL;
		c->it = n;
		c->cap = cap;
	}
	n = &c->it[c->n++];
	memset(n, 0, sizeof(*n));
	return n;
}

/* The value of "KEY=" in @args, up to a space, into @buf. */
static const char *arg(const char *args, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key), n;
	const char *p = args;

	buf[0] = '\0';
	while ((p = strstr(p, key))) {
		if ((p == args || p[-1] == ' ') && p[k] == '=') {
			p += k + 1;
			n = strcspn(p, " ");
			snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
			return buf;
		}
		p += k;
	}
	return buf;
}

static enum wult_capture_kind pair_kind(const char *prefix)
{
	if (!strcmp(prefix, "irq_handler"))
		return WULT_CAP_IRQ;
	if (!strcmp(prefix, "softirq"))
		return WULT_CAP_SOFTIRQ;
	if (!strcmp(prefix, "hrtimer_expire"))
		return WULT_CAP_HRTIMER;
	if (!strcmp(prefix, "timer_expire"))
		return WULT_CAP_TIMER;
	return WULT_CAP_VECTOR;
}

/* The open item of @cpu with @key, latest first; NULL if none. */
static struct item *find_open(struct wult_capture *c, int cpu, const char *key)
{
	unsigned int i, stop = c->n > PAIR_LOOKBACK ? c->n - PAIR_LOOKBACK : 0;

	for (i = c->n; i-- > stop;)
		if (c->it[i].pub.open && c->it[i].pub.cpu == cpu && !strcmp(c->it[i].key, key))
			return &c->it[i];
	return NULL;
}

/* An X_entry or X_exit event. */
static int paired(struct wult_capture *c, int cpu, uint64_t ts, const char *ev, size_t plen,
		  int entry, const char *args)
{
	char prefix[48], key[64], v[64], what[96];
	size_t first = strcspn(args, " ");
	enum wult_capture_kind k;
	struct item *it;

	snprintf(prefix, sizeof(prefix), "%.*s", (int)(plen < 47 ? plen : 47), ev);
	/* hrtimer=, timer=, irq=, vec=, vector=: the first argument. */
	snprintf(key, sizeof(key), "%s %.*s", prefix, (int)(first < 40 ? first : 40), args);
	k = pair_kind(prefix);
	if (!entry) {
		it = find_open(c, cpu, key);
		if (it) {
			/* (A capture out of time order does not make it negative.) */
			it->pub.end = ts > it->pub.start ? ts : it->pub.start;
			it->pub.open = 0;
			return 0;
		}
	}
	it = add(c);
	if (!it)
		return -ENOMEM;
	if (k == WULT_CAP_HRTIMER || k == WULT_CAP_TIMER)
		snprintf(what, sizeof(what), "%s %s", prefix, arg(args, "function", v, sizeof(v)));
	else
		snprintf(what, sizeof(what), "%s %.46s", prefix, args);
	/* An exit alone: its entry is before the capture. */
	snprintf(it->pub.what, sizeof(it->pub.what), "%.83s%s", what, entry ? "" : " (exit only)");
	snprintf(it->key, sizeof(it->key), "%s", key);
	it->pub.kind = k;
	it->pub.cpu = cpu;
	it->pub.start = it->pub.end = ts;
	it->pub.open = 1;
	if (!entry)
		it->key[0] = '\0';	/* nothing will close it */
	return 0;
}

static int point(struct wult_capture *c, int cpu, uint64_t ts, enum wult_capture_kind k,
		 const char *ev, const char *args)
{
	struct item *it = add(c);

	if (!it)
		return -ENOMEM;
	it->pub.kind = k;
	it->pub.cpu = cpu;
	it->pub.start = it->pub.end = ts;
	snprintf(it->pub.what, sizeof(it->pub.what), "%s %.80s", ev, args);
	return 0;
}

static int trace_event(struct wult_capture *c, int cpu, uint64_t ts, const char *ev,
		       const char *args)
{
	size_t n = strlen(ev);
	char v[64], h[48];
	struct item *it;

	if (n > 6 && !strcmp(ev + n - 6, "_entry"))
		return paired(c, cpu, ts, ev, n - 6, 1, args);
	if (n > 5 && !strcmp(ev + n - 5, "_exit"))
		return paired(c, cpu, ts, ev, n - 5, 0, args);
	if (!strcmp(ev, "cpu_idle")) {
		if (!strcmp(arg(args, "state", v, sizeof(v)), IDLE_EXIT)) {
			it = find_open(c, cpu, "idle");
			if (it) {
				it->pub.end = ts > it->pub.start ? ts : it->pub.start;
				it->pub.open = 0;
			}
			return 0;
		}
		it = add(c);
		if (!it)
			return -ENOMEM;
		it->pub.kind = WULT_CAP_IDLE;
		it->pub.cpu = cpu;
		it->pub.start = it->pub.end = ts;
		it->pub.open = 1;
		snprintf(it->key, sizeof(it->key), "idle");
		snprintf(it->pub.what, sizeof(it->pub.what), "idle state=%s", v);
		return 0;
	}
	if (!strcmp(ev, "nmi_handler")) {
		uint64_t d = strtoull(arg(args, "delta_ns", v, sizeof(v)), NULL, 10);

		it = add(c);
		if (!it)
			return -ENOMEM;
		it->pub.kind = WULT_CAP_NMI;
		it->pub.cpu = cpu;
		it->pub.end = ts;
		it->pub.start = d < ts ? ts - d : 0;
		snprintf(it->pub.what, sizeof(it->pub.what), "nmi %s",
			 arg(args, "handler", h, sizeof(h)));
		return 0;
	}
	if (!strcmp(ev, "sched_switch") || !strcmp(ev, "sched_wakeup") ||
	    !strcmp(ev, "sched_waking"))
		return point(c, cpu, ts, WULT_CAP_SCHED, ev, args);
	return point(c, cpu, ts, WULT_CAP_OTHER, ev, args);
}

/* "# key value" of the header. 1 taken, 0 not a header key. */
static int header(struct wult_capture_dp *dp, const char *line)
{
	static const struct {
		const char *key;
		size_t off;
	} u64s[] = {
		{ "ltime", offsetof(struct wult_capture_dp, ltime) },
		{ "ldist", offsetof(struct wult_capture_dp, ldist) },
		{ "tbi", offsetof(struct wult_capture_dp, tbi) },
		{ "tai", offsetof(struct wult_capture_dp, tai) },
		{ "tintr", offsetof(struct wult_capture_dp, tintr) },
	};
	char key[32], val[64];
	unsigned int i;

	if (sscanf(line, "# %31s %63s", key, val) != 2)
		return 0;
	for (i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++) {
		if (!strcmp(key, u64s[i].key)) {
			*(uint64_t *)((char *)dp + u64s[i].off) = strtoull(val, NULL, 10);
			return 1;
		}
	}
	if (!strcmp(key, "cpu"))
		dp->cpu = atoi(val);
	else if (!strcmp(key, "wakelatency"))
		dp->wake_latency = strtoll(val, NULL, 10);
	else if (!strcmp(key, "intrlatency"))
		dp->intr_latency = strtoll(val, NULL, 10);
	else if (!strcmp(key, "reqcstate"))
		snprintf(dp->reqcstate, sizeof(dp->reqcstate), "%.31s", val);
	else if (!strcmp(key, "window_ms"))
		dp->window_ms = (unsigned int)strtoul(val, NULL, 10);
	else
		return 0;
	return 1;
}

static int by_start(const void *a, const void *b)
{
	const struct wult_capture_item *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

int wult_capture_parse(const char *text, size_t len, struct wult_capture **out, char *err,
		       size_t errlen)
{
	struct wult_capture *c;
	const char *p = text, *end = text + len, *nl;
	char line[1024];
	const char *ev, *args;
	unsigned int i, lineno = 0;
	uint64_t ts;
	int cpu, ret = 0;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return wult_err_set(err, errlen, -ENOMEM, "out of memory");
	c->dp.cpu = -1;
	while (p < end && !ret) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1),
			 p);
		p = nl ? nl + 1 : end;
		lineno++;
		if (lineno == 1) {
			if (strncmp(line, MAGIC, strlen(MAGIC)))
				ret = wult_err_set(err, errlen, -EINVAL, "not a wult capture (the "
						   "first line is not '%s')", MAGIC);
			continue;
		}
		if (line[0] == '#') {
			header(&c->dp, line);
			continue;
		}
		if (!line[strspn(line, " \t")])
			continue;
		if (wult_capture_trace_line(line, &cpu, &ts, &ev, &args)) {
			c->skipped++;
			continue;
		}
		ret = trace_event(c, cpu, ts, ev, args);
		if (ret)
			wult_err_set(err, errlen, ret, "out of memory");
	}
	if (!ret && !lineno)
		ret = wult_err_set(err, errlen, -EINVAL, "an empty capture");
	if (!ret && c->dp.cpu < 0)
		ret = wult_err_set(err, errlen, -EINVAL, "the capture names no datapoint "
				   "(no '# cpu N' line)");
	if (!ret && c->n) {
		c->sorted = malloc(c->n * sizeof(*c->sorted));
		if (!c->sorted)
			ret = wult_err_set(err, errlen, -ENOMEM, "out of memory");
		for (i = 0; !ret && i < c->n; i++)
			c->sorted[i] = c->it[i].pub;
		if (!ret)
			qsort(c->sorted, c->n, sizeof(*c->sorted), by_start);
	}
	if (ret) {
		wult_capture_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

int wult_capture_read(const char *path, struct wult_capture **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, r;
	int ret;

	*out = NULL;
	if (!f)
		return wult_err_set(err, errlen, -errno, "cannot read %s: %s", path,
				    strerror(errno));
	do {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 262144;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return wult_err_set(err, errlen, -ENOMEM, "out of memory");
			}
			buf = nb;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
	} while (r);
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	if (ret) {
		free(buf);
		return wult_err_set(err, errlen, ret, "cannot read %s", path);
	}
	ret = wult_capture_parse(buf, len, out, err, errlen);
	free(buf);
	return ret;
}

void wult_capture_free(struct wult_capture *c)
{
	if (!c)
		return;
	free(c->it);
	free(c->sorted);
	free(c);
}

const struct wult_capture_dp *wult_capture_datapoint(const struct wult_capture *c)
{
	return &c->dp;
}

unsigned int wult_capture_items(const struct wult_capture *c,
				const struct wult_capture_item **items)
{
	*items = c->sorted;
	return c->n;
}

unsigned int wult_capture_skipped(const struct wult_capture *c)
{
	return c->skipped;
}

int wult_capture_overlaps(const struct wult_capture_item *it, uint64_t from, uint64_t to)
{
	return it->start <= to && it->end >= from;
}

void wult_capture_summarize(const struct wult_capture *c, struct wult_capture_sum *s)
{
	const struct wult_capture_dp *dp = &c->dp;
	uint64_t arm = dp->ltime > dp->ldist ? dp->ltime - dp->ldist : 0;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < c->n; i++) {
		const struct wult_capture_item *it = &c->sorted[i];

		if (it->cpu != dp->cpu)
			continue;
		if (it->kind == WULT_CAP_IDLE) {
			/* The datapoint's own idle period is not a wake. */
			if (!it->open && it->end >= arm && it->end < dp->tbi)
				s->other_wakes++;
			continue;
		}
		if (!wult_capture_overlaps(it, dp->tbi, dp->tai))
			continue;
		s->count[it->kind]++;
		s->ns[it->kind] += it->end - it->start;
	}
}
