/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report, idle residency from wult.ko's idle accounting (report_resid.c):
 * learnt from an input's group reads, shown as a table by every view.
 */
#ifndef WULT_REPORT_RESID_H
#define WULT_REPORT_RESID_H

#include <wult/perfdata.h>

#include "report.h"

/* ---- report_resid.c: idle residency from wult.ko's idle accounting ---- */
struct rpt_resid;

int rpt_resid_new(struct rpt_resid **out);
void rpt_resid_free(struct rpt_resid *r);
/* Names requested state @state in the table. */
void rpt_resid_name(struct rpt_resid *r, unsigned int state, const char *name);
/* Is wult event kind @kind one of the idle accounting's (time, entries,
 * interrupt time, interrupts)? */
int rpt_resid_kind(unsigned int kind);
/* Sample id @id is a member counting accounting kind @kind of @state.
 * 0, -EINVAL or -ENOSPC. */
int rpt_resid_add_id(struct rpt_resid *r, uint64_t id, unsigned int kind, unsigned int state);
/* Adds a datapoint's group read: what the members grew by since the
 * previous datapoint of its CPU's group. 0 or -ENOMEM. */
int rpt_resid_sample(struct rpt_resid *r, const struct wult_pd_sample *s);
/* Whether any CPU has a span with accounting members. */
int rpt_resid_any(const struct rpt_resid *r);
/* A row of the residency table, as every output shows it. */
struct rpt_resid_row {
	int cpu;			/* -1: every CPU together ("all") */
	const char *state;		/* "idle": the states together */
	double time_pct;		/* of the span */
	double entries_per_s;
	double time_s, entries;		/* over the span */
	int irq;			/* the interrupt figures were recorded */
	double irq_time_pct;		/* of the state's time */
	double irqs_per_s;
};
typedef void (*rpt_resid_fn)(const struct rpt_resid_row *row, void *ctx);
/* The span (ns) the table covers, its CPUs, whether it has interrupt figures. */
void rpt_resid_totals(const struct rpt_resid *r, double *span_ns, unsigned int *ncpus,
		      int *irq);
/* Each row of the table in order: per CPU, then every CPU when several. */
void rpt_resid_foreach(const struct rpt_resid *r, rpt_resid_fn fn, void *ctx);
/* The residency table: per CPU, and every CPU together when several. */
void rpt_resid_print(FILE *out, const struct rpt_resid *r);

#endif
