// SPDX-License-Identifier: GPL-2.0
/*
 * intel wult raw results: import, so that our reports read theirs (the
 * export, so that its tools and pandas read ours, is csv_write.c).
 * Streaming: bounded buffers whatever the number of rows.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wult/csv.h>
#include "internal/csv.h"
#include "internal/csvnum.h"
#include "internal/err.h"

#define MAX_LINE	65536	/* longer lines are corrupt input */
#define MAX_COLS	256
#define MAX_INFO	64
#define MAP_WINDOW	(4 << 20)	/* input mapped this much at a time */
#define IN_BUF		(1 << 20)	/* input read this much at a time (pipes) */
#define NRBATCH		3		/* batches of parsed rows in flight */
#define BATCH_SLOTS	(64 << 10)	/* a batch's values at most: 512 KiB */
#define BATCH_TEXT	(512 << 10)	/* a batch's lines at most, besides one of MAX_LINE */
#define GROW_STEPS	6		/* batches start 2^6 times smaller */

_Static_assert(MAP_WINDOW > MAX_LINE + 8192 && IN_BUF > MAX_LINE + 1,
	       "an input window holds a whole line");

/* Parsed rows and the text their strings point into. */
struct rbatch {
	union slot {		/* by the column's kind: 8 bytes, not 16 */
		double num;
		const char *str;
	} *slots;		/* rows x the header's columns */
	char *text;		/* the rows' lines, cut into fields */
	size_t rows, text_len;
	size_t cap_rows, text_cap;
	int last;		/* 1: the input ended, -1: a bad line (r->err) */
};

/*
 * The reader's input is a window of bytes, [pos, end): a regular file's
 * mapping (MAP_WINDOW at a time, so the resident set does not grow with
 * the file), else a buffer read() fills (pipes, fmemopen, ...).
 */
struct wult_csv_reader {
	FILE *f;
	int own_file;
	const char *pos, *end;
	int fd;			/* mapped: the file's descriptor, else -1 */
	off_t size;		/* mapped: the file's size */
	char *map;		/* the mapped window, map_off bytes into the file */
	size_t map_len;
	off_t map_off;
	char *buf;		/* not mapped: IN_BUF bytes */
	int eof;
	char name[256];
	int times_in_us;
	unsigned long lineno;
	int ncols;
	int col2metric[MAX_COLS];	/* -1: column we do not use */
	signed char col_exp[MAX_COLS];	/* its values scale by 10^col_exp (us -> ns) */
	unsigned char col_str[MAX_COLS];	/* a string metric */
	char *fields[MAX_COLS];
	char line[MAX_LINE + 2];	/* the header */
	/* Rows parsed ahead: the worker (or the caller, without threads)
	 * fills batch[put % NRBATCH], the caller reads batch[done % NRBATCH]
	 * (cur) while done < put. */
	struct rbatch batch[NRBATCH];
	size_t max_rows;		/* rows of a full-size batch */
	int grow;			/* batches are 2^(GROW_STEPS - grow) times smaller */
	struct rbatch *cur;
	size_t row;			/* next row of cur */
	unsigned long put, done;
	int threaded, stop;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char err[512];
	int ninfo;
	char *info_key[MAX_INFO], *info_val[MAX_INFO];
};

static int threads_mode = -1;	/* wult_csv_set_threads(); -1: not said */

void wult_csv_set_threads(int n)
{
	__atomic_store_n(&threads_mode, n < 0 ? -1 : n > WULT_CSV_MAX_THREADS ?
			 WULT_CSV_MAX_THREADS : n, __ATOMIC_RELAXED);
}

int wult_csv_threads(void)
{
	int n = __atomic_load_n(&threads_mode, __ATOMIC_RELAXED);
	const char *env;
	char *end;
	long v;

	if (n >= 0)
		return n;
	env = getenv("WULT_CSV_THREADS");
	if (env && *env) {
		v = strtol(env, &end, 10);
		if (!*end && v >= 0)
			return v > WULT_CSV_MAX_THREADS ? WULT_CSV_MAX_THREADS : (int)v;
	}
	return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}


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

/*
 * Maps the window holding r->pos onward. 1 when it holds more than the
 * last one, 0 at the end of the file, -1 on error. The window starts at
 * r->pos's page and is MAP_WINDOW long, so it holds a whole line.
 */
static int map_more(struct wult_csv_reader *r)
{
	off_t cur = r->map ? r->map_off + (r->pos - r->map) : r->map_off;
	off_t start = cur & ~(off_t)(sysconf(_SC_PAGESIZE) - 1);
	size_t len;
	void *p;

	if (cur >= r->size || (r->map && r->map_off + (off_t)r->map_len >= r->size))
		return 0;
	len = r->size - start < MAP_WINDOW ? (size_t)(r->size - start) : MAP_WINDOW;
	/* The old window goes first: two would double the resident set. */
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, r->fd, start);
	if (p == MAP_FAILED) {
		rerr(r, "cannot map %zu bytes at offset %lld: %s", len, (long long)start,
		     strerror(errno));
		r->map_off = cur;	/* a later call tries again from here */
		r->pos = r->end = NULL;
		return -1;
	}
	madvise(p, len, MADV_SEQUENTIAL);
	r->map = p;
	r->map_len = len;
	r->map_off = start;
	r->pos = r->map + (cur - start);
	r->end = r->map + len;
	return 1;
}

/* The stream's next bytes after those not yet used: as map_more(). */
static int read_more(struct wult_csv_reader *r)
{
	size_t keep = r->end - r->pos, got;

	if (r->eof)
		return 0;
	if (keep)
		memmove(r->buf, r->pos, keep);
	got = fread(r->buf + keep, 1, IN_BUF - keep, r->f);
	r->pos = r->buf;
	r->end = r->buf + keep + got;
	if (got)
		return 1;
	if (ferror(r->f)) {
		rerr(r, "read error");
		return -1;
	}
	r->eof = 1;
	return 0;
}

/*
 * Sets the input up: a regular file is mapped from the stream's position
 * on; anything else, or a file that does not map, is read through @f.
 */
static int input_init(struct wult_csv_reader *r)
{
	struct stat st;
	off_t at;

	r->fd = fileno(r->f);
	if (r->fd >= 0 && !fstat(r->fd, &st) && S_ISREG(st.st_mode) &&
	    (at = ftello(r->f)) >= 0) {
		r->size = st.st_size;
		r->map_off = at;
		if (at >= r->size || map_more(r) > 0)
			return 0;
		if (fseeko(r->f, at, SEEK_SET))
			return -1;
	}
	r->fd = -1;
	r->pos = r->end = r->buf = malloc(IN_BUF);
	return r->buf ? 0 : -1;
}

/*
 * Reads one line into @dst (MAX_LINE + 1 bytes) without its newline and
 * trailing CRs, NUL-terminated, its length in *@len: 1, 0 at EOF, -1 on
 * error.
 */
static int read_line(struct wult_csv_reader *r, char *dst, size_t *len)
{
	const char *nl;
	size_t n;
	int ret;

	for (;;) {
		nl = r->pos < r->end ? memchr(r->pos, '\n', r->end - r->pos) : NULL;
		if (nl || r->end - r->pos > MAX_LINE)
			break;
		ret = r->fd >= 0 ? map_more(r) : read_more(r);
		if (ret < 0)
			return -1;
		if (!ret)
			break;
	}
	n = (nl ? nl : r->end) - r->pos;
	if (!nl && !n)
		return 0;
	r->lineno++;
	if (n > MAX_LINE) {
		rerr(r, "line longer than %d bytes", MAX_LINE);
		return -1;
	}
	/* One copy of the line (not of each field): fields are cut in place. */
	memcpy(dst, r->pos, n);
	r->pos += n + !!nl;
	if (memchr(dst, '\0', n)) {
		rerr(r, "NUL byte in line");
		return -1;
	}
	while (n && dst[n - 1] == '\r')
		n--;
	dst[n] = '\0';
	*len = n;
	return 1;
}

/*
 * Cuts the field at *@pp (in a line read_line() copied) in place: RFC 4180 quotes undone,
 * NUL-terminated in *@field. *@pp moves to the next field, to NULL after
 * the last one. 0, or -1 on a malformed quoted field (field @n, from 1).
 */
static int cut_field(struct wult_csv_reader *r, char **pp, int n, char **field)
{
	char *p = *pp, *o;

	if (*p != '"') {
		*field = p;
		p = strchrnul(p, ',');
	} else {
		*field = o = ++p;
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
	}
	*pp = *p ? p + 1 : NULL;
	*p = '\0';
	return 0;
}

/* Splits r->line in place into r->fields; the count or -1. */
static int split(struct wult_csv_reader *r)
{
	char *p = r->line;
	int n = 0;

	while (p) {
		if (n == MAX_COLS) {
			rerr(r, "more than %d fields", MAX_COLS);
			return -1;
		}
		if (cut_field(r, &p, n + 1, &r->fields[n]))
			return -1;
		n++;
	}
	return n;
}

static int read_header(struct wult_csv_reader *r)
{
	const struct wult_metric_desc *d;
	int i, ret, known = 0;
	size_t len;

	ret = read_line(r, r->line, &len);
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
		d = m >= 0 ? wult_metric_desc(m) : NULL;
		r->col_str[i] = d && d->type == WULT_VAL_STR;
		r->col_exp[i] = d && d->is_time && d->csv_scale == 1e3 && r->times_in_us ? 3 : 0;
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

static void *reader_worker(void *arg);

/*
 * Grows @b towards the current batch size (a failure keeps it as it is):
 * batches start small, so that a short file allocates little, and double
 * with each one filled, to BATCH_SLOTS values and BATCH_TEXT bytes of
 * lines: few hand-overs between the threads on long files. -ENOMEM when
 * @b cannot even hold one line.
 */
static int grow_batch(struct wult_csv_reader *r, struct rbatch *b)
{
	size_t rows = r->max_rows >> (GROW_STEPS - r->grow);
	size_t text = MAX_LINE + 2 + (BATCH_TEXT >> (GROW_STEPS - r->grow));
	union slot *v;
	char *t;

	rows += !rows;
	if (b->cap_rows < rows) {
		v = realloc(b->slots, rows * r->ncols * sizeof(*v));
		if (v) {
			b->slots = v;
			b->cap_rows = rows;
		}
	}
	if (b->text_cap < text) {
		t = realloc(b->text, text);
		if (t) {
			b->text = t;
			b->text_cap = text;
		}
	}
	r->grow += r->grow < GROW_STEPS;
	return b->cap_rows && b->text_cap >= MAX_LINE + 2 ? 0 : -ENOMEM;
}

/*
 * The batches of parsed rows, and the worker filling them when threads
 * are on (wult_csv_set_threads()); -ENOMEM. Without a thread (off, or
 * none to be had) the caller fills one batch at a time, with the same
 * rows, errors and line numbers.
 */
static int batches_init(struct wult_csv_reader *r)
{
	int i, n = wult_csv_threads() ? NRBATCH : 1;

	r->max_rows = BATCH_SLOTS / r->ncols;
	for (i = 0; i < n; i++)
		if (grow_batch(r, &r->batch[i]))
			return -ENOMEM;
	r->grow = 0;
	if (n == 1 || pthread_mutex_init(&r->mu, NULL))
		return 0;
	if (pthread_cond_init(&r->cv, NULL)) {
		pthread_mutex_destroy(&r->mu);
		return 0;
	}
	if (pthread_create(&r->tid, NULL, reader_worker, r)) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		return 0;
	}
	r->threaded = 1;
	return 0;
}

/* Stops the worker (waiting for the batch it fills), then frees. */
static void input_free(struct wult_csv_reader *r)
{
	int i;

	if (r->threaded) {
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->tid, NULL);
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		r->threaded = 0;
	}
	for (i = 0; i < NRBATCH; i++) {
		free(r->batch[i].slots);
		free(r->batch[i].text);
	}
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->buf);
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
	if (input_init(r)) {
		ret = -errno;
		wult_err_set(err, errlen, 0, "%s: %s", name, strerror(-ret));
		input_free(r);
		free(r);
		return ret;
	}
	ret = read_header(r);
	if (!ret && batches_init(r)) {
		ret = -ENOMEM;
		snprintf(r->err, sizeof(r->err), "%s: %s", name, strerror(ENOMEM));
	}
	if (ret) {
		wult_err_set(err, errlen, 0, "%s", r->err);
		input_free(r);
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

/*
 * One field of a row into @slots (one per header column): the plain
 * decimals of a numeric column are parsed where they stand, everything
 * else is cut out first. *@pp and the return value as cut_field(); a bad
 * value sets *@bad (r->err says why).
 */
static int row_field(struct wult_csv_reader *r, char **pp, int n, union slot *slots,
		     int *bad)
{
	int m = n < r->ncols ? r->col2metric[n] : -1;
	const char *end;
	char *field;
	double v;

	if (m >= 0 && !r->col_str[n] && **pp != '"') {
		end = wult_csvnum_parse(*pp, r->col_exp[n], &slots[n].num);
		if (end && (*end == ',' || !*end)) {
			*pp = *end ? (char *)end + 1 : NULL;
			return 0;
		}
	}
	if (cut_field(r, pp, n + 1, &field))
		return -1;
	if (m < 0)
		return 0;
	if (r->col_str[n])
		slots[n].str = field;
	else if (*bad || parse_num(r, n, field, r->col_exp[n], &v))
		*bad = 1;	/* the first bad value's reason stays in r->err */
	else
		slots[n].num = v;
	return 0;
}

/* A line (not blank) into @slots: 0, or -1 with r->err set. The field
 * count is checked before a value's error is reported, so a short row
 * says so. */
static int parse_row(struct wult_csv_reader *r, char *line, union slot *slots)
{
	int n = 0, bad = 0;
	char *p;

	for (p = line; p; n++) {
		if (n == MAX_COLS) {
			rerr(r, "more than %d fields", MAX_COLS);
			return -1;
		}
		if (row_field(r, &p, n, slots, &bad))
			return -1;
	}
	if (n != r->ncols) {
		rerr(r, "%d fields, but the header has %d", n, r->ncols);
		return -1;
	}
	return bad ? -1 : 0;
}

/*
 * The next rows into @b, until it is full, the input ends (b->last 1) or
 * a line is bad (b->last -1, r->err says why; the rows before it are
 * kept). The same calls whether a worker or the caller fills batches.
 */
static void fill_batch(struct wult_csv_reader *r, struct rbatch *b)
{
	size_t len;
	char *line;
	int ret;

	b->rows = b->text_len = 0;
	b->last = 0;
	grow_batch(r, b);		/* it holds a line already */
	while (b->rows < b->cap_rows && b->text_cap - b->text_len >= MAX_LINE + 2) {
		line = b->text + b->text_len;
		ret = read_line(r, line, &len);
		if (ret <= 0) {
			b->last = ret < 0 ? -1 : 1;
			return;
		}
		if (!len)
			continue;	/* blank lines: pandas skips them too */
		if (parse_row(r, line, b->slots + b->rows * r->ncols)) {
			b->last = -1;
			return;
		}
		b->rows++;
		b->text_len += len + 1;
	}
}

/* The worker: fills batches ahead of the caller, in order, until the
 * input ends, a line is bad or close says stop. */
static void *reader_worker(void *arg)
{
	struct wult_csv_reader *r = arg;
	struct rbatch *b;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (r->put - r->done >= NRBATCH && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop)
			break;
		b = &r->batch[r->put % NRBATCH];
		pthread_mutex_unlock(&r->mu);
		fill_batch(r, b);
		pthread_mutex_lock(&r->mu);
		r->put++;
		pthread_cond_broadcast(&r->cv);
		if (b->last)
			break;
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Gives the batch the caller has used back, and takes the next one. */
static struct rbatch *next_batch(struct wult_csv_reader *r)
{
	struct rbatch *b;

	if (!r->threaded) {
		fill_batch(r, &r->batch[0]);
		return &r->batch[0];
	}
	pthread_mutex_lock(&r->mu);
	if (r->cur) {
		r->done++;
		pthread_cond_broadcast(&r->cv);
	}
	while (r->put == r->done)
		pthread_cond_wait(&r->cv, &r->mu);
	b = &r->batch[r->done % NRBATCH];
	pthread_mutex_unlock(&r->mu);
	return b;
}

int wult_csv_next(struct wult_csv_reader *r, struct wult_point *pt)
{
	const union slot *slot;
	struct rbatch *b = r->cur;
	int i, m;

	while (!b || r->row == b->rows) {
		if (b && b->last)
			return b->last < 0 ? -EINVAL : 0;	/* and so on after */
		b = next_batch(r);
		r->cur = b;
		r->row = 0;
	}
	slot = b->slots + r->row++ * r->ncols;
	wult_point_clear(pt);
	for (i = 0; i < r->ncols; i++) {
		m = r->col2metric[i];
		if (m < 0)
			continue;
		if (r->col_str[i])
			pt->v[m].str = slot[i].str;
		else
			pt->v[m].num = slot[i].num;
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
	input_free(r);
	if (r->own_file)
		fclose(r->f);
	for (i = 0; i < r->ninfo; i++) {
		free(r->info_key[i]);
		free(r->info_val[i]);
	}
	free(r);
}
