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
#include <linux/context_tracking.h>
#include <linux/cpu.h>
#include <linux/cpuidle.h>
#include <linux/hrtimer.h>
#include <linux/pci.h>
#include <linux/string.h>

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

/*
 * RCU off and on around an idle state's sleep (CPUIDLE_FLAG_RCU_IDLE).
 * 6.3 wrapped ct_idle_enter/exit() with the lockdep and IRQ-tracing
 * bookkeeping the idle path needs in ct_cpuidle_enter/exit().
 */
static __always_inline void wult_ct_idle_enter(void)
{
#ifdef WULT_HAVE_CT_CPUIDLE_ENTER
	ct_cpuidle_enter();
#else
	ct_idle_enter();
#endif
}

static __always_inline void wult_ct_idle_exit(void)
{
#ifdef WULT_HAVE_CT_CPUIDLE_ENTER
	ct_cpuidle_exit();
#else
	ct_idle_exit();
#endif
}

/* 6.8 renamed PCI_IRQ_LEGACY PCI_IRQ_INTX. */
#ifdef PCI_IRQ_INTX
#define WULT_PCI_IRQ_INTX	PCI_IRQ_INTX
#else
#define WULT_PCI_IRQ_INTX	PCI_IRQ_LEGACY
#endif

/*
 * A PCI device's driver_override ("" clears it). Newer kernels (and
 * Debian's 6.12) moved it from struct pci_dev into struct device, set
 * with device_set_driver_override().
 */
static inline int wult_pci_set_override(struct pci_dev *pdev, const char *s)
{
#ifdef WULT_HAVE_DEVICE_DRIVER_OVERRIDE
	return device_set_driver_override(&pdev->dev, s);
#else
	return driver_set_override(&pdev->dev, &pdev->driver_override, s,
				   strlen(s));
#endif
}

#endif /* _WULT_COMPAT_H */
