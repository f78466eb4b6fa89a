// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for libwult TSC: reading, conversion against 128-bit reference
 * arithmetic, perf-page parameters, calibration against the kernel's rate,
 * the cross-CPU evaluation on every available CPU, and bad inputs.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/tsc.h>

#include "tsc_internal.h"
#include "wt.h"

typedef unsigned __int128 u128;

#define RANDOM_TICKS	200000
#define CALIB_PPM	50
#define EVAL_MAX_MS	10000

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	/* xorshift64*: plenty for spreading test points. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* What the conversion stands for: zero + floor(ticks * mult / 2^shift) mod 2^64. */
static uint64_t ref_ns(const struct wult_tsc_conv *c, uint64_t t)
{
	return c->zero + (uint64_t)(((u128)t * c->mult) >> c->shift);
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Conversion within 1 ns of the reference over [0, max_ticks]; returns failures. */
static unsigned long check_range(const struct wult_tsc_conv *c)
{
	uint64_t edges[64], t, m = c->max_ticks;
	unsigned long bad = 0;
	size_t n = 0, i;
	int k;

	edges[n++] = 0;
	edges[n++] = 1;
	edges[n++] = c->rem_mask;
	edges[n++] = c->rem_mask + 1;
	edges[n++] = c->rem_mask + 2;
	edges[n++] = m;
	edges[n++] = m - 1;
	edges[n++] = m / 2;
	/* Both sides of a few modulus boundaries, low and high in the range. */
	for (k = 1; k <= 4 && n + 4 <= sizeof(edges) / sizeof(edges[0]); k++) {
		t = (m >> c->shift) / (uint64_t)k << c->shift;
		edges[n++] = t;
		edges[n++] = t ? t - 1 : 0;
		edges[n++] = ((uint64_t)k << c->shift) - 1;
		edges[n++] = (uint64_t)k << c->shift;
	}
	for (i = 0; i < n; i++) {
		if (edges[i] > m)
			continue;
		if (absdiff(wult_tsc_conv_ns(c, edges[i]), ref_ns(c, edges[i])) > 1) {
			if (!bad++)
				printf("  edge %" PRIu64 ": %" PRIu64 " vs %" PRIu64 "\n", edges[i],
				       wult_tsc_conv_ns(c, edges[i]), ref_ns(c, edges[i]));
		}
	}
	for (i = 0; i < RANDOM_TICKS; i++) {
		/* Half uniform, half log-uniform so small values get covered too. */
		t = i & 1 ? rnd() % (m == UINT64_MAX ? m : m + 1) : rnd() >> (rnd() % 64);
		if (t > m)
			continue;
		if (absdiff(wult_tsc_conv_ns(c, t), ref_ns(c, t)) > 1)
			bad++;
	}
	return bad;
}

static void test_conv_from_hz(void)
{
	static const uint64_t rates[] = {
		1, 1000, 1000000, 19200000, 999999999, 1000000000, 1000000001,
		2596098021ull, 2596098000ull, 3000000007ull, 5000000000ull,
		1000000000000ull, UINT64_MAX,
	};
	struct wult_tsc_conv c;
	char msg[128];
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		uint64_t hz = rates[i];
		int ret = wult_tsc_conv_from_hz(&c, hz, msg, sizeof(msg));

		WT_CHECK(!ret, "from_hz(%" PRIu64 "): %s", hz, msg);
		if (ret)
			continue;
		/* Largest shift: one more would overflow the remainder product. */
		WT_CHECK(((((u128)1 << c.shift) - 1) * c.mult) <= UINT64_MAX,
			 "hz %" PRIu64 ": remainder product overflows", hz);
		if (c.shift < 63) {
			u128 m1 = (((u128)1000000000 << (c.shift + 1)) + hz / 2) / hz;

			WT_CHECK(!m1 || m1 > UINT64_MAX ||
				 (((u128)1 << (c.shift + 1)) - 1) * m1 > UINT64_MAX,
				 "hz %" PRIu64 ": shift %u is not the largest", hz, c.shift);
		}
		WT_CHECK(c.rem_mask == (((uint64_t)1 << c.shift) - 1), "rem_mask");
		WT_EQ(check_range(&c), 0);
		/* max_ticks is the last one: one more overflows the ns. */
		if (c.max_ticks < UINT64_MAX)
			WT_CHECK((((u128)(c.max_ticks + 1) * c.mult) >> c.shift) > UINT64_MAX,
				 "hz %" PRIu64 ": max_ticks %" PRIu64 " not the limit", hz, c.max_ticks);
		/* Against the exact rate: 1 ns plus the documented drift. */
		if (hz >= 1000) {
			unsigned long drift_bad = 0;
			int j;

			for (j = 0; j < 10000; j++) {
				uint64_t t = rnd() % (c.max_ticks / 2 + 1);
				uint64_t exact = (uint64_t)((u128)t * 1000000000u / hz);

				if (absdiff(wult_tsc_conv_ns(&c, t), exact) >
				    1 + (t >> (c.shift + 1)))
					drift_bad++;
			}
			WT_CHECK(!drift_bad, "hz %" PRIu64 ": %lu points off the exact rate", hz, drift_bad);
		}
	}

	/* GHz TSC: the TSC itself wraps first, after ~225 years at 2.6 GHz. */
	WT_CHECK(!wult_tsc_conv_from_hz(&c, 2596098021ull, msg, sizeof(msg)), "%s", msg);
	WT_EQ(c.shift, 32);
	WT_CHECK(c.max_ticks == UINT64_MAX, "max_ticks %" PRIu64, c.max_ticks);
	WT_CHECK(wult_tsc_conv_secs_to_wrap(&c, 0) > 7.0e9 && wult_tsc_conv_secs_to_wrap(&c, 0) < 7.2e9,
		 "secs to wrap %g", wult_tsc_conv_secs_to_wrap(&c, 0));
	WT_CHECK(wult_tsc_conv_secs_to_wrap(&c, UINT64_MAX) == 0, "wrap at the end");
	/* 1 MHz: the ns overflow first, at 2^64 ns (~584 years). */
	WT_CHECK(!wult_tsc_conv_from_hz(&c, 1000000, msg, sizeof(msg)), "%s", msg);
	WT_CHECK(wult_tsc_conv_secs_to_wrap(&c, 0) > 1.84e10 && wult_tsc_conv_secs_to_wrap(&c, 0) < 1.85e10,
		 "secs to wrap %g", wult_tsc_conv_secs_to_wrap(&c, 0));

	WT_CHECK(!wult_tsc_conv_from_khz(&c, 2596098, msg, sizeof(msg)), "%s", msg);
	WT_EQ(c.hz, 2596098000ull);
	WT_CHECK(absdiff(wult_tsc_conv_ns(&c, 2596098000ull), 1000000000) <= 1, "1 s of ticks: %" PRIu64 " ns",
		 wult_tsc_conv_ns(&c, 2596098000ull));
}

/* perf's documented formula, literally (include/uapi/linux/perf_event.h). */
static uint64_t perf_formula(const struct perf_event_mmap_page *pg, uint64_t cyc)
{
	uint64_t quot = cyc >> pg->time_shift;
	uint64_t rem = cyc & (((uint64_t)1 << pg->time_shift) - 1);

	return pg->time_zero + quot * pg->time_mult + ((rem * pg->time_mult) >> pg->time_shift);
}

static void test_conv_from_perf(void)
{
	/* time_zero as a kernel with TSC counting since before boot sets it. */
	static const struct { uint32_t mult; uint16_t shift; uint64_t zero; } pages[] = {
		{ 1654393361u, 32, (uint64_t)-1234567890123ll },
		{ 827196680u, 31, 987654321ull },
		{ 3355443200u, 31, 0 },
		{ 1u << 31, 31, (uint64_t)-1 },
	};
	struct perf_event_mmap_page pg;
	struct wult_tsc_conv c;
	unsigned long bad;
	char msg[128];
	size_t i;
	int j, ret;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		memset(&pg, 0, sizeof(pg));
		pg.cap_user_time = 1;
		pg.cap_user_time_zero = 1;
		pg.time_mult = pages[i].mult;
		pg.time_shift = pages[i].shift;
		pg.time_zero = pages[i].zero;
		ret = wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg));
		WT_CHECK(!ret, "from_perf: %s", msg);
		if (ret)
			continue;
		for (bad = 0, j = 0; j < RANDOM_TICKS; j++) {
			uint64_t t = rnd() % (c.max_ticks == UINT64_MAX ? c.max_ticks : c.max_ticks + 1);

			if (wult_tsc_conv_ns(&c, t) != perf_formula(&pg, t))
				bad++;
		}
		WT_CHECK(!bad, "page %zu: %lu values differ from perf's formula", i, bad);
		WT_EQ(check_range(&c), 0);
	}

	memset(&pg, 0, sizeof(pg));
	pg.time_mult = 1;
	WT_EQ(wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg)), -EOPNOTSUPP);
	pg.cap_user_time = pg.cap_user_time_zero = pg.cap_user_time_short = 1;
	WT_EQ(wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg)), -EOPNOTSUPP);
	pg.cap_user_time_short = 0;
	pg.time_mult = 0;
	WT_EQ(wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg)), -ERANGE);

	/* The kernel's own page, where the guest kernel offers TSC time. */
	ret = wult_tsc_conv_from_perf_self(&c, msg, sizeof(msg));
	if (ret) {
		printf("SKIP perf page of this kernel: %s\n", msg);
	} else {
		uint64_t khz = 0;

		WT_CHECK(c.shift <= 32 && c.mult, "perf mult %" PRIu64 " shift %u", c.mult, c.shift);
		if (!wult_tsc_kernel_khz(&khz, NULL, NULL, 0))
			WT_CHECK(absdiff(c.hz, khz * 1000) < khz / 1000 + 2,
				 "perf rate %" PRIu64 " Hz vs tsc_khz %" PRIu64, c.hz, khz);
	}
}

static void test_read(void)
{
	cpu_set_t mine, one;
	unsigned int cpu;
	uint64_t a, b;
	int i;

	a = wult_tsc_read();
	b = wult_tsc_read_ordered();
	WT_CHECK(b > a, "TSC did not advance: %" PRIu64 " then %" PRIu64, a, b);

	WT_CHECK(!sched_getaffinity(0, sizeof(mine), &mine), "sched_getaffinity");
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &mine))
			continue;
		CPU_ZERO(&one);
		CPU_SET(i, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		a = wult_tsc_read_cpu(&cpu);
		WT_EQ(cpu, i);
		b = wult_tsc_read_fenced(&cpu);
		WT_EQ(cpu, i);
		WT_CHECK(b > a, "rdtscp went backwards on CPU %d", i);
	}
	sched_setaffinity(0, sizeof(mine), &mine);
}

static void test_calibrate(void)
{
	struct wult_tsc_calib cal;
	const char *src = NULL;
	char msg[256], why[320];
	uint64_t khz = 0;
	double ppm;
	int ret;

	ret = wult_tsc_calibrate(NULL, &cal, msg, sizeof(msg));
	WT_CHECK(!ret, "calibrate: %s", msg);
	if (ret)
		return;
	WT_CHECK(cal.windows >= 5 && cal.windows + cal.rejected == 9, "windows %u rejected %u",
		 cal.windows, cal.rejected);
	WT_CHECK(cal.duration_ns < 1000000000ull, "calibration took %" PRIu64 " ns", cal.duration_ns);
	ret = wult_tsc_kernel_khz(&khz, &src, msg, sizeof(msg));
	if (ret) {
		snprintf(why, sizeof(why), "calibration vs kernel rate: %s", msg);
		WT_SKIP(why);
		return;
	}
	ppm = ((double)cal.hz - (double)khz * 1e3) / ((double)khz * 1e3) * 1e6;
	printf("calibrated %" PRIu64 " Hz, kernel %" PRIu64 " kHz (%s): %+.3f ppm\n",
	       cal.hz, khz, src, ppm);
	WT_CHECK(ppm < CALIB_PPM && ppm > -CALIB_PPM, "%+.3f ppm from the kernel's rate", ppm);
}

static void test_eval(void)
{
	struct wult_tsc_eval_opts o;
	struct wult_tsc_eval_summary s;
	struct wult_tsc_eval_cpu e;
	struct wult_tsc_eval *ev;
	cpu_set_t mine, one;
	char msg[256];
	unsigned int i;
	int ret, first = -1, c;

	WT_CHECK(!sched_getaffinity(0, sizeof(mine), &mine), "sched_getaffinity");
	/* Generous time budget: make check may run us next to busy tests. */
	wult_tsc_eval_opts_init(&o);
	o.max_ms = EVAL_MAX_MS;
	ret = wult_tsc_eval_run(NULL, &o, &ev, msg, sizeof(msg));
	if (ret == -EAGAIN) {
		WT_SKIP(msg);
		return;
	}
	WT_CHECK(!ret, "eval: %s", msg);
	if (ret)
		return;
	wult_tsc_eval_summary(ev, &s);
	WT_EQ(s.ncpus, CPU_COUNT(&mine));
	for (i = 0, c = 0; i < s.ncpus; i++) {
		WT_CHECK(!wult_tsc_eval_cpu(ev, i, &e), "cpu %u", i);
		while (c < CPU_SETSIZE && !CPU_ISSET(c, &mine))
			c++;
		if (first < 0)
			first = c;
		WT_EQ(e.cpu, c);
		c++;
		WT_CHECK(e.hz > 0, "CPU %d: no rate", e.cpu);
		if (i) {
			WT_CHECK(e.triples >= (unsigned long)s.windows_kept * 32,
				 "CPU %d: %lu triples in %u windows", e.cpu, e.triples, s.windows_kept);
			WT_CHECK(e.shift_lo <= e.shift_hi, "CPU %d: shift [%" PRId64 ", %" PRId64 "]",
				 e.cpu, e.shift_lo, e.shift_hi);
			WT_CHECK(e.switch_lo <= e.switch_hi, "CPU %d: switching bounds", e.cpu);
		}
	}
	WT_EQ(s.base_cpu, first);
	WT_CHECK(s.windows_kept >= 1, "no window kept");
	WT_CHECK(s.advancing, "TSC not advancing");
	printf("eval: %u CPUs, shift bound %" PRIu64 " ticks, %u kept / %u disturbed, %.1f ms\n",
	       s.ncpus, s.shift_bound, s.windows_kept, s.windows_disturbed, s.duration_ns / 1e6);
	wult_tsc_eval_verdict(ev, msg, sizeof(msg));
	wult_tsc_eval_free(ev);

	/* One CPU: nothing to compare, but it must still work. */
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	ret = wult_tsc_eval_run(&one, &o, &ev, msg, sizeof(msg));
	WT_CHECK(!ret, "single-CPU eval: %s", msg);
	if (!ret) {
		wult_tsc_eval_summary(ev, &s);
		WT_EQ(s.ncpus, 1);
		WT_EQ(s.shift_bound, 0);
		wult_tsc_eval_free(ev);
	}
}

/*
 * Plant a known shift on the second CPU and check the evaluation brackets it;
 * one well beyond the probes' latency must show up as backward steps and an
 * unfit verdict.
 */
static void test_eval_skew(void)
{
	static const int64_t shifts[] = { 40, -40, 30000, -30000 };
	struct wult_tsc_eval_summary s;
	struct wult_tsc_eval_opts o;
	struct wult_tsc_eval_cpu e;
	struct wult_tsc_eval *ev;
	cpu_set_t mine;
	int64_t skew[CPU_SETSIZE] = { 0 };
	char msg[512];
	size_t i;
	int ret, fit;

	sched_getaffinity(0, sizeof(mine), &mine);
	if (CPU_COUNT(&mine) < 2) {
		WT_SKIP("planted shifts need two CPUs");
		return;
	}
	wult_tsc_eval_opts_init(&o);
	o.max_ms = EVAL_MAX_MS;
	for (i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		skew[1] = shifts[i];
		ret = wult_tsc__eval_run_skewed(NULL, &o, skew, &ev, msg, sizeof(msg));
		if (ret == -EAGAIN) {
			WT_SKIP(msg);
			continue;
		}
		WT_CHECK(!ret, "skewed eval: %s", msg);
		if (ret)
			continue;
		wult_tsc_eval_summary(ev, &s);
		wult_tsc_eval_cpu(ev, 1, &e);
		WT_CHECK(e.shift_lo <= shifts[i] && shifts[i] <= e.shift_hi,
			 "planted %" PRId64 ", found [%" PRId64 ", %" PRId64 "]", shifts[i],
			 e.shift_lo, e.shift_hi);
		WT_CHECK(e.switch_lo <= shifts[i] && shifts[i] <= e.switch_hi,
			 "planted %" PRId64 ", switching found [%" PRId64 ", %" PRId64 "]", shifts[i],
			 e.switch_lo, e.switch_hi);
		fit = wult_tsc_eval_verdict(ev, msg, sizeof(msg));
		if (shifts[i] > 1000 || shifts[i] < -1000) {
			WT_CHECK(s.violations > 0, "planted %" PRId64 ": no backward step seen", shifts[i]);
			WT_CHECK(!fit, "planted %" PRId64 " judged fit", shifts[i]);
		} else {
			WT_CHECK(fit, "planted %" PRId64 " judged unfit: %s", shifts[i], msg);
		}
		wult_tsc_eval_free(ev);
	}
}

static void test_bad_inputs(void)
{
	struct wult_tsc_eval_opts o;
	struct wult_tsc_calib_opts co = { .windows = 100000 };
	struct wult_tsc_calib cal;
	struct wult_tsc_conv c;
	struct wult_tsc_eval *ev = (struct wult_tsc_eval *)&c;
	struct wult_tsc_eval_cpu e;
	cpu_set_t none;
	char msg[128], tiny[1];
	uint64_t khz;

	msg[0] = '\0';
	WT_EQ(wult_tsc_conv_from_hz(&c, 0, msg, sizeof(msg)), -EINVAL);
	WT_CHECK(strstr(msg, "zero"), "message '%s'", msg);
	WT_EQ(wult_tsc_conv_from_hz(&c, 0, NULL, 0), -EINVAL);
	WT_EQ(wult_tsc_conv_from_hz(&c, 0, NULL, 100), -EINVAL);
	WT_EQ(wult_tsc_conv_from_hz(&c, 0, tiny, sizeof(tiny)), -EINVAL);
	WT_EQ(tiny[0], '\0');
	WT_EQ(wult_tsc_conv_from_hz(NULL, 1000, msg, sizeof(msg)), -EINVAL);
	WT_EQ(wult_tsc_conv_from_khz(&c, 0, msg, sizeof(msg)), -EINVAL);
	WT_EQ(wult_tsc_conv_from_khz(&c, UINT64_MAX, msg, sizeof(msg)), -ERANGE);
	WT_EQ(wult_tsc_conv_from_perf(&c, NULL, msg, sizeof(msg)), -EINVAL);
	WT_EQ(wult_tsc_conv_from_perf(NULL, NULL, NULL, 0), -EINVAL);
	WT_EQ(wult_tsc_conv_from_perf_self(NULL, msg, sizeof(msg)), -EINVAL);
	WT_CHECK(wult_tsc_conv_secs_to_wrap(NULL, 0) == 0, "NULL wrap");
	WT_EQ(wult_tsc_calibrate(NULL, NULL, msg, sizeof(msg)), -EINVAL);
	WT_EQ(wult_tsc_calibrate(&co, &cal, msg, sizeof(msg)), -EINVAL);
	WT_EQ(wult_tsc_kernel_khz(NULL, NULL, msg, sizeof(msg)), -EINVAL);
	(void)khz;
	WT_EQ(wult_tsc_info_get(NULL, msg, sizeof(msg)), -EINVAL);

	CPU_ZERO(&none);
	WT_EQ(wult_tsc_eval_run(&none, NULL, &ev, msg, sizeof(msg)), -EINVAL);
	WT_CHECK(ev == NULL, "result set on error");
	WT_CHECK(strstr(msg, "empty"), "message '%s'", msg);
	CPU_SET(CPU_SETSIZE - 1, &none);
	WT_EQ(wult_tsc_eval_run(&none, NULL, &ev, msg, sizeof(msg)), -EINVAL);
	WT_CHECK(strstr(msg, "affinity"), "message '%s'", msg);
	WT_EQ(wult_tsc_eval_run(NULL, NULL, NULL, msg, sizeof(msg)), -EINVAL);
	wult_tsc_eval_opts_init(&o);
	o.probes = 1;
	WT_EQ(wult_tsc_eval_run(NULL, &o, &ev, msg, sizeof(msg)), -EINVAL);
	wult_tsc_eval_opts_init(&o);
	o.good_windows = 0;
	WT_EQ(wult_tsc_eval_run(NULL, &o, &ev, NULL, 0), -EINVAL);
	wult_tsc_eval_opts_init(NULL);
	WT_EQ(wult_tsc_eval_cpu(NULL, 0, &e), -EINVAL);
	WT_EQ(wult_tsc_eval_verdict(NULL, msg, sizeof(msg)), 0);
	WT_EQ(wult_tsc_eval_verdict(NULL, NULL, 0), 0);
	wult_tsc_eval_summary(NULL, NULL);
	wult_tsc_eval_free(NULL);
}

int main(void)
{
	test_read();
	test_conv_from_hz();
	test_conv_from_perf();
	test_calibrate();
	test_eval();
	test_eval_skew();
	test_bad_inputs();
	return wt_done();
}
