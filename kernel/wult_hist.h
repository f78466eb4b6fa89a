/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: in-kernel latency histograms per CPU and requested idle state,
 * filled from every emitted datapoint, read through debugfs.
 */
#ifndef _WULT_HIST_H
#define _WULT_HIST_H

#include <linux/dcache.h>

#include "uapi/linux/wult.h"

/* Process context: make sure @cpu has its histograms (event_init). */
int wult_hist_get(int cpu);

/* IRQs off, on the datapoint's CPU: add one emitted datapoint. */
void wult_hist_add(const struct wult_dp *dp);

/* Module init, before any event: checks the module parameters. */
void wult_hist_init(void);
/* debugfs: wult/hist/ under @parent; freed with the module. */
void wult_hist_debugfs_init(struct dentry *parent);
void wult_hist_exit(void);

#endif /* _WULT_HIST_H */
