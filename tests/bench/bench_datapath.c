// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark for the data path: read + decode + filter + full statistics
 * over a 10M-datapoint perf.data (written by the synthetic generator) on
 * one core, against two baselines in the same run:
 *   - the reader alone (what decoding, filtering and statistics add);
 *   - `perf script -s scripts/perf/wult-report.py` (the python decoder) on
 *     a smaller file of the same distribution, per datapoint.
 * Goals (issue 5): >= 10M datapoints/s, peak RSS < 64 MB, >= 50x the python
 * decoder. A miss prints GOAL MISSED; the exit status stays 0.
 *
 * Environment: WULT_BENCH_N (datapoints, default 10M), WULT_BENCH_PY_N
 * (python baseline datapoints, default 200000, 0 to skip), WULT_BENCH_ALL
 * (0 skips the all-metrics run), WULT_BENCH_DIR (default /tmp).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <wult/dp.h>
#include <wult/filter.h>
#include <wult/metrics.h>
#include <wult/perfdata.h>
#include <wult/stats.h>
#include <wult/synth.h>

#define GOAL_RATE	10e6	/* datapoints/s */
#define GOAL_RSS_MB	64.0
#define GOAL_PY_RATIO	50.0
#define NSTATES		3
#define REPS		3
#define FILTER		"WakeLatency < 1ms && ReqCState != \"POLL\" || LDist > 10us"

static int missed;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double rss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

static void goal(const char *what, double val, const char *unit, double limit, int above)
{
	int ok = above ? val >= limit : val < limit;

	printf("  goal %-28s %12.2f %-5s %s %g: %s\n", what, val, unit, above ? ">=" : "<",
	       limit, ok ? "met" : "GOAL MISSED");
	missed |= !ok;
}

/* Reader only: every record parsed, nothing else. */
static double parse_only(const char *path, uint64_t *n)
{
	struct wult_pd *pd;
	struct wult_pd_event ev;
	char err[256];
	double t0 = now_s();
	uint64_t sink = 0;

	*n = 0;
	if (wult_pd_open(path, 0, &pd, err, sizeof(err))) {
		printf("bench_datapath: %s\n", err);
		return -1;
	}
	while (wult_pd_next(pd, &ev) > 0) {
		if (ev.type == PERF_RECORD_SAMPLE) {
			sink += ev.sample.raw_size;
			(*n)++;
		}
	}
	wult_pd_close(pd);
	if (!sink)
		printf("  (no samples)\n");
	return now_s() - t0;
}

struct full {
	uint64_t n, kept;
	struct wult_stats *overall[WULT_M_NR];
	struct wult_stats *state[NSTATES][2];	/* WakeLatency, IntrLatency */
};

/* The goal run does what wult-report.py does: WakeLatency and IntrLatency,
 * per state and overall. The "all" run adds the Raw variants, SilentTime
 * and LDist (millisecond-wide: the histograms' worst case). */
static const int overall_metrics[] = {
	WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_WAKE_LATENCY_RAW,
	WULT_M_INTR_LATENCY_RAW, WULT_M_SILENT_TIME, WULT_M_LDIST,
};

static double full_path(const char *path, struct full *r, int all)
{
	size_t nover = all ? sizeof(overall_metrics) / sizeof(overall_metrics[0]) : 2;
	static const char *const names[NSTATES] = { "POLL", "C1", "C6" };
	struct wult_pd *pd;
	struct wult_dpdec *dp;
	struct wult_filter *flt;
	struct wult_pd_event ev;
	struct wult_point pt;
	char err[256];
	double t0 = now_s();
	size_t i;
	int ret, s;

	memset(r, 0, sizeof(*r));
	if (wult_pd_open(path, 0, &pd, err, sizeof(err)) || wult_dpdec_new(&dp)) {
		printf("bench_datapath: %s\n", err);
		return -1;
	}
	if (wult_dpdec_load_pd(dp, pd, err, sizeof(err)) ||
	    wult_filter_compile(FILTER, wult_metrics_resolve, NULL, &flt, err, sizeof(err))) {
		printf("bench_datapath: %s\n", err);
		return -1;
	}
	wult_dpdec_set_cstate_names(dp, names, NSTATES);
	for (i = 0; i < nover; i++)
		r->overall[overall_metrics[i]] = wult_stats_new();
	for (s = 0; s < NSTATES; s++) {
		r->state[s][0] = wult_stats_new();
		r->state[s][1] = wult_stats_new();
	}
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE || !wult_dpdec_is_wult(dp, &ev.sample))
			continue;
		if (wult_dpdec_decode(dp, &ev.sample, &pt))
			continue;
		r->n++;
		if (!wult_filter_eval(flt, pt.v))
			continue;
		r->kept++;
		for (i = 0; i < nover; i++)
			wult_stats_add(r->overall[overall_metrics[i]],
				       (int64_t)pt.v[overall_metrics[i]].num);
		/* per state: ReqCState's number is the state index */
		s = (int)pt.v[WULT_M_REQ_CSTATE].num;
		if (s >= 0 && s < NSTATES) {
			wult_stats_add(r->state[s][0], (int64_t)pt.v[WULT_M_WAKE_LATENCY].num);
			wult_stats_add(r->state[s][1], (int64_t)pt.v[WULT_M_INTR_LATENCY].num);
		}
	}
	if (ret < 0)
		printf("bench_datapath: %s\n", wult_pd_error(pd));
	/* The statistics' queries are part of the job. */
	for (i = 0; i < WULT_M_NR; i++) {
		struct wult_stats_summary sum;

		if (r->overall[i])
			wult_stats_summary(r->overall[i], &sum);
	}
	for (s = 0; s < NSTATES; s++) {
		struct wult_stats_summary sum;

		wult_stats_summary(r->state[s][0], &sum);
		wult_stats_summary(r->state[s][1], &sum);
	}
	wult_filter_free(flt);
	wult_dpdec_free(dp);
	wult_pd_close(pd);
	return now_s() - t0;
}

static void free_full(struct full *r)
{
	int i;

	for (i = 0; i < WULT_M_NR; i++)
		wult_stats_free(r->overall[i]);
	for (i = 0; i < NSTATES; i++) {
		wult_stats_free(r->state[i][0]);
		wult_stats_free(r->state[i][1]);
	}
	memset(r, 0, sizeof(*r));
}

/* The python decoder through stock perf; datapoints/s or -1. */
static double python_rate(const char *dir, uint64_t n)
{
	struct wult_synth_opts o;
	char path[512], cmd[2048], err[256];
	const char *script = "scripts/perf/wult-report.py";
	double t0, t;
	int ret;

	if (access(script, R_OK) || system("perf --version >/dev/null 2>&1")) {
		printf("  python baseline   SKIP: needs perf and %s (run from the top)\n", script);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/wult-bench-py-%d.data", dir, (int)getpid());
	wult_synth_defaults(&o);
	o.count = n;
	o.ncpus = 2;
	if (wult_synth_write(&o, path, err, sizeof(err))) {
		printf("bench_datapath: %s\n", err);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "perf script -i %s -s %s >/dev/null 2>&1", path, script);
	t0 = now_s();
	ret = system(cmd);
	t = now_s() - t0;
	unlink(path);
	if (ret) {
		printf("  python baseline   FAILED: %s (exit %d)\n", cmd, ret);
		return -1;
	}
	printf("  python baseline   %10" PRIu64 " dp in %8.3f s: %12.0f dp/s "
	       "(perf script -s %s)\n", n, t, n / t, script);
	return n / t;
}

int main(void)
{
	uint64_t n = env_u64("WULT_BENCH_N", 10000000), pyn = env_u64("WULT_BENCH_PY_N", 200000);
	const char *dir = getenv("WULT_BENCH_DIR") ? getenv("WULT_BENCH_DIR") : "/tmp";
	struct wult_synth_opts o;
	struct full r;
	char path[512], err[256];
	double tgen, tparse, tfull, tall, rate, pyrate = -1, rss, rss_all;
	uint64_t np;
	int i;

	snprintf(path, sizeof(path), "%s/wult-bench-%d.data", dir, (int)getpid());
	wult_synth_defaults(&o);
	o.count = n;
	o.ncpus = 2;
	tgen = now_s();
	if (wult_synth_write(&o, path, err, sizeof(err))) {
		printf("bench_datapath: %s\n", err);
		return 1;
	}
	tgen = now_s() - tgen;
	printf("bench_datapath: %" PRIu64 " datapoints, file written in %.2f s\n", n, tgen);
	{
		/* Other work on the machine halves these figures: say so. */
		FILE *la = fopen("/proc/loadavg", "r");
		double l1 = 0;

		if (la && fscanf(la, "%lf", &l1) == 1)
			printf("  load average %.2f on %ld CPUs before the run\n", l1,
			       sysconf(_SC_NPROCESSORS_ONLN));
		if (la)
			fclose(la);
	}
	/* Warm the page cache so both timed passes read from memory. */
	parse_only(path, &np);
	tparse = parse_only(path, &np);
	for (i = 1; i < REPS; i++) {
		double t = parse_only(path, &np);

		if (t >= 0 && t < tparse)
			tparse = t;
	}
	tfull = full_path(path, &r, 0);
	rss = rss_mb();
	free_full(&r);
	tall = env_u64("WULT_BENCH_ALL", 1) ? full_path(path, &r, 1) : 0;
	rss_all = rss_mb();
	if (tall > 0)
		printf("  all 6 metrics     %10" PRIu64 " dp in %8.3f s: %12.0f dp/s, peak RSS %.1f MB "
	       "(+ Raw, SilentTime, LDist)\n", r.n, tall, r.n / tall, rss_all);
	/* Best of REPS for the goal figure, to shed the noise of a shared VM. */
	for (i = 1; i < REPS; i++) {
		double t;

		free_full(&r);
		t = full_path(path, &r, 0);
		if (t >= 0 && t < tfull)
			tfull = t;
	}
	unlink(path);
	if (tparse < 0 || tfull < 0)
		return 1;
	rate = r.n / tfull;
	printf("  reader only       %10" PRIu64 " dp in %8.3f s: %12.0f dp/s best of %d\n", np,
	       tparse, np / tparse, REPS);
	printf("  decode+filter+stats %8" PRIu64 " dp in %8.3f s: %12.0f dp/s best of %d "
	       "(%" PRIu64 " kept by the filter), %.2fx the reader-only time\n",
	       r.n, tfull, rate, REPS, r.kept, tfull / tparse);
	{
		struct wult_stats_summary s;

		wult_stats_summary(r.overall[WULT_M_WAKE_LATENCY], &s);
		printf("  WakeLatency ns: min %" PRId64 " median %.1f p99 %.1f p99.999 %.1f "
		       "max %" PRId64 "\n", s.min, s.median, s.p99, s.p99_999, s.max);
	}
	free_full(&r);
	if (pyn)
		pyrate = python_rate(dir, pyn);
	goal("datapoints/s", rate / 1e6, "M/s", GOAL_RATE / 1e6, 1);
	goal("peak RSS", rss, "MB", GOAL_RSS_MB, 0);
	if (pyrate > 0)
		goal("speed vs python decoder", rate / pyrate, "x", GOAL_PY_RATIO, 1);
	printf("bench_datapath: %s\n", missed ? "GOAL MISSED" : "all goals met");
	return 0;
}
