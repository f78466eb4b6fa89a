// SPDX-License-Identifier: GPL-2.0
/*
 * wult record: datapoints of idle states that were disabled while
 * recording. cpuidle never enters a disabled state, so such a datapoint's
 * idle period was not the state cpuidle chose: do_idle() polled (traced
 * as state 0) because of idle=poll or of the tick broadcast force mask,
 * where the kernel can leave a CPU after a timer-stop state that took its
 * wake interrupt with interrupts on (Documentation/kernel.md, "Timer-stop
 * states"), or cpuidle fell back to default_idle_call() (traced as state
 * 1). wult.ko cannot tell these apart from the states they are numbered
 * as; the measured CPUs' sysfs at the end of the recording can. Counted
 * per CPU and state while recording, said at the end.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/wult.h>
#include <wult/cpuidle.h>

#include "record_fallback.h"

/* The raw sample: the 8-byte trace_entry header, then struct wult_dp. */
#define DP_OFF		8

struct rec_fallback {
	int max_cpu;
	unsigned long long (*n)[WULT_IDLE_STATES];	/* [cpu][state] */
};

struct rec_fallback *rec_fallback_new(int max_cpu)
{
	struct rec_fallback *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->max_cpu = max_cpu;
	f->n = calloc(max_cpu + 1, sizeof(*f->n));
	if (!f->n) {
		free(f);
		return NULL;
	}
	return f;
}

void rec_fallback_free(struct rec_fallback *f)
{
	if (!f)
		return;
	free(f->n);
	free(f);
}

void rec_fallback_add(struct rec_fallback *f, unsigned int cpu, const void *raw,
		      unsigned int raw_size)
{
	int32_t state;

	if (!f || (int)cpu > f->max_cpu ||
	    raw_size < DP_OFF + offsetof(struct wult_dp, req_cstate) + sizeof(state))
		return;
	memcpy(&state, (const char *)raw + DP_OFF + offsetof(struct wult_dp, req_cstate),
	       sizeof(state));
	if (state >= 0 && state < WULT_IDLE_STATES)
		f->n[cpu][state]++;
}

/* 1 when @cpu's idle state @state is disabled, 0 otherwise or unknown. */
static int disabled(const char *root, unsigned int cpu, int state, char *name,
		    size_t len)
{
	char path[512];
	FILE *fp;
	int v = 0;

	snprintf(path, sizeof(path), "%s/cpu%u/cpuidle/state%d/disable", root, cpu, state);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	if (fscanf(fp, "%d", &v) != 1)
		v = 0;
	fclose(fp);
	snprintf(path, sizeof(path), "%s/cpu%u/cpuidle/state%d/name", root, cpu, state);
	snprintf(name, len, "state%d", state);
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "%31s", name) != 1)
			snprintf(name, len, "state%d", state);
		fclose(fp);
	}
	return v != 0;
}

void rec_fallback_end(const struct rec_fallback *f)
{
	const char *root = getenv("WULT_CPUIDLE_SYSFS");
	char name[32];
	int cpu, s;

	if (!f)
		return;
	if (!root || !*root)
		root = WULT_CPUIDLE_ROOT;
	for (cpu = 0; cpu <= f->max_cpu; cpu++)
		for (s = 0; s < WULT_IDLE_STATES; s++)
			if (f->n[cpu][s] && disabled(root, cpu, s, name, sizeof(name)))
				fprintf(stderr, "wult record: warning: CPU %d: %llu datapoints "
					"of %s, which is disabled: the kernel did not enter "
					"the state cpuidle chose (it polled, e.g. in the tick "
					"broadcast force mask after a timer-stop state, or fell "
					"back to its default idle; Documentation/kernel.md, \"Timer-stop "
					"states\")\n",
					cpu, f->n[cpu][s], name);
}
