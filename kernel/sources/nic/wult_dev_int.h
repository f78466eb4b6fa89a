/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the nic source's own header, for its two files: wult_dev.c (the
 * device layer: the device's clock, its timer interrupt, the shadow, our
 * PCI driver) and wult_nic.c (the source on it: its ops, its life, the
 * claim of a device from its driver for an event and its give-back).
 */
#ifndef _WULT_DEV_INT_H
#define _WULT_DEV_INT_H

#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "wult_dev.h"
#include "wult_xts.h"

#define WULT_NIC_DRV		"wult_nic"
/*
 * The shortest distance a device timer is armed ahead of the clock read
 * that dates it: the register write must reach the device before the
 * clock passes the value (a compare for equality would then wait a whole
 * counter period). Several MMIO accesses on real hardware.
 */
#define WULT_NIC_MIN_NS		2000
/*
 * The engine's floor for nic's LDist (struct wult_source's min_ldist),
 * above WULT_NIC_MIN_NS by more than a tick of the slowest device clock
 * (rtl8139's, 30 ns) and the ticks' rounding, so that min_ticks never
 * clamps an arm: the LDist recorded is the one armed.
 */
#define WULT_NIC_MIN_LDIST	(WULT_NIC_MIN_NS + 100)
/*
 * How long the claim outlives its last event (ms): longer than the gaps
 * between a recording's opens, short beside a user's wait for the NIC.
 */
#define WULT_NIC_GRACE_MS	2000

struct wult_nic {
	/* Claim state: process context, under wult_nic_lock. */
	unsigned int users;
	u64 devterm;
	struct pci_dev *pdev;	/* claimed (users may be 0: the grace) */
	struct pci_dev *probing;	/* the device our probe accepts */
	bool releasing;		/* our own give-back unbinds it */
	struct delayed_work grace;	/* gives an unused claim back */
	/* Set by the probe, under the device lock; read-only while claimed. */
	int cpu;
	const struct wult_dev_type *type;
	void __iomem *regs;	/* NULL on the measured CPU once removed */
	int irq;
	bool irq_on;
	bool gone;		/* removed from under the claim */
	int probe_err;		/* the probe's refusal, its reason given */
	/* Hot state: the measured CPU with IRQs off, or the handler. */
	bool armed;
	u64 last;		/* extended device clock of the last read */
	u64 read_min;		/* narrowest read window seen, TSC cycles */
	u64 rate;		/* TSC cycles per tick, 32.32 */
	u64 span;		/* TSC cycles the rate was measured over, 0: nominal */
	u64 span_err;		/* the dating errors at its two ends */
	struct wult_xts ref;	/* the rate's reference */
	u64 at;			/* the armed event's extended device time */
	u64 ltime;		/* ... its LTime, TSC cycles */
	u64 ltime_err;		/* ... and LTime's error bound, TSC cycles */
	u64 ltime_ns;		/* ... LTime at its latest, CLOCK_MONOTONIC */
	u64 shadow_ns;		/* the shadow's expiry the governor reads */
	u64 min_ticks;		/* the shortest arm ahead: WULT_NIC_MIN_NS */
	u64 late;		/* arms that came too late, moved on */
	u64 fired;		/* timer interrupts handled */
	u64 stray;		/* ... of which not for an armed event here */
	u64 stale;		/* ... of those, an earlier event's */
	u64 moved;		/* ... armed here, handled on another CPU */
	u64 lost;		/* events the shadow ended, never fired */
	u64 dropped;		/* arms not written: the drop knob */
	u32 drop;		/* debugfs: arms still to drop */
	struct work_struct reroute;	/* sets the route back to the CPU */
};

/* The one device source, its claim under wult_nic_lock (process context). */
extern struct wult_nic wult_nic;
extern struct mutex wult_nic_lock;

/*
 * The device layer (wult_dev.c) for the source (wult_nic.c): init()
 * registers our PCI driver, bound through driver_override to a claimed
 * device; exit() unregisters it, no device claimed any more.
 */
int wult_dev_init(void);
void wult_dev_exit(void);
/* The source's ops on the claimed device (struct wult_source's). */
int wult_nic_arm(u64 ldist, u64 *ltime);
void wult_nic_cancel(void);
bool wult_nic_at_idle(u64 *ltime);
void wult_nic_early_exit(void);
bool wult_nic_timebase(struct wult_dp *dp);

#endif /* _WULT_DEV_INT_H */
