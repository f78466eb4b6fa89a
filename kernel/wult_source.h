/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the delayed-event source interface.
 *
 * A source arms, on the current CPU, one event that raises an interrupt at
 * a given launch time. Its interrupt handler stamps the TSC and TIntr first
 * thing, in untraced code, and hands them to wult_engine_intr() by a direct
 * call. The engine knows nothing else about it, so a new source (TSC
 * deadline timer, NIC) is one new file and one line in the source table.
 */
#ifndef _WULT_SOURCE_H
#define _WULT_SOURCE_H

#include <linux/types.h>

struct wult_source {
	const char *name;
	/* Prepare every possible CPU. Process context. */
	int (*init)(void);
	/* Undo init(); no event is armed anywhere by then. Process context. */
	void (*exit)(void);
	/*
	 * Arm the event of this CPU to fire at @ltime (CLOCK_MONOTONIC ns).
	 * Called with IRQs off on the measured CPU, also from the event's own
	 * interrupt handler (through wult_engine_intr()); must not sleep.
	 */
	int (*arm)(u64 ltime);
	/*
	 * Disarm this CPU's event if armed, without waiting. Called with
	 * IRQs off on the measured CPU, so the handler cannot be running.
	 */
	void (*cancel)(void);
};

extern const struct wult_source wult_hrt_source;

/*
 * Called by a source's interrupt handler on the CPU that armed the event,
 * IRQs off: @tsc (TSC cycles) and @tintr (CLOCK_MONOTONIC ns) were taken
 * at the handler's entry.
 */
void wult_engine_intr(u64 tsc, u64 tintr);

#endif /* _WULT_SOURCE_H */
