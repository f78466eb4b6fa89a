// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the RTL8139 device type of the nic source.
 *
 * The RTL8139C has a general-purpose timer: TCTR (0x48), a 32-bit counter
 * of the PCI clock, and TimerInt (0x54): when TCTR reaches a non-zero
 * TimerInt, the chip sets PCSTimeout in IntrStatus, which raises its
 * interrupt if IntrMask allows it. That is all wult needs: a device clock
 * and an interrupt at a chosen value of it. Written and tested against
 * QEMU's model (hw/net/rtl8139.c): there TCTR counts one per 30 ns of the
 * virtual clock (33.3 MHz), a write to TCTR resets it to 0, the interrupt
 * fires exactly when TCTR reaches TimerInt and, unless TimerInt changes,
 * again one counter period (2^32 ticks, about 129 s) later; IntrStatus
 * bits are cleared by writing 1. The registers are reached through the
 * memory BAR (1); the chip is otherwise left stopped (no receive, no
 * transmit): wult only borrows it.
 */
#include <linux/io.h>
#include <linux/pci.h>

#include "../../wult_compat.h"
#include "wult_dev.h"

#define RTL_INTR_MASK		0x3c	/* 16 bits */
#define RTL_INTR_STATUS		0x3e	/* 16 bits, write 1 to clear */
#define RTL_TCTR		0x48	/* 32 bits, a write resets it */
#define RTL_CFG9346		0x50
#define RTL_TIMER_INT		0x54	/* 32 bits, 0: no timer interrupt */
#define RTL_HLT_CLK		0x5b	/* 'R': clock runs, 'H': halted */
#define RTL_CHIP_CMD		0x37

#define RTL_PCS_TIMEOUT		0x4000	/* IntrStatus/IntrMask: the timer */
#define RTL_CFG9346_UNLOCK	0xc0	/* config registers writable */
#define RTL_CFG9346_LOCK	0x00

static int wult_rtl8139_setup(void __iomem *regs)
{
	iowrite16(0, regs + RTL_INTR_MASK);
	iowrite32(0, regs + RTL_TIMER_INT);
	/* Receive and transmit off: wult borrows the clock, not the NIC. */
	iowrite8(0, regs + RTL_CHIP_CMD);
	/* The chip's clock may have been halted for power saving. */
	iowrite8(RTL_CFG9346_UNLOCK, regs + RTL_CFG9346);
	iowrite8('R', regs + RTL_HLT_CLK);
	iowrite8(RTL_CFG9346_LOCK, regs + RTL_CFG9346);
	iowrite16(0xffff, regs + RTL_INTR_STATUS);
	iowrite16(RTL_PCS_TIMEOUT, regs + RTL_INTR_MASK);
	return 0;
}

static void wult_rtl8139_teardown(void __iomem *regs)
{
	iowrite16(0, regs + RTL_INTR_MASK);
	iowrite32(0, regs + RTL_TIMER_INT);
	iowrite16(0xffff, regs + RTL_INTR_STATUS);
}

static u64 wult_rtl8139_read_clock(void __iomem *regs)
{
	return ioread32(regs + RTL_TCTR);
}

static u64 wult_rtl8139_arm(void __iomem *regs, u64 at)
{
	u32 v = at;

	/* 0 turns the timer off: one tick (30 ns) later instead. */
	if (!v) {
		v = 1;
		at++;
	}
	iowrite32(v, regs + RTL_TIMER_INT);
	return at;
}

static void wult_rtl8139_disarm(void __iomem *regs)
{
	iowrite32(0, regs + RTL_TIMER_INT);
}

static bool wult_rtl8139_ack(void __iomem *regs)
{
	if (!(ioread16(regs + RTL_INTR_STATUS) & RTL_PCS_TIMEOUT))
		return false;
	/* Off first: the model would fire again one counter period later. */
	iowrite32(0, regs + RTL_TIMER_INT);
	iowrite16(RTL_PCS_TIMEOUT, regs + RTL_INTR_STATUS);
	return true;
}

/* 8139cp drives the C+ (QEMU's model), 8139too the others. */
static const char *const wult_rtl8139_drivers[] = { "8139cp", "8139too", NULL };

static const struct pci_device_id wult_rtl8139_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REALTEK, 0x8139) },
	{ }
};

const struct wult_dev_type wult_rtl8139_type = {
	.name		= "rtl8139",
	.ids		= wult_rtl8139_ids,
	.bar		= 1,
	.bar_len	= 0x100,
	.drivers	= wult_rtl8139_drivers,
	.clock_hz	= 33333333,	/* QEMU: one tick per 30 ns */
	.clock_bits	= 32,
	.clock_reads	= 1,
	.irq_types	= WULT_PCI_IRQ_INTX,
	.setup		= wult_rtl8139_setup,
	.teardown	= wult_rtl8139_teardown,
	.read_clock	= wult_rtl8139_read_clock,
	.arm		= wult_rtl8139_arm,
	.disarm		= wult_rtl8139_disarm,
	.ack		= wult_rtl8139_ack,
};
