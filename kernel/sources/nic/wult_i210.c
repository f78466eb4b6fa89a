// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the Intel I210/I211 device type of the nic source: SYSTIM and
 * target time 0 (register sequences in wult_i210.h, from the datasheet).
 * Not run on hardware: see wult_i210.h and Documentation/kernel.md.
 */
#include <linux/io.h>
#include <linux/pci.h>

#include "../../wult_compat.h"
#include "wult_dev.h"

#define WULT_I210_RD(ctx, reg)		ioread32((void __iomem *)(ctx) + (reg))
#define WULT_I210_WR(ctx, reg, val)	iowrite32(val, (void __iomem *)(ctx) + (reg))
#include "wult_i210.h"

static int wult_i210_setup(void __iomem *regs)
{
	wult_i210_seq_setup((void __force *)regs);
	return 0;
}

static void wult_i210_teardown(void __iomem *regs)
{
	wult_i210_seq_teardown((void __force *)regs);
}

static u64 wult_i210_read_clock(void __iomem *regs)
{
	return wult_i210_seq_read((void __force *)regs);
}

static u64 wult_i210_arm(void __iomem *regs, u64 at)
{
	return wult_i210_seq_arm((void __force *)regs, at);
}

static void wult_i210_disarm(void __iomem *regs)
{
	wult_i210_seq_disarm((void __force *)regs);
}

static bool wult_i210_ack(void __iomem *regs)
{
	return wult_i210_seq_ack((void __force *)regs);
}

static const char *const wult_i210_drivers[] = { "igb", NULL };

/* intel wult's list: I210 copper, fiber, SerDes, SGMII, I211, flashless. */
static const struct pci_device_id wult_i210_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x1533) },
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x1536) },
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x1537) },
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x1538) },
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x1539) },
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x157b) },
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x157c) },
	{ }
};

const struct wult_dev_type wult_i210_type = {
	.name		= "i210",
	.ids		= wult_i210_ids,
	.bar		= 0,
	.bar_len	= 0x20000,	/* 128 KB of registers */
	.drivers	= wult_i210_drivers,
	.clock_hz	= 1000000000,	/* SYSTIM counts ns */
	.clock_bits	= 64,
	.clock_reads	= 3,
	.irq_types	= PCI_IRQ_MSI | WULT_PCI_IRQ_INTX,
	.setup		= wult_i210_setup,
	.teardown	= wult_i210_teardown,
	.read_clock	= wult_i210_read_clock,
	.arm		= wult_i210_arm,
	.disarm		= wult_i210_disarm,
	.ack		= wult_i210_ack,
};
