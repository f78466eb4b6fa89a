/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: device types of the device-source layer (wult_dev.c).
 *
 * A device type knows one family of PCI devices that have a free-running
 * clock and can raise an interrupt when that clock reaches a programmed
 * value. The layer claims the device, runs its interrupt, reads the clock
 * around TSC reads (cross-timestamps) and converts device time to the
 * TSC; a type only touches registers. Every op but setup() and teardown()
 * runs with IRQs off on the measured CPU, or in the device's interrupt
 * handler, and must not sleep.
 */
#ifndef _WULT_DEV_H
#define _WULT_DEV_H

#include <linux/pci.h>
#include <linux/types.h>

struct wult_dev_type {
	const char *name;
	/* The devices of this type. */
	const struct pci_device_id *ids;
	/* The BAR of the registers, and how much of it to map. */
	int bar;
	unsigned long bar_len;
	/* Nominal clock rate, Hz: the conversion's start before it is measured. */
	u64 clock_hz;
	/* Width of the raw clock in bits (<= 64): the layer extends it to 64. */
	unsigned int clock_bits;
	/* Register reads of read_clock(); the first latches the clock. */
	unsigned int clock_reads;
	/*
	 * The drivers wult may take such a device from (NULL-terminated, the
	 * first named in refusals): the NIC's own, which gets it back.
	 */
	const char *const *drivers;
	/* Interrupt types it can use (PCI_IRQ_*), the first one that works. */
	unsigned int irq_types;
	/*
	 * The device was claimed (enabled, @regs mapped): stop whatever it
	 * was doing, start its clock, leave its interrupt masked but for
	 * the timer's. Process context. 0 or -errno.
	 */
	int (*setup)(void __iomem *regs);
	/* Undo setup(): timer off, interrupts masked. Process context. */
	void (*teardown)(void __iomem *regs);
	/* The raw clock, one register read if the device allows it. */
	u64 (*read_clock)(void __iomem *regs);
	/*
	 * Interrupt when the raw clock reaches @at (its low clock_bits); the
	 * value programmed, which may differ from @at where the device gives
	 * one value another meaning (rtl8139: 0 is "off").
	 */
	u64 (*arm)(void __iomem *regs, u64 at);
	/* No timer interrupt any more. */
	void (*disarm)(void __iomem *regs);
	/* In the handler: was it the timer's? Acknowledge it if so. */
	bool (*ack)(void __iomem *regs);
};

struct dentry;

/**
 * wult_nic_debugfs_init() - the nic source's files in wult's debugfs
 * @parent: the wult directory, which removes them with the module
 *
 * nic: its counters; nic_drop: how many of the next arms are not written
 * to the device (fault injection: each such event is lost).
 */
void wult_nic_debugfs_init(struct dentry *parent);

extern const struct wult_dev_type wult_rtl8139_type;
extern const struct wult_dev_type wult_i210_type;

#endif /* _WULT_DEV_H */
