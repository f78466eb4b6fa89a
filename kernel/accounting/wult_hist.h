/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: in-kernel latency histograms per CPU and requested idle state,
 * filled from every emitted datapoint, read through debugfs.
 */
#ifndef _WULT_HIST_H
#define _WULT_HIST_H

#include <linux/dcache.h>

#include "../uapi/linux/wult.h"

/**
 * wult_hist_get() - make sure a CPU has its histograms
 * @cpu: the CPU of a new datapoint event
 *
 * Process context (event_init). New ones replace those of another cpuidle
 * driver than the current one.
 *
 * Return: 0 (also with histograms off, hist_bins=0) or -ENOMEM.
 */
int wult_hist_get(int cpu);

/*
 * Are there histograms (hist_bins > 0)? Set at module init, read per
 * datapoint: without them nothing but the counting events may read a
 * datapoint's fields (wult_engine.c, wult_emit()).
 */
extern bool wult_hist_on;

/**
 * wult_hist_add() - count one emitted datapoint
 * @dp: the datapoint, its latencies final
 *
 * IRQs off, on the datapoint's CPU.
 */
void wult_hist_add(const struct wult_dp *dp);

/**
 * wult_hist_init() - check the module parameters (bins, bin width)
 *
 * Module init, before any event.
 */
void wult_hist_init(void);

/**
 * wult_hist_debugfs_init() - create wult/hist/
 * @parent: the wult debugfs directory, which removes it with the module
 */
void wult_hist_debugfs_init(struct dentry *parent);

/**
 * wult_hist_exit() - free every CPU's histograms
 *
 * Module exit, when no event and no debugfs file is left.
 */
void wult_hist_exit(void);

#endif /* _WULT_HIST_H */
