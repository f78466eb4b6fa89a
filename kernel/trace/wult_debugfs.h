/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _WULT_DEBUGFS_H
#define _WULT_DEBUGFS_H

/**
 * wult_debugfs_init() - create /sys/kernel/debug/wult/
 *
 * Module init, after the PMU: the measure file creates events of it.
 */
void wult_debugfs_init(void);

/**
 * wult_debugfs_exit() - remove it, and the measure file's events
 *
 * Module exit, first.
 */
void wult_debugfs_exit(void);

#endif /* _WULT_DEBUGFS_H */
