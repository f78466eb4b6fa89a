// SPDX-License-Identifier: GPL-2.0
/*
 * The system description in every wult record output: collected by
 * libwult (wult/sysinfo.h) for the measured CPUs, then put into the file
 * as a feature (wult/pdwrite.h), so a report made anywhere later says
 * which CPU, kernel, idle driver, states and settings the numbers are of.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perf/cpumap.h>

#include <wult/pdwrite.h>
#include <wult/sysinfo.h>

#include "record_sysdesc.h"

void rec_sysdesc_store(struct wult_pdw *pdw, struct perf_cpu_map *cpus, int quiet)
{
	int i, n = perf_cpu_map__nr(cpus), *ids = calloc(n > 0 ? n : 1, sizeof(*ids));
	struct wult_sysdesc *sd = NULL;
	char *text = NULL;
	int ret;

	for (i = 0; ids && i < n; i++)
		ids[i] = perf_cpu_map__cpu(cpus, i).cpu;
	ret = !ids ? -ENOMEM : wult_sysdesc_new(&sd);
	ret = ret ?: wult_sysinfo_collect(sd, NULL, ids, n);
	ret = ret ?: wult_sysdesc_format(sd, &text);
	ret = ret ?: wult_pdw_set_sysdesc(pdw, text);
	if (ret && !quiet)
		fprintf(stderr, "wult record: the system description is not stored: %s\n",
			ret == -E2BIG ? "too large for a pipe-mode record" : strerror(-ret));
	free(text);
	wult_sysdesc_free(sd);
	free(ids);
}
