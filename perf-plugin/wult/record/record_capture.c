// SPDX-License-Identifier: GPL-2.0
/*
 * wult record --stop-on EXPR and --capture[=MS].
 *
 * --stop-on: every datapoint is decoded as it is drained (the same decoder
 * and filter language as wult report) and the first one that matches
 * stops the recording; it is the file's last datapoint.
 *
 * --capture: a tracefs instance of our own (instances/wult-PID: its own
 * ring buffer, so the system's tracing and other users are untouched)
 * records the measured CPUs' interrupts, softirqs, timers, scheduling and
 * idle entries/exits (and NMI handlers where the kernel has nmi:) from
 * before the first datapoint on, in overwrite mode: the ring always holds
 * the latest events. At the stop tracing is switched off at once and the
 * last MS ms before the datapoint's wake are saved beside the perf.data
 * as text (wult/capture.h), which `wult report` reads. The clock is
 * ftrace's "mono", CLOCK_MONOTONIC as wult.ko's timestamps.
 *
 * The instance is removed on every way out; one that a killed run left
 * (its pid gone) is removed by the next wult record.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <wult/capture.h>
#include <wult/dpdec.h>
#include <wult/filter.h>
#include <wult/metrics.h>

#include "record_capture.h"

#define TRACEFS		"/sys/kernel/tracing"
#define TRACEFS_DBG	"/sys/kernel/debug/tracing"
#define FORMAT_DBG	TRACEFS_DBG "/events/wult/datapoint/format"
/* Per CPU: ~40 bytes an event, so tens of ms at 20,000 events/s. */
#define BUFFER_KB	"1024"
/* What is kept after the wake: the datapoint's own handler and softirq. */
#define AFTER_NS	1000000ULL

/* The events, each optional: a kernel without one says so once. */
static const char *const events[] = {
	"irq/irq_handler_entry", "irq/irq_handler_exit",
	"irq/softirq_entry", "irq/softirq_exit",
	"irq_vectors",			/* x86: local_timer, reschedule, ... */
	"timer/hrtimer_expire_entry", "timer/hrtimer_expire_exit",
	"timer/timer_expire_entry", "timer/timer_expire_exit",
	"sched/sched_switch", "sched/sched_wakeup",
	"power/cpu_idle",
	"nmi/nmi_handler",
};

struct rec_stop {
	struct wult_dpdec *dp;
	struct wult_filter *f;
	struct wult_point pt;		/* the matching datapoint */
	int hit;
};

struct rec_capture {
	char dir[256];			/* the instance, "": none */
	unsigned int window_ms;
};

int rec_stop_new(const char *expr, unsigned int cpu, struct rec_stop **out)
{
	struct wult_metric_set set;
	struct rec_stop *s;
	char err[1024];	/* an unknown metric's message lists every name */
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s || wult_dpdec_new(&s->dp)) {
		free(s);
		return 1;
	}
	/* The loaded module's layout: what the ring's payloads have. */
	ret = wult_dpdec_load_format_file(s->dp, WULT_DP_FORMAT_PATH, err, sizeof(err));
	if (ret)
		ret = wult_dpdec_load_format_file(s->dp, FORMAT_DBG, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult record: --stop-on: cannot read the wult:datapoint format "
			"(%s): is wult.ko loaded and tracefs mounted?\n", err);
		rec_stop_free(s);
		return 1;
	}
	wult_dpdec_name_states(s->dp, NULL, cpu);
	wult_metric_set_init(&set, wult_dpdec_metrics(s->dp, 0));
	ret = wult_filter_compile(expr, wult_metrics_resolve, &set, &s->f, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult record: bad --stop-on '%s': %s\n", expr, err);
		rec_stop_free(s);
		return 2;
	}
	*out = s;
	return 0;
}

int rec_stop_check(struct rec_stop *s, const void *raw, unsigned int size)
{
	if (!s || s->hit || !raw || wult_dpdec_decode_raw(s->dp, raw, size, &s->pt))
		return 0;
	s->hit = wult_filter_eval(s->f, s->pt.v);
	return s->hit;
}

static double val(const struct rec_stop *s, enum wult_metric m)
{
	return s->pt.v[m].num;
}

void rec_stop_say(const struct rec_stop *s, const char *expr)
{
	if (!s || !s->hit)
		return;
	fprintf(stderr, "wult record: stopped at a datapoint matching '%s': CPU %.0f, %s, "
		"WakeLatency %.3f us, IntrLatency %.3f us, LDist %.3f us\n", expr,
		val(s, WULT_M_CPU), s->pt.v[WULT_M_REQ_CSTATE].str ?
		s->pt.v[WULT_M_REQ_CSTATE].str : "?", val(s, WULT_M_WAKE_LATENCY) / 1e3,
		val(s, WULT_M_INTR_LATENCY) / 1e3, val(s, WULT_M_LDIST) / 1e3);
}

int rec_stop_hit(const struct rec_stop *s)
{
	return s && s->hit;
}

void rec_stop_free(struct rec_stop *s)
{
	if (!s)
		return;
	wult_filter_free(s->f);
	wult_dpdec_free(s->dp);
	free(s);
}

static const char *tracefs(void)
{
	return access(TRACEFS "/instances", F_OK) ? TRACEFS_DBG : TRACEFS;
}

static int put(const char *dir, const char *file, const char *v)
{
	char path[512];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(v, f) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* Whether wult process @pid still runs (a reused pid is another program). */
static int wult_alive(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (kill(pid, 0) && errno != EPERM)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;	/* cannot tell: leave it */
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "wult\n");
}

void rec_capture_cleanup(void)
{
	char path[600], base[300];
	struct dirent *d;
	DIR *dir;
	int pid;

	snprintf(base, sizeof(base), "%s/instances", tracefs());
	dir = opendir(base);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (sscanf(d->d_name, "wult-%d", &pid) != 1 || pid <= 0 ||
		    pid == (int)getpid() || wult_alive(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, d->d_name);
		if (!rmdir(path))
			fprintf(stderr, "wult record: removed the tracefs instance %s that a "
				"killed wult record (pid %d) left\n", path, pid);
	}
	closedir(dir);
}

/* tracing_cpumask: comma-separated 32-bit hex groups, highest first. */
static void cpumask(const int *cpus, int n, char *buf, size_t len)
{
	unsigned int words = 1, w, m[64] = { 0 };
	size_t k = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (cpus[i] < 0 || cpus[i] >= 64 * 32)
			continue;
		m[cpus[i] / 32] |= 1U << (cpus[i] % 32);
		if ((unsigned int)cpus[i] / 32 + 1 > words)
			words = cpus[i] / 32 + 1;
	}
	buf[0] = '\0';
	for (w = words; w-- > 0 && k < len;)
		k += snprintf(buf + k, len - k, "%s%08x", w + 1 < words ? "," : "", m[w]);
}

int rec_capture_start(const int *cpus, int n, unsigned int window_ms, int quiet,
		      struct rec_capture **out)
{
	char path[512], mask[600], missing[512] = "";
	struct rec_capture *c;
	size_t k = 0;
	unsigned int i;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;
	c->window_ms = window_ms;
	snprintf(c->dir, sizeof(c->dir), "%s/instances/wult-%d", tracefs(), (int)getpid());
	if (mkdir(c->dir, 0700)) {
		fprintf(stderr, "wult record: --capture: cannot create the tracefs instance "
			"%s: %s (is tracefs mounted? root?)\n", c->dir, strerror(errno));
		free(c);
		return 1;
	}
	cpumask(cpus, n, mask, sizeof(mask));
	ret = put(c->dir, "trace_clock", "mono");
	if (!ret)
		ret = put(c->dir, "buffer_size_kb", BUFFER_KB);
	if (!ret)
		ret = put(c->dir, "tracing_cpumask", mask);
	if (ret) {
		fprintf(stderr, "wult record: --capture: cannot set up %s: %s\n", c->dir,
			strerror(-ret));
		rec_capture_end(c);
		return 1;
	}
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(path, sizeof(path), "events/%s/enable", events[i]);
		if (put(c->dir, path, "1") && k < sizeof(missing))
			k += snprintf(missing + k, sizeof(missing) - k, "%s%s", k ? ", " : "",
				      events[i]);
	}
	put(c->dir, "tracing_on", "1");
	if (!quiet)
		fprintf(stderr, "wult record: capturing the measured CPUs' events in %s "
			"(the last %u ms are kept at the stop)%s%s\n", c->dir, window_ms,
			k ? "; not in this kernel: " : "", missing);
	*out = c;
	return 0;
}

/* The stop: ring frozen, the window written to @path. 0, or 1 (said). */
int rec_capture_save(struct rec_capture *c, const struct rec_stop *s, const char *path)
{
	uint64_t tai = (uint64_t)val(s, WULT_M_TAI), tintr = (uint64_t)val(s, WULT_M_TINTR);
	uint64_t from, to, ts;
	char file[512], line[1024], copy[1024];
	const char *ev, *args;
	unsigned long kept = 0;
	FILE *in, *out;
	int cpu, ret = 0;

	if (!c || !s || !s->hit)
		return 0;
	put(c->dir, "tracing_on", "0");
	from = tai > c->window_ms * 1000000ULL ? tai - c->window_ms * 1000000ULL : 0;
	to = (tai > tintr ? tai : tintr) + AFTER_NS;
	snprintf(file, sizeof(file), "%s/trace", c->dir);
	in = fopen(file, "r");
	out = fopen(path, "w");
	if (!in || !out) {
		fprintf(stderr, "wult record: --capture: cannot %s %s: %s\n", in ? "write" : "read",
			in ? path : file, strerror(errno));
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return 1;
	}
	fprintf(out, "# wult capture 1\n# cpu %.0f\n# ltime %.0f\n# ldist %.0f\n# tbi %.0f\n"
		"# tai %.0f\n# tintr %.0f\n# reqcstate %s\n# wakelatency %.0f\n"
		"# intrlatency %.0f\n# window_ms %u\n# clock mono\n", val(s, WULT_M_CPU),
		val(s, WULT_M_LTIME), val(s, WULT_M_LDIST), val(s, WULT_M_TBI),
		val(s, WULT_M_TAI), val(s, WULT_M_TINTR),
		s->pt.v[WULT_M_REQ_CSTATE].str ? s->pt.v[WULT_M_REQ_CSTATE].str : "?",
		val(s, WULT_M_WAKE_LATENCY), val(s, WULT_M_INTR_LATENCY), c->window_ms);
	while (fgets(line, sizeof(line), in)) {
		memcpy(copy, line, sizeof(line));
		if (wult_capture_trace_line(copy, &cpu, &ts, &ev, &args) || ts < from || ts > to)
			continue;
		fputs(line, out);
		kept++;
	}
	if (ferror(in))
		ret = 1;
	fclose(in);
	if (fclose(out) || ret) {
		fprintf(stderr, "wult record: --capture: writing %s failed\n", path);
		return 1;
	}
	fprintf(stderr, "wult record: %lu events of the %u ms before the datapoint's wake "
		"written to %s\n", kept, c->window_ms, path);
	return 0;
}

void rec_capture_end(struct rec_capture *c)
{
	if (!c)
		return;
	/* Events off first: rmdir refuses an instance still in use. */
	put(c->dir, "tracing_on", "0");
	put(c->dir, "events/enable", "0");
	if (rmdir(c->dir))
		fprintf(stderr, "wult record: cannot remove the tracefs instance %s: %s\n",
			c->dir, strerror(errno));
	free(c);
}
