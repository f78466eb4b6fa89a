/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the "ipi" source's debugfs counters. */
#ifndef _WULT_IPI_H
#define _WULT_IPI_H

struct dentry;

/**
 * wult_ipi_debugfs_init() - the ipi source's file in wult's debugfs
 * @parent: wult's debugfs directory
 *
 * "ipi": per measured CPU, its launcher and what its wakes did. Best
 * effort, as the rest of wult's debugfs.
 */
void wult_ipi_debugfs_init(struct dentry *parent);

#endif /* _WULT_IPI_H */
