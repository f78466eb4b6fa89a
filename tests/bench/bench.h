/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the end-to-end benchmarks share: running a command and timing
 * it (wall, CPU, peak RSS), the machine line, goal lines, and the previous
 * run's ratios (a fall of more than 20% fails the benchmark).
 */
#ifndef WULT_BENCH_H
#define WULT_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_REGRESSION	0.8	/* a ratio below 0.8x the previous run's fails */
#define BENCH_REPS		5	/* runs of each command, the best kept */

static int bench_missed;
static int bench_skipped;	/* baselines or figures not measured, each said */
/* the machine, as bench_machine() found it: figures are compared only
 * between runs on the same one */
static char bench_host[512] = "?";

/* A figure that could not be measured: said, and counted at the end. */
#define bench_skip(...) do { printf("  SKIP "); printf(__VA_ARGS__); printf("\n"); \
			     bench_skipped++; } while (0)

/*
 * A warm page cache that stays warm: @path's pages locked in memory until
 * bench_cool(). The goals are set on a warm page cache, and a file on this
 * VM's disk does not stay in it: the host's proactive reclaim took 12% of
 * a 2 GB benchmark file's pages within minutes of its writing, a different
 * part each time, so each run read some of it back from disk. (tmpfs
 * keeps its pages too, but maps each 4 KiB page apart where ext4 maps
 * large folios: it measures tmpfs.) Without the lock (a limit, no memory)
 * the runs go on, said once.
 */
struct bench_warm {
	void *p;
	size_t len;
};

static inline void bench_warm(const char *path, struct bench_warm *w)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	w->p = NULL;
	if (fd < 0 || fstat(fd, &st) || !st.st_size) {
		if (fd >= 0)
			close(fd);
		return;
	}
	w->len = st.st_size;
	w->p = mmap(NULL, w->len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (w->p == MAP_FAILED || mlock(w->p, w->len)) {
		printf("  note: %s: page cache not locked (%s): runs may read the disk\n", path,
		       strerror(errno));
		if (w->p != MAP_FAILED)
			munmap(w->p, w->len);
		w->p = NULL;
	}
}

static inline void bench_cool(struct bench_warm *w)
{
	if (w->p)
		munmap(w->p, w->len);
	w->p = NULL;
}

/* CPU seconds (user + system) of the last bench_run() or bench_best(). */
static double bench_last_cpu;

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t bench_env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

static inline void bench_goal(const char *what, double val, const char *unit, double limit,
			      int above)
{
	int ok = above ? val >= limit : val <= limit;

	printf("  goal %-30s %10.2f %-5s %s %g: %s\n", what, val, unit, above ? ">=" : "<=",
	       limit, ok ? "met" : "GOAL MISSED");
	bench_missed |= !ok;
}

/*
 * Runs @cmd (sh -c, output to /dev/null): wall seconds, or -1 when it
 * fails; *@rss_mb gets the peak RSS of the process sh ran (sh execs a
 * simple command).
 */
static inline double bench_run(const char *cmd, double *rss_mb)
{
	struct rusage ru;
	double t0 = bench_now();
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("  FAILED: %s\n", cmd);
		return -1;
	}
	if (rss_mb)
		*rss_mb = ru.ru_maxrss / 1024.0;
	bench_last_cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
			 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	return bench_now() - t0;
}

/* Best wall time of BENCH_REPS runs of @cmd (peak RSS and CPU time of the
 * best one, the CPU time in bench_last_cpu).
 */
static inline double bench_best(const char *cmd, double *rss_mb)
{
	double best = -1, t, rss = 0, cpu = 0;
	int i;

	for (i = 0; i < BENCH_REPS; i++) {
		t = bench_run(cmd, &rss);
		if (t < 0)
			return -1;
		if (best < 0 || t < best) {
			best = t;
			cpu = bench_last_cpu;
			if (rss_mb)
				*rss_mb = rss;
		}
	}
	bench_last_cpu = cpu;
	return best;
}

/*
 * A command timed with others in rounds: a shell command, or @fn(@arg) in
 * this process. best: its best wall time (0: not run, -1: failed), with
 * that run's CPU time and peak RSS.
 */
struct bench_cmd {
	char cmd[4096];
	double (*fn)(const char *arg);
	const char *arg;
	int reps;		/* rounds it runs in (0: all) */
	double best, cpu, rss;
	/* every run's wall time; their median and range (bench_rounds()) */
	double t[BENCH_REPS];
	double tr[BENCH_REPS];	/* the same by round (0: not run that round) */
	int n;
	double med, min, max;
};

static inline int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Each command once per round, BENCH_REPS rounds, each keeping its best
 * run: a slow minute on a shared machine then slows one run of every
 * command rather than all the runs of one, which would move the ratios
 * between them. Commands without cmd or fn are skipped; one that fails is
 * not run again.
 */
static inline void bench_rounds(struct bench_cmd *c, int n)
{
	double t, rss = 0, cpu;
	int r, i;

	for (i = 0; i < n; i++) {
		c[i].best = c[i].n = 0;
		memset(c[i].tr, 0, sizeof(c[i].tr));
	}
	for (r = 0; r < BENCH_REPS; r++) {
		for (i = 0; i < n; i++) {
			if ((!c[i].cmd[0] && !c[i].fn) || c[i].best < 0 ||
			    (c[i].reps && r >= c[i].reps))
				continue;
			cpu = bench_cpu();
			rss = 0;	/* a function's: not measured */
			t = c[i].fn ? c[i].fn(c[i].arg) : bench_run(c[i].cmd, &rss);
			if (c[i].fn)
				bench_last_cpu = bench_cpu() - cpu;
			if (t < 0) {
				c[i].best = -1;
				continue;
			}
			c[i].t[c[i].n++] = t;
			c[i].tr[r] = t;
			if (!c[i].best || t < c[i].best) {
				c[i].best = t;
				c[i].cpu = bench_last_cpu;
				c[i].rss = rss;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (c[i].best <= 0 || !c[i].n)
			continue;
		qsort(c[i].t, c[i].n, sizeof(c[i].t[0]), bench_cmp);
		c[i].min = c[i].t[0];
		c[i].max = c[i].t[c[i].n - 1];
		c[i].med = c[i].n & 1 ? c[i].t[c[i].n / 2] :
			   (c[i].t[c[i].n / 2 - 1] + c[i].t[c[i].n / 2]) / 2;
	}
}

/*
 * The highest ratio @num's time / @den's time of one round (0: no round
 * ran both): how well the ratio did in this run's best round. The two ran
 * a few seconds apart there, so a slow spell of the host weighs on both,
 * where the ratio of their medians may take one's slow round and the
 * other's fast one.
 */
static inline double bench_round_best(const struct bench_cmd *num, const struct bench_cmd *den)
{
	double b = 0;
	int r;

	for (r = 0; r < BENCH_REPS; r++)
		if (num->tr[r] > 0 && den->tr[r] > 0 && num->tr[r] / den->tr[r] > b)
			b = num->tr[r] / den->tr[r];
	return b;
}

/*
 * The hypervisor, as the kernel named it at boot ("Hypervisor detected:
 * KVM", PVM, ...), else cpuid's vendor signature, else "none": the same
 * CPU model is a different machine under another hypervisor (page faults
 * cost several times more under PVM than under KVM).
 */
static inline void bench_hypervisor(char *out, size_t len)
{
	char line[256] = "";
	unsigned int sig[3] = { 0 }, flags = 0;
	FILE *f = popen("dmesg 2>/dev/null | grep -m1 'Hypervisor detected'", "r");

	if (f && fgets(line, sizeof(line), f) && strstr(line, "detected: ")) {
		snprintf(out, len, "%s", strstr(line, "detected: ") + 10);
		out[strcspn(out, "\n")] = '\0';
	}
	if (f)
		pclose(f);
	if (line[0])
		return;
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int a = 1, b, c, d;

		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
		flags = c;
		a = 0x40000000;
		__asm__ volatile("cpuid" : "+a"(a), "=b"(sig[0]), "=c"(sig[1]), "=d"(sig[2]));
	}
#endif
	if (flags & (1U << 31))
		snprintf(out, len, "cpuid '%.12s'", (const char *)sig);
	else
		snprintf(out, len, "none");
}

/* What the machine is and does, so figures can be compared. */
static inline void bench_machine(void)
{
	char line[256], model[256] = "?", hv[128];
	struct utsname u;
	double l1 = 0;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
			snprintf(model, sizeof(model), "%s", strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
	f = fopen("/proc/loadavg", "r");
	if (f && fscanf(f, "%lf", &l1) != 1)
		l1 = -1;
	if (f)
		fclose(f);
	uname(&u);
	bench_hypervisor(hv, sizeof(hv));
	snprintf(bench_host, sizeof(bench_host), "%s, hypervisor %s, %ld CPUs", model, hv,
		 sysconf(_SC_NPROCESSORS_ONLN));
	printf("  machine: %s, kernel %s, load average %.2f before the run\n", bench_host,
	       u.release, l1);
}

/*
 * Compares the @n ratios @val (higher is better, <= 0: not measured),
 * named @key, with the previous run's in @prev, and keeps this run's
 * there. 1 when one fell by more than 20%, in its best round too where
 * @best (NULL: none) gives that (bench_round_best(), on the same scale as
 * @val; <= 0: not known): on a host whose speed moves by a quarter
 * between minutes, a ratio of medians moves that much between runs, while
 * a change that costs 20% costs it in every round.
 */
static inline int bench_regressions(const char *const *key, const double *val,
				    const double *best, int n, const char *prev)
{
	char name[64], line[512], host[512] = "";
	double old;
	int i, bad = 0;
	FILE *f = fopen(prev, "r");

	/* its first line: "machine ...", the host its ratios were measured on */
	if (f && fgets(line, sizeof(line), f) && !strncmp(line, "machine ", 8)) {
		snprintf(host, sizeof(host), "%s", line + 8);
		host[strcspn(host, "\n")] = '\0';
	}
	if (f && strcmp(host, bench_host)) {
		printf("  vs previous run   not compared: it ran on another machine (%s)\n",
		       host[0] ? host : "not recorded");
		fclose(f);
		f = NULL;
		host[0] = 'x';
	}
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lf", name, &old) != 2)
			continue;
		for (i = 0; i < n; i++) {
			double b = best && best[i] > 0 ? best[i] : val[i];
			int worse = b < BENCH_REGRESSION * old;

			if (strcmp(name, key[i]) || val[i] <= 0 || old <= 0)
				continue;
			printf("  vs previous run   %-22s %10.3f", name, val[i]);
			if (best && best[i] > 0)
				printf(" (best round %.3f)", best[i]);
			printf(", was %10.3f: %s\n", old, worse ? best && best[i] > 0 ?
			       "REGRESSION (every round more than 20% worse)" :
			       "REGRESSION (more than 20% worse)" : "ok");
			bad |= worse;
		}
	}
	if (f)
		fclose(f);
	else if (!host[0])
		printf("  vs previous run   none yet (%s)\n", prev);
	f = fopen(prev, "w");
	if (f)
		fprintf(f, "machine %s\n", bench_host);
	for (i = 0; f && i < n; i++)
		fprintf(f, "%s %.6f\n", key[i], val[i]);
	if (f)
		fclose(f);
	return bad;
}

/*
 * A benchmark's last lines: the regression check against @prev (under
 * build/bench/), then whether every goal was met. The exit status.
 */
static inline int bench_finish(const char *bench, const char *const *key, const double *val,
			       const double *best, int n, const char *prev)
{
	const char *res = getenv("WULT_BENCH_RESULTS");
	char when[64];
	time_t now = time(NULL);
	FILE *f;
	int i;

	/*
	 * Every run's ratios, one line each, beside the machine they were
	 * measured on: $WULT_BENCH_RESULTS, by default build/bench/results.txt
	 * (under the working directory, the checkout's for make bench), the
	 * history RESULTS.md's figures are taken from.
	 */
	if (!res) {
		res = "build/bench/results.txt";
		mkdir("build", 0755);
		mkdir("build/bench", 0755);
	}
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	f = fopen(res, "a");
	if (f) {
		fprintf(f, "%s %s [%s]", when, bench, bench_host);
		for (i = 0; i < n; i++)
			fprintf(f, " %s=%.3f", key[i], val[i]);
		fprintf(f, " skipped=%d\n", bench_skipped);
		fclose(f);
	} else {
		printf("  this run's ratios not kept: %s: %s\n", res, strerror(errno));
	}
	if (bench_regressions(key, val, best, n, prev)) {
		printf("%s: REGRESSION\n", bench);
		return 1;
	}
	printf("%s: %s", bench, bench_missed ? "GOAL MISSED" : "all goals met");
	if (bench_skipped)
		printf(", %d skipped (SKIP lines above)", bench_skipped);
	printf("\n");
	return 0;
}

#endif
