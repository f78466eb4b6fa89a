// SPDX-License-Identifier: GPL-2.0
/*
 * libwult TSC conversion: build multiply-and-shift parameters from a rate
 * (calibrated here against CLOCK_MONOTONIC_RAW, or the kernel's tsc_khz) or
 * from perf's mmap page, and say how long they stay valid and exact. Set-up
 * code may divide; wult_tsc_conv_ns() is one 64 x 64 -> 128-bit multiply.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <wult/tsc.h>
#include "internal/err.h"
#include "internal/tsc.h"

#define NSEC_PER_SEC		1000000000ull
#define DEF_WINDOWS		9
#define DEF_WINDOW_US		20000	/* 20 ms: pair error ~1 ppm of it */
#define DEF_REJECT_PPM		5
#define MAX_WINDOWS		1000
#define MAD_SIGMAS		5	/* outlier band, in median absolute deviations */

typedef unsigned __int128 u128;

/* The ns per tick as a 64.64 fixed-point number. */
static u128 full_mult(const struct wult_tsc_conv *c)
{
	return ((u128)c->whole << 64) | c->frac;
}

/* Last ticks value for which zero + floor(ticks * M / 2^64) fits in 64 bits. */
static void set_limits(struct wult_tsc_conv *c)
{
	/*
	 * perf's time_zero is an offset that may be "negative" (TSC counting
	 * from before boot); the kernel adds it modulo 2^64 and so do we. Only
	 * a positive one eats into the room of the product.
	 */
	uint64_t room = (int64_t)c->zero >= 0 ? UINT64_MAX - c->zero : UINT64_MAX;
	/* floor(t * M / 2^64) <= room  <=>  t <= ((room + 1) * 2^64 - 1) / M */
	u128 t = (((u128)room << 64) | UINT64_MAX) / full_mult(c);

	c->max_ticks = t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
	c->slow = c->whole || c->zero;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

int wult_tsc_conv_from_hz(struct wult_tsc_conv *c, uint64_t hz, char *msg, size_t len)
{
	uint64_t rem, g;
	u128 excess, last;

	if (!c)
		return wult_err_set(msg, len, -EINVAL, "NULL conversion");
	if (!hz)
		return wult_err_set(msg, len, -EINVAL, "zero TSC frequency");
	memset(c, 0, sizeof(*c));
	c->hz = hz;
	c->whole = NSEC_PER_SEC / hz;
	rem = NSEC_PER_SEC % hz;
	/* Rounded up: below 2^64 because rem < hz <= 2^64 - 1. */
	c->frac = (uint64_t)((((u128)rem << 64) + hz - 1) / hz);
	/*
	 * With e = frac * hz - rem * 2^64 (0 <= e < hz) the result is
	 * floor(x + t * e / (hz * 2^64)) for x = t * 1e9 / hz. The fraction of
	 * x is at most 1 - g / hz (g = gcd(1e9, hz)), so it stays floor(x)
	 * while t * e < g * 2^64.
	 */
	excess = (u128)c->frac * hz - ((u128)rem << 64);
	g = gcd64(NSEC_PER_SEC, hz);
	last = excess ? (((u128)g << 64) - 1) / excess : UINT64_MAX;
	c->exact_ticks = last > UINT64_MAX ? UINT64_MAX : (uint64_t)last;
	set_limits(c);
	if (c->exact_ticks > c->max_ticks)
		c->exact_ticks = c->max_ticks;
	return 0;
}

int wult_tsc_conv_from_khz(struct wult_tsc_conv *c, uint64_t khz, char *msg, size_t len)
{
	if (khz > UINT64_MAX / 1000)
		return wult_err_set(msg, len, -ERANGE, "TSC frequency %" PRIu64 " kHz too large", khz);
	return wult_tsc_conv_from_hz(c, khz * 1000, msg, len);
}

int wult_tsc_conv_from_perf(struct wult_tsc_conv *c,
			    const volatile struct perf_event_mmap_page *pg,
			    char *msg, size_t len)
{
	uint32_t seq, mult;
	uint16_t shift;
	uint64_t zero;
	int time, time_zero, time_short;

	if (!c || !pg)
		return wult_err_set(msg, len, -EINVAL, "NULL %s", c ? "perf page" : "conversion");
	/* The kernel updates the page under this seqlock; retry torn reads. */
	do {
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		time = pg->cap_user_time;
		time_zero = pg->cap_user_time_zero;
		time_short = pg->cap_user_time_short;
		mult = pg->time_mult;
		shift = pg->time_shift;
		zero = pg->time_zero;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq);

	if (!time || !time_zero)
		return wult_err_set(msg, len, -EOPNOTSUPP,
				     "perf page has no TSC time (cap_user_time %d, cap_user_time_zero %d)",
				     time, time_zero);
	if (time_short)
		return wult_err_set(msg, len, -EOPNOTSUPP, "perf page uses a short clock (cap_user_time_short)");
	/* perf's own formula overflows its remainder product past this. */
	if (!mult || shift > 63 || (((u128)1 << shift) - 1) * mult > UINT64_MAX)
		return wult_err_set(msg, len, -ERANGE, "perf page time_mult %u time_shift %u unusable",
				     mult, shift);
	/* mult / 2^shift ns per tick: a binary fraction frac holds exactly. */
	memset(c, 0, sizeof(*c));
	c->whole = (uint64_t)mult >> shift;
	c->frac = shift ? (uint64_t)(mult & ((1ull << shift) - 1)) << (64 - shift) : 0;
	c->zero = zero;
	c->hz = (uint64_t)((((u128)NSEC_PER_SEC << shift) + mult / 2) / mult);
	set_limits(c);
	c->exact_ticks = c->max_ticks;
	return 0;
}

int wult_tsc_conv_from_perf_self(struct wult_tsc_conv *c, char *msg, size_t len)
{
	/* A dummy event counts nothing but still gets the time fields. */
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	void *pg;
	int fd, ret;

	if (!c)
		return wult_err_set(msg, len, -EINVAL, "NULL conversion");
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return wult_err_set(msg, len, -errno, "perf_event_open: %s", strerror(errno));
	pg = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		ret = wult_err_set(msg, len, -errno, "perf mmap: %s", strerror(errno));
		close(fd);
		return ret;
	}
	ret = wult_tsc_conv_from_perf(c, pg, msg, len);
	munmap(pg, psz);
	close(fd);
	return ret;
}

double wult_tsc_conv_secs_to_wrap(const struct wult_tsc_conv *c, uint64_t now)
{
	if (!c || !c->hz || now >= c->max_ticks)
		return 0;
	return (double)(c->max_ticks - now) / (double)c->hz;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double ppm_of(uint64_t x, uint64_t ref)
{
	return ((double)x - (double)ref) / (double)ref * 1e6;
}

void wult_tsc_calib_opts_init(struct wult_tsc_calib_opts *o)
{
	if (!o)
		return;
	o->windows = DEF_WINDOWS;
	o->window_us = DEF_WINDOW_US;
	o->reject_ppm = DEF_REJECT_PPM;
}

int wult_tsc_calibrate(const struct wult_tsc_calib_opts *opts,
		       struct wult_tsc_calib *res, char *msg, size_t len)
{
	unsigned int nw = opts && opts->windows ? opts->windows : DEF_WINDOWS;
	unsigned int wus = opts && opts->window_us ? opts->window_us : DEF_WINDOW_US;
	double floor_ppm = opts && opts->reject_ppm ? opts->reject_ppm : DEF_REJECT_PPM;
	uint64_t *tsc, *ns, *hz, *sorted, med, mad, sum_t = 0, sum_n = 0, start;
	struct timespec gap = { .tv_sec = wus / 1000000, .tv_nsec = (long)(wus % 1000000) * 1000 };
	double band, worst = 0;
	unsigned int i, kept = 0;
	int ret = 0;

	if (!res)
		return wult_err_set(msg, len, -EINVAL, "NULL calibration result");
	if (nw > MAX_WINDOWS)
		return wult_err_set(msg, len, -EINVAL, "%u windows, at most %d", nw, MAX_WINDOWS);
	tsc = calloc(nw + 1, sizeof(*tsc));
	ns = calloc(nw + 1, sizeof(*ns));
	hz = calloc(nw, sizeof(*hz));
	sorted = calloc(nw, sizeof(*sorted));
	if (!tsc || !ns || !hz || !sorted) {
		ret = wult_err_set(msg, len, -ENOMEM, "out of memory");
		goto out;
	}
	start = tsc_raw_ns();
	/*
	 * Back-to-back windows: each is one estimate, so a window disturbed
	 * by a preempted pair read, or a clock step, is one outlier among
	 * many rather than an error spread over the whole calibration.
	 */
	tsc_clock_pair(&tsc[0], &ns[0]);
	for (i = 1; i <= nw; i++) {
		nanosleep(&gap, NULL);
		tsc_clock_pair(&tsc[i], &ns[i]);
		if (ns[i] <= ns[i - 1] || tsc[i] <= tsc[i - 1]) {
			ret = wult_err_set(msg, len, -EIO, "TSC or raw clock did not advance in window %u", i);
			goto out;
		}
		hz[i - 1] = (uint64_t)((u128)(tsc[i] - tsc[i - 1]) * NSEC_PER_SEC / (ns[i] - ns[i - 1]));
	}

	/* Median and median absolute deviation: robust to a few bad windows. */
	memcpy(sorted, hz, nw * sizeof(*hz));
	qsort(sorted, nw, sizeof(*sorted), cmp_u64);
	med = sorted[nw / 2];
	for (i = 0; i < nw; i++)
		sorted[i] = hz[i] > med ? hz[i] - med : med - hz[i];
	qsort(sorted, nw, sizeof(*sorted), cmp_u64);
	mad = sorted[nw / 2];
	band = MAD_SIGMAS * (double)mad / (double)med * 1e6;
	if (band < floor_ppm)
		band = floor_ppm;

	for (i = 0; i < nw; i++) {
		double d = ppm_of(hz[i], med);

		if (d > band || d < -band)
			continue;
		sum_t += tsc[i + 1] - tsc[i];
		sum_n += ns[i + 1] - ns[i];
		kept++;
	}
	memset(res, 0, sizeof(*res));
	res->hz = (uint64_t)(((u128)sum_t * NSEC_PER_SEC + sum_n / 2) / sum_n);
	for (i = 0; i < nw; i++) {
		double d = ppm_of(hz[i], med), e = ppm_of(hz[i], res->hz);

		if (d <= band && d >= -band && (e > worst || -e > worst))
			worst = e > 0 ? e : -e;
	}
	res->spread_ppm = worst;
	res->windows = kept;
	res->rejected = nw - kept;
	res->duration_ns = tsc_raw_ns() - start;
out:
	free(tsc);
	free(ns);
	free(hz);
	free(sorted);
	return ret;
}
