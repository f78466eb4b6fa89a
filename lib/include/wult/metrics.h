/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-datapoint metrics, with intel wult's names. Every producer (the
 * perf.data decoder, the CSV importer) fills a struct wult_point; every
 * consumer (filters, statistics, CSV export) reads one. Times are in ns.
 */
#ifndef WULT_METRICS_H
#define WULT_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <wult/filter.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

enum wult_metric {
	WULT_M_WAKE_LATENCY,		/* ns, overhead-compensated */
	WULT_M_WAKE_LATENCY_RAW,	/* ns */
	WULT_M_INTR_LATENCY,		/* ns, overhead-compensated */
	WULT_M_INTR_LATENCY_RAW,	/* ns */
	WULT_M_SILENT_TIME,		/* ns */
	WULT_M_LDIST,			/* ns */
	WULT_M_REQ_CSTATE,		/* name */
	WULT_M_INTR_OFF,		/* 0/1 */
	WULT_M_CC0,			/* % of TBI..TAI in C0 (MPERF/TSC) */
	WULT_M_CC1,			/* % residencies from cstate counters */
	WULT_M_CC3,
	WULT_M_CC6,
	WULT_M_CC7,
	WULT_M_PC2,
	WULT_M_PC3,
	WULT_M_PC6,
	WULT_M_PC7,
	/* intel wult metrics wult.ko does not measure, kept from its CSV.
	 * Between PC7 and NMICnt: the decoder resets CC0..NMICnt per point. */
	WULT_M_CC1_DERIVED,		/* % C1 derived: 100 - CC0% - other CCx% */
	WULT_M_CC10,
	WULT_M_MC1,			/* % module C-state residencies */
	WULT_M_MC6,
	WULT_M_PC1,
	WULT_M_PC8,
	WULT_M_PC9,
	WULT_M_PC10,
	WULT_M_SWIRQ_CNT,		/* unrelated softirqs before the event */
	WULT_M_CPU_FREQ,		/* MHz, APERF/MPERF * TSC */
	WULT_M_SMI_CNT,
	WULT_M_NMI_CNT,
	WULT_M_CPU,
	WULT_M_LTIME,			/* ns, CLOCK_MONOTONIC */
	WULT_M_TBI,
	WULT_M_TAI,
	WULT_M_TINTR,
	WULT_M_SCALED,			/* 1: a counter was multiplexed below threshold */
	WULT_M_SOURCE,			/* enum wult_source_id: the method (0 hrt, 1 tdt) */
	WULT_M_RUN_LATENCY,		/* ns, ipi waketask: the woken task ran - LTime */
	WULT_M_NR,
};

/* Sets of metrics: bit m stands for metric m. */
#define WULT_METRIC_BIT(m)	((uint64_t)1 << (m))
#define WULT_METRICS_ALL	(WULT_METRIC_BIT(WULT_M_NR) - 1)
/*
 * What a summary reads of a datapoint that has no counters (wult report's
 * default: its three time metrics, CC0%, SMICnt and NMICnt's means, the
 * governor's LDist, and the header's CPUs, methods and task wakes):
 * wult_dpdec_decode_raws() decodes exactly this set fastest.
 */
#define WULT_METRICS_SUMMARY	(WULT_METRIC_BIT(WULT_M_WAKE_LATENCY) |		\
				 WULT_METRIC_BIT(WULT_M_INTR_LATENCY) |		\
				 WULT_METRIC_BIT(WULT_M_SILENT_TIME) |		\
				 WULT_METRIC_BIT(WULT_M_LDIST) |		\
				 WULT_METRIC_BIT(WULT_M_REQ_CSTATE) |		\
				 WULT_METRIC_BIT(WULT_M_CC0) |			\
				 WULT_METRIC_BIT(WULT_M_SMI_CNT) |		\
				 WULT_METRIC_BIT(WULT_M_NMI_CNT) |		\
				 WULT_METRIC_BIT(WULT_M_CPU) |			\
				 WULT_METRIC_BIT(WULT_M_SOURCE) |		\
				 WULT_METRIC_BIT(WULT_M_RUN_LATENCY))

/* The metrics an input provides, as wult_metrics_resolve()'s context. */
struct wult_metric_set {
	uint64_t bits;
	char names[WULT_M_NR * 16];	/* theirs, ", "-separated, for errors */
};

struct wult_metric_desc {
	const char *name;		/* intel wult's column name */
	enum wult_val_type type;
	int is_time;			/* value in ns */
	const char *csv_unit;		/* unit of the CSV column: "us", "ns", "%", ... */
	double csv_scale;		/* CSV value = value / csv_scale */
};

/* One datapoint: values indexed by enum wult_metric. NaN = none. The str
 * member is meaningful only for WULT_VAL_STR metrics (NULL = none), whose
 * num may carry an index (ReqCState: the requested state's index).
 */
struct wult_point {
	struct wult_val v[WULT_M_NR];
};

const struct wult_metric_desc *wult_metric_desc(enum wult_metric m);
/* Index of the metric called @name (@len bytes), or -1. */
int wult_metric_lookup(const char *name, size_t len);
/* Fills @set with the metrics of @bits. */
void wult_metric_set_init(struct wult_metric_set *set, uint64_t bits);
/* A wult_filter_resolve_fn: @ctx is a struct wult_metric_set (NULL: every
 * metric). An unknown name is -ENOENT, a metric outside the set -ENODATA,
 * and m->avail then names the set's metrics.
 */
int wult_metrics_resolve(void *ctx, const char *name, size_t len,
			 struct wult_filter_metric *m);
/* Sets every value of @pt to "none". */
void wult_point_clear(struct wult_point *pt);

#pragma GCC visibility pop

#endif
