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

static DEFINE_PER_CPU(struct wult_hrtimer, wult_hrt_timer);

/*
 * TIntr first: untraced, and nothing but the two clock reads before the
 * direct call. The engine may re-arm the timer from inside this callback:
 * the return value restarts it then (wult_hrtimer_start()).
 */
static notrace enum hrtimer_restart wult_hrt_fn(struct hrtimer *timer)
{
	u64 tsc = rdtsc_ordered();

	wult_engine_intr(tsc, ktime_get_ns());
	return wult_hrtimer_fn_done(this_cpu_ptr(&wult_hrt_timer));
}

static int wult_hrt_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		wult_hrtimer_setup(&per_cpu_ptr(&wult_hrt_timer, cpu)->timer,
				   wult_hrt_fn, CLOCK_MONOTONIC, WULT_HRTIMER_MODE);
	return 0;
}

static void wult_hrt_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&wult_hrt_timer, cpu)->timer);
}

/* notrace, as the ops below: every wake (wult_engine.c). */
static notrace int wult_hrt_arm_at(u64 ltime)
{
	/* Zero slack: expire at ltime, not somewhere in a range after it. */
	wult_hrtimer_start(this_cpu_ptr(&wult_hrt_timer), ltime);
	return 0;
}

/* Outside our callback (start, idle exit, hold-off): from the clock now. */
static notrace int wult_hrt_arm(u64 ldist, u64 *ltime)
{
	*ltime = ktime_get_ns() + ldist;
	return wult_hrt_arm_at(*ltime);
}

static void wult_hrt_cancel(void)
{
	wult_hrtimer_try_cancel(this_cpu_ptr(&wult_hrt_timer));
}

/* LTime is the expiry itself: only whether it is what will wake the CPU. */
static notrace bool wult_hrt_at_idle(u64 *ltime)
{
	return wult_hrtimer_first(&this_cpu_ptr(&wult_hrt_timer)->timer);
}

const struct wult_source wult_hrt_source = {
	.id	= WULT_SOURCE_HRT,
	.clock	= WULT_CLOCK_MONO,
	.init	= wult_hrt_init,
	.exit	= wult_hrt_exit,
	.arm	= wult_hrt_arm,
	.arm_at	= wult_hrt_arm_at,
	.cancel	= wult_hrt_cancel,
	.at_idle = wult_hrt_at_idle,
};
