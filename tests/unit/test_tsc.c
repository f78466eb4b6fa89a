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

#include "internal/tsc.h"
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

#define NS_PER_S	1000000000ull

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Failures and floor + 1 results seen by check_point(). */
struct tally {
	unsigned long bad, plus1, points;
};

/*
 * The documented contract against the 128-bit rational reference
 * floor(t * 1e9 / hz): the result is that floor, or one more when t is past
 * exact_ticks and t * 1e9 / hz is not an integer.
 */
static void check_point(const struct wult_tsc_conv *c, uint64_t t, struct tally *ty)
{
	u128 num = (u128)t * NS_PER_S, ref = num / c->hz;
	uint64_t r;

	if (t > c->max_ticks)
		return;
	ty->points++;
	r = wult_tsc_conv_ns(c, t);
	if (r == ref)
		return;
	if (r == ref + 1 && t > c->exact_ticks && num % c->hz) {
		ty->plus1++;
		return;
	}
	if (!ty->bad++)
		printf("  hz %" PRIu64 " ticks %" PRIu64 ": %" PRIu64 ", floor %" PRIu64
		       " (exact up to %" PRIu64 ")\n", c->hz, t, r, (uint64_t)ref, c->exact_ticks);
}

/* a^-1 mod m (gcd 1, m > 1), by the extended Euclidean algorithm. */
static uint64_t modinv(uint64_t a, uint64_t m)
{
	__int128 t0 = 0, t1 = 1, r0 = m, r1 = a % m, q, x;

	while (r1) {
		q = r0 / r1;
		x = r0 - q * r1;
		r0 = r1;
		r1 = x;
		x = t0 - q * t1;
		t0 = t1;
		t1 = x;
	}
	return (uint64_t)(t0 < 0 ? t0 + m : t0);
}

/*
 * The first ticks >= base where t * 1e9 / hz has the largest fraction below
 * 1 (1 - gcd(1e9, hz) / hz), so the smallest rounding error shows as
 * floor + 1; they recur every *period ticks. base when there is none (all
 * results integers) or it would pass 2^64.
 */
static uint64_t hardest_from(uint64_t hz, uint64_t base, uint64_t *period)
{
	uint64_t g = NS_PER_S, h = hz, d, t0, t;

	while (h) {
		uint64_t r = g % h;

		g = h;
		h = r;
	}
	d = hz / g;
	*period = d;
	if (d < 2)
		return base;
	/* t * (1e9 / g) = -1 (mod d) */
	t0 = d - modinv((NS_PER_S / g) % d, d);
	t = base - base % d + t0;
	if (t < base - base % d)
		return base;
	if (t < base)
		t = t + d < t ? base : t + d;
	return t;
}

static void check_points(const struct wult_tsc_conv *c, struct tally *ty)
{
	uint64_t m = c->max_ticks, pts[] = {
		0, 1, 2, c->hz - 1, c->hz, c->hz + 1, m, m - 1, m / 2, m / 3,
		c->exact_ticks, c->exact_ticks + 1, c->exact_ticks - 1,
	};
	uint64_t period;
	size_t i;
	int k;

	for (i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
		check_point(c, pts[i], ty);
	for (k = 0; k < 64; k++) {
		uint64_t p = 1ull << k;

		check_point(c, p - 1, ty);
		check_point(c, p, ty);
		check_point(c, p + 1, ty);
		check_point(c, hardest_from(c->hz, p, &period), ty);
		check_point(c, hardest_from(c->hz, m - (m >> (k % 8 + 1)), &period), ty);
	}
	for (i = 0; i < RANDOM_TICKS; i++) {
		/* Half uniform, half log-uniform so small values get covered too. */
		uint64_t t = i & 1 ? rnd() : rnd() >> (rnd() % 64);

		check_point(c, m == UINT64_MAX ? t : t % (m + 1), ty);
	}
}

/*
 * exact_ticks is where the proof says the rounding can first show: the
 * hardest point past it must give floor + 1 and the one before it the floor.
 * Returns 1 when the boundary could be checked (it lies in the range).
 */
static int check_boundary(const struct wult_tsc_conv *c)
{
	uint64_t d, t, fl;

	if (c->exact_ticks >= c->max_ticks)
		return 0;
	t = hardest_from(c->hz, c->exact_ticks + 1, &d);
	if (d < 2 || t <= c->exact_ticks || t > c->max_ticks)
		return 0;
	fl = (uint64_t)((u128)t * NS_PER_S / c->hz);
	WT_CHECK(wult_tsc_conv_ns(c, t) == fl + 1, "hz %" PRIu64 ": ticks %" PRIu64
		 " past exact_ticks %" PRIu64 " gives %" PRIu64 ", floor %" PRIu64,
		 c->hz, t, c->exact_ticks, wult_tsc_conv_ns(c, t), fl);
	if (t >= d) {
		t -= d;
		fl = (uint64_t)((u128)t * NS_PER_S / c->hz);
		WT_CHECK(wult_tsc_conv_ns(c, t) == fl, "hz %" PRIu64 ": ticks %" PRIu64
			 " before exact_ticks gives %" PRIu64 ", floor %" PRIu64,
			 c->hz, t, wult_tsc_conv_ns(c, t), fl);
	}
	return 1;
}

/*
 * Intervals up to exact_ticks long, anywhere in the range: the difference of
 * two conversions is the exact interval's floor or one more.
 */
static unsigned long check_intervals(const struct wult_tsc_conv *c)
{
	unsigned long bad = 0;
	int i;

	for (i = 0; i < RANDOM_TICKS / 4; i++) {
		uint64_t span = c->exact_ticks < 2 ? 1 : c->exact_ticks;
		uint64_t d = i & 1 ? rnd() % span : (rnd() >> (rnd() % 64)) % span;
		uint64_t t1 = rnd() % (c->max_ticks - d + (c->max_ticks - d < UINT64_MAX));
		uint64_t got = wult_tsc_conv_ns(c, t1 + d) - wult_tsc_conv_ns(c, t1);
		uint64_t fl = (uint64_t)((u128)d * NS_PER_S / c->hz);

		if (got != fl && got != fl + 1 && !bad++)
			printf("  hz %" PRIu64 " [%" PRIu64 ", +%" PRIu64 "]: %" PRIu64 " ns, floor %"
			       PRIu64 "\n", c->hz, t1, d, got, fl);
	}
	return bad;
}

static void test_conv_from_hz(void)
{
	static const uint64_t fixed[] = {
		1, 3, 1000, 1000000, 19200000, 999999999, 1000000000, 1000000001,
		2596098021ull, 2596098000ull, 2596145842ull, 3000000007ull, 4294967296ull,
		5000000000ull, 1000000000000ull, UINT64_MAX - 1, UINT64_MAX,
	};
	struct tally ty = { 0 };
	struct wult_tsc_conv c;
	unsigned long plus1_ghz = 0, bounds = 0;
	char msg[128];
	size_t i, n = sizeof(fixed) / sizeof(fixed[0]);

	for (i = 0; i < n + 16; i++) {
		/* Then random rates, most of them in the GHz range TSCs have. */
		uint64_t hz = i < n ? fixed[i] :
			      i & 1 ? NS_PER_S + rnd() % 5000000000ull : rnd() >> (rnd() % 60);
		unsigned long bad0 = ty.bad, plus0 = ty.plus1;
		int ret;

		hz = hz ? hz : 1;
		ret = wult_tsc_conv_from_hz(&c, hz, msg, sizeof(msg));
		WT_CHECK(!ret, "from_hz(%" PRIu64 "): %s", hz, msg);
		if (ret)
			continue;
		WT_CHECK(c.whole == NS_PER_S / hz, "hz %" PRIu64 ": whole %" PRIu64, hz, c.whole);
		WT_CHECK(c.slow == (hz <= NS_PER_S), "hz %" PRIu64 ": slow %d", hz, c.slow);
		WT_CHECK(c.exact_ticks <= c.max_ticks, "hz %" PRIu64 ": exact_ticks past max_ticks", hz);
		/* max_ticks is the last one: one more overflows the ns. */
		if (c.max_ticks < UINT64_MAX)
			WT_CHECK((u128)(c.max_ticks + 1) * c.whole +
				 (((u128)(c.max_ticks + 1) * c.frac) >> 64) > UINT64_MAX,
				 "hz %" PRIu64 ": max_ticks %" PRIu64 " not the limit", hz, c.max_ticks);
		else
			WT_CHECK(hz >= NS_PER_S, "hz %" PRIu64 ": max_ticks UINT64_MAX", hz);
		/* At least 2^64 / hz ticks (seconds of them) stay exact floors. */
		if (hz > NS_PER_S)
			WT_CHECK(c.exact_ticks >= UINT64_MAX / hz, "hz %" PRIu64 ": exact only to %" PRIu64,
				 hz, c.exact_ticks);
		check_points(&c, &ty);
		WT_CHECK(ty.bad == bad0, "hz %" PRIu64 ": %lu points break the contract", hz, ty.bad - bad0);
		if (hz > NS_PER_S)
			plus1_ghz += ty.plus1 - plus0;
		bounds += (unsigned long)check_boundary(&c);
		WT_EQ(check_intervals(&c), 0);
	}
	printf("conversion: %lu points over %zu rates, %lu floor + 1 past exact_ticks (%lu at GHz rates), "
	       "%lu exact_ticks boundaries checked\n", ty.points, n + 16, ty.plus1, plus1_ghz, bounds);
	/* The hard points past exact_ticks must show the rounding: the checks bite. */
	WT_CHECK(plus1_ghz > 0 && bounds >= 10, "rounding never seen: the hard points are not hard");

	/* GHz TSC: one multiply, and the TSC itself wraps first (~225 years at 2.6 GHz). */
	WT_CHECK(!wult_tsc_conv_from_hz(&c, 2596098021ull, msg, sizeof(msg)), "%s", msg);
	WT_CHECK(!c.whole && !c.zero && !c.slow, "GHz conversion not on the one-multiply path");
	WT_CHECK(c.max_ticks == UINT64_MAX, "max_ticks %" PRIu64, c.max_ticks);
	WT_CHECK(wult_tsc_conv_secs_to_wrap(&c, 0) > 7.0e9 && wult_tsc_conv_secs_to_wrap(&c, 0) < 7.2e9,
		 "secs to wrap %g", wult_tsc_conv_secs_to_wrap(&c, 0));
	WT_CHECK(wult_tsc_conv_secs_to_wrap(&c, UINT64_MAX) == 0, "wrap at the end");
	/* The old 32-bit multiplier drifted by ~1 us at an hour of uptime: none now. */
	WT_CHECK(wult_tsc_conv_ns(&c, UINT64_MAX) - (uint64_t)((u128)UINT64_MAX * NS_PER_S / 2596098021ull) <= 1,
		 "at 2^64 - 1 ticks: %" PRIu64, wult_tsc_conv_ns(&c, UINT64_MAX));
	/* 1 MHz: the ns overflow first, at 2^64 ns (~584 years). */
	WT_CHECK(!wult_tsc_conv_from_hz(&c, 1000000, msg, sizeof(msg)), "%s", msg);
	WT_CHECK(wult_tsc_conv_secs_to_wrap(&c, 0) > 1.84e10 && wult_tsc_conv_secs_to_wrap(&c, 0) < 1.85e10,
		 "secs to wrap %g", wult_tsc_conv_secs_to_wrap(&c, 0));

	WT_CHECK(!wult_tsc_conv_from_khz(&c, 2596098, msg, sizeof(msg)), "%s", msg);
	WT_EQ(c.hz, 2596098000ull);
	WT_EQ(wult_tsc_conv_ns(&c, 2596098000ull), 1000000000);
	WT_EQ(wult_tsc_conv_ns(&c, 2596098000ull * 3600 * 24 * 365), 1000000000ull * 3600 * 24 * 365);
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
		{ 5000u, 0, 42 },
		{ 4000000000u, 1, 0 },
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
		WT_EQ(c.exact_ticks, c.max_ticks);
		/* Every 64-bit value, past max_ticks too: perf wraps modulo 2^64 and so do we. */
		for (bad = 0, j = 0; j < RANDOM_TICKS; j++) {
			uint64_t t = j & 1 ? rnd() : rnd() >> (rnd() % 64);

			if (wult_tsc_conv_ns(&c, t) != perf_formula(&pg, t))
				bad++;
		}
		for (j = 0; j < 64; j++) {
			uint64_t t = 1ull << j;

			bad += wult_tsc_conv_ns(&c, t) != perf_formula(&pg, t);
			bad += wult_tsc_conv_ns(&c, t - 1) != perf_formula(&pg, t - 1);
		}
		bad += wult_tsc_conv_ns(&c, UINT64_MAX) != perf_formula(&pg, UINT64_MAX);
		WT_CHECK(!bad, "page %zu: %lu values differ from perf's formula", i, bad);
	}

	memset(&pg, 0, sizeof(pg));
	pg.time_mult = 1;
	WT_EQ(wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg)), -EOPNOTSUPP);
	pg.cap_user_time = pg.cap_user_time_zero = pg.cap_user_time_short = 1;
	WT_EQ(wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg)), -EOPNOTSUPP);
	pg.cap_user_time_short = 0;
	pg.time_mult = 0;
	WT_EQ(wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg)), -ERANGE);
	/* A page whose own formula would overflow its remainder product. */
	pg.time_mult = 0xffffffffu;
	pg.time_shift = 40;
	WT_EQ(wult_tsc_conv_from_perf(&c, &pg, msg, sizeof(msg)), -ERANGE);

	/* The kernel's own page, where the guest kernel offers TSC time. */
	ret = wult_tsc_conv_from_perf_self(&c, msg, sizeof(msg));
	if (ret) {
		char why[192];

		snprintf(why, sizeof(why), "perf page of this kernel: %s", msg);
		WT_SKIP(why);
	} else {
		uint64_t khz = 0;

		WT_CHECK(c.frac || c.whole, "perf page gives a zero rate");
		if (!wult_tsc_kernel_khz(&khz, NULL, NULL, 0))
			WT_CHECK(absdiff(c.hz, khz * 1000) < khz / 1000 + 2,
				 "perf rate %" PRIu64 " Hz vs tsc_khz %" PRIu64, c.hz, khz);
	}
}

/* 1 when /proc/cpuinfo's first flags line names @flag, 0 when not, -1 unread. */
static int cpuinfo_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *tok, *save;
	size_t cap = 0;
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		found = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
			if (!strcmp(tok, flag))
				found = 1;
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * rdtscp's TSC_AUX is the CPU's number only where Linux programs it: when
 * it sets the cpuinfo flag. A hypervisor may let the instruction run
 * without it (PVM: no flag, TSC_AUX the host's CPU), and without cpuid's
 * bit rdtscp may fault. Returns 1 with both, else 0 and why in @why.
 */
static int tsc_aux_is_cpu(int cpuid_bit, char *why, size_t len)
{
	int flag = cpuinfo_flag("rdtscp");

	if (cpuid_bit && flag == 1)
		return 1;
	snprintf(why, len, "TSC_AUX vs the CPU not checked: cpuid rdtscp %s, /proc/cpuinfo rdtscp flag %s",
		 cpuid_bit ? "yes" : "no", flag < 0 ? "unread" : flag ? "yes" : "no");
	return 0;
}

static void test_read(void)
{
	struct wult_tsc_info info;
	cpu_set_t mine, one;
	unsigned int cpu, cpu2;
	uint64_t a, b;
	char msg[256];
	int i, aux_ok, now, pinned = 0;

	a = wult_tsc_read();
	b = wult_tsc_read_ordered();
	WT_CHECK(b > a, "TSC did not advance: %" PRIu64 " then %" PRIu64, a, b);

	WT_CHECK(!wult_tsc_info_get(&info, msg, sizeof(msg)), "tsc info: %s", msg);
	aux_ok = tsc_aux_is_cpu(info.rdtscp, msg, sizeof(msg));
	if (!aux_ok)
		WT_SKIP(msg);
	WT_CHECK(!sched_getaffinity(0, sizeof(mine), &mine), "sched_getaffinity");
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &mine))
			continue;
		CPU_ZERO(&one);
		CPU_SET(i, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		pinned++;
		/* Pinned: the kernel's answer is the CPU we asked for. */
		now = sched_getcpu();
		WT_EQ(now, i);
		a = wult_tsc_read_ordered();
		b = wult_tsc_read_ordered();
		WT_CHECK(b > a, "TSC did not advance on CPU %d", i);
		if (!info.rdtscp)
			continue;	/* rdtscp may fault: not executed */
		a = wult_tsc_read_cpu(&cpu);
		b = wult_tsc_read_fenced(&cpu2);
		WT_CHECK(b > a, "rdtscp went backwards on CPU %d", i);
		if (!aux_ok)
			continue;
		WT_EQ(cpu, now);
		WT_EQ(cpu2, now);
	}
	WT_CHECK(pinned > 0, "could not pin to any CPU of the affinity mask");
	sched_setaffinity(0, sizeof(mine), &mine);
}

/*
 * What the evaluation tests may expect of this machine. The evaluation
 * takes TSC_AUX for the CPU a probe ran on where libwult says rdtscp is
 * usable, which must then be where Linux programmed it (else every window
 * would look migrated: a failure). Returns 0 when nothing can run (a
 * counted skip with @what), else 1, and *@sound: Linux keeps the TSC as
 * its clocksource, i.e. found it synchronised across CPUs, so a verdict
 * of fit can be expected.
 */
static int eval_runs_here(const char *what, int *sound)
{
	struct wult_tsc_info info;
	char msg[256], why[384];

	*sound = 0;
	if (wult_tsc_info_get(&info, msg, sizeof(msg))) {
		snprintf(why, sizeof(why), "%s: %s", what, msg);
		WT_SKIP(why);
		return 0;
	}
	WT_CHECK(!info.rdtscp || cpuinfo_flag("rdtscp") == 1,
		 "%s: libwult takes rdtscp as usable without /proc/cpuinfo's rdtscp flag", what);
	*sound = !strcmp(info.clocksource, "tsc");
	return 1;
}

static void test_calibrate(void)
{
	struct wult_tsc_calib_opts co;
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
	/*
	 * Its windows are slept back to back, so it lasts at least their sum;
	 * how much longer is the scheduler's business (a loaded host), not
	 * bounded here.
	 */
	wult_tsc_calib_opts_init(&co);
	WT_CHECK(cal.duration_ns >= (uint64_t)co.windows * co.window_us * 1000,
		 "calibration took %" PRIu64 " ns, less than its %u windows of %u us",
		 cal.duration_ns, co.windows, co.window_us);
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
	int ret, first = -1, c, sound;

	if (!eval_runs_here("evaluation", &sound))
		return;
	WT_CHECK(!sched_getaffinity(0, sizeof(mine), &mine), "sched_getaffinity");
	/* Generous time budget: make check may run us next to busy tests. */
	wult_tsc_eval_opts_init(&o);
	o.max_ms = EVAL_MAX_MS;
	ret = wult_tsc_eval_run(NULL, &o, &ev, msg, sizeof(msg));
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
	printf("eval: %u CPUs, shift bound %" PRIu64 " ticks by %s, %u kept / %u disturbed, %.1f ms\n",
	       s.ncpus, s.shift_bound, wult_tsc_method_name(s.method), s.windows_kept,
	       s.windows_disturbed, s.duration_ns / 1e6);
	/* A sound TSC: never unfit; fit whenever CAS probes ran. */
	ret = wult_tsc_eval_verdict(ev, msg, sizeof(msg));
	if (sound)
		WT_CHECK(ret == WULT_TSC_FIT ||
			 (ret == WULT_TSC_UNDECIDED && s.method == WULT_TSC_BY_SWITCHING),
			 "verdict %d: %s", ret, msg);
	else
		WT_SKIP("verdict not predicted: the kernel's clocksource is not the TSC");
	if (ret == WULT_TSC_FIT)
		WT_CHECK(strstr(msg, wult_tsc_method_name(s.method)), "fit verdict names no method: %s", msg);
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
	int ret, fit, sound;

	sched_getaffinity(0, sizeof(mine), &mine);
	if (CPU_COUNT(&mine) < 2) {
		WT_SKIP("planted shifts need two CPUs");
		return;
	}
	if (!eval_runs_here("planted shifts", &sound))
		return;
	wult_tsc_eval_opts_init(&o);
	o.max_ms = EVAL_MAX_MS;
	for (i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		skew[1] = shifts[i];
		ret = tsc_eval_run_skewed(NULL, &o, skew, &ev, msg, sizeof(msg));
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
			WT_CHECK(fit == WULT_TSC_UNFIT, "planted %" PRId64 " judged %d: %s", shifts[i], fit, msg);
		} else if (s.method == WULT_TSC_BY_SWITCHING) {
			WT_SKIP("CAS probes never ran together: planted 40 ticks is below what switching sees");
		} else if (!sound) {
			WT_SKIP("planted 40 ticks: verdict not predicted, the clocksource is not the TSC");
		} else {
			WT_CHECK(fit == WULT_TSC_FIT, "planted %" PRId64 " judged %d: %s", shifts[i], fit, msg);
		}
		wult_tsc_eval_free(ev);
	}
}

/*
 * Two CAS probes in one window bound nothing: CPU switching must bound the
 * shift, too loosely for the default 1000 ns, so the verdict is undecided
 * (not unfit: nothing wrong was shown) and names the method.
 */
static void test_eval_starved(void)
{
	struct wult_tsc_eval_summary s;
	struct wult_tsc_eval_opts o;
	struct wult_tsc_eval_cpu e;
	struct wult_tsc_eval *ev;
	cpu_set_t mine;
	char msg[512];
	int ret, sound;

	sched_getaffinity(0, sizeof(mine), &mine);
	if (CPU_COUNT(&mine) < 2) {
		WT_SKIP("a starved evaluation needs two CPUs");
		return;
	}
	if (!eval_runs_here("starved evaluation", &sound))
		return;
	wult_tsc_eval_opts_init(&o);
	o.probes = 2;
	o.good_windows = o.max_windows = 1;
	ret = wult_tsc_eval_run(NULL, &o, &ev, msg, sizeof(msg));
	WT_CHECK(!ret, "starved eval: %s", msg);
	if (ret)
		return;
	wult_tsc_eval_summary(ev, &s);
	wult_tsc_eval_cpu(ev, 1, &e);
	WT_EQ(s.windows_kept, 0);
	WT_EQ(s.method, WULT_TSC_BY_SWITCHING);
	WT_EQ(e.method, WULT_TSC_BY_SWITCHING);
	if (sound)
		WT_CHECK(e.switch_lo <= 0 && e.switch_hi >= 0, "switching [%" PRId64 ", %" PRId64 "]",
			 e.switch_lo, e.switch_hi);
	ret = wult_tsc_eval_verdict(ev, msg, sizeof(msg));
	WT_CHECK(ret == WULT_TSC_UNDECIDED || s.shift_bound_ns <= 1000, "verdict %d: %s", ret, msg);
	if (ret == WULT_TSC_UNDECIDED)
		WT_CHECK(strstr(msg, "CPU switching") && strstr(msg, "never ran together"), "why: %s", msg);
	/* The same bound with a limit above it concludes: switching can make it fit. */
	wult_tsc_eval_free(ev);
	o.max_shift_ns = 10000000;
	ret = wult_tsc_eval_run(NULL, &o, &ev, msg, sizeof(msg));
	WT_CHECK(!ret, "starved eval: %s", msg);
	if (ret)
		return;
	ret = wult_tsc_eval_verdict(ev, msg, sizeof(msg));
	if (sound)
		WT_CHECK(ret == WULT_TSC_FIT && strstr(msg, "bounded by CPU switching"), "verdict %d: %s",
			 ret, msg);
	else
		WT_SKIP("switching's verdict not predicted: the clocksource is not the TSC");
	wult_tsc_eval_free(ev);
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
	WT_EQ(wult_tsc_eval_verdict(NULL, msg, sizeof(msg)), WULT_TSC_UNFIT);
	WT_EQ(wult_tsc_eval_verdict(NULL, NULL, 0), WULT_TSC_UNFIT);
	WT_CHECK(!strcmp(wult_tsc_method_name(WULT_TSC_BY_CAS), "CAS-ordered probes"), "method name");
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
	test_eval_starved();
	test_bad_inputs();
	return wt_done();
}
