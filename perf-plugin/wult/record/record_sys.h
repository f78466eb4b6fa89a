/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's reads of small sysfs and procfs files (record_sys.c),
 * shared by the set-up, the recording loop and the outputs.
 */
#ifndef WULT_RECORD_SYS_H
#define WULT_RECORD_SYS_H

#include <stddef.h>

#define REC_SYSFS_CPU	"/sys/devices/system/cpu"

/* @path's text in @buf (@len bytes, NUL-terminated): 0, or -1 (no file). */
int rec_file_read(const char *path, char *buf, size_t len);

/* CPU @cpu: 1 online, 0 offline, -1 when it does not exist. */
int rec_cpu_online(int cpu);

#endif
