// SPDX-License-Identifier: GPL-2.0
/*
 * bench_datapath: the data path end to end, `wult report` as a user runs
 * it, every figure a ratio to a baseline measured in the same run. Every
 * command (baselines included) runs once per round, five rounds, and each
 * keeps its best (bench_rounds()):
 *   - `wult report FILE` on 10M synthetic datapoints (LDist up to 50 ms)
 *     against `cat FILE` (what reading the file costs at memory speed) and
 *     against libwult's reader alone, and against itself in one thread
 *     (WULT_REPORT_THREADS=0: the reading thread's share);
 *   - the reader as wult report runs it (its helper thread), the data
 *     mapped and read (WULT_PD_INPUT), beside the way it chose at open;
 *   - pipe mode against file mode: the same recording streamed into
 *     `wult report -` by a producer that hands the page cache's pages to
 *     the pipe (splice(2), see feed()); and, for reference, fed by `cat`
 *     and the pipe alone (`cat FILE | cat > /dev/null`: what moving the
 *     bytes through a pipe by read/write costs here, whatever reads them);
 *   - `perf script -s scripts/perf/wult-report.py` (the python decoder) on
 *     200k datapoints of the same distribution;
 *   - what a user would pick instead, on the same datapoints as intel wult
 *     CSV, computing the report's per-state statistics (count, min,
 *     quantiles to p99.999, max, mean, stddev of the three latencies, the
 *     means of CC0%, SMICnt, NMICnt), each a counted SKIP where missing:
 *     pandas reading only those columns (usecols), DuckDB (npm
 *     @duckdb/node-api under $WULT_BENCH_DUCKDB, which run-bench installs;
 *     one GROUPING SETS query, quantile_disc, on its default threads), and
 *     the previous baseline, pandas reading every column (three rounds);
 *   - peak RSS of `wult report` with four time metrics (SilentTime and
 *     LDist up to 50 ms: the statistics' widest case).
 * Figures are medians of the rounds, with their range; ratios are of medians.
 * The reader's choice of input (mapped or read, measured: wult_pd_input())
 * is printed. Goals (issues 14 and 41): >= 15M datapoints/s, >= 40x pandas
 * (usecols), >= 10x DuckDB, >= 300x python, peak RSS <= 64 MB, pipe mode
 * within 1.5x of file mode. A miss prints GOAL
 * MISSED (exit status 0: the machine may be busy); the run's ratios are
 * kept in $WULT_BENCH_PREV (default build/bench/datapath.prev) and one
 * more than 20% worse than the previous run's, in its best round too
 * (bench_round_best()), fails (exit status 1).
 *
 * Environment: WULT_BENCH_N (datapoints, default 10M), WULT_BENCH_PY_N
 * (python baseline, default 200000, 0 skips), WULT_BENCH_PD_N (pandas
 * baselines, default WULT_BENCH_N, 0 skips), WULT_BENCH_DUCKDB (default
 * build/bench/duckdb), WULT_BENCH_DIR (default /tmp;
 * the files' pages are locked in memory while timed, see bench_warm()),
 * WULT_BENCH_PREV, WULT_BENCH_RESULTS (every run's ratios, default
 * build/bench/results.txt), WULT (the wult binary, default build/rel/wult), WULT_BENCH_BASE
 * (another wult binary, e.g. the code before a change: its `report FILE`
 * timed in the same rounds, wall and CPU medians side by side).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perf/event.h>
#include <wult/perfdata.h>
#include <wult/synth.h>

#include "bench.h"

#define GOAL_RATE	15e6	/* datapoints/s */
#define GOAL_RSS_MB	64.0
#define GOAL_PY_RATIO	300.0
#define GOAL_PD_RATIO	40.0	/* pandas with usecols */
#define GOAL_DUCK_RATIO	10.0
#define GOAL_PIPE	1.5	/* pipe time / file time */
#define NKEYS		7

static const char *wult = "build/rel/wult";

/* libwult's reader alone, in this process, with @flags: seconds. */
static double reader_pass(const char *path, unsigned int flags)
{
	struct wult_pd_event ev;
	struct wult_pd *pd;
	double t0 = bench_now();
	uint64_t n = 0;
	char err[256];

	if (wult_pd_open(path, flags, &pd, err, sizeof(err))) {
		printf("  reader: %s\n", err);
		return -1;
	}
	while (wult_pd_next(pd, &ev) > 0)
		n += ev.type == PERF_RECORD_SAMPLE;
	wult_pd_close(pd);
	return n ? bench_now() - t0 : -1;
}

static double reader_only(const char *path)
{
	return reader_pass(path, 0);
}

/*
 * The reader as wult report runs it (with its helper thread), the data
 * mapped or read whatever the measurement at open would choose: what that
 * choice is worth on this machine.
 */
static double reader_way(const char *path, const char *way)
{
	double t;

	setenv("WULT_PD_INPUT", way, 1);
	t = reader_pass(path, WULT_PD_PREFETCH);
	unsetenv("WULT_PD_INPUT");
	return t;
}

static double reader_map(const char *path)
{
	return reader_way(path, "map");
}

static double reader_read(const char *path)
{
	return reader_way(path, "read");
}

static int synth(const char *path, uint64_t n, char *err, size_t errlen)
{
	struct wult_synth_opts o;

	wult_synth_defaults(&o);
	o.count = n;
	o.ncpus = 2;
	o.ldist_max = 50000000;		/* 50 ms: the statistics' widest case */
	return wult_synth_write(&o, path, err, errlen);
}

static int put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

/*
 * The same recording in pipe mode, as `perf record -o -` streams it: the
 * attrs with their ids as HEADER_ATTR records, the tracing data as a
 * HEADER_TRACING_DATA record, then the data section.
 */
static int to_pipe(const char *src, const char *dst)
{
	uint64_t h[13], sec[2], pipe_hdr[2] = { 0x32454c4946524550ULL, 16 }, i, off;
	uint8_t buf[1 << 16];
	int fd = open(src, O_RDONLY), ret = 0;
	FILE *f = fopen(dst, "w");
	ssize_t r;

	if (fd < 0 || !f || pread(fd, h, sizeof(h), 0) != sizeof(h) || h[2] > sizeof(buf) - 8)
		ret = -1;
	ret = ret ?: put(f, pipe_hdr, sizeof(pipe_hdr));
	/* h: magic, size, attr_size, attrs {off, size}, data {off, size}, ... */
	for (i = 0; !ret && i < h[4] / h[2]; i++) {
		struct perf_event_header eh = { PERF_RECORD_HEADER_ATTR, 0, 0 };
		uint64_t asz = h[2] - 16;

		ret = pread(fd, buf, h[2], h[3] + i * h[2]) == (ssize_t)h[2] ? 0 : -1;
		memcpy(sec, buf + asz, sizeof(sec));
		if (ret || asz + sec[1] > sizeof(buf) - 8 ||
		    pread(fd, buf + asz, sec[1], sec[0]) != (ssize_t)sec[1])
			return -1;
		eh.size = 8 + asz + sec[1];
		ret = put(f, &eh, 8) ?: put(f, buf, asz + sec[1]);
	}
	/*
	 * TRACING_DATA (feature bit 1) is the first feature section, after
	 * bit 0's entry where wult's writer has one (lib/perfdata/pdwrite.c).
	 */
	if (!ret && (h[9] & 2) &&
	    pread(fd, sec, sizeof(sec), h[5] + h[6] + (h[9] & 1) * 16) == sizeof(sec)) {
		struct { struct perf_event_header h; uint32_t size, pad; } td = {
			{ PERF_RECORD_HEADER_TRACING_DATA, 0, 16 }, (sec[1] + 7) & ~7ULL, 0 };
		uint8_t *t = calloc(1, td.size + 1);

		if (!t || sec[1] > (1U << 30) || pread(fd, t, sec[1], sec[0]) != (ssize_t)sec[1])
			ret = -1;
		ret = ret ?: put(f, &td, sizeof(td)) ?: put(f, t, td.size);
		free(t);
	}
	for (off = 0; !ret && off < h[6]; off += r) {
		r = pread(fd, buf, h[6] - off > sizeof(buf) ? sizeof(buf) : h[6] - off, h[5] + off);
		ret = r <= 0 ? -1 : put(f, buf, r);
	}
	close(fd);
	if (f && fclose(f))
		ret = -1;
	return ret;
}

/*
 * `bench_datapath --feed FILE`: FILE to stdout, a pipe, by splice(), which
 * hands the page cache's pages to the pipe without copying them: a
 * producer costing next to nothing, so that the pipe-mode time is wult
 * report's. The producers pipe mode is for (`perf record -o -`, `wult
 * record -o -`) write datapoints as they are measured, thousands a second;
 * `cat` streaming 2 GB copies each byte twice on the same two CPUs, which
 * says what cat costs, not what wult report does.
 */
static int feed(const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t r = 0;

	if (fd < 0) {
		fprintf(stderr, "bench_datapath: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fcntl(1, F_SETPIPE_SZ, 1 << 20);	/* as wult report asks: fewer wake-ups */
	while ((r = splice(fd, NULL, 1, NULL, 1 << 20, SPLICE_F_MORE)) > 0)
		;
	if (r < 0)
		fprintf(stderr, "bench_datapath: splice %s to stdout: %s\n", path,
			strerror(errno));
	close(fd);
	return r < 0;
}

/* The benchmark's commands, timed in rounds (bench_rounds()). */
enum { C_CAT, C_READER, C_REPORT, C_BASE, C_ONE, C_FEED, C_CATP, C_CATCAT, C_PY, C_PDU, C_DUCK,
       C_PD, C_RMAP, C_RREAD, C_NR };

/*
 * `wult report FILE`, this build's and with WULT_BENCH_BASE another
 * binary's (the code before a change), through report_run(): every run's
 * CPU time is kept, so that on a machine shared with others the change is
 * judged by the medians of both, measured in the same rounds.
 */
struct report_runs {
	char cmd[2048];
	double wall[BENCH_REPS], cpu[BENCH_REPS], rss;
	int n;
};

static struct report_runs runs[2];	/* this build's, the base's */

static double report_run(const char *arg)
{
	struct report_runs *r = &runs[arg == runs[1].cmd];
	double rss = 0, t = bench_run(arg, &rss);

	if (t > 0 && r->n < BENCH_REPS) {
		r->wall[r->n] = t;
		r->cpu[r->n++] = bench_last_cpu;
		if (rss > r->rss)
			r->rss = rss;
	}
	return t;
}

/* The median of @n values (sorted in place). */
static double median(double *v, int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), bench_cmp);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* @c's CPU time and peak RSS from its runs: the fastest run's CPU (as the
 * other commands'), the highest RSS; *@cmed the median CPU, *@cmin, *@cmax. */
static void report_fix(struct bench_cmd *c, struct report_runs *r, double *cmed, double *cmin,
		       double *cmax)
{
	double cpu[BENCH_REPS];
	int i, best = 0;

	for (i = 0; i < r->n; i++) {
		cpu[i] = r->cpu[i];
		if (r->wall[i] < r->wall[best])
			best = i;
	}
	c->cpu = r->n ? r->cpu[best] : 0;
	c->rss = r->rss;
	*cmed = median(cpu, r->n);
	*cmin = r->n ? cpu[0] : 0;
	*cmax = r->n ? cpu[r->n - 1] : 0;
}

/*
 * python's perf script decoder on @n datapoints of the same distribution
 * (@data: their file): its command, or 0 (skipped, said).
 */
static int python_prep(const char *dir, uint64_t n, char *data, size_t len,
		       struct bench_cmd *c)
{
	const char *script = "scripts/perf/wult-report.py";
	char err[256];

	if (!n) {
		bench_skip("python baseline: WULT_BENCH_PY_N=0");
		return 0;
	}
	if (access(script, R_OK) || system("perf --version >/dev/null 2>&1")) {
		bench_skip("python baseline: needs perf and %s (run from the top)", script);
		return 0;
	}
	snprintf(data, len, "%s/wult-bench-py-%d.data", dir, (int)getpid());
	if (synth(data, n, err, sizeof(err))) {
		printf("  python baseline: %s\n", err);
		return 0;
	}
	snprintf(c->cmd, sizeof(c->cmd), "perf script -i %s -s %s 2>/dev/null", data, script);
	return 1;
}

/* The report's statistics in pandas: every column read (the previous
 * baseline), and only the statistics' columns (usecols). */
static const char *const pd_all =
	"import sys, pandas as pd\n"
	"d = pd.read_csv(sys.argv[1])\n"
	"q = [.5, .9, .99, .999, .9999, .99999]\n"
	"for m in ('WakeLatency', 'IntrLatency', 'SilentTime'):\n"
	"    g = d.groupby('ReqCState')[m]\n"
	"    g.quantile(q); g.agg(['count', 'min', 'max', 'mean', 'std'])\n"
	"    d[m].quantile(q)\n";
static const char *const pd_usecols =
	"import sys, pandas as pd\n"
	"m = ['WakeLatency', 'IntrLatency', 'SilentTime']\n"
	"n = ['CC0%', 'SMICnt', 'NMICnt']\n"
	"d = pd.read_csv(sys.argv[1], usecols=m + n + ['ReqCState'])\n"
	"q = [.5, .9, .99, .999, .9999, .99999]\n"
	"g = d.groupby('ReqCState')\n"
	"for x in m:\n"
	"    g[x].quantile(q, interpolation='lower'); g[x].agg(['count', 'min', 'max', 'mean', 'std'])\n"
	"    d[x].quantile(q, interpolation='lower'); d[x].agg(['count', 'min', 'max', 'mean', 'std'])\n"
	"g[n].mean(); d[n].mean()\n";
/* ... and in DuckDB, one query: per state and all of them (GROUPING SETS). */
static const char *const duck_js =
	"const { DuckDBInstance } = require('@duckdb/node-api');\n"
	"const q = '[0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999]';\n"
	"const m = ['WakeLatency', 'IntrLatency', 'SilentTime'].map(c =>\n"
	"  `count(${c}), min(${c}), quantile_disc(${c}, ${q}), max(${c}), avg(${c}), stddev_samp(${c})`);\n"
	"const sql = `SELECT ReqCState, ${m.join(', ')}, avg(\"CC0%\"), avg(SMICnt), avg(NMICnt)\n"
	"  FROM read_csv('${process.argv[2].replace(/'/g, \"''\")}')\n"
	"  GROUP BY GROUPING SETS ((ReqCState), ())`;\n"
	"(async () => {\n"
	"  const db = await DuckDBInstance.create(':memory:');\n"
	"  const rows = (await (await db.connect()).runAndReadAll(sql)).getRows();\n"
	"  if (rows.length < 2) throw new Error(`${rows.length} rows`);\n"
	"})().catch(e => { console.error(`duckdb: ${e.message}`); process.exit(1); });\n";

static int write_script(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok = 0;

	if (f) {
		fputs(text, f);
		ok = !fclose(f);
	}
	return ok;
}

/*
 * The analysis baselines on @n datapoints as intel wult CSV (in @out,
 * @out/datapoints.csv, their scripts beside it, named from @script): their
 * commands, or 0 (each skip said and counted).
 */
static int baselines_prep(const char *dir, uint64_t n, char *out, char *script, size_t len,
			  struct bench_cmd *c)
{
	const char *duck = getenv("WULT_BENCH_DUCKDB") ? getenv("WULT_BENCH_DUCKDB") :
			   "build/bench/duckdb";
	char path[512], cmd[2048], err[256], sp[600];
	int pandas, ok;

	if (!n) {
		bench_skip("pandas and DuckDB baselines: WULT_BENCH_PD_N=0");
		bench_skip("pandas baseline, all columns: WULT_BENCH_PD_N=0");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/wult-bench-pd-%d.data", dir, (int)getpid());
	snprintf(out, len, "%s/wult-bench-pd-%d/", dir, (int)getpid());
	snprintf(script, len, "%s/wult-bench-pd-%d", dir, (int)getpid());
	snprintf(cmd, sizeof(cmd), "%s report --csv %s %s", wult, out, path);
	ok = !synth(path, n, err, sizeof(err)) && bench_run(cmd, NULL) > 0;
	unlink(path);
	if (!ok) {
		printf("  baselines: cannot write their CSV (%s)\n", cmd);
		return 0;
	}
	pandas = !system("/usr/bin/python3 -c 'import pandas' 2>/dev/null");
	if (!pandas) {
		bench_skip("pandas baseline (usecols): no python3-pandas (scripts/deps bench)");
		bench_skip("pandas baseline, all columns: no python3-pandas (scripts/deps bench)");
	}
	snprintf(sp, sizeof(sp), "%s.usecols.py", script);
	if (pandas && write_script(sp, pd_usecols))
		snprintf(c[C_PDU].cmd, sizeof(c->cmd), "/usr/bin/python3 %s %sdatapoints.csv", sp,
			 out);
	snprintf(sp, sizeof(sp), "%s.all.py", script);
	if (pandas && write_script(sp, pd_all)) {
		snprintf(c[C_PD].cmd, sizeof(c->cmd), "/usr/bin/python3 %s %sdatapoints.csv", sp,
			 out);
		c[C_PD].reps = 3;	/* the slowest, and only for reference */
	}
	snprintf(sp, sizeof(sp), "%s/node_modules/@duckdb/node-api/package.json", duck);
	if (system("node --version >/dev/null 2>&1")) {
		bench_skip("DuckDB baseline: no node (scripts/deps bench installs nodejs)");
	} else if (access(sp, R_OK)) {
		bench_skip("DuckDB baseline: no %s (run-bench installs @duckdb/node-api there)",
			   sp);
	} else {
		snprintf(sp, sizeof(sp), "%s.duckdb.js", script);
		if (write_script(sp, duck_js))
			snprintf(c[C_DUCK].cmd, sizeof(c->cmd),
				 "NODE_PATH=%s/node_modules node %s %sdatapoints.csv", duck, sp,
				 out);
	}
	return 1;
}

/* The goal lines and the comparison with the previous run: the exit status. */
static int judge(double rate, double rss_max, double pipe_x, const double *val,
		 const double *best, const char *prev)
{
	static const char *const key[NKEYS] = { "report_vs_cat", "report_vs_reader",
						"pipe_vs_file", "report_vs_python",
						"report_vs_pandas_usecols", "report_vs_duckdb",
						"report_vs_pandas_all" };

	bench_goal("wult report datapoints/s", rate / 1e6, "M/s", GOAL_RATE / 1e6, 1);
	bench_goal("peak RSS, 4 metrics, 50 ms", rss_max, "MB", GOAL_RSS_MB, 0);
	bench_goal("pipe mode / file mode time", pipe_x, "x", GOAL_PIPE, 0);
	if (val[3] > 0)
		bench_goal("speed vs python decoder", val[3], "x", GOAL_PY_RATIO, 1);
	if (val[4] > 0)
		bench_goal("speed vs pandas (usecols)", val[4], "x", GOAL_PD_RATIO, 1);
	if (val[5] > 0)
		bench_goal("speed vs DuckDB", val[5], "x", GOAL_DUCK_RATIO, 1);
	return bench_finish("bench_datapath", key, val, best, NKEYS, prev);
}

/* The inputs: the file, its pipe-mode copy, the baselines' inputs. */
struct inputs {
	char path[512], pipe[600], py[512], pd_out[512], pd_script[512], csv[600];
	char input[256];	/* the reader's choice for the file, and why */
	struct bench_warm w[4];	/* their pages locked while timed */
	struct stat sb;
	uint64_t pyn, pdn;	/* datapoints of the python and pandas baselines */
};

/* Writes the inputs and sets the commands. 0, or 1 (said). */
static int prepare(const char *dir, uint64_t n, const char *self, struct inputs *in,
		   struct bench_cmd *c)
{
	char err[256];

	snprintf(in->path, sizeof(in->path), "%s/wult-bench-%d.data", dir, (int)getpid());
	snprintf(in->pipe, sizeof(in->pipe), "%s.pipe", in->path);
	if (synth(in->path, n, err, sizeof(err)) || stat(in->path, &in->sb)) {
		printf("bench_datapath: %s\n", err);
		return 1;
	}
	printf("  file: %s, %.2f GB (%.0f bytes a datapoint), LDist 1 us - 50 ms\n", in->path,
	       in->sb.st_size / 1e9, (double)in->sb.st_size / n);
	if (to_pipe(in->path, in->pipe)) {
		printf("bench_datapath: %s: cannot write the pipe-mode copy\n", in->pipe);
		return 1;
	}
	bench_warm(in->path, &in->w[0]);
	bench_warm(in->pipe, &in->w[1]);
	{
		struct wult_pd *pd;

		/* as wult report opens it: measured on its first windows */
		if (!wult_pd_open(in->path, WULT_PD_PREFETCH, &pd, err, sizeof(err)))
			snprintf(in->input, sizeof(in->input), "%s", wult_pd_input(pd));
		else
			snprintf(in->input, sizeof(in->input), "%s", err);
		wult_pd_close(pd);
		printf("  input: %s\n", in->input);
	}
	snprintf(c[C_CAT].cmd, sizeof(c->cmd), "cat %s", in->path);
	c[C_READER].fn = reader_only;
	c[C_READER].arg = in->path;
	c[C_RMAP].fn = reader_map;
	c[C_RMAP].arg = in->path;
	c[C_RREAD].fn = reader_read;
	c[C_RREAD].arg = in->path;
	snprintf(runs[0].cmd, sizeof(runs[0].cmd), "%s report %s", wult, in->path);
	c[C_REPORT].fn = report_run;
	c[C_REPORT].arg = runs[0].cmd;
	if (getenv("WULT_BENCH_BASE")) {
		snprintf(runs[1].cmd, sizeof(runs[1].cmd), "%s report %s",
			 getenv("WULT_BENCH_BASE"), in->path);
		c[C_BASE].fn = report_run;
		c[C_BASE].arg = runs[1].cmd;
	}
	snprintf(c[C_ONE].cmd, sizeof(c->cmd), "WULT_REPORT_THREADS=0 %s report %s", wult,
		 in->path);
	snprintf(c[C_FEED].cmd, sizeof(c->cmd), "%s --feed %s | %s report -", self, in->pipe,
		 wult);
	snprintf(c[C_CATP].cmd, sizeof(c->cmd), "cat %s | %s report -", in->pipe, wult);
	/* what the pipe costs with nothing done with the data */
	snprintf(c[C_CATCAT].cmd, sizeof(c->cmd), "cat %s | cat > /dev/null", in->pipe);
	in->pyn = bench_env_u64("WULT_BENCH_PY_N", 200000);
	in->pdn = bench_env_u64("WULT_BENCH_PD_N", n);
	if (python_prep(dir, in->pyn, in->py, sizeof(in->py), &c[C_PY]))
		bench_warm(in->py, &in->w[2]);
	if (baselines_prep(dir, in->pdn, in->pd_out, in->pd_script, sizeof(in->pd_out), c)) {
		snprintf(in->csv, sizeof(in->csv), "%sdatapoints.csv", in->pd_out);
		bench_warm(in->csv, &in->w[3]);
	}
	return 0;
}

static void cleanup(struct inputs *in)
{
	char cmd[4096];
	size_t i;

	for (i = 0; i < sizeof(in->w) / sizeof(in->w[0]); i++)
		bench_cool(&in->w[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s %s %s.usecols.py %s.all.py %s.duckdb.js",
		 in->path, in->pipe, in->py, in->pd_out, in->pd_script, in->pd_script,
		 in->pd_script);
	bench_run(cmd, NULL);
}

/* "median s (min-max)" of @c's runs */
static const char *spread(const struct bench_cmd *c)
{
	static char b[4][64];
	static int i;

	i = (i + 1) % 4;
	snprintf(b[i], sizeof(b[i]), "%7.3f s (%.3f-%.3f, %d runs)", c->med, c->min, c->max,
		 c->n);
	return b[i];
}

/*
 * An analysis baseline's line: its rate, and wult report's speed over it
 * (of the median, and the range over the baseline's runs); then CPU time,
 * each command's fastest run (what a busy machine moves least; DuckDB
 * runs on every CPU). @trep, @crep: wult report's for the same count.
 */
static void print_baseline(const char *name, uint64_t n, double trep, double crep,
			   const struct bench_cmd *c)
{
	if (c->best <= 0)
		return;
	printf("  %-20s %10" PRIu64 " dp in %s: %10.0f dp/s; wult report %.1fx (%.1f-%.1fx)\n",
	       name, n, spread(c), n / c->med, c->med / trep, c->min / trep, c->max / trep);
	printf("  %-20s %10s       %7.3f s of CPU: wult report takes %.1fx less\n", "", "",
	       c->cpu, c->cpu / crep);
}

static void print(uint64_t n, const struct inputs *in, struct bench_cmd *c)
{
	double trep = c[C_REPORT].med, size = in->sb.st_size;
	double cpu_med[2], cpu_min[2], cpu_max[2];

	report_fix(&c[C_REPORT], &runs[0], &cpu_med[0], &cpu_min[0], &cpu_max[0]);
	report_fix(&c[C_BASE], &runs[1], &cpu_med[1], &cpu_min[1], &cpu_max[1]);

	printf("  medians of the rounds (min-max); ratios of medians (the same run's range)\n");
	printf("  cat FILE          %s: %6.2f GB/s (the memory-speed baseline)\n",
	       spread(&c[C_CAT]), size / c[C_CAT].med / 1e9);
	printf("  reader only       %s: %12.0f dp/s (libwult, in process)\n",
	       spread(&c[C_READER]), n / c[C_READER].med);
	printf("  reader, mapped    %s: %12.0f dp/s, %.3f s of CPU in its fastest run "
	       "(helper thread, WULT_PD_INPUT=map)\n", spread(&c[C_RMAP]), n / c[C_RMAP].med,
	       c[C_RMAP].cpu);
	printf("  reader, read      %s: %12.0f dp/s, %.3f s of CPU: %.2fx the mapped reader's "
	       "CPU; chosen here: %.6s\n", spread(&c[C_RREAD]), n / c[C_RREAD].med,
	       c[C_RREAD].cpu, c[C_RREAD].cpu / c[C_RMAP].cpu, in->input);
	printf("  wult report FILE  %s: %12.0f dp/s (%.0f-%.0f), peak RSS %.1f MB; %.2fx "
	       "cat's time, %.2fx the reader's\n", spread(&c[C_REPORT]), n / trep,
	       n / c[C_REPORT].max, n / c[C_REPORT].min, c[C_REPORT].rss,
	       trep / c[C_CAT].med, trep / c[C_READER].med);
	printf("                    %7.3f s of CPU in its fastest run: %12.0f dp per CPU "
	       "second\n", c[C_REPORT].cpu, n / c[C_REPORT].cpu);
	printf("                    %7.3f s of CPU, median of its runs (%.3f-%.3f): %12.0f dp "
	       "per CPU second\n", cpu_med[0], cpu_min[0], cpu_max[0], n / cpu_med[0]);
	if (c[C_BASE].best > 0)
		printf("  base: %-11s %s, %.3f s of CPU (%.3f-%.3f), peak RSS %.1f MB "
		       "(WULT_BENCH_BASE); this build takes %.2fx its wall time, %.2fx its CPU\n",
		       "report FILE", spread(&c[C_BASE]), cpu_med[1], cpu_min[1], cpu_max[1],
		       c[C_BASE].rss, trep / c[C_BASE].med, cpu_med[0] / cpu_med[1]);
	printf("  one thread        %s: %12.0f dp/s (WULT_REPORT_THREADS=0); two threads "
	       "take %.2fx its time\n", spread(&c[C_ONE]), n / c[C_ONE].med,
	       trep / c[C_ONE].med);
	printf("  feed P | report - %s: %12.0f dp/s (pipe mode, spliced in), %.2fx file "
	       "mode's time\n", spread(&c[C_FEED]), n / c[C_FEED].med, c[C_FEED].med / trep);
	printf("  cat P | report -  %s: %12.0f dp/s (pipe mode, cat copying in), %.2fx file "
	       "mode's time\n", spread(&c[C_CATP]), n / c[C_CATP].med, c[C_CATP].med / trep);
	printf("  cat P | cat       %s: %6.2f GB/s through the pipe alone; cat | report - "
	       "takes %.2fx its time\n", spread(&c[C_CATCAT]), size / c[C_CATCAT].med / 1e9,
	       c[C_CATP].med / c[C_CATCAT].med);
	if (c[C_PY].best > 0)
		printf("  python baseline   %10" PRIu64 " dp in %s: %12.0f dp/s (perf script "
		       "-s scripts/perf/wult-report.py)\n", in->pyn, spread(&c[C_PY]),
		       in->pyn / c[C_PY].med);
	print_baseline("pandas (usecols)", in->pdn, trep * in->pdn / n,
		       c[C_REPORT].cpu * in->pdn / n, &c[C_PDU]);
	print_baseline("DuckDB (node-api)", in->pdn, trep * in->pdn / n,
		       c[C_REPORT].cpu * in->pdn / n, &c[C_DUCK]);
	print_baseline("pandas, all columns", in->pdn, trep * in->pdn / n,
		       c[C_REPORT].cpu * in->pdn / n, &c[C_PD]);
}

int main(int argc, char **argv)
{
	uint64_t n = bench_env_u64("WULT_BENCH_N", 10000000);
	const char *dir = getenv("WULT_BENCH_DIR") ? getenv("WULT_BENCH_DIR") : "/tmp";
	const char *prev = getenv("WULT_BENCH_PREV") ? getenv("WULT_BENCH_PREV") :
			   "build/bench/datapath.prev";
	double val[NKEYS];	/* ratios, higher is better; <= 0: not measured */
	double best[NKEYS];	/* each in its best round (bench_round_best()) */
	static struct bench_cmd c[C_NR];
	static struct inputs in;
	double trep, tmax, rss_max;
	char self[512], cmd[2048];
	ssize_t len;
	int i;

	if (argc == 3 && !strcmp(argv[1], "--feed"))
		return feed(argv[2]);
	/* the feeding producer is this program */
	len = readlink("/proc/self/exe", self, sizeof(self));
	if (len <= 0 || len == (ssize_t)sizeof(self)) {
		printf("bench_datapath: /proc/self/exe: %s\n",
		       len < 0 ? strerror(errno) : "path too long");
		return 1;
	}
	self[len] = 0;
	if (getenv("WULT"))
		wult = getenv("WULT");
	printf("bench_datapath: wult report end to end, %" PRIu64 " datapoints\n", n);
	bench_machine();
	if (prepare(dir, n, self, &in, c)) {
		cleanup(&in);
		return 1;
	}
	bench_rounds(c, C_NR);
	snprintf(cmd, sizeof(cmd), "%s report -m WakeLatency,IntrLatency,SilentTime,LDist %s",
		 wult, in.path);
	tmax = bench_run(cmd, &rss_max);
	cleanup(&in);
	for (i = 0; i < C_PY; i++)
		if (c[i].best <= 0 && i != C_BASE)
			return 1;
	if (tmax <= 0)
		return 1;
	print(n, &in, c);
	printf("  4 time metrics    %8.3f s, peak RSS %.1f MB (SilentTime, LDist to 50 ms)\n",
	       tmax, rss_max);
	trep = c[C_REPORT].med;
	val[0] = c[C_CAT].med / trep;
	val[1] = c[C_READER].med / trep;
	val[2] = trep / c[C_FEED].med;
	val[3] = c[C_PY].best > 0 ? n / trep / (in.pyn / c[C_PY].med) : 0;
	val[4] = c[C_PDU].best > 0 ? n / trep / (in.pdn / c[C_PDU].med) : 0;
	val[5] = c[C_DUCK].best > 0 ? n / trep / (in.pdn / c[C_DUCK].med) : 0;
	val[6] = c[C_PD].best > 0 ? n / trep / (in.pdn / c[C_PD].med) : 0;
	best[0] = bench_round_best(&c[C_CAT], &c[C_REPORT]);
	best[1] = bench_round_best(&c[C_READER], &c[C_REPORT]);
	best[2] = bench_round_best(&c[C_REPORT], &c[C_FEED]);
	best[3] = in.pyn ? bench_round_best(&c[C_PY], &c[C_REPORT]) * n / in.pyn : 0;
	best[4] = in.pdn ? bench_round_best(&c[C_PDU], &c[C_REPORT]) * n / in.pdn : 0;
	best[5] = in.pdn ? bench_round_best(&c[C_DUCK], &c[C_REPORT]) * n / in.pdn : 0;
	best[6] = in.pdn ? bench_round_best(&c[C_PD], &c[C_REPORT]) * n / in.pdn : 0;
	return judge(n / trep, rss_max, c[C_FEED].med / trep, val, best, prev);
}
