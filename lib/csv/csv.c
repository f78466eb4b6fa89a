// SPDX-License-Identifier: GPL-2.0
/*
 * intel wult raw results: import, so that our reports read theirs (the
 * export, so that its tools and pandas read ours, is csv_write.c).
 * Streaming: bounded buffers whatever the number of rows. This file is
 * the reader: opening, info.yml, the batches of parsed rows and the
 * worker filling them; csv_input.c reads lines and fields, csv_row.c
 * makes them values.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/csv.h>
#include "internal/csv.h"
#include "internal/csv_read.h"
#include "internal/err.h"

#define BATCH_SLOTS	(64 << 10)	/* a batch's values at most: 512 KiB */
#define BATCH_TEXT	(512 << 10)	/* a batch's lines at most, besides one of MAX_LINE */
#define GROW_STEPS	6		/* batches start 2^6 times smaller */

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
	csv_input_free(r);
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
	if (csv_input_init(r)) {
		ret = -errno;
		wult_err_set(err, errlen, 0, "%s: %s", name, strerror(-ret));
		input_free(r);
		free(r);
		return ret;
	}
	ret = csv_read_header(r);
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
		ret = csv_read_line(r, line, &len);
		if (ret <= 0) {
			b->last = ret < 0 ? -1 : 1;
			return;
		}
		if (!len)
			continue;	/* blank lines: pandas skips them too */
		if (csv_parse_row(r, line, b->slots + b->rows * r->ncols)) {
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
