// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark for libwult TSC: the cost of a ticks-to-ns conversion against
 * the same loop without it and against clock_gettime(CLOCK_MONOTONIC), all
 * in this run; calibration time; evaluation time and its shift bound.
 * Figures are checked against the goals; a miss prints GOAL MISSED
 * but the exit status stays 0 (it is a measurement, not a test).
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include <wult/tsc.h>

#define OPS		100000000ull	/* conversions per timed loop */
#define CLOCK_OPS	10000000ull
#define REPS		5		/* best of, to shed VM and neighbour noise */
#define STEP		0x9e3779b97f4a7c15ull	/* odd: visits quotient and remainder bits */

#define GOAL_CONV_NS	0.5	/* conversion over the bare loop, ns/op */
#define GOAL_CALIB_S	1.0
#define GOAL_EVAL_S	0.5
#define GOAL_SHIFT	1000	/* ticks */

static int missed;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/*
 * Per-op loops are timed in this thread's CPU time, so other processes on
 * the VM (builds, fuzzers) stretch none of them; elapsed time is used for
 * calibration and evaluation, which wait and sleep by design.
 */
static double cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/* Hides the value from the compiler so it cannot vectorise or fold either loop. */
static inline uint64_t opaque(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* Out of line, so both loops get code placement of their own, not main()'s. */
__attribute__((noinline)) static double bare_loop(uint64_t *sink)
{
	uint64_t t = 12345, sum = 0, i;
	double t0 = cpu_s();

	for (i = 0; i < OPS; i++) {
		t = opaque(t + STEP);
		sum += t;
	}
	*sink += sum;
	return (cpu_s() - t0) * 1e9 / OPS;
}

__attribute__((noinline)) static double conv_loop(const struct wult_tsc_conv *c, uint64_t *sink)
{
	uint64_t t = 12345, sum = 0, i;
	double t0 = cpu_s();

	for (i = 0; i < OPS; i++) {
		t = opaque(t + STEP);
		sum += wult_tsc_conv_ns(c, t);
	}
	*sink += sum;
	return (cpu_s() - t0) * 1e9 / OPS;
}

static double clock_loop(uint64_t *sink)
{
	struct timespec ts;
	uint64_t sum = 0, i;
	double t0 = cpu_s();

	for (i = 0; i < CLOCK_OPS; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (uint64_t)ts.tv_nsec;
	}
	*sink += sum;
	return (cpu_s() - t0) * 1e9 / CLOCK_OPS;
}

static double rdtsc_loop(uint64_t *sink)
{
	uint64_t sum = 0, i;
	double t0 = cpu_s();

	for (i = 0; i < CLOCK_OPS; i++)
		sum += wult_tsc_read_ordered();
	*sink += sum;
	return (cpu_s() - t0) * 1e9 / CLOCK_OPS;
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

static void goal(const char *what, double val, double limit, const char *unit)
{
	int ok = val < limit;

	printf("  goal %-34s %10.3f %-6s < %g: %s\n", what, val, unit, limit, ok ? "met" : "GOAL MISSED");
	if (!ok)
		missed++;
}

int main(void)
{
	double bare = 1e9, conv = 1e9, clk = 1e9, tsc = 1e9, t0, calib_s, eval_s;
	struct wult_tsc_eval_summary s;
	struct wult_tsc_calib cal;
	struct wult_tsc_conv c;
	struct wult_tsc_eval *ev;
	uint64_t sink = 0;
	char msg[256];
	int r;

	t0 = now_s();
	if (wult_tsc_calibrate(NULL, &cal, msg, sizeof(msg))) {
		printf("bench_tsc: calibration failed: %s\n", msg);
		return 1;
	}
	calib_s = now_s() - t0;
	if (wult_tsc_conv_from_hz(&c, cal.hz, msg, sizeof(msg))) {
		printf("bench_tsc: %s\n", msg);
		return 1;
	}

	for (r = 0; r < REPS; r++) {
		bare = min2(bare, bare_loop(&sink));
		conv = min2(conv, conv_loop(&c, &sink));
		clk = min2(clk, clock_loop(&sink));
		tsc = min2(tsc, rdtsc_loop(&sink));
	}

	t0 = now_s();
	if (wult_tsc_eval_run(NULL, NULL, &ev, msg, sizeof(msg))) {
		printf("bench_tsc: evaluation failed: %s\n", msg);
		return 1;
	}
	eval_s = now_s() - t0;
	wult_tsc_eval_summary(ev, &s);
	wult_tsc_eval_free(ev);

	printf("bench_tsc: %" PRIu64 " Hz TSC, mult %" PRIu64 " shift %u (sink %" PRIx64 ")\n",
	       cal.hz, c.mult, c.shift, sink & 0xff);
	printf("  conversion loop   %8.3f ns/op  (%llu varied ticks, best of %d, thread CPU time)\n",
	       conv, OPS, REPS);
	printf("  bare loop         %8.3f ns/op  -> conversion adds %.3f ns/op (%.2f TSC ticks), "
	       "%.2fx the bare loop\n", bare, conv - bare, (conv - bare) * (double)cal.hz * 1e-9,
	       conv / bare);
	printf("  clock_gettime     %8.3f ns/op  -> conversion loop is %.3fx of it\n", clk, conv / clk);
	printf("  lfence;rdtsc      %8.3f ns/op\n", tsc);
	printf("  calibration       %8.3f s      (%u windows kept, %u rejected, spread %.2f ppm)\n",
	       calib_s, cal.windows, cal.rejected, cal.spread_ppm);
	printf("  evaluation        %8.3f s      (%u CPUs, %u windows kept, %u disturbed), "
	       "shift bound %" PRIu64 " ticks (%" PRIu64 " ns)\n",
	       eval_s, s.ncpus, s.windows_kept, s.windows_disturbed, s.shift_bound, s.shift_bound_ns);
	goal("conversion over bare loop", conv - bare, GOAL_CONV_NS, "ns/op");
	goal("calibration time", calib_s, GOAL_CALIB_S, "s");
	goal("evaluation time", eval_s, GOAL_EVAL_S, "s");
	goal("shift bound", (double)s.shift_bound, GOAL_SHIFT, "ticks");
	printf("bench_tsc: %s\n", missed ? "GOAL MISSED" : "all goals met");
	return 0;
}
