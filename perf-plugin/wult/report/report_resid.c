// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's idle residency. wult record puts wult.ko's idle accounting
 * in every datapoint's group read: wult/idle_time,state=N/ (ns in requested
 * idle state N), wult/idle_entries,state=N/ (its entries), and where the
 * module has them wult/idle_irq_time,state=N/ (ns of that time in
 * interrupt handlers) and wult/idle_irqs,state=N/ (those interrupts). Per
 * CPU, the growth of each between two consecutive datapoints of the same
 * group, and the group's running time between them, add up to each
 * state's figures over the span the CPU's datapoints cover:
 *
 *	Time % = time / span * 100	Entries/s = entries / span
 *	IRQ time % = irq time / time * 100	IRQs/s = irqs / span
 *
 * A group opened anew (a CPU back from offline) starts a new span of its
 * own: its counts restart from zero and are never subtracted from the old
 * group's. The datapoints' filters do not apply: this is the CPU's time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/wult.h>

#include "report_resid.h"

/* The accounting kinds, as indexes: time, entries, irq time, irqs. */
enum { RES_TIME, RES_ENTRIES, RES_IRQ_TIME, RES_IRQS, RES_KINDS };

#define RES_MAX_IDS	(RES_KINDS * WULT_IDLE_STATES * 64)	/* 64 groups' members */

struct res_id {
	uint64_t id;
	unsigned int kind;		/* RES_* */
	unsigned int state;
};

/* Where a group read holds an accounting member. */
struct res_slot {
	unsigned int pos;
	uint64_t id;
	unsigned int kind, state;
};

struct res_cpu {
	uint64_t leader;		/* leader id of the last read, 0: none */
	uint64_t last_t;		/* its running time then, ns */
	uint64_t last[RES_KINDS][WULT_IDLE_STATES];
	struct res_slot slot[RES_KINDS * WULT_IDLE_STATES];
	unsigned int nslot;
	uint64_t span;			/* ns covered by spans */
	uint64_t sum[RES_KINDS][WULT_IDLE_STATES];
	unsigned int has;		/* a bit per state with a member */
	unsigned int has_irq;		/* a bit per state with interrupt members */
};

struct rpt_resid {
	struct res_id ids[RES_MAX_IDS];
	unsigned int nids;
	struct res_cpu *cpu[RPT_MAX_CPUS];
	char name[WULT_IDLE_STATES][32];
};

int rpt_resid_new(struct rpt_resid **out)
{
	struct rpt_resid *r = calloc(1, sizeof(*r));
	unsigned int k;

	*out = r;
	if (!r)
		return -ENOMEM;
	for (k = 0; k < WULT_IDLE_STATES; k++)
		snprintf(r->name[k], sizeof(r->name[k]), "state%u", k);
	return 0;
}

void rpt_resid_free(struct rpt_resid *r)
{
	unsigned int c;

	if (!r)
		return;
	for (c = 0; c < RPT_MAX_CPUS; c++)
		free(r->cpu[c]);
	free(r);
}

void rpt_resid_name(struct rpt_resid *r, unsigned int state, const char *name)
{
	if (state < WULT_IDLE_STATES && name)
		snprintf(r->name[state], sizeof(r->name[state]), "%s", name);
}

/* RES_* of a wult event kind, or -1 when it is none of the accounting. */
static int res_kind(unsigned int kind)
{
	switch (kind) {
	case WULT_KIND_IDLE_TIME:
		return RES_TIME;
	case WULT_KIND_IDLE_ENTRIES:
		return RES_ENTRIES;
	case WULT_KIND_IDLE_IRQ_TIME:
		return RES_IRQ_TIME;
	case WULT_KIND_IDLE_IRQS:
		return RES_IRQS;
	default:
		return -1;
	}
}

int rpt_resid_kind(unsigned int kind)
{
	return res_kind(kind) >= 0;
}

int rpt_resid_add_id(struct rpt_resid *r, uint64_t id, unsigned int kind, unsigned int state)
{
	int rk = res_kind(kind);
	unsigned int i;

	if (state >= WULT_IDLE_STATES || rk < 0)
		return -EINVAL;
	for (i = 0; i < r->nids; i++)
		if (r->ids[i].id == id)
			return 0;
	if (r->nids == RES_MAX_IDS)
		return -ENOSPC;
	r->ids[r->nids++] = (struct res_id){ id, (unsigned int)rk, state };
	return 0;
}

static const struct res_id *find_id(const struct rpt_resid *r, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < r->nids; i++)
		if (r->ids[i].id == id)
			return &r->ids[i];
	return NULL;
}

/* A new group on @c: where its read holds the accounting members. */
static void learn_slots(const struct rpt_resid *r, struct res_cpu *c,
			const struct wult_pd_sample *s)
{
	const struct res_id *m;
	uint64_t p;

	c->nslot = 0;
	for (p = 0; p < s->read.nr && c->nslot < RES_KINDS * WULT_IDLE_STATES; p++) {
		m = find_id(r, s->read.values[p].id);
		if (!m)
			continue;
		c->slot[c->nslot++] = (struct res_slot){ p, m->id, m->kind, m->state };
		if (m->kind == RES_IRQ_TIME || m->kind == RES_IRQS)
			c->has_irq |= 1U << m->state;
		else
			c->has |= 1U << m->state;
	}
}

/* The read's time base: the group's running time, else the sample's time. */
static int read_time(const struct wult_pd_sample *s, uint64_t *t)
{
	uint64_t rf = s->attr->attr.read_format;

	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		*t = s->read.time_running;
	else if (s->attr->attr.sample_type & PERF_SAMPLE_TIME)
		*t = s->time;
	else
		return -1;
	return 0;
}

int rpt_resid_sample(struct rpt_resid *r, const struct wult_pd_sample *s)
{
	const struct perf_event_attr *a = &s->attr->attr;
	struct res_cpu *c;
	unsigned int i, same;
	uint64_t t, v;

	if (!r->nids || !(a->sample_type & PERF_SAMPLE_READ) ||
	    !(a->sample_type & PERF_SAMPLE_CPU) || (a->read_format &
	    (PERF_FORMAT_GROUP | PERF_FORMAT_ID)) != (PERF_FORMAT_GROUP | PERF_FORMAT_ID) ||
	    !s->read.nr || s->cpu >= RPT_MAX_CPUS || read_time(s, &t))
		return 0;
	c = r->cpu[s->cpu];
	if (!c) {
		c = r->cpu[s->cpu] = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
	}
	same = c->leader == s->read.values[0].id && t >= c->last_t;
	if (!same)
		learn_slots(r, c, s);
	if (same)
		c->span += t - c->last_t;
	for (i = 0; i < c->nslot; i++) {
		const struct res_slot *sl = &c->slot[i];

		if (sl->pos >= s->read.nr || s->read.values[sl->pos].id != sl->id)
			continue;	/* not this group's layout: no delta */
		v = s->read.values[sl->pos].value;
		if (same && v >= c->last[sl->kind][sl->state])
			c->sum[sl->kind][sl->state] += v - c->last[sl->kind][sl->state];
		c->last[sl->kind][sl->state] = v;
	}
	c->leader = s->read.values[0].id;
	c->last_t = t;
	return 0;
}

int rpt_resid_any(const struct rpt_resid *r)
{
	unsigned int c;

	for (c = 0; r && c < RPT_MAX_CPUS; c++)
		if (r->cpu[c] && r->cpu[c]->has && r->cpu[c]->span)
			return 1;
	return 0;
}

/* A row's sums, ns and counts over a span, and their rates. */
struct res_row {
	double time, entries, irq_time, irqs, rate, irq_rate;
};

/* The row's figures from its sums over @span ns: the one place they are
 * computed, for the text table and the JSON output alike. */
static void emit(const struct res_row *w, int cpu, const char *state, double span, int irq,
		 rpt_resid_fn fn, void *ctx)
{
	struct rpt_resid_row row = {
		.cpu = cpu, .state = state, .time_pct = 100.0 * w->time / span,
		.entries_per_s = w->rate, .time_s = w->time / 1e9, .entries = w->entries,
		.irq = irq, .irq_time_pct = w->time > 0 ? 100.0 * w->irq_time / w->time : 0.0,
		.irqs_per_s = w->irq_rate,
	};

	fn(&row, ctx);
}

static void row_add(struct res_row *t, const struct res_row *w)
{
	t->time += w->time;
	t->entries += w->entries;
	t->irq_time += w->irq_time;
	t->irqs += w->irqs;
	t->rate += w->rate;
	t->irq_rate += w->irq_rate;
}

/* CPU @c's figures for state @k. */
static struct res_row cpu_row(const struct res_cpu *c, unsigned int k)
{
	return (struct res_row){
		.time = c->sum[RES_TIME][k], .entries = c->sum[RES_ENTRIES][k],
		.irq_time = c->sum[RES_IRQ_TIME][k], .irqs = c->sum[RES_IRQS][k],
		.rate = c->sum[RES_ENTRIES][k] * 1e9 / c->span,
		.irq_rate = c->sum[RES_IRQS][k] * 1e9 / c->span,
	};
}

/* One CPU's rows: each state with a member, then the total. */
static void cpu_rows(const struct rpt_resid *r, unsigned int cpu, int irq, rpt_resid_fn fn,
		     void *ctx)
{
	const struct res_cpu *c = r->cpu[cpu];
	struct res_row w, t = { 0 };
	unsigned int k;

	for (k = 0; k < WULT_IDLE_STATES; k++) {
		if (!(c->has & (1U << k)))
			continue;
		w = cpu_row(c, k);
		emit(&w, (int)cpu, r->name[k], c->span, irq, fn, ctx);
		row_add(&t, &w);
	}
	emit(&t, (int)cpu, "idle", c->span, irq, fn, ctx);
}

/* Every CPU together: time over the CPUs' spans summed, rates summed. */
static void all_rows(const struct rpt_resid *r, int irq, rpt_resid_fn fn, void *ctx)
{
	struct res_row st[WULT_IDLE_STATES] = { 0 }, w, t = { 0 };
	unsigned int has = 0, k, cpu;
	double span = 0;

	for (cpu = 0; cpu < RPT_MAX_CPUS; cpu++) {
		const struct res_cpu *c = r->cpu[cpu];

		if (!c || !c->has || !c->span)
			continue;
		span += c->span;
		has |= c->has;
		for (k = 0; k < WULT_IDLE_STATES; k++) {
			w = cpu_row(c, k);
			row_add(&st[k], &w);
		}
	}
	for (k = 0; k < WULT_IDLE_STATES; k++) {
		if (!(has & (1U << k)))
			continue;
		emit(&st[k], -1, r->name[k], span, irq, fn, ctx);
		row_add(&t, &st[k]);
	}
	emit(&t, -1, "idle", span, irq, fn, ctx);
}

void rpt_resid_totals(const struct rpt_resid *r, double *span_ns, unsigned int *ncpus,
		      int *irq)
{
	unsigned int cpu;

	*span_ns = 0;
	*ncpus = 0;
	*irq = 0;
	for (cpu = 0; r && cpu < RPT_MAX_CPUS; cpu++) {
		if (r->cpu[cpu] && r->cpu[cpu]->has && r->cpu[cpu]->span) {
			(*ncpus)++;
			*span_ns += r->cpu[cpu]->span;
			*irq |= r->cpu[cpu]->has_irq != 0;
		}
	}
}

void rpt_resid_foreach(const struct rpt_resid *r, rpt_resid_fn fn, void *ctx)
{
	unsigned int cpu, ncpus;
	double span;
	int irq;

	rpt_resid_totals(r, &span, &ncpus, &irq);
	if (!ncpus)
		return;
	for (cpu = 0; cpu < RPT_MAX_CPUS; cpu++)
		if (r->cpu[cpu] && r->cpu[cpu]->has && r->cpu[cpu]->span)
			cpu_rows(r, cpu, irq, fn, ctx);
	if (ncpus > 1)
		all_rows(r, irq, fn, ctx);
}

static void print_row(const struct rpt_resid_row *w, void *ctx)
{
	FILE *out = ctx;
	char label[16];

	if (w->cpu < 0)
		snprintf(label, sizeof(label), "all");
	else
		snprintf(label, sizeof(label), "%d", w->cpu);
	fprintf(out, "  %-5s %-12s %8.2f %11.1f %12.6f %12.0f", label, w->state, w->time_pct,
		w->entries_per_s, w->time_s, w->entries);
	if (w->irq)
		fprintf(out, " %10.2f %9.1f", w->irq_time_pct, w->irqs_per_s);
	fputc('\n', out);
}

void rpt_resid_print(FILE *out, const struct rpt_resid *r)
{
	unsigned int ncpus;
	double span;
	int irq;

	if (!rpt_resid_any(r))
		return;
	rpt_resid_totals(r, &span, &ncpus, &irq);
	fprintf(out, "\nidle residency (wult.ko's idle accounting, %.3f s of %u CPU%s between "
		"each CPU's first and last datapoints):\n", span / 1e9, ncpus,
		ncpus == 1 ? "" : "s");
	fprintf(out, "  %-5s %-12s %8s %11s %12s %12s", "CPU", "State", "Time %",
		"Entries/s", "Time (s)", "Entries");
	if (irq)
		fprintf(out, " %10s %9s", "IRQ time %", "IRQs/s");
	fputc('\n', out);
	rpt_resid_foreach(r, print_row, out);
}
