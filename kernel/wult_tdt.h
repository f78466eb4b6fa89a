/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the "tdt" source's module parameter. */
#ifndef _WULT_TDT_H
#define _WULT_TDT_H

#include <linux/types.h>

/* @mode: "auto", "off" or "emulated"; -EINVAL for anything else. */
int wult_tdt_set_mode(const char *mode);
const char *wult_tdt_mode_name(void);

#endif /* _WULT_TDT_H */
