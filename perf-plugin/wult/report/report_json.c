// SPDX-License-Identifier: GPL-2.0
/*
 * wult report --json: the report as one JSON document, for scripts and CI
 * (schema in Documentation/wult-report.md, "JSON OUTPUT"). It reads the
 * same summaries the text tables print (rpt_stat_val(), rpt_mean_val(),
 * rpt_resid_foreach()), so the numbers cannot drift from them; only the
 * rounding differs: times are ns to 0.001, not the output unit's digits.
 *
 * JSON has no NaN or infinity: a value that is none (a statistic of no
 * datapoints, stddev of one) is null. Strings are escaped per RFC 8259 and
 * bytes that are not UTF-8 become U+FFFD, so any path or host name gives
 * a document every parser takes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "report_judge.h"
#include "report_resid.h"
#include "report_view.h"

/* Where the next member goes: no comma before the first of an object. */
struct jw {
	FILE *f;
	int first;
};

/* Length of the valid UTF-8 sequence at @p (1..4), 0 when it is none. */
static int utf8_len(const unsigned char *p)
{
	int n, i;
	unsigned int c;

	if (p[0] < 0x80)
		return 1;
	n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 &&
	    p[0] < 0xe0 ? 2 : 0;
	if (!n)
		return 0;
	c = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* One character of a string at @p, escaped; the bytes it took. */
static int put_char(FILE *f, const unsigned char *p)
{
	int n = 0;

	if (*p == '"' || *p == '\\')
		fprintf(f, "\\%c", *p);
	else if (*p == '\n')
		fputs("\\n", f);
	else if (*p == '\t')
		fputs("\\t", f);
	else if (*p < 0x20 || *p == 0x7f)
		fprintf(f, "\\u%04x", *p);
	else if ((n = utf8_len(p)) > 0)
		fwrite(p, 1, n, f);	/* ferror() tells a failure at the end */
	else
		fputs("\\ufffd", f);
	return n > 0 ? n : 1;
}

static void put_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p)
		p += put_char(f, p);
	fputc('"', f);
}

/* A number as JSON has them: null for NaN and infinities; integers whole. */
static void put_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.15g", v);	/* may be "1e+20": JSON too */
}

/* A time in ns, to 0.001 ns: the statistics' exact values without the
 * binary fractions' noise. */
static void put_ns(FILE *f, double v)
{
	put_num(f, isfinite(v) ? round(v * 1e3) / 1e3 : v);
}

static void key(struct jw *w, const char *k)
{
	fputs(w->first ? "" : ",", w->f);
	w->first = 0;
	put_str(w->f, k);
	fputc(':', w->f);
}

static void kv_str(struct jw *w, const char *k, const char *v)
{
	key(w, k);
	put_str(w->f, v);
}

static void kv_num(struct jw *w, const char *k, double v)
{
	key(w, k);
	put_num(w->f, v);
}

static void kv_u64(struct jw *w, const char *k, uint64_t v)
{
	key(w, k);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

/* Opens an object as member @k (NULL: an array element) into @inner. */
static void open_obj(struct jw *w, const char *k, struct jw *inner)
{
	if (k) {
		key(w, k);
	} else {
		fputs(w->first ? "" : ",", w->f);
		w->first = 0;
	}
	fputc('{', w->f);
	*inner = (struct jw){ w->f, 1 };
}

static void close_obj(struct jw *inner)
{
	fputc('}', inner->f);
}

static void open_arr(struct jw *w, const char *k, struct jw *inner)
{
	key(w, k);
	fputc('[', w->f);
	*inner = (struct jw){ w->f, 1 };
}

static void close_arr(struct jw *inner)
{
	fputc(']', inner->f);
}

/* The measured CPUs, ascending. */
static void put_cpus(struct jw *w, const struct rpt_file *rf)
{
	struct jw a;
	unsigned int c;

	open_arr(w, "cpus", &a);
	for (c = 0; c < RPT_MAX_CPUS; c++) {
		if (!(rf->nt.cpus[c / 64] & (1ULL << (c % 64))))
			continue;
		fprintf(a.f, "%s%u", a.first ? "" : ",", c);
		a.first = 0;
	}
	close_arr(&a);
}

/* The header's lines, without their indentation. */
static void put_desc(struct jw *w, const char *desc)
{
	struct jw a;
	const char *p = desc, *nl;
	char line[1024];

	open_arr(w, "description", &a);
	while (p && *p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		p += strspn(p, " ");
		snprintf(line, sizeof(line), "%.*s", (int)(nl > p ? nl - p : 0), p);
		fputs(a.first ? "" : ",", a.f);
		a.first = 0;
		put_str(a.f, line);
		p = *nl ? nl + 1 : nl;
	}
	close_arr(&a);
}

static void put_meta(struct jw *w, const struct rpt_file *rf)
{
	const struct rpt_meta *m = &rf->meta;
	char src[64];
	struct jw a;
	unsigned int i;

	kv_str(w, "kind", m->kind);
	key(w, "pipe_mode");
	fputs(m->kind && !strcmp(m->kind, "perf.data") ? (m->pipe ? "true" : "false") : "null",
	      w->f);
	kv_str(w, "host", m->host);
	kv_str(w, "kernel", m->kernel);
	kv_str(w, "command", m->command);
	kv_str(w, "format", m->format);
	kv_str(w, "format_warning", m->format_warning);
	kv_str(w, "tool", m->tool);
	kv_str(w, "tool_version", m->tool_version);
	kv_str(w, "device", m->device);
	kv_str(w, "cpu", m->cpu);
	kv_str(w, "method", rpt_sources_name(rf->nt.sources, src, sizeof(src)));
	open_arr(w, "events", &a);
	for (i = 0; i < m->nevents; i++) {
		fputs(a.first ? "" : ",", a.f);
		a.first = 0;
		put_str(a.f, m->events[i]);
	}
	close_arr(&a);
	put_cpus(w, rf);
	if (isnan(rf->nt.ldist_min)) {
		kv_num(w, "ldist_ns", NAN);
	} else {
		struct jw o;

		open_obj(w, "ldist_ns", &o);
		key(&o, "min");
		put_ns(o.f, rf->nt.ldist_min);
		key(&o, "max");
		put_ns(o.f, rf->nt.ldist_max);
		close_obj(&o);
	}
	put_desc(w, rf->desc);
}

static void put_validity(struct jw *w, const struct rpt_file *rf)
{
	struct jw o;

	open_obj(w, "validity", &o);
	kv_u64(&o, "read", rf->read);
	kv_u64(&o, "kept", rf->kept);
	kv_u64(&o, "excluded", rf->excluded);
	kv_u64(&o, "lost_samples", rf->lost);
	kv_u64(&o, "lost_records", rf->lost_records);
	kv_u64(&o, "undecodable", rf->undecodable);
	kv_u64(&o, "other_samples", rf->other);
	kv_u64(&o, "multiplexed", rf->all.scaled);
	kv_u64(&o, "out_of_range", rf->clamped);
	close_obj(&o);
}

/* A time metric's statistics: the count as an integer, the rest in ns. */
static void put_time_stats(struct jw *w, const char *name, const struct wult_stats_summary *s)
{
	struct jw o;
	int k;

	open_obj(w, name, &o);
	kv_str(&o, "unit", "ns");
	for (k = 0; k < RPT_S_NR; k++) {
		key(&o, rpt_stat_names[k]);
		if (k == RPT_S_COUNT)
			put_num(o.f, rpt_stat_val(s, k));
		else
			put_ns(o.f, rpt_stat_val(s, k));
	}
	close_obj(&o);
}

/* A counter metric's unit, as its name or intel wult's table says. */
static const char *ctr_unit(enum wult_metric m)
{
	const char *u = wult_metric_desc(m)->csv_unit;

	return u[0] ? u : "count";
}

static void put_group(struct jw *w, const struct rpt_opts *o, const struct rpt_group *g)
{
	struct jw go, mo, co, c;
	unsigned int i, cpu;
	int state_at = 0;

	open_obj(w, NULL, &go);
	kv_str(&go, "name", g->name);
	/* --per-cpu names its groups "CPUn STATE" (report_pass.c). */
	key(&go, "cpu");
	if (o->per_cpu && sscanf(g->name, "CPU%u %n", &cpu, &state_at) == 1 && state_at)
		fprintf(go.f, "%u", cpu);
	else
		fputs("null", go.f);
	kv_str(&go, "state", g->name + state_at);
	kv_u64(&go, "kept", g->kept);
	kv_u64(&go, "excluded", g->excluded);
	kv_u64(&go, "multiplexed", g->scaled);
	open_obj(&go, "metrics", &mo);
	for (i = 0; i < o->ntime; i++)
		put_time_stats(&mo, o->time_name[i] ? o->time_name[i] :
			       wult_metric_desc(o->time[i])->name, &g->sum[i]);
	close_obj(&mo);
	open_obj(&go, "counter_means", &co);
	for (i = 0; i < RPT_NCTR; i++) {
		if (!g->ctr[i].n)
			continue;
		open_obj(&co, wult_metric_desc(rpt_ctr_metrics[i])->name, &c);
		kv_num(&c, "mean", rpt_mean_val(&g->ctr[i]));
		kv_str(&c, "unit", ctr_unit(rpt_ctr_metrics[i]));
		kv_u64(&c, "datapoints", g->ctr[i].n);
		close_obj(&c);
	}
	close_obj(&co);
	close_obj(&go);
}

static void put_resid_row(const struct rpt_resid_row *r, void *ctx)
{
	struct jw *a = ctx, o;

	open_obj(a, NULL, &o);
	key(&o, "cpu");
	if (r->cpu < 0)
		fputs("null", o.f);
	else
		fprintf(o.f, "%d", r->cpu);
	kv_str(&o, "state", r->state);
	kv_num(&o, "time_pct", r->time_pct);
	kv_num(&o, "entries_per_s", r->entries_per_s);
	kv_num(&o, "time_s", r->time_s);
	kv_num(&o, "entries", r->entries);
	kv_num(&o, "irq_time_pct", r->irq ? r->irq_time_pct : NAN);
	kv_num(&o, "irqs_per_s", r->irq ? r->irqs_per_s : NAN);
	close_obj(&o);
}

static void put_resid(struct jw *w, const struct rpt_resid *r)
{
	unsigned int ncpus;
	double span;
	struct jw o, a;
	int irq;

	if (!rpt_resid_any(r)) {
		kv_num(w, "idle_residency", NAN);
		return;
	}
	rpt_resid_totals(r, &span, &ncpus, &irq);
	open_obj(w, "idle_residency", &o);
	kv_num(&o, "span_s", span / 1e9);
	kv_u64(&o, "cpus", ncpus);
	key(&o, "irq");
	fputs(irq ? "true" : "false", o.f);
	open_arr(&o, "rows", &a);
	rpt_resid_foreach(r, put_resid_row, &a);
	close_arr(&a);
	close_obj(&o);
}

/* The recorded system's description, as its keys and values. */
static void put_system(struct jw *w, const struct rpt_file *rf)
{
	const char *k, *v;
	unsigned int i;
	struct jw so;

	if (rf->meta.sysdesc_err)
		kv_str(w, "system_error", rf->meta.sysdesc_err);
	if (!rf->meta.sysdesc)
		return;
	open_obj(w, "system", &so);
	for (i = 0; !wult_sysdesc_entry(rf->meta.sysdesc, i, &k, &v); i++)
		kv_str(&so, k, v);
	close_obj(&so);
}

/* Declared against measured (report_declared.c), and --suggest's values. */
static void put_declared(struct jw *w, const struct rpt_opts *o, const struct rpt_file *rf)
{
	static const char *const names[4] = { "median", "p99", "p99.99", "max" };
	struct rpt_decl *d;
	struct jw dobj, a, so;
	char tbl[1024];
	unsigned int i;
	int c;

	if (rpt_decl_new(o, rf, &d))
		return;
	if (d->src == RPT_DECL_NONE && !o->suggest) {
		rpt_decl_free(d);
		return;
	}
	open_obj(w, "declared", &dobj);
	kv_str(&dobj, "source", d->src_text);
	kv_str(&dobj, "driver", d->driver);
	key(&dobj, "synthetic");
	fputs(d->synthetic ? "true" : "false", dobj.f);
	kv_str(&dobj, "metric", "WakeLatency");
	kv_num(&dobj, "far_below_fraction", RPT_DECL_FAR_BELOW);
	open_arr(&dobj, "states", &a);
	for (i = 0; d->src != RPT_DECL_NONE && i < d->n; i++) {
		const struct rpt_decl_row *r = &d->rows[i];

		open_obj(&a, NULL, &so);
		kv_str(&so, "state", r->g->name);
		kv_str(&so, "name", r->name);
		kv_num(&so, "exit_latency_us", r->lat_us);
		kv_num(&so, "target_residency_us", r->res_us);
		for (c = 0; c < 4; c++) {
			key(&so, names[c]);
			put_ns(so.f, r->v[c]);
		}
		kv_num(&so, "ratio", isnan(r->ratio) ? NAN : round(r->ratio * 1e4) / 1e4);
		kv_str(&so, "flag", r->flag);
		if (o->suggest) {
			key(&so, "suggest_measured");
			put_ns(so.f, d->mi >= 0 ? r->g->pct[d->mi] : NAN);
			kv_num(&so, "suggest_exit_latency_us", rpt_suggest_us(d, r));
		}
		close_obj(&so);
	}
	close_arr(&a);
	if (o->suggest) {
		kv_num(&dobj, "suggest_percentile", o->suggest_pct);
		kv_str(&dobj, "intel_idle_table", d->src != RPT_DECL_NONE &&
		       rpt_suggest_table(d, tbl, sizeof(tbl)) ? tbl : NULL);
	}
	close_obj(&dobj);
	rpt_decl_free(d);
}

/* The governor judged (report_governor.c), with a description only. */
static void put_governor(struct jw *w, const struct rpt_file *rf)
{
	struct rpt_gov g;
	struct jw go, a, bo;
	unsigned int b;

	if (rpt_gov_new(rf, &g))
		return;
	open_obj(w, "governor", &go);
	kv_str(&go, "governor", g.governor);
	kv_num(&go, "pm_qos_us", g.qos_us);
	kv_str(&go, "idle_period", "SilentTime");
	kv_u64(&go, "unjudged", g.unjudged);
	open_arr(&go, "ldist_bands", &a);
	for (b = 0; b <= RPT_GOV_BANDS; b++) {
		const struct rpt_gov_cell *c = &g.band[b];

		if (!c->n)
			continue;
		open_obj(&a, NULL, &bo);
		kv_str(&bo, "band", rpt_gov_band_names[b]);
		kv_num(&bo, "ldist_min_us", b < RPT_GOV_BANDS ? rpt_gov_band_us[b] : NAN);
		kv_u64(&bo, "count", c->n);
		kv_u64(&bo, "too_shallow", c->shallow);
		kv_u64(&bo, "right", c->right);
		kv_u64(&bo, "too_deep", c->deep);
		kv_num(&bo, "idle_ns", c->idle_ns);
		kv_num(&bo, "residency_lost_ns", c->lost_ns);
		kv_num(&bo, "latency_added_us", c->added_us);
		close_obj(&bo);
	}
	close_arr(&a);
	close_obj(&go);
}

/* The methods compared (report_methods.c): each timer input against each
 * device or IPI input, per state both had, WakeLatency median and p99. */
static void put_methods(struct jw *doc, const struct rpt_opts *o, struct rpt_file *const *files,
			unsigned int nfiles)
{
	static const int cols[2] = { RPT_S_MEDIAN, RPT_S_P99 };
	static const char *const names[2] = { "median", "p99" };
	struct jw a, po, sa, so;
	unsigned int i, j, k, mi;
	int c;

	for (mi = 0; mi < o->ntime && o->time[mi] != WULT_M_WAKE_LATENCY; mi++)
		;
	if (mi == o->ntime || !rpt_methods_differ(files, nfiles))
		return;
	open_arr(doc, "methods_compared", &a);
	for (i = 0; i < nfiles; i++) {
		if (rpt_methods_kind(files[i]) != 1)
			continue;
		for (j = 0; j < nfiles; j++) {
			if (rpt_methods_kind(files[j]) != 2)
				continue;
			open_obj(&a, NULL, &po);
			kv_num(&po, "timer_input", i);
			kv_num(&po, "other_input", j);
			kv_str(&po, "metric", "WakeLatency");
			open_arr(&po, "states", &sa);
			for (k = 0; k < files[i]->ngroups; k++) {
				const struct rpt_group *gt = files[i]->groups[k];
				const struct rpt_group *gd = rpt_find_group(files[j], gt->name);

				if (!gd)
					continue;
				open_obj(&sa, NULL, &so);
				kv_str(&so, "state", gt->name);
				for (c = 0; c < 2; c++) {
					double vt = rpt_stat_val(&gt->sum[mi], cols[c]);
					double vd = rpt_stat_val(&gd->sum[mi], cols[c]);
					char kt[32], kd[32], ks[32];

					snprintf(kt, sizeof(kt), "timer_%s", names[c]);
					snprintf(kd, sizeof(kd), "other_%s", names[c]);
					snprintf(ks, sizeof(ks), "saved_%s", names[c]);
					key(&so, kt);
					put_ns(so.f, vt);
					key(&so, kd);
					put_ns(so.f, vd);
					key(&so, ks);
					put_ns(so.f, vd - vt);
				}
				close_obj(&so);
			}
			close_arr(&sa);
			close_obj(&po);
		}
	}
	close_arr(&a);
}

struct diff_ctx {
	struct jw *arr;
	unsigned int nfiles;
};

static void put_diff_row(const char *k, const char *const *vals, void *ctx)
{
	struct diff_ctx *c = ctx;
	struct jw ro, va;
	unsigned int j;

	open_obj(c->arr, NULL, &ro);
	kv_str(&ro, "key", k);
	open_arr(&ro, "values", &va);
	for (j = 0; j < c->nfiles; j++) {
		fputs(va.first ? "" : ",", va.f);
		va.first = 0;
		put_str(va.f, vals[j]);
	}
	close_arr(&va);
	close_obj(&ro);
}

static void put_file(struct jw *w, const struct rpt_opts *o, const struct rpt_file *rf)
{
	struct jw fo, ga;
	unsigned int i;

	open_obj(w, NULL, &fo);
	kv_str(&fo, "path", rf->path);
	put_meta(&fo, rf);
	put_validity(&fo, rf);
	open_arr(&fo, "groups", &ga);
	for (i = 0; i < rf->ngroups; i++)
		put_group(&ga, o, rf->groups[i]);
	put_group(&ga, o, &rf->all);
	close_arr(&ga);
	put_resid(&fo, rf->resid);
	put_system(&fo, rf);
	put_declared(&fo, o, rf);
	put_governor(&fo, rf);
	close_obj(&fo);
}

int rpt_json_write(FILE *f, const struct rpt_opts *o, struct rpt_file *const *files,
		   unsigned int nfiles)
{
	struct jw top = { f, 1 }, doc, a, u;
	unsigned int j;
	int k;

	open_obj(&top, NULL, &doc);
	kv_num(&doc, "schema_version", RPT_JSON_SCHEMA);
	kv_str(&doc, "generator", "wult report " WULT_VERSION);
	open_obj(&doc, "units", &u);
	kv_str(&u, "time", "ns");
	kv_str(&u, "ldist", "ns");
	kv_str(&u, "counter_means", "each counter's own, in its 'unit'");
	kv_str(&u, "idle_residency", "percent, per second, seconds, counts as named");
	close_obj(&u);
	open_arr(&doc, "statistics", &a);
	for (k = 0; k < RPT_S_NR; k++) {
		fputs(a.first ? "" : ",", f);
		a.first = 0;
		put_str(f, rpt_stat_names[k]);
	}
	close_arr(&a);
	open_arr(&doc, "inputs", &a);
	for (j = 0; j < nfiles; j++)
		put_file(&a, o, files[j]);
	close_arr(&a);
	/* Several inputs with descriptions: the settings they differ in. */
	if (nfiles > 1 && rpt_sysinfo_diff(files, nfiles, NULL, NULL)) {
		struct diff_ctx c = { &a, nfiles };

		open_arr(&doc, "system_differences", &a);
		rpt_sysinfo_diff(files, nfiles, put_diff_row, &c);
		close_arr(&a);
	}
	put_methods(&doc, o, files, nfiles);
	close_obj(&doc);
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
