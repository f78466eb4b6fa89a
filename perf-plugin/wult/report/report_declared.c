// SPDX-License-Identifier: GPL-2.0
/*
 * Declared against measured: each state's exit latency and target
 * residency as the idle driver declares them to the kernel (from the
 * recording's system description, or this machine's cpuidle sysfs when
 * asked with --declared-sysfs), beside the measured wake latency, with
 * the states whose p99.99 breaks the declared latency or lies far below
 * it flagged. --suggest turns the measurement into settings: the latency
 * to declare per state (an intel_idle.table= string) and the PM QoS value
 * that allows or forbids each state, with what each costs.
 *
 * The model (rpt_decl_new()) is computed once; the text is printed here,
 * the JSON and HTML views lay out the same rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/sysinfo.h>

#include "report_judge.h"
#include "report_view.h"

/* The measured columns: median, p99, p99.99, max. */
static const int cols[4] = { RPT_S_MEDIAN, RPT_S_P99, RPT_S_P99_99, RPT_S_MAX };
static const char *const col_names[4] = { "Median", "p99", "p99.99", "Max" };

struct decl_own {
	struct rpt_decl d;
	struct wult_sysdesc *sysfs;	/* --declared-sysfs's description */
};

/* The first CPU of the kept datapoints, -1: none. */
static int first_cpu(const struct rpt_file *f)
{
	unsigned int i;

	for (i = 0; i < RPT_MAX_CPUS; i++)
		if (f->nt.cpus[i / 64] & (1ULL << (i % 64)))
			return i;
	return -1;
}

/*
 * The description's state index of group @name ("C6", "state2", or with
 * --per-cpu "CPU1 C6") on @cpu, or -1; *@cpu becomes the group's CPU.
 */
int rpt_decl_state_index(const struct wult_sysdesc *sd, const char *name, int *cpu)
{
	const char *n = name, *dn;
	unsigned int k, idx;
	int c, len;

	if (sscanf(name, "CPU%d %n", &c, &len) == 1 && len > 0) {
		*cpu = c;
		n = name + len;
	}
	for (k = 0; k < 64 && (dn = wult_sysdesc_state(sd, *cpu, k, "name")); k++)
		if (!strcmp(dn, n))
			return k;
	/* Names a perf.data without idle-state names gets: stateN. */
	if (sscanf(n, "state%u%n", &idx, &len) == 1 && !n[len] && idx < 64 &&
	    wult_sysdesc_state(sd, *cpu, idx, "name"))
		return idx;
	return -1;
}

static void fill_row(const struct rpt_decl *d, const struct wult_sysdesc *sd, int cpu,
		     const struct rpt_group *g, struct rpt_decl_row *r)
{
	double p;
	int k, i;

	r->g = g;
	r->lat_us = r->res_us = r->ratio = NAN;
	for (i = 0; i < 4; i++)
		r->v[i] = d->mi >= 0 ? rpt_stat_val(&g->sum[d->mi], cols[i]) : NAN;
	k = sd ? rpt_decl_state_index(sd, g->name, &cpu) : -1;
	if (k < 0)
		return;
	r->name = wult_sysdesc_state(sd, cpu, k, "name");
	r->lat_us = wult_sysdesc_num(wult_sysdesc_state(sd, cpu, k, "latency_us"));
	r->res_us = wult_sysdesc_num(wult_sysdesc_state(sd, cpu, k, "residency_us"));
	p = r->v[2];
	/* A state declaring 0 (POLL) makes no promise to hold: no ratio. */
	if (isnan(p) || isnan(r->lat_us) || r->lat_us <= 0)
		return;
	r->ratio = p / (r->lat_us * 1e3);
	if (r->ratio > 1)
		r->flag = "exceeds";
	else if (r->ratio < RPT_DECL_FAR_BELOW)
		r->flag = "far-below";
}

int rpt_decl_new(const struct rpt_opts *o, const struct rpt_file *f, struct rpt_decl **out)
{
	struct decl_own *own = calloc(1, sizeof(*own));
	struct rpt_decl *d = &own->d;
	const struct wult_sysdesc *sd = f->meta.sysdesc;
	int cpu = first_cpu(f);
	unsigned int i;

	*out = NULL;
	if (!own)
		return -ENOMEM;
	d->metric = WULT_M_WAKE_LATENCY;
	d->mi = -1;
	for (i = 0; i < o->ntime; i++)
		if (o->time[i] == d->metric)
			d->mi = i;
	if (sd) {
		d->src = RPT_DECL_RECORDED;
		d->src_text = "the recording's system description";
	} else if (o->declared_sysfs && cpu >= 0) {
		if (wult_sysdesc_new(&own->sysfs) ||
		    wult_sysinfo_collect(own->sysfs, NULL, &cpu, 1)) {
			wult_sysdesc_free(own->sysfs);
			free(own);
			return -ENOMEM;
		}
		sd = own->sysfs;
		d->src = RPT_DECL_SYSFS;
		d->src_text = "this machine's cpuidle sysfs (--declared-sysfs: right only if "
			      "this machine, as it is set now, recorded the input)";
	} else {
		d->src = RPT_DECL_NONE;
		d->src_text = f->meta.sysdesc_err ? "unknown: the input's system description "
			"is unreadable" : f->meta.kind && !strcmp(f->meta.kind, "intel wult") ?
			"unknown: an intel wult result does not carry them" :
			"unknown: the input carries no system description (a recording by an "
			"older wult, or not by wult record); --declared-sysfs takes this "
			"machine's if it recorded the input";
	}
	if (sd) {
		d->driver = wult_sysdesc_get(sd, "cpuidle.driver");
		d->synthetic = wult_sysdesc_get(sd, "synthetic") != NULL;
	}
	d->rows = calloc(f->ngroups ? f->ngroups : 1, sizeof(*d->rows));
	if (!d->rows) {
		rpt_decl_free(d);
		return -ENOMEM;
	}
	for (i = 0; i < f->ngroups; i++)
		fill_row(d, sd, cpu, f->groups[i], &d->rows[d->n++]);
	*out = d;
	return 0;
}

void rpt_decl_free(struct rpt_decl *d)
{
	struct decl_own *own = (struct decl_own *)d;

	if (!d)
		return;
	wult_sysdesc_free(own->sysfs);
	free(d->rows);
	free(own);
}

/* "  @lead@text", wrapped at spaces to 78 columns, continued indented. */
static void put_wrapped(FILE *out, const char *lead, const char *text)
{
	size_t col = 2 + strlen(lead);
	const char *p = text;

	fprintf(out, "  %s", lead);
	while (*p) {
		size_t w = strcspn(p, " ");

		if (col + w > 78 && col > 4) {
			fputs("\n   ", out);
			col = 3;
		}
		fprintf(out, "%.*s", (int)w, p);
		col += w;
		p += w;
		if (*p == ' ') {
			p++;
			if (*p && col + 1 + strcspn(p, " ") <= 78) {
				fputc(' ', out);
				col++;
			}
		}
	}
	fputc('\n', out);
}

/* The group's name, with the description's where it differs ("state2=C6"). */
static const char *label(char *buf, size_t len, const struct rpt_decl_row *r)
{
	const char *st = r->g->name;
	int n = 0, c;

	/* --per-cpu's "CPU1 C6": its state part */
	if (sscanf(st, "CPU%d %n", &c, &n) == 1 && n > 0)
		st += n;
	if (r->name && strcmp(r->name, st))
		snprintf(buf, len, "%s=%s", r->g->name, r->name);
	else
		snprintf(buf, len, "%s", r->g->name);
	return buf;
}

static const char *fmt_us(char *buf, size_t len, double us)
{
	if (isnan(us))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", us);
	return buf;
}

void rpt_decl_print(FILE *out, const struct rpt_opts *o, const struct rpt_file *f,
		    const struct rpt_decl *d, int always)
{
	char a[32], b[32], l[96];
	unsigned int i;
	int c;

	if (d->src == RPT_DECL_NONE && !always)
		return;
	fprintf(out, "\nDeclared against measured: %s\n", f->path);
	put_wrapped(out, "declared: ", d->src_text);
	if (d->src == RPT_DECL_NONE)
		return;
	if (d->mi < 0) {
		fprintf(out, "  (WakeLatency is not among the reported metrics: add it with -m)\n");
		return;
	}
	fprintf(out, "  driver %s%s; measured: WakeLatency in %s\n",
		d->driver ? d->driver : "unknown", d->synthetic ? " (synthetic)" : "", o->unit);
	fprintf(out, "  Lat, Res: the declared exit latency and target residency (us);\n"
		"  Ratio: p99.99 / Lat\n");
	fprintf(out, "  %-12s%6s%6s", "State", "Lat", "Res");
	for (c = 0; c < 4; c++)
		fprintf(out, "%9s", col_names[c]);
	fprintf(out, "%7s  %s\n", "Ratio", "Flag");
	for (i = 0; i < d->n; i++) {
		const struct rpt_decl_row *r = &d->rows[i];

		fprintf(out, "  %-12s%6s", label(l, sizeof(l), r), fmt_us(a, sizeof(a), r->lat_us));
		fprintf(out, "%6s", fmt_us(b, sizeof(b), r->res_us));
		for (c = 0; c < 4; c++)
			fprintf(out, " %8s", rpt_fmt_time(a, sizeof(a), o, r->v[c]));
		if (isnan(r->ratio))
			fprintf(out, "%7s", "-");
		else
			fprintf(out, " %6.2f", r->ratio);
		if (r->flag || !r->name)
			fprintf(out, "  %s", r->flag ? r->flag : "no declared values");
		fputc('\n', out);
	}
	fprintf(out, "  Flags: exceeds = p99.99 above the declared exit latency (a PM QoS limit\n"
		"  that admits the state is not kept); far-below = p99.99 under %.2f x the\n"
		"  declared latency (the governor and PM QoS avoid the state more than it\n"
		"  costs). States declaring 0 (POLL) are not judged.\n", RPT_DECL_FAR_BELOW);
}

double rpt_suggest_us(const struct rpt_decl *d, const struct rpt_decl_row *r)
{
	double v = d->mi >= 0 ? r->g->pct[d->mi] : NAN;

	return isnan(v) ? NAN : ceil(v / 1e3);
}

/* Rows of known declared latency in increasing latency (their index list). */
static unsigned int by_latency(const struct rpt_decl *d, unsigned int *idx)
{
	unsigned int n = 0, i, j;

	for (i = 0; i < d->n; i++) {
		if (isnan(d->rows[i].lat_us))
			continue;
		for (j = n; j > 0 && d->rows[idx[j - 1]].lat_us > d->rows[i].lat_us; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
		n++;
	}
	return n;
}

unsigned int rpt_suggest_table(const struct rpt_decl *d, char *buf, size_t len)
{
	unsigned int *idx = calloc(d->n ? d->n : 1, sizeof(*idx)), n, i, nt = 0;
	size_t pos = 0;

	buf[0] = '\0';
	if (!idx)
		return 0;
	n = by_latency(d, idx);
	/* NAME:LATENCY:RESIDENCY; an empty field keeps the driver's value. A
	 * residency below the new latency would make no sense: raised to it. */
	for (i = 0; i < n && pos < len; i++) {
		const struct rpt_decl_row *r = &d->rows[idx[i]];
		double s = rpt_suggest_us(d, r);
		unsigned int k, dup = 0;

		if (!r->name || !strcmp(r->name, "POLL") || isnan(s))
			continue;
		/* --per-cpu: a state once, at the most any CPU needs */
		for (k = 0; k < n; k++) {
			const struct rpt_decl_row *o = &d->rows[idx[k]];

			if (k == i || !o->name || strcmp(o->name, r->name))
				continue;
			if (k < i)
				dup = 1;
			else if (rpt_suggest_us(d, o) > s)
				s = rpt_suggest_us(d, o);
		}
		if (dup)
			continue;
		pos += snprintf(buf + pos, len - pos, "%s%s:%.0f:", nt ? "," : "", r->name, s);
		if (pos < len && !isnan(r->res_us) && r->res_us < s)
			pos += snprintf(buf + pos, len - pos, "%.0f", s);
		nt++;
	}
	free(idx);
	return nt;
}

void rpt_suggest_print(FILE *out, const struct rpt_opts *o, const struct rpt_file *f,
		       const struct rpt_decl *d)
{
	unsigned int *idx = calloc(d->n ? d->n : 1, sizeof(*idx)), n, i, nt;
	char a[32], b[32], c[32], p[32], tbl[1024], l[96];

	fprintf(out, "\nSuggested settings (WakeLatency p%g): %s\n", o->suggest_pct, f->path);
	if (d->src == RPT_DECL_NONE || d->mi < 0 || !idx) {
		put_wrapped(out, "declared latencies: ", d->mi < 0 ? "WakeLatency is not "
			    "reported (add it with -m)" : d->src_text);
		free(idx);
		return;
	}
	n = by_latency(d, idx);
	put_wrapped(out, "declared: ", d->src_text);
	fprintf(out, "  %-12s %8s %12s %10s\n", "State", "ExitLat", "Measured", "Declare");
	for (i = 0; i < n; i++) {
		const struct rpt_decl_row *r = &d->rows[idx[i]];

		fprintf(out, "  %-12s %8s %12s %10s\n", label(l, sizeof(l), r),
			fmt_us(a, sizeof(a), r->lat_us),
			rpt_fmt_time(b, sizeof(b), o, r->g->pct[d->mi]),
			fmt_us(c, sizeof(c), rpt_suggest_us(d, r)));
	}
	nt = rpt_suggest_table(d, tbl, sizeof(tbl));
	fprintf(out, "  intel_idle.table=%s\n", nt ? tbl : "(no state to adjust)");
	fprintf(out, "  (NAME:EXIT_LATENCY:TARGET_RESIDENCY in us; an empty field keeps the\n"
		"  driver's value; POLL cannot be set. Only intel_idle reads it; this\n"
		"  recording's driver: %s. Kernels taking it have intel_idle's 'table'\n"
		"  parameter (the patch \"intel_idle: Add cmdline option to adjust\n"
		"  C-states table\", linux-pm, December 2025); Debian's 6.1 and 6.12 do\n"
		"  not: their intel_idle takes max_cstate, no_acpi, use_acpi, states_off,\n"
		"  preferred_cstates, and on 6.12 force_irq_on and ibrs_off.)\n",
		d->driver ? d->driver : "unknown");
	fprintf(out, "  PM QoS (/dev/cpu_dma_latency, tuned's force_latency): a value allows a\n"
		"  state while its exit latency <= the value; below it forbids the state and\n"
		"  every deeper one. Cost: the measured WakeLatency p%g of the deepest state\n"
		"  a value allows.\n", o->suggest_pct);
	snprintf(p, sizeof(p), "Cost (%s)", o->unit);
	fprintf(out, "  %-12s %14s %16s %12s\n", "State", "Allowed at >=", "(suggested: >=)", p);
	for (i = 0; i < n; i++) {
		const struct rpt_decl_row *r = &d->rows[idx[i]];

		snprintf(p, sizeof(p), "%.0f us", r->lat_us);
		snprintf(c, sizeof(c), isnan(rpt_suggest_us(d, r)) ? "-" : "%.0f us",
			 rpt_suggest_us(d, r));
		fprintf(out, "  %-12s %14s %16s %12s\n", label(l, sizeof(l), r), p, c,
			rpt_fmt_time(b, sizeof(b), o, r->g->pct[d->mi]));
	}
	free(idx);
}

void rpt_decl_print_all(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
			unsigned int nfiles)
{
	unsigned int j;

	for (j = 0; j < nfiles; j++) {
		struct rpt_decl *d;

		if (rpt_decl_new(o, files[j], &d)) {
			fprintf(stderr, "wult report: out of memory\n");
			return;
		}
		rpt_decl_print(out, o, files[j], d, o->suggest);
		if (o->suggest)
			rpt_suggest_print(out, o, files[j], d);
		rpt_decl_free(d);
	}
}

int rpt_decl_opt(int which, const char *arg, struct rpt_opts *o)
{
	char *end;
	double p;

	switch (which) {
	case 0:
		o->info = 1;
		return 0;
	case 1:
		o->suggest = 1;
		if (!(o->suggest_pct > 0))
			o->suggest_pct = RPT_SUGGEST_PCT;
		return 0;
	case 2:
		p = strtod(arg, &end);
		if (end == arg || *end || !(p > 0 && p <= 100)) {
			fprintf(stderr, "wult report: --suggest-pct %s: a percentile above 0, "
				"at most 100 (e.g. 99.99)\n", arg);
			return -EINVAL;
		}
		o->suggest = 1;
		o->suggest_pct = p;
		return 0;
	default:
		o->declared_sysfs = 1;
		return 0;
	}
}
