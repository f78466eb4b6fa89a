// SPDX-License-Identifier: GPL-2.0
/*
 * wult record's reads of small sysfs and procfs files: a CPU's online
 * state, cpuidle's names, the perf_event_paranoid setting.
 */
#include <stdio.h>
#include <unistd.h>

#include "record_sys.h"

int rec_file_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

int rec_cpu_online(int cpu)
{
	char path[96], buf[8];

	snprintf(path, sizeof(path), REC_SYSFS_CPU "/cpu%d", cpu);
	if (access(path, F_OK))
		return -1;
	snprintf(path, sizeof(path), REC_SYSFS_CPU "/cpu%d/online", cpu);
	if (rec_file_read(path, buf, sizeof(buf)))
		return 1;	/* CPUs that cannot go offline have no file */
	return buf[0] == '1';
}
