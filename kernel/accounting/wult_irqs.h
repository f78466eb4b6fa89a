/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the interrupts a CPU handled, for the validity rules. */
#ifndef _WULT_IRQS_H
#define _WULT_IRQS_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/hardirq.h>

/**
 * wult_irqs() - the interrupts this CPU handled so far
 *
 * Device interrupts and every x86 system vector; NMIs are not included
 * (wult_nmis()).
 *
 * Return: their number, modulo 2^32.
 */
u32 wult_irqs(void);

/**
 * wult_irqs_init() - find the tracepoints of what no counter shows
 *
 * Module load.
 */
void wult_irqs_init(void);

/**
 * wult_irqs_get() - register those tracepoints' probes with the first user
 *
 * Process context, while wult events exist.
 *
 * Return: 0 or the errno of a registration.
 */
int wult_irqs_get(void);

/**
 * wult_irqs_put() - undo wult_irqs_get(); the last user unregisters
 */
void wult_irqs_put(void);

/**
 * wult_nmis() - the NMIs this CPU handled so far
 *
 * Inline: one per-CPU load, read four times a datapoint.
 *
 * Return: their number, modulo 2^32.
 */
static inline u32 wult_nmis(void)
{
	return this_cpu_read(irq_stat.__nmi_count);
}

/**
 * wult_irqs_pending() - vectors pending in the local APIC (IRR)
 *
 * IRQs off.
 *
 * Return: their number, or -1 if the IRR cannot be read.
 */
int wult_irqs_pending(void);

#endif /* _WULT_IRQS_H */
