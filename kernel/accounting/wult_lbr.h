/* SPDX-License-Identifier: GPL-2.0 */
/* wult: last-branch records (LBR) read around a wake. */
#ifndef _WULT_LBR_H
#define _WULT_LBR_H

#include <linux/types.h>

struct wult_branches;

/**
 * wult_lbr_init() - choose the branch record reader
 * @mode: "auto" (the CPU's LBR if it has one), "off", or "fake" (synthetic
 *	records of known kernel and wult symbols, to test the path on CPUs
 *	without LBR)
 *
 * Module init.
 *
 * Return: 0, or -EINVAL for any other @mode.
 */
int wult_lbr_init(const char *mode);

/**
 * wult_lbr_name() - the reader chosen
 *
 * Return: "arch", "model", "fake" or "none".
 */
const char *wult_lbr_name(void);

/**
 * wult_lbr_available() - can branch contexts be read here?
 *
 * Return: false with the "none" reader (off, or a CPU without LBR).
 */
bool wult_lbr_available(void);

/**
 * wult_lbr_read() - copy the branch records of the wake
 * @br: its from, to, nr and flags are filled, youngest record first
 *
 * IRQs off. Perf owns the LBR: it is read only while something enabled
 * it (a perf event with a branch stack on this CPU), and frozen meanwhile
 * so that the reading does not overwrite what it reads.
 */
void wult_lbr_read(struct wult_branches *br);

#endif /* _WULT_LBR_H */
