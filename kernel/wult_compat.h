/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: every kernel API difference the module depends on, in one place.
 * Built and tested on Debian's 6.1, 6.12 and 6.12-rt kernels. Differences
 * are detected by Kbuild from the kernel's headers (WULT_HAVE_*), not by
 * version number, so backports are handled too.
 */
#ifndef _WULT_COMPAT_H
#define _WULT_COMPAT_H

#include <linux/compiler_types.h>
#include <linux/cpu.h>
#include <linux/hrtimer.h>

/*
 * Code that runs where RCU is not watching, such as a cpuidle state's
 * enter(): no tracing, no instrumentation. Since 6.3 __cpuidle is that
 * (noinstr in .cpuidle.text); before, it only named the section, and
 * noinstr is what keeps the function tracer and sanitizers out.
 */
#ifdef __noinstr_section
#define WULT_CPUIDLE	__cpuidle
#else
#define WULT_CPUIDLE	noinstr
#endif

/* 6.13 replaced hrtimer_init() + ->function with hrtimer_setup(). */
static inline void wult_hrtimer_setup(struct hrtimer *timer,
				      enum hrtimer_restart (*fn)(struct hrtimer *),
				      clockid_t clock, enum hrtimer_mode mode)
{
#ifdef WULT_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* _WULT_COMPAT_H */
