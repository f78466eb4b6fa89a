// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's text view: the per-state tables of one input, the
 * side-by-side diff of several laid out from the diff model (report_diff.c:
 * each file's value and its change against the first, as intel wult's diff
 * reports), terminal histograms and the --branches section.
 *
 * Times are kept in ns and printed in the chosen unit; in us, 3 decimals
 * keep every nanosecond. Tables fit 80 columns with the default metrics.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <wult/dpdec.h>
#include <wult/sym.h>

#include "report_resid.h"
#include "report_view.h"

#define LABEL_W	10	/* the stat-name column */
#define COL_W	15	/* a value column, its first character always a space */

static const char *metric_name(enum wult_metric m)
{
	return wult_metric_desc(m)->name;
}

/* ---- one input ---- */

/* @show: which of o->time to print (metrics the input has values of). */
static void print_group(FILE *out, const struct rpt_opts *o, const struct rpt_group *g,
			const int *show)
{
	char buf[64];
	unsigned int i;
	int k, any = 0, col;

	fprintf(out, "\n%s: %llu datapoints", g->name, (unsigned long long)g->kept);
	if (g->excluded)
		fprintf(out, " (%llu excluded by filters)", (unsigned long long)g->excluded);
	if (g->scaled)
		fprintf(out, ", %llu with multiplexed counters", (unsigned long long)g->scaled);
	fprintf(out, "\n");
	if (!g->kept)
		return;
	fprintf(out, "  %-*s", LABEL_W - 2, o->unit);
	for (i = 0; i < o->ntime; i++)
		if (show[i])
			fprintf(out, " %*s", COL_W - 1, metric_name(o->time[i]));
	fprintf(out, "\n");
	for (k = 0; k < RPT_S_NR; k++) {
		fprintf(out, "  %-*s", LABEL_W - 2, rpt_stat_names[k]);
		for (i = 0; i < o->ntime; i++)
			if (show[i])
				fprintf(out, " %*s", COL_W - 1,
					rpt_fmt_stat(buf, sizeof(buf), o, k,
						     rpt_stat_val(&g->sum[i], k)));
		fprintf(out, "\n");
	}
	col = 0;
	for (i = 0; i < RPT_NCTR; i++) {
		enum wult_metric m = rpt_ctr_metrics[i];
		char item[96];
		int n;

		if (!g->ctr[i].n)
			continue;
		n = snprintf(item, sizeof(item), "%s %s%s", metric_name(m),
			     rpt_ctr_fmt(m, rpt_mean_val(&g->ctr[i]), buf, sizeof(buf)),
			     m == WULT_M_CPU_FREQ ? " MHz" : "");
		if (!any || col + n + 2 > o->width) {
			fprintf(out, "%s  %s", any ? "\n" : "", any ? "      " : "means:");
			col = 8;
			any = 1;
		} else {
			fprintf(out, ",");
			col++;
		}
		fprintf(out, " %s", item);
		col += n + 1;
	}
	if (any)
		fprintf(out, "\n");
	if (g->hist)
		fputs(g->hist, out);
}

void rpt_print_validity(FILE *out, const struct rpt_file *f)
{
	char m[64];

	if (f->khist) {
		fprintf(out, "  datapoints: %llu in the histograms (counted by wult.ko, none "
			"recorded: no validity counts)\n", (unsigned long long)f->kept);
		return;
	}
	/* The method fixes what LTime and TIntr are (Documentation/kernel.md). */
	if (rpt_sources_name(f->nt.sources, m, sizeof(m)))
		fprintf(out, "  method: %s\n", m);
	/* How the ipi method woke the CPU (Documentation/kernel.md, "The ipi source"). */
	if (f->nt.sources & (1U << WULT_SOURCE_IPI))
		fprintf(out, "  wakes: %llu by interrupt, %llu by a need_resched write to a "
			"polling CPU (no interrupt, no IntrLatency)\n",
			(unsigned long long)(f->kept - f->nt.flag_wakes),
			(unsigned long long)f->nt.flag_wakes);
	/* --wake-task: the RunLatency of the woken thread, not in the default metrics. */
	if (f->nt.task_wakes)
		fprintf(out, "  tasks: %llu wakes woke a kernel thread, with RunLatency "
			"(--metrics WakeLatency,IntrLatency,RunLatency)\n",
			(unsigned long long)f->nt.task_wakes);
	fprintf(out, "  datapoints: %llu read, %llu kept, %llu excluded by filters\n",
		(unsigned long long)f->read, (unsigned long long)f->kept,
		(unsigned long long)f->excluded);
	fprintf(out, "  validity: %llu lost samples (%llu LOST records), %llu undecodable, "
		"%llu other samples", (unsigned long long)f->lost,
		(unsigned long long)f->lost_records, (unsigned long long)f->undecodable,
		(unsigned long long)f->other);
	fprintf(out, "\n");
	if (f->all.scaled)
		fprintf(out, "  multiplexed: %llu datapoints with counters running below "
			"%.0f%% of the time (scaled)\n", (unsigned long long)f->all.scaled,
			WULT_DP_SCALE_THRESHOLD * 100);
	if (f->clamped)
		fprintf(out, "  out of range: %llu values beyond +-275 s, clamped in the "
			"percentiles\n", (unsigned long long)f->clamped);
}

void rpt_print_one(FILE *out, const struct rpt_opts *o, const struct rpt_file *f)
{
	int show[RPT_MAX_TIME], any = 0;
	unsigned int i;

	/* Columns the input has no value of (e.g. an intel wult CSV without
	 * IntrLatency) are left out, unless none has any. */
	for (i = 0; i < o->ntime; i++)
		any |= show[i] = f->all.sum[i].count > 0;
	for (i = 0; !any && i < o->ntime; i++)
		show[i] = 1;
	fprintf(out, "File: %s\n%s", f->path, f->desc ? f->desc : "");
	rpt_print_validity(out, f);
	for (i = 0; i < f->ngroups; i++)
		print_group(out, o, f->groups[i], show);
	print_group(out, o, &f->all, show);
	if (f->resid)
		rpt_resid_print(out, f->resid);
}

/* ---- several inputs ---- */

static void diff_header(FILE *out, const char *title, unsigned int nfiles)
{
	char h[32];
	unsigned int j;

	fprintf(out, "%-*s%*s", LABEL_W, title, COL_W - 2, "[1]");
	for (j = 1; j < nfiles; j++) {
		snprintf(h, sizeof(h), "[%u]", j + 1);
		fprintf(out, "%*s", COL_W - 2, h);
		snprintf(h, sizeof(h), "[%u]-[1]", j + 1);
		fprintf(out, "%*s", COL_W - 2, h);
		fprintf(out, "%*s", 11, "change");
	}
	fprintf(out, "\n");
}

/* One row: each file's value, then each later file's change against [1]. */
static void diff_row(FILE *out, const struct rpt_opts *o, const struct rpt_diff_row *r,
		     unsigned int nfiles)
{
	char buf[64], abs[64], pct[64];
	unsigned int j;

	fprintf(out, "  %-*s", LABEL_W - 2, r->label);
	for (j = 0; j < nfiles; j++) {
		rpt_diff_cell(o, r, j, buf, abs, pct, sizeof(buf));
		fprintf(out, " %*s", COL_W - 3, buf);
		if (j)
			fprintf(out, " %*s %*s", COL_W - 3, abs, 10, pct);
	}
	fprintf(out, "\n");
}

/* The diff's per-state rows: counts, each time metric, counter means. */
static void diff_state(FILE *out, const struct rpt_opts *o, const struct rpt_diff_state *st,
		       unsigned int nfiles)
{
	unsigned int i;
	int k;

	fprintf(out, "\n== %s ==\n", st->name);
	diff_header(out, "datapoints", nfiles);
	diff_row(out, o, &st->kept, nfiles);
	diff_row(out, o, &st->excluded, nfiles);
	for (i = 0; i < o->ntime; i++) {
		fprintf(out, "%s (%s)\n", metric_name(o->time[i]), o->unit);
		diff_header(out, "", nfiles);
		for (k = 0; k < RPT_S_NR; k++)
			diff_row(out, o, &st->time[i * RPT_S_NR + k], nfiles);
	}
	for (i = 0; i < st->nctr; i++) {
		if (!i) {
			fprintf(out, "counter means\n");
			diff_header(out, "", nfiles);
		}
		diff_row(out, o, &st->ctr[i], nfiles);
	}
}

/* After the tables: each file's idle residency, then its histograms. */
static void diff_tail(FILE *out, struct rpt_file *const *files, unsigned int nfiles)
{
	unsigned int s, j;

	for (j = 0; j < nfiles; j++) {
		if (!files[j]->resid)
			continue;
		fprintf(out, "\n[%u] %s", j + 1, files[j]->path);
		rpt_resid_print(out, files[j]->resid);
	}
	for (j = 0; j < nfiles; j++) {
		int header = 0;

		for (s = 0; s < files[j]->ngroups + 1; s++) {
			const struct rpt_group *gr = s < files[j]->ngroups ?
						     files[j]->groups[s] : &files[j]->all;

			if (!gr->hist)
				continue;
			if (!header)
				fprintf(out, "\n[%u] %s histograms\n", j + 1, files[j]->path);
			header = 1;
			fprintf(out, "%s:\n%s", gr->name, gr->hist);
		}
	}
}

void rpt_print_diff(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		    const struct rpt_diff *d)
{
	unsigned int nfiles = d->nfiles, s, j;

	fprintf(out, "Files:\n");
	for (j = 0; j < nfiles; j++) {
		fprintf(out, "[%u] %s\n%s", j + 1, files[j]->path,
			files[j]->desc ? files[j]->desc : "");
		rpt_print_validity(out, files[j]);
	}
	for (j = 1; j < nfiles; j++) {
		if (files[j]->nt.sources && files[0]->nt.sources &&
		    files[j]->nt.sources != files[0]->nt.sources) {
			fprintf(out, "note: the inputs were measured with different methods; "
				"hrt, tdt and ipi stamp LTime and TIntr differently, and "
				"ipi's wake is another CPU's (no timer a CPU can "
				"foresee), so their latencies differ by more than the "
				"idle states do\n");
			break;
		}
	}
	for (s = 0; s < d->nstates; s++)
		diff_state(out, o, &d->st[s], nfiles);
	diff_tail(out, files, nfiles);
}

/* ---- histograms ---- */

struct hist_ctx {
	const int64_t *edge;	/* bucket b holds [edge[b], edge[b + 1]) */
	uint64_t *cnt;
	unsigned int n, cur;
};

static int hist_add(int64_t val, uint64_t cnt, void *ctx)
{
	struct hist_ctx *h = ctx;

	/* Values come in ascending order: the bucket only moves forward. */
	while (h->cur + 1 < h->n && val >= h->edge[h->cur + 1])
		h->cur++;
	h->cnt[h->cur] += cnt;
	return 0;
}

/* Bucket edges from @min to @max + 1, strictly increasing; returns the
 * bucket count (fewer than asked when the range has fewer integers). */
unsigned int rpt_hist_edges(int linear, int64_t min, int64_t max, int64_t *edge,
			    unsigned int n)
{
	double lo = min > 1 ? (double)min : 1, ratio;
	unsigned int i, m = 1;
	int64_t e;

	if ((uint64_t)(max - min) + 1 < n)
		n = max - min + 1;
	ratio = pow(((double)max + 1) / lo, 1.0 / n);
	edge[0] = min;
	for (i = 1; i < n; i++) {
		if (linear)
			e = min + (int64_t)ceil((double)i * ((double)(max - min) + 1) / n);
		else
			e = (int64_t)ceil(lo * pow(ratio, i));
		if (e > edge[m - 1] && e <= max)
			edge[m++] = e;
	}
	edge[m] = max + 1;
	return m;
}

int rpt_hist_render(const struct rpt_opts *o, struct rpt_group *g, const struct wult_stats *st)
{
	struct wult_stats_summary sum;
	struct hist_ctx h = { 0 };
	int64_t edge[1001];
	uint64_t cnt[1000] = { 0 }, top = 0;
	char lo[48], hi[48], *text = NULL;
	size_t len = 0;
	unsigned int b, bar_w, n;
	FILE *f;
	int ret;

	ret = wult_stats_summary(st, &sum);
	if (ret)
		return ret;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "  %s histogram (%s, %s buckets)", metric_name(o->hist_metric), o->unit,
		o->hist_linear ? "linear" : "log");
	if (!sum.count) {
		fprintf(f, ": no values\n");
		goto out;
	}
	fprintf(f, "\n");
	n = rpt_hist_edges(o->hist_linear, sum.min, sum.max, edge, o->hist_buckets);
	h.edge = edge;
	h.cnt = cnt;
	h.n = n;
	wult_stats_foreach(st, hist_add, &h);
	for (b = 0; b < n; b++)
		if (cnt[b] > top)
			top = cnt[b];
	/* "  LO - HI COUNT |bar": labels as wide as the widest time. */
	rpt_fmt_time(lo, sizeof(lo), o, (double)sum.min);
	rpt_fmt_time(hi, sizeof(hi), o, (double)sum.max);
	{
		int w = (int)(strlen(hi) > strlen(lo) ? strlen(hi) : strlen(lo));
		int fixed = 2 + w + 3 + w + 1 + 10 + 2;

		bar_w = o->width > fixed + 10 ? o->width - fixed : 10;
		for (b = 0; b < n; b++) {
			unsigned int len_b = (unsigned int)((double)cnt[b] * bar_w / top + 0.5);
			unsigned int x;

			rpt_fmt_time(lo, sizeof(lo), o, (double)edge[b]);
			rpt_fmt_time(hi, sizeof(hi), o, (double)(edge[b + 1] - 1));
			fprintf(f, "  %*s - %*s %10llu |", w, lo, w, hi,
				(unsigned long long)cnt[b]);
			if (!len_b && cnt[b])
				len_b = 1;	/* a non-empty bucket stays visible */
			for (x = 0; x < len_b; x++)
				fputc('#', f);
			fputc('\n', f);
		}
	}
out:
	if (fclose(f) || !text)
		return -ENOMEM;
	if (g->hist) {
		char *joined = NULL;

		if (asprintf(&joined, "%s%s", g->hist, text) < 0) {
			free(text);
			return -ENOMEM;
		}
		free(g->hist);
		free(text);
		text = joined;
	}
	g->hist = text;
	return 0;
}

/* ---- branch contexts (--branches) ---- */

/*
 * --module KO[@ADDR]: the module's name is the file's, without ".ko" and
 * with '-' as '_' (as the kernel names it); its .text address is ADDR or
 * the loaded module's. 0, or -errno with @err.
 */
static int add_module(struct wult_sym *s, const char *arg, char *err, size_t len)
{
	char path[1024], name[128], sysfs[256], buf[64], why[512], *at, *end;
	unsigned long long base = 0;
	const char *file;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s", arg);
	at = strrchr(path, '@');
	if (at) {
		*at++ = '\0';
		errno = 0;
		base = strtoull(at, &end, 0);
		if (errno || end == at || *end || !base) {
			snprintf(err, len, "--module %.400s: '%.64s' is not an address", arg, at);
			return -EINVAL;
		}
	}
	file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	n = strcspn(file, ".");
	snprintf(name, sizeof(name), "%.*s", (int)n, file);
	for (n = 0; name[n]; n++)
		if (name[n] == '-')
			name[n] = '_';
	if (!at) {
		snprintf(sysfs, sizeof(sysfs), "/sys/module/%s/sections/.text", name);
		f = fopen(sysfs, "r");
		if (f && fgets(buf, sizeof(buf), f))
			base = strtoull(buf, NULL, 16);
		if (f)
			fclose(f);
		if (!base) {
			snprintf(err, len, "--module %.200s: no load address in %s (module not "
				 "loaded, or not root): give %.200s@ADDR", arg, sysfs, path);
			return -ENOENT;
		}
	}
	if (wult_sym_add_elf(s, path, base, name, why, sizeof(why))) {
		snprintf(err, len, "--module: %s", why);
		return -EINVAL;
	}
	return 0;
}

/* ELF files (--vmlinux, --module), then kallsyms (this machine's unless
 * --kallsyms) as the fallback; NULL if none could be read. */
static struct wult_sym *load_symbols(FILE *out, const struct rpt_opts *o)
{
	const char *ks = o->kallsyms ? o->kallsyms : "/proc/kallsyms";
	struct wult_sym *s;
	char err[1024];
	unsigned int i;
	int have = 0;

	if (wult_sym_new(&s))
		return NULL;
	if (o->vmlinux) {
		uint64_t kaslr = 0;

		/* Relocated by the KASLR offset kallsyms' _text shows. */
		if (wult_sym_add_vmlinux(s, o->vmlinux, ks, &kaslr, err, sizeof(err))) {
			fprintf(out, "  warning: --vmlinux: %s\n", err);
		} else {
			have = 1;
			if (kaslr)
				fprintf(out, "  --vmlinux: symbols moved by the KASLR offset %#llx "
					"(_text in %s)\n", (unsigned long long)kaslr, ks);
		}
	}
	for (i = 0; i < o->nmodules; i++) {
		if (add_module(s, o->modules[i], err, sizeof(err)))
			fprintf(out, "  warning: %s\n", err);
		else
			have = 1;
	}
	if (wult_sym_add_kallsyms(s, ks, err, sizeof(err))) {
		fprintf(out, "  warning: %s%s\n", o->kallsyms ? "--kallsyms: " : "", err);
	} else {
		have = 1;
	}
	if (!have) {
		wult_sym_free(s);
		return NULL;
	}
	return s;
}

static void print_branch_group(FILE *out, const struct rpt_opts *o, const struct rpt_group *g,
			       struct wult_sym *sym)
{
	struct wult_br_tally *t = g->br;
	uint64_t total = t ? wult_br_tally_total(t) : 0, shown = 0, cnt, rest;
	unsigned int i, k, nr, nctx = t ? wult_br_tally_nr(t) : 0;
	const uint64_t *from, *to;
	char line[512];

	fprintf(out, "\n  %s: %llu of %llu kept datapoints have one", g->name,
		(unsigned long long)total, (unsigned long long)g->kept);
	if (t && wult_br_tally_empty(t))
		fprintf(out, ", %llu of them empty (LBR was not recording)",
			(unsigned long long)wult_br_tally_empty(t));
	fprintf(out, "; %u distinct\n", nctx);
	if (!nctx)
		return;
	fprintf(out, "  %10s %7s  %s\n", "count", "share", "branches, youngest first (from -> to)");
	for (i = 0; i < nctx && i < o->branches; i++) {
		cnt = wult_br_tally_get(t, i, &from, &to, &nr);
		shown += cnt;
		for (k = 0; k < nr; k++) {
			struct perf_branch_entry e = { .from = from[k], .to = to[k] };

			wult_sym_branch_str(sym, &e, line, sizeof(line));
			if (!k)
				fprintf(out, "  %10llu %6.1f%%  %s\n", (unsigned long long)cnt,
					100.0 * cnt / total, line);
			else
				fprintf(out, "  %10s %7s  %s\n", "", "", line);
		}
	}
	rest = total - wult_br_tally_empty(t) - wult_br_tally_other(t) - shown;
	if (nctx > o->branches)
		fprintf(out, "  %10llu %6.1f%%  (%u less frequent contexts)\n",
			(unsigned long long)rest, 100.0 * rest / total, nctx - o->branches);
	if (wult_br_tally_other(t))
		fprintf(out, "  %10llu %6.1f%%  (contexts past the first %u distinct ones)\n",
			(unsigned long long)wult_br_tally_other(t),
			100.0 * wult_br_tally_other(t) / total, nctx);
}

void rpt_print_branches(FILE *out, const struct rpt_opts *o, const struct rpt_file *f)
{
	struct wult_sym *sym;
	unsigned int i;

	fprintf(out, "\nBranch context at the wake (LBR), per requested state: the "
		"youngest %u branches\n", o->br_depth);
	if (!f->br_read) {
		fprintf(out, "  none in this file: record with wult record on a CPU whose LBR "
			"wult.ko can read (wult/branches/ event)\n");
		return;
	}
	sym = load_symbols(out, o);
	if (!sym) {
		fprintf(out, "  warning: no symbols: addresses are shown raw\n");
		if (wult_sym_new(&sym))
			return;
	}
	for (i = 0; i < f->ngroups; i++)
		print_branch_group(out, o, f->groups[i], sym);
	if (f->ngroups > 1)
		print_branch_group(out, o, &f->all, sym);
	wult_sym_free(sym);
}
