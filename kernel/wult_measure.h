/* SPDX-License-Identifier: GPL-2.0 */
/* wult: /sys/kernel/debug/wult/measure, measuring without perf. */
#ifndef _WULT_MEASURE_H
#define _WULT_MEASURE_H

struct dentry;

void wult_measure_init(struct dentry *dir);
void wult_measure_exit(void);

#endif /* _WULT_MEASURE_H */
