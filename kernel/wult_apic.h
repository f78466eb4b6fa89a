/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the local APIC's interrupt request registers (IRR), read without
 * instrumentation. Shared by wult.ko (is our interrupt the only one
 * pending at an idle exit?) and wult_refidle.ko (its interrupts-off wait,
 * which runs where RCU is not watching). apic->read() is not used: in
 * x2APIC mode it is rdmsr with the read_msr tracepoint, and a traced
 * function besides.
 */
#ifndef _WULT_APIC_H
#define _WULT_APIC_H

#include <linux/types.h>
#include <asm/apic.h>
#include <asm/apicdef.h>
#include <asm/io.h>
#include <asm/msr.h>

#define WULT_APIC_IRR_REGS	8	/* 256 vectors, 32 per register */

/*
 * IRR register @i (vectors 32 * i to 32 * i + 31), in x2APIC mode if @x2:
 * for a caller reading several that tests the mode once. IRQs off.
 */
static __always_inline u32 wult_apic_irr_mode(unsigned int i, bool x2)
{
	u32 reg = APIC_IRR + i * 0x10;

	if (x2)
		return (u32)__rdmsr(APIC_BASE_MSR + (reg >> 4));
	return readl((void __iomem *)(APIC_BASE + reg));
}

/* IRR register @i in the APIC's mode. IRQs off. */
static __always_inline u32 wult_apic_irr(unsigned int i)
{
	return wult_apic_irr_mode(i, x2apic_mode);
}

#endif /* _WULT_APIC_H */
