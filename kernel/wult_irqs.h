/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the interrupts a CPU handled, for the validity rules. */
#ifndef _WULT_IRQS_H
#define _WULT_IRQS_H

#include <linux/types.h>

/*
 * Interrupts handled by this CPU so far, modulo 2^32: device interrupts
 * and every x86 system vector. NMIs are not included (wult_nmis()).
 */
u32 wult_irqs(void);
/* Finds the tracepoints of what no counter shows; at module load. */
void wult_irqs_init(void);
/* Their probes, while wult events exist; process context. */
int wult_irqs_get(void);
void wult_irqs_put(void);
u32 wult_nmis(void);
/* Vectors pending in the local APIC (IRR), IRQs off; -1 if unreadable. */
int wult_irqs_pending(void);

#endif /* _WULT_IRQS_H */
