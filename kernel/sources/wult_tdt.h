/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the "tdt" source's module parameter. */
#ifndef _WULT_TDT_H
#define _WULT_TDT_H

#include <linux/types.h>

/**
 * wult_tdt_set_mode() - the tdt= module parameter
 * @mode: "auto", "off" or "emulated"
 *
 * Module init, before the sources' init().
 *
 * Return: 0, or -EINVAL for anything else.
 */
int wult_tdt_set_mode(const char *mode);

/**
 * wult_tdt_mode_name() - the mode set
 *
 * Return: its name, as wult_tdt_set_mode() takes it.
 */
const char *wult_tdt_mode_name(void);

#endif /* _WULT_TDT_H */
