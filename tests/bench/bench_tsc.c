// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark for libwult TSC. Conversion: in one run, a bare loop over
 * varied ticks, the same loop converting them with libwult (calibrated
 * parameters, and perf-page parameters), with a plain double multiply, and
 * with a reference 64 x 64 -> 128-bit multiply-shift written here; each one's
 * cost over the bare loop and its largest error against the exact
 * t * 1e9 / hz over the whole 64-bit range. The goal compares libwult with
 * the reference and the double of the same run. Then calibration time and
 * the evaluation's verdict. A miss prints GOAL MISSED but the exit status
 * stays 0 (it is a measurement, not a test).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <wult/tsc.h>

typedef unsigned __int128 u128;
typedef __int128 s128;

#define OPS		100000000ull	/* conversions per timed loop */
#define ERR_OPS		4000000ull	/* conversions checked against the exact value */
#define REPS		5		/* best of, to shed VM and neighbour noise */
#define STEP		0x9e3779b97f4a7c15ull	/* odd, ~2^64 / golden ratio: spans the range */
#define NS_PER_S	1000000000ull
/* libwult may cost this much more than the one-multiply reference (timing noise). */
#define REF_SLACK	1.15
#define CALIB_SLACK	1.5	/* calibration time over the time its windows sleep */
#define TEN_YEARS_S	(10 * 365.25 * 24 * 3600)

struct convs {
	struct wult_tsc_conv cal;	/* from the calibrated rate */
	struct wult_tsc_conv perf;	/* from a perf page such as the kernel writes */
	struct perf_event_mmap_page pg;	/* that page */
	uint64_t ref_mult;		/* round(2^64 * 1e9 / hz) */
	uint64_t ex_hi, ex_lo;		/* ceil(2^128 * 1e9 / hz): exact floors, two multiplies */
	double ns_per_tick;
	uint64_t hz;
};

static int missed;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

/* Hides the value from the compiler so it cannot vectorise or fold the loops. */
static inline uint64_t opaque(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* The methods, one inline function each, so one macro makes every loop. */
static inline uint64_t m_bare(const struct convs *c, uint64_t t)
{
	(void)c;
	return t;
}

static inline uint64_t m_libwult(const struct convs *c, uint64_t t)
{
	return wult_tsc_conv_ns(&c->cal, t);
}

static inline uint64_t m_libwult_perf(const struct convs *c, uint64_t t)
{
	return wult_tsc_conv_ns(&c->perf, t);
}

static inline uint64_t m_double(const struct convs *c, uint64_t t)
{
	return (uint64_t)((double)t * c->ns_per_tick);
}

static inline uint64_t m_ref(const struct convs *c, uint64_t t)
{
	return (uint64_t)(((u128)t * c->ref_mult) >> 64);
}

/*
 * floor(t * 1e9 / hz) for every 64-bit t: a 128-bit multiplier rounded up
 * errs by less than t * hz / (hz * 2^128) < 1 / hz, below the smallest
 * nonzero fraction of the result. What exactness over the whole range costs.
 */
static inline uint64_t m_exact(const struct convs *c, uint64_t t)
{
	return (uint64_t)(((u128)t * c->ex_hi + (((u128)t * c->ex_lo) >> 64)) >> 64);
}

/* Out of line, so each loop gets code placement of its own, not main()'s. */
#define TIMED_LOOP(m)								\
__attribute__((noinline)) static double loop_##m(const struct convs *c, uint64_t *sink) \
{										\
	uint64_t t = 12345, sum = 0, i;						\
	double t0 = cpu_s();							\
										\
	for (i = 0; i < OPS; i++) {						\
		t = opaque(t + STEP);						\
		sum += m_##m(c, t);						\
	}									\
	*sink += sum;								\
	return (cpu_s() - t0) * 1e9 / OPS;					\
}

TIMED_LOOP(bare)
TIMED_LOOP(libwult)
TIMED_LOOP(libwult_perf)
TIMED_LOOP(double)
TIMED_LOOP(ref)
TIMED_LOOP(exact)

struct method {
	const char *name;
	double (*loop)(const struct convs *c, uint64_t *sink);
	uint64_t (*conv)(const struct convs *c, uint64_t t);
	double ns;		/* best time per op */
	double max_err;		/* largest |result - t * 1e9 / hz|, ns */
	uint64_t not_floor;	/* results other than floor(t * 1e9 / hz) */
	double max_err_10y;	/* the same over the first 10 years of ticks */
	uint64_t not_floor_10y;
};

/*
 * Against the exact value, in 128-bit rational arithmetic: ticks spread over
 * [0, range) (0: the whole 64-bit range).
 */
static void measure_error(const struct convs *c, const struct method *m, uint64_t range,
			  double *max_err, uint64_t *not_floor)
{
	uint64_t t = 12345, i;

	for (i = 0; i < ERR_OPS; i++) {
		u128 num;
		s128 diff;
		double e;

		t += STEP;
		if (range)
			t %= range;
		num = (u128)t * NS_PER_S;
		diff = (s128)((u128)m->conv(c, t) * c->hz) - (s128)num;
		e = (double)diff / (double)c->hz;
		if (e < 0)
			e = -e;
		if (e > *max_err)
			*max_err = e;
		*not_floor += m->conv(c, t) != (uint64_t)(num / c->hz);
	}
}

/* The page the kernel would write for this rate (cyc2ns: shift 32 or less). */
static int perf_params(struct convs *c, uint64_t hz, char *msg, size_t len)
{
	struct perf_event_mmap_page *pg = &c->pg;
	unsigned int shift = 32;

	memset(pg, 0, sizeof(*pg));
	while (((((u128)NS_PER_S << shift) + hz / 2) / hz) > UINT32_MAX)
		shift--;
	pg->cap_user_time = pg->cap_user_time_zero = 1;
	pg->time_shift = (uint16_t)shift;
	pg->time_mult = (uint32_t)((((u128)NS_PER_S << shift) + hz / 2) / hz);
	pg->time_zero = (uint64_t)-123456789012345ll;
	return wult_tsc_conv_from_perf(&c->perf, pg, msg, len);
}

/* perf's documented formula, literally: libwult must give the same for every value. */
static uint64_t perf_mismatches(const struct convs *c)
{
	const struct perf_event_mmap_page *pg = &c->pg;
	uint64_t t = 12345, i, bad = 0;

	for (i = 0; i < ERR_OPS; i++) {
		uint64_t quot, rem;

		t += STEP;
		quot = t >> pg->time_shift;
		rem = t & (((uint64_t)1 << pg->time_shift) - 1);
		bad += wult_tsc_conv_ns(&c->perf, t) !=
		       pg->time_zero + quot * pg->time_mult + ((rem * pg->time_mult) >> pg->time_shift);
	}
	return bad;
}

static int setup(struct convs *c, char *msg, size_t len)
{
	struct wult_tsc_calib cal;
	double t0 = clock_s(CLOCK_MONOTONIC), secs;
	int ret = wult_tsc_calibrate(NULL, &cal, msg, len);

	if (ret)
		return ret;
	secs = clock_s(CLOCK_MONOTONIC) - t0;
	printf("  calibration       %8.3f s      %" PRIu64 " Hz (%u windows kept, %u rejected, "
	       "spread %.2f ppm)\n", secs, cal.hz, cal.windows, cal.rejected, cal.spread_ppm);
	{
		struct wult_tsc_calib_opts o;

		wult_tsc_calib_opts_init(&o);
		secs /= o.windows * o.window_us * 1e-6;
		printf("  goal calibration time / its sleeping windows %6.3f < %.2f: %s\n", secs,
		       CALIB_SLACK, secs < CALIB_SLACK ? "met" : "GOAL MISSED");
		missed += secs >= CALIB_SLACK;
	}
	c->hz = cal.hz;
	c->ns_per_tick = 1e9 / (double)cal.hz;
	c->ref_mult = (uint64_t)((((u128)NS_PER_S << 64) + cal.hz / 2) / cal.hz);
	/* Long division of 1e9 * 2^128 by hz (> 1e9), the last digit rounded up. */
	c->ex_hi = (uint64_t)(((u128)NS_PER_S << 64) / cal.hz);
	c->ex_lo = (uint64_t)(((((u128)NS_PER_S << 64) % cal.hz << 64) + cal.hz - 1) / cal.hz);
	ret = wult_tsc_conv_from_hz(&c->cal, cal.hz, msg, len);
	if (!ret)
		ret = perf_params(c, cal.hz, msg, len);
	return ret;
}

static double min2(double a, double b)
{
	return a < b ? a : b;
}

static void print_conversion(const struct convs *c, struct method *ms, size_t n)
{
	size_t i;

	printf("  conversion: %llu varied ticks over the whole 64-bit range per loop, best of %d,\n"
	       "  thread CPU time; error against the exact t * 1e9 / hz on %llu of them, and on\n"
	       "  as many spread over the first 10 years of ticks\n", OPS, REPS, ERR_OPS);
	for (i = 0; i < n; i++) {
		printf("  %-22s %6.3f ns/op", ms[i].name, ms[i].ns);
		if (i)
			printf("  +%.3f ns/op", ms[i].ns - ms[0].ns);
		if (ms[i].conv)
			printf("  max error %11.6f ns, %5.2f%% not the floor; first 10 years: %.6f ns, %.2f%%",
			       ms[i].max_err, 100.0 * (double)ms[i].not_floor / ERR_OPS, ms[i].max_err_10y,
			       100.0 * (double)ms[i].not_floor_10y / ERR_OPS);
		printf("\n");
	}
	printf("  libwult, perf page params: differs from perf's formula on %" PRIu64 " of %llu "
	       "(time_mult %u, time_shift %u, negative time_zero)\n", perf_mismatches(c), ERR_OPS,
	       c->pg.time_mult, c->pg.time_shift);
}

/*
 * The goal, against this run's figures: libwult costs no more than the
 * one-multiply reference (within REF_SLACK) and less than a double
 * multiply, and is never off by a whole ns while the reference may be.
 */
static void conversion_goal(const struct method *bare, const struct method *lw,
			    const struct method *dbl, const struct method *ref)
{
	double over = lw->ns - bare->ns, ref_over = ref->ns - bare->ns, dbl_over = dbl->ns - bare->ns;
	int ok = over <= ref_over * REF_SLACK && over < dbl_over && lw->max_err < 1.0;

	printf("  goal libwult +%.3f ns/op <= %.2f x reference +%.3f and < double +%.3f,\n"
	       "       max error %.6f ns < 1 (reference %.6f, double %.1f): %s\n",
	       over, REF_SLACK, ref_over, dbl_over, lw->max_err, ref->max_err, dbl->max_err,
	       ok ? "met" : "GOAL MISSED");
	missed += !ok;
}

/* The library with its defaults: it must conclude (fit or unfit), and say how. */
static void evaluation(void)
{
	struct wult_tsc_eval_summary s;
	struct wult_tsc_eval *ev;
	enum wult_tsc_verdict v;
	char msg[512];
	double t0 = clock_s(CLOCK_MONOTONIC), secs;
	int ret;

	ret = wult_tsc_eval_run(NULL, NULL, &ev, msg, sizeof(msg));
	secs = clock_s(CLOCK_MONOTONIC) - t0;
	if (ret) {
		printf("  evaluation        %8.3f s      failed: %s\n", secs, msg);
		printf("  goal evaluation concludes: GOAL MISSED\n");
		missed++;
		return;
	}
	wult_tsc_eval_summary(ev, &s);
	v = wult_tsc_eval_verdict(ev, msg, sizeof(msg));
	printf("  evaluation        %8.3f s      (%u CPUs, %u windows kept, %u disturbed)\n"
	       "                    %s: %s\n", secs, s.ncpus, s.windows_kept, s.windows_disturbed,
	       v == WULT_TSC_FIT ? "fit" : v == WULT_TSC_UNFIT ? "unfit" : "undecided", msg);
	printf("  goal evaluation concludes (fit or unfit): %s\n",
	       v != WULT_TSC_UNDECIDED ? "met" : "GOAL MISSED");
	missed += v == WULT_TSC_UNDECIDED;
	wult_tsc_eval_free(ev);
}

int main(void)
{
	struct method ms[] = {
		{ .name = "bare loop", .loop = loop_bare, .ns = 1e9 },
		{ .name = "libwult", .loop = loop_libwult, .conv = m_libwult, .ns = 1e9 },
		{ .name = "libwult, perf params", .loop = loop_libwult_perf, .ns = 1e9 },
		{ .name = "double multiply", .loop = loop_double, .conv = m_double, .ns = 1e9 },
		{ .name = "reference mul-shift", .loop = loop_ref, .conv = m_ref, .ns = 1e9 },
		{ .name = "exact, two multiplies", .loop = loop_exact, .conv = m_exact, .ns = 1e9 },
	};
	size_t n = sizeof(ms) / sizeof(ms[0]), i;
	struct convs c;
	uint64_t sink = 0;
	char msg[256];
	int r;

	printf("bench_tsc:\n");
	if (setup(&c, msg, sizeof(msg))) {
		printf("bench_tsc: %s\n", msg);
		return 1;
	}
	if (c.hz <= NS_PER_S) {
		printf("bench_tsc: a %" PRIu64 " Hz TSC has no one-multiply reference\n", c.hz);
		return 1;
	}
	for (r = 0; r < REPS; r++)
		for (i = 0; i < n; i++)
			ms[i].ns = min2(ms[i].ns, ms[i].loop(&c, &sink));
	for (i = 0; i < n; i++) {
		if (!ms[i].conv)
			continue;
		measure_error(&c, &ms[i], 0, &ms[i].max_err, &ms[i].not_floor);
		measure_error(&c, &ms[i], (uint64_t)(TEN_YEARS_S * c.hz), &ms[i].max_err_10y,
			      &ms[i].not_floor_10y);
	}
	print_conversion(&c, ms, n);
	conversion_goal(&ms[0], &ms[1], &ms[3], &ms[4]);
	evaluation();
	printf("bench_tsc: %s (sink %" PRIx64 ")\n", missed ? "GOAL MISSED" : "all goals met", sink & 0xff);
	return 0;
}
