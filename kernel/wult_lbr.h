/* SPDX-License-Identifier: GPL-2.0 */
/* wult: last-branch records (LBR) read around a wake. */
#ifndef _WULT_LBR_H
#define _WULT_LBR_H

#include <linux/types.h>

struct wult_branches;

/*
 * @mode: "auto" (the CPU's LBR if it has one), "off", or "fake" (synthetic
 * records of known kernel and wult symbols, to test the path on CPUs
 * without LBR). -EINVAL for anything else.
 */
int wult_lbr_init(const char *mode);
/* "arch", "model", "fake" or "none". */
const char *wult_lbr_name(void);
bool wult_lbr_available(void);

/*
 * IRQs off: copies the branch records, youngest first, into @br's from, to,
 * nr and flags. Perf owns the LBR: it is read only while something enabled
 * it (a perf event with a branch stack on this CPU), and frozen meanwhile
 * so that the reading does not overwrite what it reads.
 */
void wult_lbr_read(struct wult_branches *br);

#endif /* _WULT_LBR_H */
