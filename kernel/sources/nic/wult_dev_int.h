/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the nic source's own header, for its two files: wult_dev.c (the
 * device's clock, its timer interrupt, the shadow, the source's ops and
 * our PCI driver) and wult_dev_claim.c (taking a device from its driver
 * for an event and giving it back).
 */
#ifndef _WULT_DEV_INT_H
#define _WULT_DEV_INT_H

#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "wult_dev.h"
#include "wult_xts.h"

#define WULT_NIC_DRV		"wult_nic"
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
/* Our PCI driver, bound through driver_override to the claimed device. */
extern struct pci_driver wult_nic_driver;
/* Refuses suspend while a CPU measures with the device. */
extern struct notifier_block wult_nic_pm_nb;

/* The source's get() and put(): claim the device for @cpu, let it go. */
int wult_nic_get(int cpu, u64 dev);
void wult_nic_put(int cpu);
/* Give the claim back, under wult_nic_lock. */
void wult_nic_release(struct wult_nic *n);
/* The grace's end: an unused claim given back (n->grace's work). */
void wult_nic_grace_end(struct work_struct *work);

#endif /* _WULT_DEV_INT_H */
