// SPDX-License-Identifier: GPL-2.0
/*
 * wult report --html: one self-contained page. The header and the summary
 * tables are HTML written here with the text report's formatting (same
 * numbers, same diff columns); the plots are drawn in the page by Chart.js
 * (Debian's libjs-chart.js, embedded at build time) from a JSON block of
 * what the C code computed: histograms, cumulative histograms and the
 * reduced scatters of report_plot.c. The page computes no statistics.
 *
 * A Content-Security-Policy forbids every fetch, so the page opens from
 * file:// and never touches the network.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/csv.h>

#include "cmds.h"
#include "report_judge.h"
#include "report_resid.h"
#include "report_view.h"

/* The page's assets, embedded by the assembler: Chart.js from the Debian
 * package, our script and style. Each ends with a NUL byte. */
#ifndef WULT_CHARTJS
#define WULT_CHARTJS "/usr/share/javascript/chart.js/chart.min.js"
#endif
#define ASSET(sym, path)						\
	__asm__(".section .rodata\n.global " #sym "\n" #sym ":\n"	\
		".incbin \"" path "\"\n.byte 0\n.previous\n")
ASSET(wult_html_chartjs, WULT_CHARTJS);
ASSET(wult_html_js, "perf-plugin/wult/html/report.js");
ASSET(wult_html_css, "perf-plugin/wult/html/report.css");
extern const char wult_html_chartjs[], wult_html_js[], wult_html_css[];

static void put_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A JSON string; '<' escaped so that no "</script>" can end the block. */
static void put_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* What a FILE * writer printed, escaped into a <pre>. */
static void put_pre(FILE *f, void (*fn)(FILE *, const void *, const void *),
		    const void *a, const void *b, const char *cls)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	fn(m, a, b);
	fclose(m);
	fprintf(f, "<pre class=\"%s\">", cls);
	if (text)
		put_esc(f, text);
	fputs("</pre>\n", f);
	free(text);
}

static void validity_fn(FILE *m, const void *a, const void *b)
{
	const struct rpt_file *rf = a;

	(void)b;
	fputs(rf->desc ? rf->desc : "", m);
	rpt_print_validity(m, rf);
}

static void resid_fn(FILE *m, const void *a, const void *b)
{
	(void)b;
	rpt_resid_print(m, a);
}

static void branches_fn(FILE *m, const void *a, const void *b)
{
	rpt_print_branches(m, a, b);
}

static void sysinfo_fn(FILE *m, const void *a, const void *b)
{
	struct rpt_file *const *files = a;

	rpt_sysinfo_print(m, files, *(const unsigned int *)b);
}

static void sysdiff_fn(FILE *m, const void *a, const void *b)
{
	rpt_sysinfo_print_diff(m, a, *(const unsigned int *)b);
}

static void declared_fn(FILE *m, const void *a, const void *b)
{
	rpt_decl_print_all(m, b, a, 1);
}

struct methods_arg {
	const struct rpt_opts *o;
	unsigned int nfiles;
};

static void methods_fn(FILE *m, const void *a, const void *b)
{
	const struct methods_arg *ma = b;

	rpt_methods_print(m, ma->o, a, ma->nfiles);
}

static void governor_fn(FILE *m, const void *a, const void *b)
{
	rpt_gov_print_all(m, b, a, 1);
}

/* The system description (folded), the settings in which the inputs
 * differ, the declared-against-measured block and --suggest's. */
static void put_sysinfo(FILE *f, const struct rpt_opts *o, struct rpt_file *const *files,
			unsigned int j)
{
	const struct rpt_meta *m = &files[j]->meta;
	unsigned int one = 1;

	if (m->sysdesc || m->sysdesc_err) {
		fputs("<details class=\"sysdesc\"><summary>System description</summary>\n", f);
		put_pre(f, sysinfo_fn, &files[j], &one, "sysdesc");
		fputs("</details>\n", f);
	}
	if (m->sysdesc || o->declared_sysfs || o->suggest)
		put_pre(f, declared_fn, &files[j], o, "declared");
	if (m->sysdesc && !o->per_cpu)
		put_pre(f, governor_fn, &files[j], o, "governor");
}

/* The measured CPUs (as ranges) and LDist range of the kept datapoints. */
static void put_measured(FILE *f, const struct rpt_opts *o, const struct rpt_file *rf)
{
	char lo[48], hi[48];
	unsigned int c, start;
	int first = 1;

	fputs("<p class=\"meas\">CPUs:", f);
	for (c = 0; c < RPT_MAX_CPUS; c++) {
		if (!(rf->nt.cpus[c / 64] & (1ULL << (c % 64))))
			continue;
		for (start = c; c + 1 < RPT_MAX_CPUS &&
		     (rf->nt.cpus[(c + 1) / 64] & (1ULL << ((c + 1) % 64))); c++)
			;
		fprintf(f, "%s%u", first ? " " : ",", start);
		if (c > start)
			fprintf(f, "-%u", c);
		first = 0;
	}
	if (first)
		fputs(" -", f);
	if (!isnan(rf->nt.ldist_min))
		fprintf(f, "; LDist %s - %s %s", rpt_fmt_time(lo, sizeof(lo), o, rf->nt.ldist_min),
			rpt_fmt_time(hi, sizeof(hi), o, rf->nt.ldist_max), o->unit);
	fprintf(f, "; %llu datapoints kept</p>\n", (unsigned long long)rf->kept);
}

static void write_header(FILE *f, const struct rpt_opts *o, struct rpt_file *const *files,
			 unsigned int nfiles)
{
	unsigned int j;

	fputs("<header><h1>", f);
	put_esc(f, o->title ? o->title : "wult report");
	fputs("</h1><p class=\"gen\">written by wult " WULT_VERSION "; times in ", f);
	put_esc(f, o->unit);
	fputs("</p><nav><a href=\"#plots\">plots</a> &middot; <a href=\"#summary\">summary "
	      "tables</a>", f);
	if (o->branches && nfiles == 1)
		fputs(" &middot; <a href=\"#branches\">branch contexts</a>", f);
	fputs("</nav></header>\n", f);
	/* A sweep's table first: the inputs are its points. */
	if (o->html_extra)
		o->html_extra(f, o->html_extra_ctx);
	fputs("<section id=\"files\"><h2>Inputs</h2>\n", f);
	for (j = 0; j < nfiles; j++) {
		fprintf(f, "<h3>[%u] ", j + 1);
		put_esc(f, files[j]->path);
		fputs("</h3>\n", f);
		put_measured(f, o, files[j]);
		put_pre(f, validity_fn, files[j], NULL, "desc");
		if (files[j]->resid)
			put_pre(f, resid_fn, files[j]->resid, NULL, "resid");
		put_sysinfo(f, o, files, j);
	}
	if (nfiles > 1 && rpt_sysinfo_diff(files, nfiles, NULL, NULL))
		put_pre(f, sysdiff_fn, files, &nfiles, "sysdiff");
	if (rpt_methods_differ(files, nfiles)) {
		struct methods_arg ma = { o, nfiles };

		put_pre(f, methods_fn, files, &ma, "methods");
	}
	fputs("</section>\n", f);
}

/* ---- summary tables ---- */

/* A time metric's name on the page: o->time_name's if it gives one. */
static const char *time_name(const struct rpt_opts *o, enum wult_metric m)
{
	unsigned int i;

	for (i = 0; i < o->ntime; i++)
		if (o->time[i] == m && o->time_name[i])
			return o->time_name[i];
	return wult_metric_desc(m)->name;
}

static void cell(FILE *f, const char *tag, const char *text)
{
	fprintf(f, "<%s>", tag);
	put_esc(f, text);
	fprintf(f, "</%s>", tag);
}

/* One file: a table per state, a column per metric, as the text report. */
static void table_one(FILE *f, const struct rpt_opts *o, const struct rpt_group *g,
		      const int *show)
{
	char buf[64];
	unsigned int i;
	int k, any = 0;

	fprintf(f, "<table class=\"stats\"><tr>");
	cell(f, "th", o->unit);
	for (i = 0; i < o->ntime; i++)
		if (show[i])
			cell(f, "th", time_name(o, o->time[i]));
	fputs("</tr>\n", f);
	for (k = 0; k < RPT_S_NR; k++) {
		fputs("<tr>", f);
		cell(f, "th", rpt_stat_names[k]);
		for (i = 0; i < o->ntime; i++)
			if (show[i])
				cell(f, "td", rpt_fmt_stat(buf, sizeof(buf), o, k,
							   rpt_stat_val(&g->sum[i], k)));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	for (i = 0; i < RPT_NCTR; i++) {
		enum wult_metric m = rpt_ctr_metrics[i];

		if (!g->ctr[i].n)
			continue;
		if (!any)
			fputs("<table class=\"ctr\"><tr><th>counter</th><th>mean</th></tr>\n", f);
		any = 1;
		fputs("<tr>", f);
		cell(f, "th", wult_metric_desc(m)->name);
		cell(f, "td", rpt_ctr_fmt(m, rpt_mean_val(&g->ctr[i]), buf, sizeof(buf)));
		fputs("</tr>\n", f);
	}
	if (any)
		fputs("</table>\n", f);
}

/* Several files: each file's value, then each later one's change. */
static void diff_row(FILE *f, const struct rpt_opts *o, const struct rpt_diff_row *r,
		     unsigned int nfiles)
{
	char buf[64], abs[64], pct[64];
	unsigned int j;

	fputs("<tr>", f);
	cell(f, "th", r->label);
	for (j = 0; j < nfiles; j++) {
		rpt_diff_cell(o, r, j, buf, abs, pct, sizeof(buf));
		cell(f, "td", buf);
		if (!j)
			continue;
		fputs("<td class=\"d\">", f);
		put_esc(f, abs);
		fputs("</td>", f);
		fprintf(f, "<td class=\"d %s\">", pct[0] == '+' ? "up" : pct[0] == '-' &&
			pct[1] ? "down" : "");
		put_esc(f, pct);
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

static void diff_head(FILE *f, const char *title, unsigned int nfiles)
{
	unsigned int j;

	fputs("<table class=\"stats diff\"><tr>", f);
	cell(f, "th", title);
	fputs("<th>[1]</th>", f);
	for (j = 1; j < nfiles; j++)
		fprintf(f, "<th>[%u]</th><th class=\"d\">[%u]-[1]</th><th class=\"d\">change</th>",
			j + 1, j + 1);
	fputs("</tr>\n", f);
}

static void table_diff(FILE *f, const struct rpt_opts *o, const struct rpt_diff_state *st,
		       unsigned int nfiles)
{
	char title[128];
	unsigned int i;
	int k;

	for (i = 0; i < o->ntime; i++) {
		snprintf(title, sizeof(title), "%s (%s)", time_name(o, o->time[i]), o->unit);
		diff_head(f, title, nfiles);
		for (k = 0; k < RPT_S_NR; k++)
			diff_row(f, o, &st->time[i * RPT_S_NR + k], nfiles);
		fputs("</table>\n", f);
	}
	for (i = 0; i < st->nctr; i++) {
		if (!i)
			diff_head(f, "counter means", nfiles);
		diff_row(f, o, &st->ctr[i], nfiles);
	}
	if (st->nctr)
		fputs("</table>\n", f);
}

static void write_tables(FILE *f, const struct rpt_opts *o, const struct rpt_diff *d)
{
	int show[RPT_MAX_TIME];
	unsigned int s, j, i;

	for (i = 0; i < o->ntime; i++)
		show[i] = 1;
	fputs("<section id=\"summary\"><h2>Summary per requested state</h2>\n", f);
	for (s = 0; s < d->nstates; s++) {
		const struct rpt_diff_state *st = &d->st[s];

		fputs("<div class=\"state\"><h3>", f);
		put_esc(f, st->name);
		fputs(":", f);
		for (j = 0; j < d->nfiles; j++)
			fprintf(f, "%s%llu", j ? ", " : " ",
				(unsigned long long)(st->g[j] ? st->g[j]->kept : 0));
		fputs(" datapoints</h3>\n", f);
		if (d->nfiles == 1)
			table_one(f, o, st->g[0], show);
		else
			table_diff(f, o, st, d->nfiles);
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

/* ---- the plot data ---- */

/*
 * A value of @m in the page's units: times (@v in ns) in o's unit with the
 * text report's decimals, others as is. ns and us take the CSV writer's
 * formatting, the same text as printf's (us: exact for integral ns, where
 * printf("%.3f", v / 1e3) is the same below 2^43 ns); printf's %.3f was
 * 0.5G of a 1M-datapoint page's 1.6G instructions, for its scatter points.
 */
static void put_val(FILE *f, const struct rpt_opts *o, enum wult_metric m, double v)
{
	char buf[WULT_CSV_NUM_MAX];

	if (!wult_metric_desc(m)->is_time)
		fprintf(f, "%.6g", v);
	else if (o->unit_ns == 1e3)
		fwrite(buf, 1, wult_csv_format_us(buf, v), f);
	else if (o->unit_ns == 1)
		fwrite(buf, 1, wult_csv_format_fixed(buf, v, 0), f);
	else
		fprintf(f, "%.6f", v / o->unit_ns);
}

static void put_metric(FILE *f, const struct rpt_opts *o, enum wult_metric m)
{
	const struct wult_metric_desc *d = wult_metric_desc(m);

	fputs("{\"name\":", f);
	put_json_str(f, time_name(o, m));
	fputs(",\"unit\":", f);
	put_json_str(f, d->is_time ? o->unit : d->csv_unit);
	fprintf(f, ",\"time\":%d}", d->is_time);
}

static void put_hist(FILE *f, const struct rpt_opts *o, unsigned int fi, const char *state,
		     unsigned int mi, const struct rpt_plot_hist *h, int *first)
{
	double div = rpt_plot_scale(o->plot[mi]);
	uint64_t run = 0;
	unsigned int b;

	if (!h || !h->total)
		return;
	fprintf(f, "%s{\"f\":%u,\"s\":", *first ? "" : ",\n", fi);
	*first = 0;
	put_json_str(f, state);
	fprintf(f, ",\"m\":%u,\"n\":%llu,\"e\":[", mi, (unsigned long long)h->total);
	for (b = 0; b <= h->n; b++) {
		fputs(b ? "," : "", f);
		put_val(f, o, o->plot[mi], h->edge[b] / div);
	}
	fputs("],\"c\":[", f);
	for (b = 0; b < h->n; b++)
		fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)h->cnt[b]);
	/* The cumulative share at each bucket's upper edge, in percent. */
	fputs("],\"p\":[", f);
	for (b = 0; b < h->n; b++) {
		run += h->cnt[b];
		fprintf(f, "%s%.6g", b ? "," : "", 100.0 * run / h->total);
	}
	fputs("]}", f);
}

struct emit_ctx {
	FILE *f;
	const struct rpt_opts *o;
	enum wult_metric xm, ym;
	uint64_t n;
};

static void emit_pt(double x, double y, void *ctx)
{
	struct emit_ctx *e = ctx;

	fputs(e->n++ ? "," : "", e->f);
	put_val(e->f, e->o, e->xm, x);
	fputc(',', e->f);
	put_val(e->f, e->o, e->ym, y);
}

static unsigned int index_of(const enum wult_metric *arr, unsigned int n, enum wult_metric m)
{
	unsigned int i;

	for (i = 0; i < n && arr[i] != m; i++)
		;
	return i;
}

static int put_scatters(FILE *f, const struct rpt_opts *o, unsigned int fi,
			 const struct rpt_group *g, int *first)
{
	struct emit_ctx e = { .f = f, .o = o };
	unsigned int i, n = rpt_plot_nseries(g->plot);
	int64_t total;

	for (i = 0; i < n; i++) {
		total = rpt_plot_series(g->plot, i, &e.xm, &e.ym, NULL, NULL);
		if (!total)
			continue;
		fprintf(f, "%s{\"f\":%u,\"s\":", *first ? "" : ",\n", fi);
		*first = 0;
		put_json_str(f, g->name);
		fprintf(f, ",\"m\":%u,\"x\":%u,\"n\":%llu,\"xy\":[",
			index_of(o->plot, o->nplot, e.ym), index_of(o->plot_x, o->nplot_x, e.xm),
			(unsigned long long)total);
		e.n = 0;
		if (rpt_plot_series(g->plot, i, &e.xm, &e.ym, emit_pt, &e) < 0)
			return -ENOMEM;
		fputs("]}", f);
	}
	return 0;
}

static int write_data(FILE *f, const struct rpt_opts *o, struct rpt_file *const *files,
		       unsigned int nfiles)
{
	unsigned int j, i, k;
	int first = 1;

	fputs("<script type=\"application/json\" id=\"wult-data\">{\"files\":[", f);
	for (j = 0; j < nfiles; j++) {
		fputs(j ? "," : "", f);
		put_json_str(f, files[j]->path);
	}
	fputs("],\n\"metrics\":[", f);
	for (i = 0; i < o->nplot; i++) {
		fputs(i ? "," : "", f);
		put_metric(f, o, o->plot[i]);
	}
	fputs("],\n\"xmetrics\":[", f);
	for (i = 0; i < o->nplot_x; i++) {
		fputs(i ? "," : "", f);
		put_metric(f, o, o->plot_x[i]);
	}
	fputs("],\n\"hist\":[", f);
	for (j = 0; j < nfiles; j++) {
		for (i = 0; i <= files[j]->ngroups; i++) {
			const struct rpt_group *g = i < files[j]->ngroups ? files[j]->groups[i] :
						    &files[j]->all;

			for (k = 0; k < o->nplot; k++)
				put_hist(f, o, j, g->name, k, rpt_plot_hist(g->plot, k), &first);
		}
	}
	fputs("],\n\"scatter\":[", f);
	first = 1;
	for (j = 0; j < nfiles; j++)
		for (i = 0; i < files[j]->ngroups; i++)
			if (put_scatters(f, o, j, files[j]->groups[i], &first))
				return -ENOMEM;
	fputs("]}</script>\n", f);
	return 0;
}

static int write_page(FILE *f, const struct rpt_opts *o, struct rpt_file *const *files,
		      const struct rpt_diff *d)
{
	unsigned int nfiles = d->nfiles;

	/* No fetch of any kind; inline script and style only. */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>", f);
	put_esc(f, o->title ? o->title : "wult report");
	fputs("</title>\n<style>", f);
	fputs(wult_html_css, f);
	fputs("</style></head><body>\n", f);
	write_header(f, o, files, nfiles);
	fputs("<section id=\"plots\"><h2>Plots</h2><p class=\"help\">Drag across a plot to "
	      "zoom, double-click to reset; click a legend entry to hide or show it. Scatters "
	      "show every datapoint of the tail and of sparse regions, dense regions thinned "
	      "(see wult-report(1)).</p></section>\n", f);
	/* The plots come first: the first screen shows them; tables follow. */
	write_tables(f, o, d);
	if (o->branches && nfiles == 1) {
		fputs("<section id=\"branches\"><h2>Branch contexts</h2>\n", f);
		put_pre(f, branches_fn, o, files[0], "br");
		fputs("</section>\n", f);
	}
	if (write_data(f, o, files, nfiles))
		return -ENOMEM;
	fputs("<pre id=\"wult-selftest\" hidden></pre>\n<script>", f);
	fputs(wult_html_chartjs, f);
	fputs("</script>\n<script>", f);
	fputs(wult_html_js, f);
	fputs("</script>\n</body></html>\n", f);
	return 0;
}

int rpt_html_write(const struct rpt_opts *o, struct rpt_file *const *files,
		   const struct rpt_diff *d)
{
	/* "x": an existing file is not ours to replace unless --force said so. */
	FILE *f = fopen(o->html_out, o->force ? "w" : "wx");
	int ret = 0;

	if (!f) {
		ret = -errno;
		fprintf(stderr, "%s: --html: cannot write %s: %s%s\n",
			o->title ? o->title : "wult report", o->html_out, strerror(errno),
			errno == EEXIST ? " (--force to overwrite it)" : "");
		return ret;
	}
	if (write_page(f, o, files, d) || ferror(f))
		ret = -EIO;
	if (fclose(f))
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "%s: --html: write error on %s\n",
			o->title ? o->title : "wult report", o->html_out);
		unlink(o->html_out);
	}
	return ret;
}
