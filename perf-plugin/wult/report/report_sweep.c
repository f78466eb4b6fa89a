// SPDX-License-Identifier: GPL-2.0
/*
 * wult report DIR, DIR a wult sweep's directory (its sweep.json, libwult's
 * sweep.h): every point compared in one table, a row per point and
 * requested state with the point's axis values, the WakeLatency median,
 * p99 and p99.99 and the count; as text, as JSON (--json) and on the HTML
 * page (--html: the table above the usual page of the points' files).
 *
 * Each point's file goes through the same pass as any input
 * (rpt_file_run()), with the command's filters and unit; only its
 * summaries are kept, unless the HTML page needs the files themselves.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wult/sweep.h>

#include "report_sweep.h"
#include "report_pass.h"
#include "report_view.h"

/* A row: one state of one point (or all its states, when it has several). */
struct swr_row {
	char *state;
	double v[4];		/* count, median, p99, p99.99 (ns); NaN: none */
};

static const int swr_stat[4] = { RPT_S_COUNT, RPT_S_MEDIAN, RPT_S_P99, RPT_S_P99_99 };
static const char *const swr_json_key[4] = { "count", "median", "p99", "p99.99" };

struct swr_point {
	char *path;		/* DIR/FILE: a kept rpt_file points into it */
	const char *why;	/* why it has no rows: NULL, or the reason */
	struct swr_row *row;
	unsigned int nrows;
};

struct swr {
	const char *dir;
	struct wult_sweep *s;
	struct swr_point *pt;
	unsigned int with_data;
	struct rpt_file **files;	/* --html: the points' files, kept */
	unsigned int nfiles;
	const struct rpt_opts *o;
};

static int sweep_is(const char *path)
{
	char mf[4096];
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(mf, sizeof(mf), "%s/" WULT_SWEEP_MANIFEST, path);
	return !access(mf, F_OK);
}

int rpt_sweep_any(const char *const *inputs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (sweep_is(inputs[i]))
			return 1;
	return 0;
}

/* The options that have no meaning for a sweep: refused. 0 or RPT_EXIT_USAGE. */
static int check_opts(const struct rpt_opts *o)
{
	const char *opt = o->csv_out ? "--csv" : o->branches ? "--branches" :
			  o->info ? "--info" : o->ngates ? "--fail-if" : o->hist ? "--hist" :
			  o->suggest || o->suggest_pct ? "--suggest" : NULL;

	if (!opt)
		return 0;
	fprintf(stderr, "wult report: %s is not for a sweep's directory: give it a point's "
		"file (DIR/MONIKER.data)\n", opt);
	return RPT_EXIT_USAGE;
}

/* WakeLatency's index in o->time, added when -m left it out. */
static unsigned int wake_index(struct rpt_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->ntime; i++)
		if (o->time[i] == WULT_M_WAKE_LATENCY)
			return i;
	o->time[o->ntime] = WULT_M_WAKE_LATENCY;
	return o->ntime++;
}

static int add_row(struct swr_point *sp, const struct rpt_group *g, unsigned int mi)
{
	struct swr_row *r;
	unsigned int k;

	r = realloc(sp->row, (sp->nrows + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	sp->row = r;
	r = &r[sp->nrows];
	r->state = strdup(g->name);
	if (!r->state)
		return -ENOMEM;
	sp->nrows++;
	for (k = 0; k < 4; k++)
		r->v[k] = rpt_stat_val(&g->sum[mi], swr_stat[k]);
	return 0;
}

/* Point @p's file read into its rows. 0, or an exit status (said). */
static int read_point(struct swr *w, struct rpt_opts *o, unsigned int p, unsigned int mi)
{
	struct swr_point *sp = &w->pt[p];
	enum wult_sweep_status st = wult_sweep_status(w->s, p, NULL);
	struct rpt_file *f;
	unsigned int i;
	size_t n;

	if (st == WULT_SWEEP_FAILED) {
		sp->why = "its recording failed";
		return 0;
	}
	n = strlen(w->dir) + strlen(wult_sweep_file(w->s, p)) + 2;
	sp->path = malloc(n);
	if (!sp->path) {
		fprintf(stderr, "wult report: out of memory\n");
		return RPT_EXIT_DATA;
	}
	snprintf(sp->path, n, "%s/%s", w->dir, wult_sweep_file(w->s, p));
	/*
	 * A pending point with a file is the one a killed sweep was recording:
	 * its wult record stopped on the sweep's death and finished the file.
	 */
	if (st == WULT_SWEEP_PENDING) {
		if (access(sp->path, F_OK)) {
			sp->why = "not recorded";
			return 0;
		}
		fprintf(stderr, "wult report: %s: point %s is pending but has a file (a sweep "
			"killed while recording it?): reported\n", w->dir,
			wult_sweep_moniker(w->s, p));
	} else if (access(sp->path, F_OK)) {
		fprintf(stderr, "wult report: %s: point %s: its file is missing (%s)\n", w->dir,
			wult_sweep_moniker(w->s, p), sp->path);
		sp->why = "its file is missing";
		return RPT_EXIT_DATA;
	}
	if (rpt_file_run(o, sp->path, &f)) {
		sp->why = "its file does not read";
		return RPT_EXIT_DATA;	/* said by the pass */
	}
	for (i = 0; i < f->ngroups; i++)
		if (add_row(sp, f->groups[i], mi))
			goto nomem;
	if (f->ngroups > 1 && add_row(sp, &f->all, mi))
		goto nomem;
	if (!f->ngroups)
		sp->why = "no datapoint kept";
	else
		w->with_data++;
	if (o->html_out) {
		w->files[w->nfiles++] = f;
		return f->cut ? RPT_EXIT_DATA : 0;
	}
	i = f->cut ? RPT_EXIT_DATA : 0;
	rpt_file_free(f);
	return i;
nomem:
	rpt_file_free(f);
	fprintf(stderr, "wult report: out of memory\n");
	return RPT_EXIT_DATA;
}

/* ---- the text table ---- */

#define SWR_COLS	(WULT_SWEEP_NR_AXES + 5)

/* The cells of a row: the axes, the state, the four values. */
static unsigned int cells(const struct swr *w, unsigned int p, const struct swr_row *r,
			  char c[SWR_COLS][64])
{
	unsigned int a, k, n = 0, na = wult_sweep_naxes(w->s);

	for (a = 0; a < na; a++)
		snprintf(c[n++], 64, "%s", wult_sweep_point_value(w->s, p, a));
	if (!r) {
		snprintf(c[n++], 64, "-");
		return n;
	}
	snprintf(c[n++], 64, "%s", r->state);
	snprintf(c[n++], 64, "%.0f", r->v[0]);
	for (k = 1; k < 4; k++)
		rpt_fmt_time(c[n++], 64, w->o, r->v[k]);
	return n;
}

/* The header's cells: the axes' names, the state, the statistics. */
static void head_cells(const struct swr *w, char c[SWR_COLS][64])
{
	static const char *const stat[] = { "ReqCState", "count", "median", "p99", "p99.99" };
	unsigned int i, na = wult_sweep_naxes(w->s);

	for (i = 0; i < na; i++)
		snprintf(c[i], 64, "%s", wult_sweep_axis_name(wult_sweep_axis(w->s, i)));
	for (i = 0; i < 5; i++)
		snprintf(c[na + i], 64, "%s", stat[i]);
}

static void print_line(FILE *out, char c[SWR_COLS][64], unsigned int n, const int *width,
		       unsigned int na)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* Names to the left, numbers to the right. */
		if (i <= na)
			fprintf(out, "%s%-*s", i ? "  " : "", i + 1 < n ? width[i] : 0, c[i]);
		else
			fprintf(out, "  %*s", width[i], c[i]);
	}
	fputc('\n', out);
}

static void print_text(FILE *out, const struct swr *w)
{
	unsigned int na = wult_sweep_naxes(w->s), np = wult_sweep_npoints(w->s), p, r, i, n;
	char c[SWR_COLS][64];
	int width[SWR_COLS] = { 0 };
	const char *host = wult_sweep_host(w->s);

	fprintf(out, "Sweep %s: %u point%s, %u with datapoints; recorded %s%s\n", w->dir,
		np, np == 1 ? "" : "s", w->with_data, host ? "on " : "here", host ? host : "");
	fprintf(out, "axes:");
	for (i = 0; i < na; i++)
		fprintf(out, " %s (%u)", wult_sweep_axis_name(wult_sweep_axis(w->s, i)),
			wult_sweep_nvalues(w->s, i));
	if (wult_sweep_nropts(w->s)) {
		fprintf(out, "; record options:");
		for (i = 0; i < wult_sweep_nropts(w->s); i++)
			fprintf(out, " %s", wult_sweep_ropt(w->s, i));
	}
	fprintf(out, "\n\nWakeLatency per point and requested state (%s)\n\n", w->o->unit);
	/* The header, then every row, measured first. */
	head_cells(w, c);
	for (i = 0; i < na + 5; i++)
		width[i] = strlen(c[i]);
	for (p = 0; p < np; p++)
		for (r = 0; r < (w->pt[p].nrows ? w->pt[p].nrows : 1); r++) {
			n = cells(w, p, w->pt[p].nrows ? &w->pt[p].row[r] : NULL, c);
			for (i = 0; i < n; i++)
				if ((int)strlen(c[i]) > width[i])
					width[i] = strlen(c[i]);
		}
	head_cells(w, c);
	print_line(out, c, na + 5, width, na);
	for (p = 0; p < np; p++) {
		if (!w->pt[p].nrows) {
			n = cells(w, p, NULL, c);
			snprintf(c[n - 1], 64, "(%s)", w->pt[p].why ? w->pt[p].why : "no data");
			print_line(out, c, n, width, na);
			continue;
		}
		for (r = 0; r < w->pt[p].nrows; r++) {
			n = cells(w, p, &w->pt[p].row[r], c);
			print_line(out, c, n, width, na);
		}
	}
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* A time in ns to 0.001 ns, a count whole; null for none. */
static void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.15g", round(v * 1e3) / 1e3);
}

static int write_json(FILE *f, const struct swr *w)
{
	unsigned int na = wult_sweep_naxes(w->s), np = wult_sweep_npoints(w->s), a, v, p, r, k;
	int code;

	fprintf(f, "{\"schema_version\":%d,\"sweep\":{\"dir\":", RPT_JSON_SCHEMA);
	json_str(f, w->dir);
	fputs(",\"host\":", f);
	json_str(f, wult_sweep_host(w->s));
	fputs(",\"record_options\":[", f);
	for (a = 0; a < wult_sweep_nropts(w->s); a++) {
		fputs(a ? "," : "", f);
		json_str(f, wult_sweep_ropt(w->s, a));
	}
	fputs("],\"axes\":[", f);
	for (a = 0; a < na; a++) {
		fputs(a ? ",{\"name\":" : "{\"name\":", f);
		json_str(f, wult_sweep_axis_name(wult_sweep_axis(w->s, a)));
		fputs(",\"values\":[", f);
		for (v = 0; v < wult_sweep_nvalues(w->s, a); v++) {
			fputs(v ? "," : "", f);
			json_str(f, wult_sweep_value(w->s, a, v));
		}
		fputs("]}", f);
	}
	fputs("],\"metric\":\"WakeLatency\",\"unit\":\"ns\",\"points\":[", f);
	for (p = 0; p < np; p++) {
		enum wult_sweep_status st = wult_sweep_status(w->s, p, &code);

		fputs(p ? ",{\"moniker\":" : "{\"moniker\":", f);
		json_str(f, wult_sweep_moniker(w->s, p));
		fputs(",\"file\":", f);
		json_str(f, wult_sweep_file(w->s, p));
		fputs(",\"status\":", f);
		json_str(f, wult_sweep_status_name(st));
		fputs(",\"settings\":{", f);
		for (a = 0; a < na; a++) {
			fputs(a ? "," : "", f);
			json_str(f, wult_sweep_axis_name(wult_sweep_axis(w->s, a)));
			fputc(':', f);
			json_str(f, wult_sweep_point_value(w->s, p, a));
		}
		fputs("},\"no_data\":", f);
		json_str(f, w->pt[p].nrows ? NULL : w->pt[p].why ? w->pt[p].why : "no data");
		fputs(",\"states\":[", f);
		for (r = 0; r < w->pt[p].nrows; r++) {
			const struct swr_row *row = &w->pt[p].row[r];

			fputs(r ? ",{\"state\":" : "{\"state\":", f);
			json_str(f, row->state);
			for (k = 0; k < 4; k++) {
				fprintf(f, ",\"%s\":", swr_json_key[k]);
				json_num(f, row->v[k]);
			}
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("]}}\n", f);
	return ferror(f) ? -EIO : 0;
}

static int json_out(const struct rpt_opts *o, const struct swr *w)
{
	FILE *f;
	int ret;

	if (!strcmp(o->json_out, "-"))
		return write_json(stdout, w) ? RPT_EXIT_DATA : 0;
	/* "x": an existing file is not ours to replace unless --force said so. */
	f = fopen(o->json_out, o->force ? "w" : "wx");
	if (!f) {
		fprintf(stderr, "wult report: --json: cannot write %s: %s%s\n", o->json_out,
			strerror(errno), errno == EEXIST ? " (--force to overwrite it)" : "");
		return errno == EEXIST ? RPT_EXIT_USAGE : RPT_EXIT_DATA;
	}
	ret = write_json(f, w);
	if (fclose(f) || ret) {
		fprintf(stderr, "wult report: --json: write error on %s\n", o->json_out);
		unlink(o->json_out);
		return RPT_EXIT_DATA;
	}
	fprintf(stderr, "wult report: wrote %s\n", o->json_out);
	return 0;
}

/* ---- HTML: the table above the page of the points' files ---- */

static void html_esc(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static void html_table(FILE *f, const void *ctx)
{
	const struct swr *w = ctx;
	unsigned int na = wult_sweep_naxes(w->s), np = wult_sweep_npoints(w->s), p, r, i, n;
	char c[SWR_COLS][64];

	fputs("<section id=\"sweep\"><h2>Sweep: WakeLatency per point and requested "
	      "state (", f);
	html_esc(f, w->o->unit);
	fputs(")</h2>\n<table class=\"stats\"><tr>", f);
	for (i = 0; i < na; i++) {
		fputs("<th>", f);
		html_esc(f, wult_sweep_axis_name(wult_sweep_axis(w->s, i)));
		fputs("</th>", f);
	}
	fputs("<th>ReqCState</th><th>count</th><th>median</th><th>p99</th><th>p99.99</th>"
	      "</tr>\n", f);
	for (p = 0; p < np; p++)
		for (r = 0; r < (w->pt[p].nrows ? w->pt[p].nrows : 1); r++) {
			n = cells(w, p, w->pt[p].nrows ? &w->pt[p].row[r] : NULL, c);
			if (!w->pt[p].nrows)
				snprintf(c[n - 1], 64, "(%s)", w->pt[p].why ? w->pt[p].why :
					 "no data");
			fputs("<tr>", f);
			for (i = 0; i < n; i++) {
				fputs("<td>", f);
				html_esc(f, c[i]);
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
	fputs("</table></section>\n", f);
}

static int html_out(struct rpt_opts *o, struct swr *w)
{
	struct rpt_diff *d = NULL;
	char title[4200];
	int ret;

	if (!w->nfiles) {
		fprintf(stderr, "wult report: --html: no point of %s has a file to show\n",
			w->dir);
		return RPT_EXIT_EMPTY;
	}
	if (rpt_diff_new(o, w->files, w->nfiles, &d)) {
		fprintf(stderr, "wult report: out of memory\n");
		return RPT_EXIT_DATA;
	}
	snprintf(title, sizeof(title), "wult sweep %s", w->dir);
	o->title = title;
	o->html_extra = html_table;
	o->html_extra_ctx = w;
	ret = rpt_html_write(o, w->files, d);
	o->title = NULL;
	o->html_extra = NULL;
	rpt_diff_free(d);
	if (!ret)
		fprintf(stderr, "wult report: wrote %s\n", o->html_out);
	return ret == -EEXIST ? RPT_EXIT_USAGE : ret ? RPT_EXIT_DATA : 0;
}

static void swr_free(struct swr *w)
{
	unsigned int p, r;

	for (p = 0; p < w->nfiles; p++)
		rpt_file_free(w->files[p]);
	free(w->files);
	for (p = 0; w->pt && p < wult_sweep_npoints(w->s); p++) {
		for (r = 0; r < w->pt[p].nrows; r++)
			free(w->pt[p].row[r].state);
		free(w->pt[p].row);
		free(w->pt[p].path);
	}
	free(w->pt);
	wult_sweep_free(w->s);
}

int rpt_sweep_run(struct rpt_opts *o, const char *const *inputs, unsigned int n)
{
	const char *dir = inputs[0];
	struct swr w = { .dir = dir, .o = o };
	char path[4096], err[1024];
	unsigned int p, np, mi;
	int ret, status;

	for (p = 0; p < n; p++)
		if (n > 1 && sweep_is(inputs[p])) {
			fprintf(stderr, "wult report: %s is a wult sweep's directory: report it "
				"alone (its points are compared in one table)\n", inputs[p]);
			return RPT_EXIT_USAGE;
		}
	status = check_opts(o);
	if (status)
		return status;
	snprintf(path, sizeof(path), "%s/" WULT_SWEEP_MANIFEST, dir);
	ret = wult_sweep_read(path, &w.s, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult report: %s\n", ret == -ENOMEM ? "out of memory" : err);
		return RPT_EXIT_DATA;
	}
	np = wult_sweep_npoints(w.s);
	if (o->html_out && np > RPT_MAX_FILES) {
		fprintf(stderr, "wult report: --html: %u points, the page shows at most %d "
			"files (the text and --json show them all)\n", np, RPT_MAX_FILES);
		swr_free(&w);
		return RPT_EXIT_USAGE;
	}
	w.pt = calloc(np, sizeof(*w.pt));
	w.files = calloc(np, sizeof(*w.files));
	if (!w.pt || !w.files) {
		swr_free(&w);
		return RPT_EXIT_DATA;
	}
	mi = wake_index(o);
	for (p = 0; p < np; p++) {
		ret = read_point(&w, o, p, mi);
		if (ret && !status)
			status = ret;
	}
	if (!o->json_out || strcmp(o->json_out, "-"))
		print_text(stdout, &w);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "wult report: write error on stdout\n");
		status = RPT_EXIT_DATA;
	}
	if (w.with_data < np)
		fprintf(stderr, "wult report: %s: %u of %u points without datapoints (the "
			"table says why)\n", dir, np - w.with_data, np);
	if (!w.with_data && !o->allow_empty && !status) {
		fprintf(stderr, "wult report: nothing to report: exit status %d "
			"(--allow-empty: 0)\n", RPT_EXIT_EMPTY);
		status = RPT_EXIT_EMPTY;
	}
	if (o->json_out && (ret = json_out(o, &w)) && !status)
		status = ret;
	if (o->html_out && (!status || status == RPT_EXIT_DATA) && (ret = html_out(o, &w)) &&
	    !status)
		status = ret;
	swr_free(&w);
	return status;
}
