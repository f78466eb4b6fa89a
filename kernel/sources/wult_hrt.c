// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the "hrt" delayed-event source, a per-CPU high resolution timer.
 *
 * The timer is pinned (it must fire on the measured CPU) and hard (on
 * PREEMPT_RT it expires in hard interrupt context, not in the softirq
 * thread, so TIntr is the interrupt time and not a thread's wake-up time).
 */
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <asm/msr.h>

#include "../uapi/linux/wult.h"
#include "../wult_compat.h"
#include "wult_source.h"

#define WULT_HRT_MODE	HRTIMER_MODE_ABS_PINNED_HARD

static DEFINE_PER_CPU(struct hrtimer, wult_hrt_timer);

/*
 * TIntr first: untraced, and nothing but the two clock reads before the
 * direct call. The engine may re-arm the timer from inside this callback
 * (hrtimer_start() of a running timer enqueues it again), so the return
 * value must not restart it.
 */
static notrace enum hrtimer_restart wult_hrt_fn(struct hrtimer *timer)
{
	u64 tsc = rdtsc_ordered();

	wult_engine_intr(tsc, ktime_get_ns());
	return HRTIMER_NORESTART;
}

static int wult_hrt_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		wult_hrtimer_setup(per_cpu_ptr(&wult_hrt_timer, cpu), wult_hrt_fn,
				   CLOCK_MONOTONIC, WULT_HRT_MODE);
	return 0;
}

static void wult_hrt_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&wult_hrt_timer, cpu));
}

static int wult_hrt_arm(u64 ldist, u64 *ltime)
{
	*ltime = ktime_get_ns() + ldist;
	/* Zero slack: expire at ltime, not somewhere in a range after it. */
	hrtimer_start_range_ns(this_cpu_ptr(&wult_hrt_timer), ns_to_ktime(*ltime),
			       0, WULT_HRT_MODE);
	return 0;
}

static void wult_hrt_cancel(void)
{
	hrtimer_try_to_cancel(this_cpu_ptr(&wult_hrt_timer));
}

/* LTime is the expiry itself: only whether it is what will wake the CPU. */
static bool wult_hrt_at_idle(u64 *ltime)
{
	return wult_hrtimer_first(this_cpu_ptr(&wult_hrt_timer));
}

const struct wult_source wult_hrt_source = {
	.id	= WULT_SOURCE_HRT,
	.clock	= WULT_CLOCK_MONO,
	.init	= wult_hrt_init,
	.exit	= wult_hrt_exit,
	.arm	= wult_hrt_arm,
	.cancel	= wult_hrt_cancel,
	.at_idle = wult_hrt_at_idle,
};
