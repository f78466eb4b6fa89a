// SPDX-License-Identifier: GPL-2.0
/*
 * wult.ko's cross-timestamp arithmetic (kernel/sources/nic/wult_xts.h) against a
 * simulated device clock whose every tick boundary is known: the 32-bit
 * extension across wraps, the measured rate, and the conversion of a
 * device time to the TSC within the bound it claims, whatever the latch
 * point inside the read window, the window's width and the clock's drift.
 */
#include <stdbool.h>
#include <stdint.h>

typedef uint32_t u32;
typedef uint64_t u64;
#include "../../kernel/sources/nic/wult_xts.h"

#include "wt.h"

/* A device clock: tick k begins at TSC base + k * period (fixed point). */
struct sim {
	double base;		/* TSC cycles */
	double period;		/* TSC cycles per tick */
};

static u64 sim_ticks_at(const struct sim *s, double tsc)
{
	return (u64)((tsc - s->base) / s->period);
}

/*
 * A cross-timestamp with a window of @win cycles starting at @t0, the
 * device latching at fraction @f of it.
 */
static struct wult_xts sim_xts(const struct sim *s, u64 t0, u64 win, double f)
{
	struct wult_xts x;

	wult_xts_date(&x, t0, t0 + win, 1);
	x.dev = sim_ticks_at(s, t0 + f * win);
	return x;
}

static void test_extend(void)
{
	/* No wrap. */
	WT_EQ(wult_xts_extend(0, 5, 32), 5);
	WT_EQ(wult_xts_extend(0x100000005ULL, 0x10, 32), 0x100000010ULL);
	/* Across a wrap of the 32-bit counter. */
	WT_EQ(wult_xts_extend(0xfffffff0ULL, 0x10, 32), 0x100000010ULL);
	WT_EQ(wult_xts_extend(0x2fffffff0ULL, 0x3, 32), 0x300000003ULL);
	/* The same value again is no wrap. */
	WT_EQ(wult_xts_extend(0x1234, 0x1234, 32), 0x1234);
	/* A 64-bit clock is taken as is. */
	WT_EQ(wult_xts_extend(99, 7, 64), 7);
	/* A 16-bit one. */
	WT_EQ(wult_xts_extend(0xfffe, 0x1, 16), 0x10001);
}

static void test_nominal(void)
{
	/* 1 GHz TSC, 33.33 MHz clock: 30 cycles per tick. */
	u64 r = wult_xts_nominal(1000000, 33333333);

	WT_CHECK(r > (29ULL << 32) + (99ULL << 32) / 100 && r < (30ULL << 32) + (1ULL << 32) / 100,
		 "rate %llu", (unsigned long long)r);
	/* I210's SYSTIM in ns against a 2.4 GHz TSC: 2.4 cycles per ns. */
	r = wult_xts_nominal(2400000, 1000000000);
	WT_CHECK(r > (24ULL << 32) / 10 - (1ULL << 20) && r < (24ULL << 32) / 10 + (1ULL << 20),
		 "rate %llu", (unsigned long long)r);
}

/*
 * Random cross-timestamps of a clock of @period cycles per tick; every
 * conversion of a device time up to @maxd ticks ahead must land within
 * its claimed bound of the true boundary, and the bound must stay below
 * @maxerr cycles.
 */
static void run_conv(double period, u64 maxd, u64 maxerr, u64 seed)
{
	struct sim s = { .base = 12345.0, .period = period };
	unsigned int i, bad = 0, wide = 0;
	u64 t = 1000000, worst = 0, rate = 0, span = 0, span_err = 0;
	struct wult_xts ref;

	ref = sim_xts(&s, t, 40, 0.5);
	/* The first conversions' bounds are wide: the span is short. */
	for (i = 0; i < 20000; i++) {
		u64 win = 20 + wt_xorshift(&seed) % 200;
		double f = (double)(wt_xorshift(&seed) % 1001) / 1000.0;
		struct wult_xts x;
		u64 r, d, est, err;
		double truth;

		t += 100000 + wt_xorshift(&seed) % 3000000;
		x = sim_xts(&s, t, win, f);
		/* As wult_dev.c tracks it (wult_nic_track()). */
		r = wult_xts_rate(&ref, &x);
		if (r && 2 * (x.tsc - ref.tsc) >= span) {
			rate = r;
			span = x.tsc - ref.tsc;
			span_err = ref.err + x.err;
		}
		if (x.tsc - ref.tsc >= (1ULL << 30))
			ref = x;
		if (!rate)
			continue;
		d = x.dev + 1 + wt_xorshift(&seed) % maxd;
		est = wult_xts_to_tsc(&x, d, rate);
		err = wult_xts_err(&x, d, rate, span_err, span, 1000);
		truth = s.base + d * s.period;
		if (truth < (double)est - err - 1 || truth > (double)est + err + 1)
			bad++;
		if (err > maxerr && i >= 2000)
			wide++;
		if (err > worst)
			worst = err;
	}
	WT_CHECK(bad == 0, "%u conversions outside their bound (period %.3f)", bad, period);
	WT_CHECK(wide == 0, "%u bounds above %llu cycles (worst %llu)", wide,
		 (unsigned long long)maxerr, (unsigned long long)worst);
}

/* Dating: the midpoint of one read; half a read in of three. */
static void test_date(void)
{
	struct wult_xts x;

	wult_xts_date(&x, 1000, 1100, 1);
	WT_EQ(x.tsc, 1050);
	WT_EQ(x.err, 50);
	wult_xts_date(&x, 1000, 1600, 3);
	WT_EQ(x.tsc, 1100);
	WT_EQ(x.err, 500);
}

static void test_conv(void)
{
	/* QEMU's rtl8139 on the icount TSC: 30 cycles per tick, 50 ms ahead. */
	run_conv(30.0, 50000000 / 30, 400, 1);
	/* A 33 MHz PCI clock 80 ppm fast against a 2.4 GHz TSC. */
	run_conv(72.0 * (1 - 80e-6), 50000000 / 30, 600, 2);
	/* A ns clock (I210 SYSTIM) against a 3 GHz TSC. */
	run_conv(3.0, 50000000, 800, 3);
}

/* The rate needs a span: too short or too long says 0. */
static void test_rate_span(void)
{
	struct wult_xts a = { .tsc = 1000, .dev = 100, .err = 5 };
	struct wult_xts b = { .tsc = 1000 + 30 * 1000, .dev = 1100, .err = 5 };

	WT_EQ(wult_xts_rate(&a, &b), 0);	/* 1000 ticks */
	b.dev = 100 + 70000;
	b.tsc = 1000 + 30ULL * 70000;
	WT_EQ(wult_xts_rate(&a, &b), 30ULL << 32);
	b.tsc = 1000 + (1ULL << 31);
	WT_EQ(wult_xts_rate(&a, &b), 0);	/* too long for 32.32 */
	b.tsc = 999;
	WT_EQ(wult_xts_rate(&a, &b), 0);	/* backwards */
}

/* Without a measured rate the bound grows with the nominal's trust. */
static void test_nominal_err(void)
{
	struct wult_xts x = { .tsc = 1000, .dev = 0, .err = 50 };
	u64 rate = 30ULL << 32;

	/* 50 + 15 + 1000 ppm of 30 * 33333 cycles (1 ms), rounded up. */
	WT_EQ(wult_xts_err(&x, 33333, rate, 0, 0, 1000), 50 + 15 + 1000);
	WT_EQ(wult_xts_to_tsc(&x, 33333, rate), 1000 - 15 + 30 * 33333);
}

int main(void)
{
	test_extend();
	test_nominal();
	test_rate_span();
	test_nominal_err();
	test_date();
	test_conv();
	return wt_done();
}
