// SPDX-License-Identifier: GPL-2.0
/*
 * bench_csv: intel wult CSV export and import, each figure a ratio to a
 * baseline measured in the same run.
 *   - In process, CPU time (neighbours on the machine do not stretch it),
 *     threads off (the cost of the formatting and parsing themselves):
 *     libwult's writer against the stdio formatting it replaced (fprintf
 *     "%.3f"/"%.2f"/"%.0f" per value), its reader against fgets + strtod
 *     per field; the rows read back must equal the rows written, to the ns.
 *   - End to end, wall time (best of 5), on WULT_BENCH_N synthetic
 *     datapoints: `wult report --csv DIR FILE` (write) and `wult report DIR`
 *     (read) against `wult report FILE` (the same pipeline without CSV),
 *     each also with WULT_CSV_THREADS=0 (no worker thread: the ratio is
 *     what the thread gains), with peak RSS; `wult report --csv DIR2 DIR`
 *     must write DIR's datapoints.csv again byte for byte (every value
 *     survives a read and a write), with and without threads. Each
 *     writes over the previous run's CSV (--force: wult report keeps an
 *     existing file otherwise).
 * Goals (issue 14): write >= 5M rows/s, read >= 3M rows/s, values the
 * same to the ns. A miss prints GOAL MISSED (exit status 0: the machine may
 * be busy); a ratio more than 20% worse than the previous run's (kept in
 * $WULT_BENCH_PREV, default build/bench/csv.prev: the in-process ratios and
 * the end-to-end CPU-time ratios without threads) fails (exit status 1).
 *
 * Environment: WULT_BENCH_N (rows end to end, default 10M), WULT_BENCH_BASE_N
 * (rows in process, default 1M), WULT_BENCH_DIR (the perf.data, default
 * /tmp, its pages locked in memory while timed: see bench_warm()),
 * WULT_BENCH_CSV_DIR (the CSV, default /dev/shm: memory, so that the disk's
 * write-back does not time the writer), WULT_BENCH_PREV, WULT_BENCH_RESULTS
 * (every run's ratios, default build/bench/results.txt), WULT (the wult
 * binary, default build/rel/wult).
 */
#include <inttypes.h>
#include <math.h>
#include <sys/stat.h>

#include <wult/csv.h>
#include <wult/synth.h>

#include "bench.h"

#define GOAL_WRITE	5e6	/* rows/s */
#define GOAL_READ	3e6	/* rows/s */
#define NPTS		4096	/* distinct rows the in-process runs cycle over */
#define NKEYS		4

/* The columns `wult report --csv` writes for a synthetic recording. */
static const enum wult_metric cols[] = {
	WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_SILENT_TIME, WULT_M_LDIST,
	WULT_M_REQ_CSTATE, WULT_M_INTR_OFF, WULT_M_CC0, WULT_M_SMI_CNT, WULT_M_NMI_CNT,
	WULT_M_CPU, WULT_M_LTIME, WULT_M_TBI, WULT_M_TAI, WULT_M_TINTR,
	WULT_M_WAKE_LATENCY_RAW, WULT_M_INTR_LATENCY_RAW,
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static const char *wult = "build/rel/wult";

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Rows as synthetic recordings have them: integral ns, % with 2 decimals. */
static void make_points(struct wult_point *pts)
{
	static const char *const names[] = { "POLL", "C1", "C1E", "C6" };
	uint64_t x = 88172645463325252ULL;
	double lt, wake, intr, silent;
	int i;

	for (i = 0; i < NPTS; i++) {
		struct wult_val *v = pts[i].v;

		wult_point_clear(&pts[i]);
		lt = 1e9 + 25000.0 * i + rnd(&x) % 1000;
		wake = 500 + rnd(&x) % (i % 1000 ? 20000 : 500000);
		intr = wake + (double)(rnd(&x) % 3000) - 1500;
		silent = rnd(&x) % 50000000;
		v[WULT_M_WAKE_LATENCY].num = wake;
		v[WULT_M_WAKE_LATENCY_RAW].num = wake + rnd(&x) % 300;
		v[WULT_M_INTR_LATENCY].num = intr;
		v[WULT_M_INTR_LATENCY_RAW].num = intr + rnd(&x) % 300;
		v[WULT_M_SILENT_TIME].num = silent;
		v[WULT_M_LDIST].num = silent + wake + rnd(&x) % 1000;
		v[WULT_M_REQ_CSTATE].str = names[rnd(&x) % 4];
		v[WULT_M_INTR_OFF].num = rnd(&x) % 2;
		v[WULT_M_CC0].num = (double)(rnd(&x) % 10001) / 100;
		v[WULT_M_SMI_CNT].num = 0;
		v[WULT_M_NMI_CNT].num = rnd(&x) % 1000 == 0;
		v[WULT_M_CPU].num = i % 2;
		v[WULT_M_LTIME].num = lt;
		v[WULT_M_TBI].num = lt - silent;
		v[WULT_M_TAI].num = lt + wake;
		v[WULT_M_TINTR].num = lt + intr;
	}
}

/* The writer's formatting before this benchmark existed: stdio per value. */
static int printf_row(FILE *f, const struct wult_point *pt)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < NCOLS && ret >= 0; i++) {
		const struct wult_metric_desc *d = wult_metric_desc(cols[i]);
		const struct wult_val *v = &pt->v[cols[i]];

		if (i)
			fputc(',', f);
		if (d->type == WULT_VAL_STR)
			ret = fputs(v->str, f);
		else if (d->is_time)
			ret = fprintf(f, "%.3f", v->num / 1e3);
		else if (!strcmp(d->csv_unit, "%"))
			ret = fprintf(f, "%.2f", v->num);
		else
			ret = fprintf(f, "%.0f", v->num);
	}
	return ret < 0 ? ret : fputc('\n', f);
}

/* CPU seconds to write @n rows to @path, with libwult or with stdio. */
static double write_rows(const char *path, const struct wult_point *pts, uint64_t n, int lib)
{
	struct wult_csv_writer *w = NULL;
	FILE *f = fopen(path, "w+");
	double t0 = bench_cpu();
	uint64_t i;
	int ret = 0;

	if (!f || (lib && wult_csv_writer_new(f, cols, NCOLS, &w)))
		return -1;
	for (i = 0; i < n && ret >= 0; i++)
		ret = lib ? wult_csv_writer_add(w, &pts[i % NPTS]) : printf_row(f, &pts[i % NPTS]);
	if (lib && wult_csv_writer_close(w))
		ret = -1;
	if (fclose(f) || ret < 0)
		return -1;
	return bench_cpu() - t0;
}

static int same_point(const struct wult_point *a, const struct wult_point *b)
{
	size_t i;

	for (i = 0; i < NCOLS; i++) {
		enum wult_metric m = cols[i];

		if (m == WULT_M_REQ_CSTATE ? strcmp(a->v[m].str, b->v[m].str) :
		    a->v[m].num != b->v[m].num)
			return 0;
	}
	return 1;
}

/* CPU seconds to read @path with libwult; *@bad counts rows that differ
 * from those written. */
static double read_lib(const char *path, const struct wult_point *pts, uint64_t n,
		       uint64_t *bad)
{
	struct wult_csv_reader *r;
	struct wult_point pt;
	double t0 = bench_cpu();
	FILE *f = fopen(path, "r");
	char err[256];
	uint64_t i = 0;
	int ret = -1;

	*bad = 0;
	if (f && !wult_csv_open_stream(f, path, 1, &r, err, sizeof(err))) {
		while ((ret = wult_csv_next(r, &pt)) > 0)
			*bad += !same_point(&pt, &pts[i++ % NPTS]);
		if (ret < 0)
			printf("  reader: %s\n", wult_csv_error(r));
		wult_csv_close(r);
	}
	if (f)
		fclose(f);
	*bad += i != n;
	return ret ? -1 : bench_cpu() - t0;
}

/* CPU seconds to read @path with fgets and strtod per field. */
static double read_stdio(const char *path)
{
	char line[4096], *p, *field, *end;
	double t0 = bench_cpu(), sum = 0;
	FILE *f = fopen(path, "r");

	if (!f || !fgets(line, sizeof(line), f))
		return -1;
	while (fgets(line, sizeof(line), f))
		for (p = line; (field = strsep(&p, ",")) != NULL;)
			sum += strtod(field, &end);
	fclose(f);
	return sum != 0 ? bench_cpu() - t0 : -1;
}

/* The in-process figures: ratios[0..1] (writer, reader vs stdio). */
static int in_process(const char *dir, uint64_t n, double *ratios)
{
	struct wult_point *pts = calloc(NPTS, sizeof(*pts));
	double tw, tpf, tr, tsd;
	char path[512];
	uint64_t bad;

	if (!pts)
		return -1;
	wult_csv_set_threads(0);
	make_points(pts);
	snprintf(path, sizeof(path), "%s/wult-bench-csv-%d.csv", dir, (int)getpid());
	tpf = write_rows(path, pts, n, 0);
	tw = write_rows(path, pts, n, 1);
	tsd = read_stdio(path);
	tr = read_lib(path, pts, n, &bad);
	unlink(path);
	free(pts);
	wult_csv_set_threads(-1);
	if (tw <= 0 || tpf <= 0 || tr <= 0 || tsd <= 0)
		return -1;
	printf("  in process, %" PRIu64 " rows of %zu columns, CPU time, no worker thread:\n",
	       n, NCOLS);
	printf("    write, libwult   %8.3f s: %12.0f rows/s\n", tw, n / tw);
	printf("    write, stdio     %8.3f s: %12.0f rows/s (fprintf per value)\n", tpf, n / tpf);
	printf("    read, libwult    %8.3f s: %12.0f rows/s, %" PRIu64 " rows differ from those "
	       "written\n", tr, n / tr, bad);
	printf("    read, stdio      %8.3f s: %12.0f rows/s (fgets + strtod per field)\n", tsd,
	       n / tsd);
	printf("    libwult vs stdio: write %.2fx, read %.2fx\n", tpf / tw, tsd / tr);
	ratios[0] = tpf / tw;
	ratios[1] = tsd / tr;
	bench_goal("in-process rows equal", bad, "rows", 0, 0);
	return 0;
}

static int synth(const char *path, uint64_t n, char *err, size_t errlen)
{
	struct wult_synth_opts o;

	wult_synth_defaults(&o);
	o.count = n;
	o.ncpus = 2;
	o.ldist_max = 50000000;
	return wult_synth_write(&o, path, err, errlen);
}

/* Best wall time of @cmd (peak RSS in *@rss, CPU time in *@cpu), with
 * the CSV worker threads (@threads) or without. */
static double timed(const char *cmd, int threads, double *rss, double *cpu)
{
	char full[8400];
	double t;

	/* exec: the peak RSS is wult's, not a shell's */
	snprintf(full, sizeof(full), "exec env WULT_CSV_THREADS=%d %s", threads, cmd);
	t = bench_best(full, rss);
	*cpu = bench_last_cpu;
	return t;
}

static void line(const char *what, uint64_t n, double t, double base, double cpu, double rss)
{
	printf("    %-34s %7.3f s: %10.0f rows/s, %.2fx the baseline's time; %.3f s of CPU, "
	       "%.0f MB peak RSS\n", what, t, n / t, t / base, cpu, rss);
}

/* End to end: ratios[2..3]. Returns 0, or -1 when a command failed. */
static int end_to_end(const char *dir, const char *cdir, uint64_t n, double *ratios)
{
	char path[512], out[512], out2[600], cmd[8192], err[256];
	double trep, crep, rrep, tw, cw, rw, tr, cr, rr, tw0, cw0, rw0, tr0, cr0, rr0;
	struct bench_warm wf;
	struct stat sb;
	int same, same0;

	snprintf(path, sizeof(path), "%s/wult-bench-csv-%d.data", dir, (int)getpid());
	snprintf(out, sizeof(out), "%s/wult-bench-csv-%d", cdir, (int)getpid());
	snprintf(out2, sizeof(out2), "%s/wult-bench-csv-%d.again", cdir, (int)getpid());
	if (synth(path, n, err, sizeof(err))) {
		printf("bench_csv: %s\n", err);
		return -1;
	}
	bench_warm(path, &wf);
	snprintf(cmd, sizeof(cmd), "%s report %s", wult, path);
	trep = timed(cmd, 1, &rrep, &crep);
	snprintf(cmd, sizeof(cmd), "%s report --force --csv %s/ %s", wult, out, path);
	tw0 = timed(cmd, 0, &rw0, &cw0);
	tw = timed(cmd, 1, &rw, &cw);
	snprintf(cmd, sizeof(cmd), "%s report %s/", wult, out);
	tr0 = timed(cmd, 0, &rr0, &cr0);
	tr = timed(cmd, 1, &rr, &cr);
	snprintf(cmd, sizeof(cmd), "%s report --force --csv %s/ %s/ && cmp -s %s/datapoints.csv "
		 "%s/datapoints.csv", wult, out2, out, out, out2);
	same = bench_run(cmd, NULL) > 0;
	snprintf(cmd, sizeof(cmd), "WULT_CSV_THREADS=0 %s report --force --csv %s/ %s/ && cmp -s "
		 "%s/datapoints.csv %s/datapoints.csv", wult, out2, out, out, out2);
	same0 = bench_run(cmd, NULL) > 0;
	snprintf(cmd, sizeof(cmd), "%s/datapoints.csv", out);
	if (stat(cmd, &sb))
		sb.st_size = 0;
	bench_cool(&wf);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s", path, out, out2);
	bench_run(cmd, NULL);
	if (trep <= 0 || tw <= 0 || tr <= 0 || tw0 <= 0 || tr0 <= 0)
		return -1;
	printf("  end to end, %" PRIu64 " datapoints, CSV %.2f GB in %s, wall time (best of "
	       "%d):\n", n, sb.st_size / 1e9, cdir, BENCH_REPS);
	printf("    %-34s %7.3f s: %10.0f dp/s (the baseline: no CSV); %.3f s of CPU, %.0f MB "
	       "peak RSS\n", "wult report FILE", trep, n / trep, crep, rrep);
	line("wult report --csv DIR FILE", n, tw, trep, cw, rw);
	line("  the same, WULT_CSV_THREADS=0", n, tw0, trep, cw0, rw0);
	line("wult report DIR", n, tr, trep, cr, rr);
	line("  the same, WULT_CSV_THREADS=0", n, tr0, trep, cr0, rr0);
	printf("    worker threads: write %.2fx, read %.2fx faster (wall time)\n", tw0 / tw,
	       tr0 / tr);
	printf("    read back and written again: %s with threads, %s without\n",
	       same ? "byte for byte the same" : "DIFFERENT",
	       same0 ? "byte for byte the same" : "DIFFERENT");
	printf("    CPU time against the baseline's: write %.2fx, read %.2fx (%.2fx, %.2fx "
	       "without threads)\n", cw / crep, cr / crep, cw0 / crep, cr0 / crep);
	/* Kept for the next run: CPU-time ratios without worker threads,
	 * which the machine's load moves least (with threads, the CPU time
	 * depends on whether they ran side by side). The goals are judged on
	 * wall time. */
	ratios[2] = crep / cw0;
	ratios[3] = crep / cr0;
	bench_goal("CSV write rows/s", n / tw / 1e6, "M/s", GOAL_WRITE / 1e6, 1);
	bench_goal("CSV read rows/s", n / tr / 1e6, "M/s", GOAL_READ / 1e6, 1);
	bench_goal("values the same to the ns", same && same0, "", 1, 1);
	return 0;
}

int main(void)
{
	static const char *const keys[NKEYS] = {
		"write_vs_stdio", "read_vs_stdio", "report_vs_csv_write_cpu",
		"report_vs_csv_read_cpu",
	};
	uint64_t n = bench_env_u64("WULT_BENCH_N", 10000000);
	uint64_t nb = bench_env_u64("WULT_BENCH_BASE_N", 1000000);
	const char *dir = getenv("WULT_BENCH_DIR") ? getenv("WULT_BENCH_DIR") : "/tmp";
	const char *cdir = getenv("WULT_BENCH_CSV_DIR");
	const char *prev = getenv("WULT_BENCH_PREV") ? getenv("WULT_BENCH_PREV") :
			   "build/bench/csv.prev";
	double ratios[NKEYS] = { 0 };

	if (getenv("WULT"))
		wult = getenv("WULT");
	if (!cdir)
		cdir = access("/dev/shm", W_OK) ? dir : "/dev/shm";
	printf("bench_csv: intel wult CSV export and import\n");
	bench_machine();
	if (in_process(cdir, nb, ratios) || end_to_end(dir, cdir, n, ratios))
		return 1;
	return bench_finish("bench_csv", keys, ratios, NULL, NKEYS, prev);
}
