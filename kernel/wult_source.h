/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the delayed-event source interface.
 *
 * A source arms, on the current CPU, one event that raises an interrupt at
 * a given launch time, and calls the engine's handler from that interrupt.
 * The engine knows nothing else about it, so a new source (TSC deadline
 * timer, NIC) is one new file and one line in the source table.
 */
#ifndef _WULT_SOURCE_H
#define _WULT_SOURCE_H

#include <linux/types.h>

struct wult_source {
	const char *name;
	/*
	 * Prepare every possible CPU; @handler is to be called from the
	 * event's interrupt on the CPU that armed it. Process context.
	 */
	int (*init)(void (*handler)(void));
	/* Undo init(); no event is armed anywhere by then. Process context. */
	void (*exit)(void);
	/*
	 * Arm the event of this CPU to fire at @ltime (CLOCK_MONOTONIC ns).
	 * Called with IRQs off on the measured CPU; must not sleep.
	 */
	int (*arm)(u64 ltime);
	/*
	 * Disarm this CPU's event if armed, without waiting. Called with
	 * IRQs off on the measured CPU, so the handler cannot be running.
	 */
	void (*cancel)(void);
};

extern const struct wult_source wult_hrt_source;

#endif /* _WULT_SOURCE_H */
