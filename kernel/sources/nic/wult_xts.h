/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: cross-timestamps of a device clock against the TSC, as pure
 * functions (no state, no calls), so that tests/unit/test_xts.c runs them
 * in user space on crafted values: counter wraps, rate drift, a read
 * stretched by an interruption.
 *
 * A cross-timestamp is a device-clock read between two TSC reads t0 and
 * t1. The device latches its value somewhere inside [t0, t1]: for a
 * one-register read, when the request reaches it, about half the round
 * trip after t0 on a bus with symmetric delays. The read's own cost is
 * therefore compensated by dating the value at the midpoint, with an error
 * of at most half the window (t1 - t0), which includes both TSC reads. A
 * device whose clock takes n register reads and latches at the first
 * (I210: SYSTIMR, SYSTIML, SYSTIMH) is dated half a read in, at
 * t0 + win / (2n), within win - win / (2n) (wult_xts_date()). A value c of
 * a counter also only says that its last increment came within the tick
 * before the latch: the tick boundary where it became c is dated half a
 * tick earlier, within half a tick.
 *
 * The rate (TSC cycles per device tick, 32.32 fixed point) is measured
 * between a reference cross-timestamp and a later one; its error is the
 * two dating errors and one tick over the span. A device time d is then
 * t = xts.tsc - tick / 2 + (d - xts.dev) * rate, within
 * err + tick / 2 + (d - xts.dev) * rate * (both errs + tick) / span.
 */
#ifndef _WULT_XTS_H
#define _WULT_XTS_H

#ifdef __KERNEL__
#include <linux/math64.h>
#define wult_xts_div(a, b)	div64_u64(a, b)
#else
#define wult_xts_div(a, b)	((a) / (b))
#endif

struct wult_xts {
	u64 tsc;	/* TSC the device clock's value is dated at */
	u64 dev;	/* the device clock, extended to 64 bits */
	u64 err;	/* bound on |tsc - the latch|, TSC cycles */
};

/*
 * Date a read of @nreads register reads (latched at the first) that took
 * the TSC window [@t0, @t1].
 */
static inline void wult_xts_date(struct wult_xts *x, u64 t0, u64 t1,
				 unsigned int nreads)
{
	u64 win = t1 - t0, lead = win / (2 * nreads);

	x->tsc = t0 + lead;
	x->err = win - lead > lead ? win - lead : lead;
}

/*
 * A raw clock of @bits (< 64) bits, extended to 64 with the previous
 * extended value @prev: exact while reads are less than one counter period
 * apart (rtl8139: 2^32 ticks of 30 ns, 129 s).
 */
static inline u64 wult_xts_extend(u64 prev, u64 raw, unsigned int bits)
{
	u64 mask, v;

	if (bits >= 64)
		return raw;
	mask = (1ULL << bits) - 1;
	v = (prev & ~mask) | (raw & mask);
	if (v < prev)
		v += mask + 1;
	return v;
}

/* @ticks * @rate (32.32) without overflow for @ticks below 2^32. */
static inline u64 wult_xts_scale(u64 ticks, u64 rate)
{
	return ticks * (rate >> 32) + ((ticks * (rate & 0xffffffffULL)) >> 32);
}

/*
 * The nominal rate, TSC cycles per tick (32.32), of a @dev_hz clock
 * against a TSC of @tsc_khz.
 */
static inline u64 wult_xts_nominal(u64 tsc_khz, u64 dev_hz)
{
	return wult_xts_div((tsc_khz * 1000) << 16, dev_hz) << 16;
}

/*
 * The rate measured from @ref to @x, 0 if the span is too short to say
 * (under 2^16 ticks) or too long for the fixed point (2^31 cycles: the
 * caller then takes @x as its new reference).
 */
static inline u64 wult_xts_rate(const struct wult_xts *ref,
				const struct wult_xts *x)
{
	u64 span = x->tsc - ref->tsc, ticks = x->dev - ref->dev;

	if (x->tsc <= ref->tsc || ticks < (1ULL << 16) || span >= (1ULL << 31))
		return 0;
	return wult_xts_div(span << 32, ticks);
}

/* The TSC of device time @d (>= x->dev) at @rate. */
static inline u64 wult_xts_to_tsc(const struct wult_xts *x, u64 d, u64 rate)
{
	u64 half_tick = wult_xts_scale(1, rate) / 2;

	return x->tsc - half_tick + wult_xts_scale(d - x->dev, rate);
}

/*
 * The error bound, TSC cycles, of wult_xts_to_tsc(@x, @d, @rate) with the
 * rate measured over @span cycles between two cross-timestamps whose
 * dating errors sum to @span_err; @span 0: the nominal rate, trusted to
 * @ppm_nominal parts per million.
 */
static inline u64 wult_xts_err(const struct wult_xts *x, u64 d, u64 rate,
			       u64 span_err, u64 span, u64 ppm_nominal)
{
	u64 tick = wult_xts_scale(1, rate), dist = wult_xts_scale(d - x->dev, rate);
	u64 err = x->err + (tick + 1) / 2;

	if (span)
		err += wult_xts_div(dist * (span_err + tick) + span - 1, span);
	else
		err += wult_xts_div(dist * ppm_nominal + 999999, 1000000);
	return err;
}

#endif /* _WULT_XTS_H */
