/* SPDX-License-Identifier: GPL-2.0 */
/* wult: /sys/kernel/debug/wult/measure, measuring without perf. */
#ifndef _WULT_MEASURE_H
#define _WULT_MEASURE_H

struct dentry;

/**
 * wult_measure_init() - create the measure file
 * @dir: the wult debugfs directory
 *
 * Without a CPU hotplug state the file is left out, with a log line.
 */
void wult_measure_init(struct dentry *dir);

/**
 * wult_measure_exit() - drop the hotplug state and the pending pruning
 *
 * Module exit, after the debugfs files are gone.
 */
void wult_measure_exit(void);

#endif /* _WULT_MEASURE_H */
