// SPDX-License-Identifier: GPL-2.0
/* The metric table: names and units as intel wult's defs/wult/wult.yml. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <wult/metrics.h>

#define TIME(n)	{ n, WULT_VAL_NUM, 1, "us", 1e3 }
#define PCT(n)	{ n, WULT_VAL_NUM, 0, "%", 1 }
#define NUM(n)	{ n, WULT_VAL_NUM, 0, "", 1 }
#define ABS(n)	{ n, WULT_VAL_NUM, 1, "ns", 1 }

static const struct wult_metric_desc descs[WULT_M_NR] = {
	[WULT_M_WAKE_LATENCY] = TIME("WakeLatency"),
	[WULT_M_WAKE_LATENCY_RAW] = TIME("WakeLatencyRaw"),
	[WULT_M_INTR_LATENCY] = TIME("IntrLatency"),
	[WULT_M_INTR_LATENCY_RAW] = TIME("IntrLatencyRaw"),
	[WULT_M_SILENT_TIME] = TIME("SilentTime"),
	[WULT_M_LDIST] = TIME("LDist"),
	[WULT_M_REQ_CSTATE] = { "ReqCState", WULT_VAL_STR, 0, "", 1 },
	[WULT_M_INTR_OFF] = NUM("IntrOff"),
	[WULT_M_CC0] = PCT("CC0%"),
	[WULT_M_CC1] = PCT("CC1%"),
	[WULT_M_CC3] = PCT("CC3%"),
	[WULT_M_CC6] = PCT("CC6%"),
	[WULT_M_CC7] = PCT("CC7%"),
	[WULT_M_PC2] = PCT("PC2%"),
	[WULT_M_PC3] = PCT("PC3%"),
	[WULT_M_PC6] = PCT("PC6%"),
	[WULT_M_PC7] = PCT("PC7%"),
	[WULT_M_CPU_FREQ] = { "CPUFreq", WULT_VAL_NUM, 0, "MHz", 1 },
	[WULT_M_SMI_CNT] = NUM("SMICnt"),
	[WULT_M_NMI_CNT] = NUM("NMICnt"),
	[WULT_M_CPU] = NUM("CPU"),
	/* Absolute stamps stay integer ns, as intel wult's LTime/TBI/TAI. */
	[WULT_M_LTIME] = ABS("LTime"),
	[WULT_M_TBI] = ABS("TBI"),
	[WULT_M_TAI] = ABS("TAI"),
	[WULT_M_TINTR] = ABS("TIntr"),
	[WULT_M_SCALED] = NUM("Scaled"),
	[WULT_M_SOURCE] = NUM("Source"),
	[WULT_M_CC1_DERIVED] = PCT("CC1Derived%"),
	[WULT_M_CC10] = PCT("CC10%"),
	[WULT_M_MC1] = PCT("MC1%"),
	[WULT_M_MC6] = PCT("MC6%"),
	[WULT_M_PC1] = PCT("PC1%"),
	[WULT_M_PC8] = PCT("PC8%"),
	[WULT_M_PC9] = PCT("PC9%"),
	[WULT_M_PC10] = PCT("PC10%"),
	[WULT_M_SWIRQ_CNT] = NUM("SWIRQCnt"),
	[WULT_M_RUN_LATENCY] = TIME("RunLatency"),
};

const struct wult_metric_desc *wult_metric_desc(enum wult_metric m)
{
	return (unsigned int)m < WULT_M_NR ? &descs[m] : NULL;
}

int wult_metric_lookup(const char *name, size_t len)
{
	int i;

	for (i = 0; i < WULT_M_NR; i++)
		if (strlen(descs[i].name) == len && !memcmp(descs[i].name, name, len))
			return i;
	return -1;
}

_Static_assert(WULT_M_NR <= 64, "metric sets are 64-bit masks");

void wult_metric_set_init(struct wult_metric_set *set, uint64_t bits)
{
	size_t n = 0;
	int i;

	set->bits = bits & WULT_METRICS_ALL;
	set->names[0] = '\0';
	for (i = 0; i < WULT_M_NR; i++)
		if (set->bits & WULT_METRIC_BIT(i))
			n += snprintf(set->names + n, sizeof(set->names) - n, "%s%s",
				      n ? ", " : "", descs[i].name);
}

int wult_metrics_resolve(void *ctx, const char *name, size_t len,
			 struct wult_filter_metric *m)
{
	/* Built once; every caller would build the same text. */
	static struct wult_metric_set all;
	const struct wult_metric_set *set = ctx;
	int i = wult_metric_lookup(name, len);

	if (!set) {
		if (!all.bits)
			wult_metric_set_init(&all, WULT_METRICS_ALL);
		set = &all;
	}
	if (i < 0 || !(set->bits & WULT_METRIC_BIT(i))) {
		m->avail = set->names;
		return i < 0 ? -ENOENT : -ENODATA;
	}
	m->index = i;
	m->type = descs[i].type;
	m->is_time = descs[i].is_time;
	return 0;
}

void wult_point_clear(struct wult_point *pt)
{
	int i;

	for (i = 0; i < WULT_M_NR; i++) {
		pt->v[i].num = NAN;
		pt->v[i].str = NULL;
	}
}
