// SPDX-License-Identifier: GPL-2.0
/*
 * intel wult raw results: export so that its tools (and pandas) read ours,
 * import so that our reports read theirs. Streaming both ways: one line
 * buffer, bounded by MAX_LINE, whatever the number of rows.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/csv.h>
#include "err.h"

#define MAX_LINE	65536	/* longer lines are corrupt input */
#define MAX_COLS	256
#define MAX_INFO	64

struct wult_csv_writer {
	FILE *f;
	size_t ncols;
	int failed;
	int started;		/* the header is out: columns are fixed */
	int holes;		/* some row lacked a column of the header */
	enum wult_metric *cols;	/* the requested columns */
	unsigned char *on;	/* per requested column: in the header */
	unsigned char *hole;	/* ... and some later row lacked it */
};

struct wult_csv_reader {
	FILE *f;
	int own_file;
	char name[256];
	int times_in_us;
	unsigned long lineno;
	int ncols;
	int col2metric[MAX_COLS];	/* -1: column we do not use */
	char *fields[MAX_COLS];
	char line[MAX_LINE + 2];
	char err[512];
	int ninfo;
	char *info_key[MAX_INFO], *info_val[MAX_INFO];
};

/* ---- export ---- */

int wult_csv_writer_new(FILE *f, const enum wult_metric *cols, size_t ncols,
			struct wult_csv_writer **out)
{
	struct wult_csv_writer *w;
	size_t i;

	*out = NULL;
	for (i = 0; i < ncols; i++)
		if (!wult_metric_desc(cols[i]))
			return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->cols = calloc(ncols + 1, sizeof(w->cols[0]));
	w->on = calloc(ncols + 1, 1);
	w->hole = calloc(ncols + 1, 1);
	if (!w->cols || !w->on || !w->hole) {
		free(w->cols);
		free(w->on);
		free(w->hole);
		free(w);
		return -ENOMEM;
	}
	w->f = f;
	w->ncols = ncols;
	memcpy(w->cols, cols, ncols * sizeof(cols[0]));
	*out = w;
	return 0;
}

static int has_val(const struct wult_csv_writer *w, size_t i, const struct wult_point *pt)
{
	const struct wult_val *v = &pt->v[w->cols[i]];

	return wult_metric_desc(w->cols[i])->type == WULT_VAL_STR ? !!v->str : !isnan(v->num);
}

/*
 * The header names the columns @pt fills (all of them when @pt is NULL:
 * no rows). intel wult refuses a CSV with any empty cell, so a counter the
 * machine lacks is left out rather than written empty.
 */
static void write_header(struct wult_csv_writer *w, const struct wult_point *pt)
{
	size_t i;
	int first = 1;

	for (i = 0; i < w->ncols; i++) {
		w->on[i] = !pt || has_val(w, i, pt);
		if (!w->on[i])
			continue;
		if (fprintf(w->f, "%s%s", first ? "" : ",", wult_metric_desc(w->cols[i])->name) < 0)
			w->failed = 1;
		first = 0;
	}
	if (fputc('\n', w->f) == EOF)
		w->failed = 1;
	w->started = 1;
}

static int put_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r"))
		return fputs(s, f);
	/* RFC 4180 quoting, as pandas expects. */
	if (fputc('"', f) == EOF)
		return EOF;
	for (; *s; s++) {
		if (*s == '"' && fputc('"', f) == EOF)
			return EOF;
		if (fputc(*s, f) == EOF)
			return EOF;
	}
	return fputc('"', f);
}

static int put_val(FILE *f, const struct wult_metric_desc *d, const struct wult_val *v)
{
	if (d->type == WULT_VAL_STR)
		return put_str(f, v->str);
	if (d->is_time && d->csv_scale == 1e3)
		/* ns -> us with 3 decimals keeps every nanosecond. */
		return fprintf(f, "%.3f", v->num / 1e3);
	if (!strcmp(d->csv_unit, "%"))
		return fprintf(f, "%.2f", v->num);
	if (!strcmp(d->csv_unit, "MHz"))
		return fprintf(f, "%.1f", v->num);
	return fprintf(f, "%.0f", v->num);
}

int wult_csv_writer_add(struct wult_csv_writer *w, const struct wult_point *pt)
{
	size_t i;
	int ret = 0, first = 1;

	if (!w->started)
		write_header(w, pt);
	for (i = 0; i < w->ncols && ret >= 0; i++) {
		if (!w->on[i])
			continue;
		if (!first)
			ret = fputc(',', w->f);
		first = 0;
		if (ret < 0)
			break;
		if (!has_val(w, i, pt)) {
			/* Left empty for now; the column goes at close. */
			w->hole[i] = 1;
			w->holes = 1;
			continue;
		}
		ret = put_val(w->f, wult_metric_desc(w->cols[i]), &pt->v[w->cols[i]]);
	}
	if (ret >= 0)
		ret = fputc('\n', w->f);
	if (ret < 0) {
		w->failed = 1;
		return -EIO;
	}
	return 0;
}

/* Copies one CSV line without the fields flagged in @drop (indexes of the
 * header's columns). Quoted fields (ReqCState) may hold commas. */
static int copy_line(const char *line, const unsigned char *drop, size_t ncols, FILE *to)
{
	const char *p = line, *start;
	size_t col;
	int quoted, first = 1;

	for (col = 0; col < ncols; col++) {
		for (start = p, quoted = 0; *p && *p != '\n' && (quoted || *p != ','); p++)
			if (*p == '"')
				quoted = !quoted;
		if (!drop[col]) {
			if ((!first && fputc(',', to) == EOF) ||
			    fwrite(start, 1, p - start, to) != (size_t)(p - start))
				return -1;
			first = 0;
		}
		if (*p == ',')
			p++;
	}
	return fputc('\n', to) == EOF ? -1 : 0;
}

/* Rewrites the file without the columns some row left empty. */
static int drop_holes(struct wult_csv_writer *w)
{
	unsigned char drop[256 + 1] = { 0 };
	size_t i, n = 0, cap = 0;
	char *line = NULL;
	FILE *tmp;
	int ret = 0;

	for (i = 0; i < w->ncols && n < sizeof(drop) - 1; i++)
		if (w->on[i])
			drop[n++] = w->hole[i];
	if (fflush(w->f) == EOF || fseek(w->f, 0, SEEK_SET))
		return -ESPIPE;	/* not a regular file opened for reading too */
	tmp = tmpfile();
	if (!tmp)
		return -EIO;
	while (!ret && getline(&line, &cap, w->f) > 0)
		ret = copy_line(line, drop, n, tmp);
	if (!ret && (ferror(w->f) || fflush(tmp) == EOF || fseek(tmp, 0, SEEK_SET) ||
		     fseek(w->f, 0, SEEK_SET) || ftruncate(fileno(w->f), 0)))
		ret = -1;
	while (!ret && getline(&line, &cap, tmp) > 0)
		if (fputs(line, w->f) == EOF)
			ret = -1;
	free(line);
	fclose(tmp);
	return ret ? -EIO : 0;
}

int wult_csv_writer_close(struct wult_csv_writer *w)
{
	int failed;

	if (!w)
		return 0;
	if (!w->started)
		write_header(w, NULL);
	failed = w->failed || (w->holes && drop_holes(w)) || fflush(w->f) == EOF ||
		 ferror(w->f);
	free(w->cols);
	free(w->on);
	free(w->hole);
	free(w);
	return failed ? -EIO : 0;
}

int wult_csv_write_info(FILE *f, const struct wult_csv_info *in)
{
	int ret;

	/* Keys in alphabetical order, as intel wult's YAML dump writes them;
	 * format_version 1.2: times in us, the layout this writer produces. */
	ret = in->cpu >= 0 ? fprintf(f, "cpu: %d\n", in->cpu) : 0;
	if (ret >= 0 && in->date)
		ret = fprintf(f, "date: '%s'\n", in->date);
	if (ret >= 0 && in->devid)
		ret = fprintf(f, "devid: %s\n", in->devid);
	if (ret >= 0 && !isnan(in->duration))
		ret = fprintf(f, "duration: %.3f\n", in->duration);
	if (ret >= 0)
		ret = fprintf(f, "format_version: '1.2'\nreportid: %s\n", in->reportid);
	if (ret >= 0 && !isnan(in->resolution))
		ret = fprintf(f, "resolution: %.0f\n", in->resolution);
	if (ret >= 0)
		ret = fprintf(f, "toolname: wult\ntoolver: '%s'\n", in->toolver);
	if (ret < 0 || fflush(f) == EOF)
		return -EIO;
	return 0;
}

/* ---- import ---- */

static void rerr(struct wult_csv_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void rerr(struct wult_csv_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "%s:%lu: ", r->name, r->lineno);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
}

/* Reads one line into r->line without its newline: 1, 0 at EOF, -1 error. */
static int read_line(struct wult_csv_reader *r)
{
	size_t len;

	if (!fgets(r->line, sizeof(r->line), r->f)) {
		if (ferror(r->f)) {
			rerr(r, "read error");
			return -1;
		}
		return 0;
	}
	r->lineno++;
	len = strlen(r->line);
	if (len == sizeof(r->line) - 1 && r->line[len - 1] != '\n') {
		rerr(r, "line longer than %d bytes", MAX_LINE);
		return -1;
	}
	if (strlen(r->line) != len) {
		rerr(r, "NUL byte in line");
		return -1;
	}
	while (len && (r->line[len - 1] == '\n' || r->line[len - 1] == '\r'))
		r->line[--len] = '\0';
	return 1;
}

/* Splits r->line in place into r->fields (RFC 4180 quotes); the count or -1. */
static int split(struct wult_csv_reader *r)
{
	char *p = r->line, *o;
	int n = 0;

	for (;;) {
		if (n == MAX_COLS) {
			rerr(r, "more than %d fields", MAX_COLS);
			return -1;
		}
		if (*p == '"') {
			o = ++p;
			r->fields[n++] = o;
			for (;;) {
				if (!*p) {
					rerr(r, "unterminated quoted field %d", n);
					return -1;
				}
				if (*p == '"' && p[1] == '"') {
					*o++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*o++ = *p++;
				}
			}
			if (*p && *p != ',') {
				rerr(r, "text after quoted field %d", n);
				return -1;
			}
			*o = '\0';
		} else {
			r->fields[n++] = p;
			p += strcspn(p, ",");
		}
		if (!*p)
			return n;
		*p++ = '\0';
	}
}

static int read_header(struct wult_csv_reader *r)
{
	int i, ret, known = 0;

	ret = read_line(r);
	if (ret < 0)
		return -EINVAL;
	if (!ret || !r->line[0]) {
		snprintf(r->err, sizeof(r->err), "%s: empty file, expected a header line",
			 r->name);
		return -EINVAL;
	}
	r->ncols = split(r);
	if (r->ncols < 0)
		return -EINVAL;
	for (i = 0; i < r->ncols; i++) {
		int m = wult_metric_lookup(r->fields[i], strlen(r->fields[i]));
		int j;

		for (j = 0; j < i; j++) {
			if (!strcmp(r->fields[i], r->fields[j])) {
				rerr(r, "column '%s' appears twice", r->fields[i]);
				return -EINVAL;
			}
		}
		r->col2metric[i] = m;
		/* Our absolute stamps are ns; intel wult has its own LTime etc. */
		if (m >= 0 && m != WULT_M_SCALED)
			known++;
	}
	if (!known) {
		rerr(r, "no known column in the header (expected WakeLatency, ...)");
		return -EINVAL;
	}
	return 0;
}

int wult_csv_open_stream(FILE *csv, const char *name, int times_in_us,
			 struct wult_csv_reader **out, char *err, size_t errlen)
{
	struct wult_csv_reader *r;
	int ret;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->f = csv;
	r->times_in_us = times_in_us;
	snprintf(r->name, sizeof(r->name), "%s", name);
	ret = read_header(r);
	if (ret) {
		wult_err_set(err, errlen, 0, "%s", r->err);
		free(r);
		return ret;
	}
	*out = r;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	if (e - s >= 2 && ((*s == '\'' && e[-1] == '\'') || (*s == '"' && e[-1] == '"'))) {
		e[-1] = '\0';
		s++;
	}
	return s;
}

/*
 * info.yml: the flat "key: value" subset intel wult writes. A file holding
 * only a relative path is a symlink flattened by a copy (as in intel wult's
 * own test data): follow it once.
 */
static int read_info(struct wult_csv_reader *r, const char *dir, char *err, size_t errlen)
{
	char path[4096], line[1024], target[1024] = "";
	int hops, nlines;
	FILE *f;

	snprintf(path, sizeof(path), "%s/info.yml", dir);
	for (hops = 0; hops < 2; hops++) {
		f = fopen(path, "r");
		if (!f) {
			wult_err_set(err, errlen, 0, "%s: %s (not an intel wult raw result?)", path,
				strerror(errno));
			return -errno;
		}
		nlines = 0;
		while (fgets(line, sizeof(line), f)) {
			char *colon, *k;

			if (line[0] == '#' || line[0] == '\n' || line[0] == ' ' ||
			    !strncmp(line, "---", 3))
				continue;
			nlines++;
			colon = strchr(line, ':');
			if (!colon) {
				snprintf(target, sizeof(target), "%s", trim(line));
				continue;
			}
			*colon = '\0';
			k = trim(line);
			if (r->ninfo == MAX_INFO)
				break;
			r->info_key[r->ninfo] = strdup(k);
			r->info_val[r->ninfo] = strdup(trim(colon + 1));
			if (!r->info_key[r->ninfo] || !r->info_val[r->ninfo]) {
				fclose(f);
				return -ENOMEM;
			}
			r->ninfo++;
		}
		fclose(f);
		if (r->ninfo)
			return 0;
		if (nlines != 1 || !target[0] || target[0] == '/')
			break;
		snprintf(path, sizeof(path), "%s/%s", dir, target);
	}
	wult_err_set(err, errlen, 0, "%s/info.yml: no 'key: value' lines", dir);
	return -EINVAL;
}

int wult_csv_open(const char *dir, struct wult_csv_reader **out, char *err, size_t errlen)
{
	struct wult_csv_reader *r, tmp = { .ninfo = 0 };
	const char *ver;
	char path[4096];
	int ret, i, us;
	FILE *f;

	*out = NULL;
	ret = read_info(&tmp, dir, err, errlen);
	if (ret)
		goto free_info;
	snprintf(path, sizeof(path), "%s/datapoints.csv", dir);
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		wult_err_set(err, errlen, 0, "%s: %s", path, strerror(errno));
		goto free_info;
	}
	/* Raw format 1.2 stores times in us; older results in ns. */
	ver = NULL;
	for (i = 0; i < tmp.ninfo; i++)
		if (!strcmp(tmp.info_key[i], "format_version"))
			ver = tmp.info_val[i];
	us = !ver || strtod(ver, NULL) >= 1.2;
	ret = wult_csv_open_stream(f, path, us, &r, err, errlen);
	if (ret) {
		fclose(f);
		goto free_info;
	}
	r->own_file = 1;
	r->ninfo = tmp.ninfo;
	memcpy(r->info_key, tmp.info_key, sizeof(tmp.info_key));
	memcpy(r->info_val, tmp.info_val, sizeof(tmp.info_val));
	*out = r;
	return 0;
free_info:
	for (i = 0; i < tmp.ninfo; i++) {
		free(tmp.info_key[i]);
		free(tmp.info_val[i]);
	}
	return ret;
}

/*
 * Parses @s scaled by 10^@exp10 in one correctly rounded strtod() call, so
 * that "1.007" us becomes exactly 1007 ns (1.007 * 1e3 would not).
 */
static double strtod_scaled(const char *s, int exp10, char **end)
{
	char buf[128];
	const char *e;
	long ex = 0;
	size_t ml;

	if (!exp10)
		return strtod(s, end);
	e = strpbrk(s, "eE");
	ml = e ? (size_t)(e - s) : strlen(s);
	if (e) {
		char *ee;

		ex = strtol(e + 1, &ee, 10);
		if (*ee || ee == e + 1 || ex > 100000 || ex < -100000) {
			*end = (char *)s;
			return 0;
		}
	}
	if (ml > 100 || strpbrk(s, "xXpP") || !ml) {
		*end = (char *)s;	/* hex or absurd: not a CSV number */
		return 0;
	}
	snprintf(buf, sizeof(buf), "%.*se%ld", (int)ml, s, ex + exp10);
	{
		char *bend;
		double v = strtod(buf, &bend);

		/* Map the end back onto @s for the caller's check. */
		*end = *bend ? (char *)s : (char *)s + strlen(s);
		return v;
	}
}

static int parse_num(struct wult_csv_reader *r, int col, const char *s, int exp10,
		     double *out)
{
	char *end;

	if (!*s) {
		*out = NAN;
		return 0;
	}
	if (!strcasecmp(s, "true") || !strcasecmp(s, "false")) {
		*out = !strcasecmp(s, "true");	/* pandas writes bools so */
		return 0;
	}
	errno = 0;
	*out = strtod_scaled(s, exp10, &end);
	if (*end || errno == ERANGE || end == s || isinf(*out) || isnan(*out)) {
		rerr(r, "column '%s': '%.40s' is not a number",
		     wult_metric_desc(r->col2metric[col])->name, s);
		return -1;
	}
	return 0;
}

int wult_csv_next(struct wult_csv_reader *r, struct wult_point *pt)
{
	int ret, n, i;

	do {
		ret = read_line(r);
		if (ret <= 0)
			return ret ? -EINVAL : 0;
	} while (!r->line[0]);	/* blank lines: pandas skips them too */
	n = split(r);
	if (n < 0)
		return -EINVAL;
	if (n != r->ncols) {
		rerr(r, "%d fields, but the header has %d", n, r->ncols);
		return -EINVAL;
	}
	wult_point_clear(pt);
	for (i = 0; i < n; i++) {
		int m = r->col2metric[i];
		const struct wult_metric_desc *d;
		double v;

		if (m < 0)
			continue;
		d = wult_metric_desc(m);
		if (d->type == WULT_VAL_STR) {
			pt->v[m].str = r->fields[i];
			continue;
		}
		if (parse_num(r, i, r->fields[i],
			      d->is_time && d->csv_scale == 1e3 && r->times_in_us ? 3 : 0, &v))
			return -EINVAL;
		pt->v[m].num = v;
	}
	return 1;
}

const char *wult_csv_error(const struct wult_csv_reader *r)
{
	return r->err;
}

const char *wult_csv_info(const struct wult_csv_reader *r, const char *key)
{
	int i;

	for (i = 0; i < r->ninfo; i++)
		if (!strcmp(r->info_key[i], key))
			return r->info_val[i];
	return NULL;
}

void wult_csv_close(struct wult_csv_reader *r)
{
	int i;

	if (!r)
		return;
	if (r->own_file)
		fclose(r->f);
	for (i = 0; i < r->ninfo; i++) {
		free(r->info_key[i]);
		free(r->info_val[i]);
	}
	free(r);
}
