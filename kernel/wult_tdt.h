/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the "tdt" source's module parameter. */
#ifndef _WULT_TDT_H
#define _WULT_TDT_H

#include <linux/types.h>

/* @mode: "auto", "off" or "emulated"; -EINVAL for anything else. */
int wult_tdt_set_mode(const char *mode);
const char *wult_tdt_mode_name(void);
/*
 * This CPU's LTime was computed, not read from MSR_IA32_TSC_DEADLINE:
 * tdt=emulated, or a timer-stop state at the last idle entry.
 */
bool wult_tdt_ltime_computed(void);

#endif /* _WULT_TDT_H */
