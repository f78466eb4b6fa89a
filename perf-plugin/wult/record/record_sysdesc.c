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

/*
 * cpuidle's counters are stored for the first this many measured CPUs: 6
 * keys per CPU and state would otherwise crowd out the description
 * (WULT_SYSDESC_MAX_ENTRIES, a pipe record's 64 KiB) on a large machine.
 */
#define COUNTER_CPUS	16

struct rec_sysdesc {
	struct wult_sysdesc *sd;
	int *ids;
	int n;
};

/* The description into @pdw. 0, or -errno. */
static int store(struct wult_pdw *pdw, const struct wult_sysdesc *sd)
{
	char *text = NULL;
	int ret = wult_sysdesc_format(sd, &text);

	ret = ret ?: wult_pdw_set_sysdesc(pdw, text);
	free(text);
	return ret;
}

static void said(int ret, int quiet)
{
	if (ret && !quiet)
		fprintf(stderr, "wult record: the system description is not stored: %s\n",
			ret == -E2BIG ? "too large for a pipe-mode record" : strerror(-ret));
}

void rec_sysdesc_free(struct rec_sysdesc *r)
{
	if (!r)
		return;
	wult_sysdesc_free(r->sd);
	free(r->ids);
	free(r);
}

struct rec_sysdesc *rec_sysdesc_store(struct wult_pdw *pdw, struct perf_cpu_map *cpus,
				      int quiet)
{
	struct rec_sysdesc *r = calloc(1, sizeof(*r));
	int i, ret;

	if (r) {
		r->n = perf_cpu_map__nr(cpus);
		r->ids = calloc(r->n > 0 ? r->n : 1, sizeof(*r->ids));
	}
	for (i = 0; r && r->ids && i < r->n; i++)
		r->ids[i] = perf_cpu_map__cpu(cpus, i).cpu;
	ret = !r || !r->ids ? -ENOMEM : wult_sysdesc_new(&r->sd);
	ret = ret ?: wult_sysinfo_collect(r->sd, NULL, r->ids, r->n);
	ret = ret ?: wult_sysinfo_counters(r->sd, NULL, r->ids,
					   r->n < COUNTER_CPUS ? r->n : COUNTER_CPUS, "start");
	ret = ret ?: store(pdw, r->sd);
	said(ret, quiet);
	if (ret) {
		rec_sysdesc_free(r);
		return NULL;
	}
	return r;
}

void rec_sysdesc_end(struct rec_sysdesc *r, struct wult_pdw *pdw, int pipe, int quiet)
{
	int ret;

	/* A pipe's description went out with the stream's start. */
	if (r && !pipe) {
		ret = wult_sysinfo_counters(r->sd, NULL, r->ids,
					    r->n < COUNTER_CPUS ? r->n : COUNTER_CPUS, "end");
		said(ret ?: store(pdw, r->sd), quiet);
	}
	rec_sysdesc_free(r);
}
