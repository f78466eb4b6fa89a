// SPDX-License-Identifier: GPL-2.0
/*
 * intel wult CSV export (wult/csv.h). The caller's thread only copies each
 * row's cells into a batch; with threads on (wult_csv_threads()) workers
 * (one by default) take batches in turn, format each into their own buffer, and
 * write them in the batches' order, so that a busy caller (wult report's
 * statistics) and the formatting share two CPUs. The bytes written are the
 * same either way: the same code formats the same batches, written in the
 * same order.
 *
 * Memory: NBATCH batches of at most BATCH_CELLS cells (8 bytes each) and
 * TEXT_CAP bytes of strings (more only for a row whose strings alone are
 * longer), and an OUT_BUF buffer per formatter: 3.25 MiB at most whatever
 * the number of rows (4 x (512 + 64) KiB + 1 MiB), batches 64 times
 * smaller at first.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/csv.h>
#include "internal/csv.h"
#include "internal/csvnum.h"

#define OUT_BUF		(1 << 20)	/* a formatter's buffer: a full batch's rows */
#define BATCH_CELLS	(64 << 10)	/* a batch's cells at most: 512 KiB */
#define TEXT_CAP	(64 << 10)	/* a batch's strings at most */
#define GROW_STEPS	6		/* batches start 2^6 times smaller */
#define NBATCH		4		/* batches in flight */
/* Formatters at most (wult_csv_threads() says how many: by default one;
 * on two CPUs with wult report's statistics in the caller's thread, two
 * measured no faster than one). */
#define NWORKER		WULT_CSV_MAX_THREADS
#define WRITER_MAX_COLS	128		/* a row's numbers fit OUT_BUF */

_Static_assert(WRITER_MAX_COLS * (WULT_CSVNUM_MAX + 1) + 1 < OUT_BUF,
	       "the widest row of numbers fits the output buffer");

/* How a column's values are written, decided once per column. */
enum cell_kind {
	K_NS_US = WULT_CSVNUM_NS_US, K_FIX0 = WULT_CSVNUM_FIX0, K_FIX1 = WULT_CSVNUM_FIX1,
	K_FIX2 = WULT_CSVNUM_FIX2, K_STR
};

/* Captured cells, a row's numbers and its strings apart (the formatter
 * takes a run of numbers in one call): NaN or NULL is a hole (written
 * empty, see drop_holes()). */
struct batch {
	double *num;		/* rows x nnum */
	const char **str;	/* rows x nstr */
	size_t rows;
	char *text;		/* copies of the rows' strings */
	size_t text_len, text_cap;
	size_t cap_rows;
};

struct wult_csv_writer {
	FILE *f;
	size_t ncols;
	enum wult_metric *cols;	/* the requested columns */
	unsigned char *on;	/* per requested column: in the header */
	unsigned char *hole;	/* ... and some later row lacked it */
	unsigned char *kind;	/* per requested column: enum cell_kind */
	size_t nout;		/* columns in the header */
	struct out_col {
		enum wult_metric m;
		size_t col;		/* index in @cols */
	} *oc;
	size_t max_rows;		/* rows of a full-size batch */
	int grow;		/* batches are 2^(GROW_STEPS - grow) times smaller */
	struct cap {		/* capture: the header's columns by kind */
		enum wult_metric m;
	} *numc, *strc;
	size_t nnum, nstr;
	unsigned char *numkind;	/* per number of a row: enum wult_csvnum_kind */
	/* The header's order: runs of numbers, each but the last followed by
	 * a string. */
	struct seg {
		size_t nnum;
		int str;		/* a string follows */
	} *seg;
	size_t nseg;
	int ready;		/* start() succeeded */
	int started;		/* the header is out: columns are fixed */
	int holes;
	size_t row_room;	/* a row's numbers and commas need at most this */
	int failed;		/* set by the formatting side, read atomically */
	/* Formatters: fmt[0] is the caller's without threads; with them each
	 * worker has one, formats the batches it takes into its buffer and
	 * writes it when every batch before has been written. */
	struct fmt {
		struct wult_csv_writer *w;
		char *buf;		/* OUT_BUF bytes, @len of them filled */
		size_t len;
		unsigned long batch;	/* the batch being formatted */
		int turn;		/* all batches before it are written */
		pthread_t tid;
	} fmt[NWORKER];
	/* Batches: the caller fills batch[put % NBATCH] once batch put - NBATCH
	 * is written; workers take batch[taken % NBATCH] while taken < put. */
	struct batch batch[NBATCH];
	unsigned long put, taken, written;
	int threaded, stop, nworker;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static enum cell_kind cell_kind(const struct wult_metric_desc *d)
{
	if (d->type == WULT_VAL_STR)
		return K_STR;
	if (d->is_time && d->csv_scale == 1e3)
		return K_NS_US;		/* ns written as us: every ns kept */
	if (!strcmp(d->csv_unit, "%"))
		return K_FIX2;
	if (!strcmp(d->csv_unit, "MHz"))
		return K_FIX1;
	return K_FIX0;
}

/* ---- formatting (the worker's side) ---- */

/* With workers: waits until every batch before @o's is written. */
static void wait_turn(struct wult_csv_writer *w, struct fmt *o)
{
	if (!w->threaded || o->turn)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->written != o->batch)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	o->turn = 1;
}

/* Hands the built bytes to the FILE, in the batches' order; -1 on a write
 * error (remembered). */
static int out_flush(struct fmt *o)
{
	struct wult_csv_writer *w = o->w;

	if (o->len) {
		wait_turn(w, o);
		if (fwrite(o->buf, 1, o->len, w->f) != o->len)
			__atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
	}
	o->len = 0;
	return __atomic_load_n(&w->failed, __ATOMIC_RELAXED) ? -1 : 0;
}

/* Room for @n more bytes in the buffer (@n <= OUT_BUF). */
static char *out_room(struct fmt *o, size_t n)
{
	if (OUT_BUF - o->len < n)
		out_flush(o);
	return o->buf + o->len;
}

static void out_mem(struct fmt *o, const char *s, size_t n)
{
	if (n > OUT_BUF) {
		out_flush(o);
		wait_turn(o->w, o);
		if (fwrite(s, 1, n, o->w->f) != n)
			__atomic_store_n(&o->w->failed, 1, __ATOMIC_RELAXED);
		return;
	}
	memcpy(out_room(o, n), s, n);
	o->len += n;
}

static void out_char(struct fmt *o, char c)
{
	*out_room(o, 1) = c;
	o->len++;
}

static void put_str(struct fmt *o, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		out_mem(o, s, strlen(s));
		return;
	}
	/* RFC 4180 quoting, as pandas expects. */
	out_char(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			out_char(o, '"');
		out_char(o, *s);
	}
	out_char(o, '"');
}

/* @s as one cell at @p (room for WULT_CSVNUM_MAX bytes) when it is short
 * and needs no quotes: the common case, copied and checked in one pass
 * (the cell's end); NULL otherwise, what it copied to be overwritten. */
static char *put_short_str(char *p, const char *s)
{
	static const unsigned char stop[256] = {
		[0] = 1, [','] = 1, ['"'] = 1, ['\n'] = 1, ['\r'] = 1,
	};
	const char *end = p + WULT_CSVNUM_MAX;

	while (!stop[(unsigned char)*s] && p < end)
		*p++ = *s++;
	return *s ? NULL : p;
}

/*
 * The rows of @b, in runs of numbers (wult_csvnum_cells()) and strings.
 * They go through a local cursor into room reserved for the whole row
 * (w->row_room), so no store of a digit makes the compiler reload the
 * buffer's state; a long or quoted string goes through put_str(), which
 * may flush, and the room is reserved again after it. Each cell is
 * followed by a comma, the last one becomes the newline.
 */
static void format_batch(struct fmt *o, const struct batch *b)
{
	const struct wult_csv_writer *w = o->w;
	const double *x = b->num;
	const char *const *s = b->str;
	const unsigned char *kind;
	size_t row, k;
	char *p, *q;

	for (row = 0; row < b->rows; row++) {
		p = out_room(o, w->row_room);
		kind = w->numkind;
		for (k = 0; k < w->nseg; k++) {
			p += wult_csvnum_cells(p, x, kind, w->seg[k].nnum);
			x += w->seg[k].nnum;
			kind += w->seg[k].nnum;
			if (!w->seg[k].str)
				continue;
			if (*s && (q = put_short_str(p, *s)) != NULL) {
				p = q;
			} else if (*s) {
				o->len = p - o->buf;
				put_str(o, *s);
				p = out_room(o, w->row_room);
			}
			s++;
			*p++ = ',';
		}
		if (w->nout)
			p[-1] = '\n';
		else
			*p++ = '\n';
		o->len = p - o->buf;
	}
}

/*
 * A worker: takes the next batch, formats it into its own buffer (while
 * the other worker formats the next one), writes it in its turn. The
 * caller may reuse a batch once it is written.
 */
static void *worker(void *arg)
{
	struct fmt *o = arg;
	struct wult_csv_writer *w = o->w;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->taken == w->put && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->taken == w->put)
			break;
		o->batch = w->taken++;
		o->turn = 0;
		pthread_mutex_unlock(&w->mu);
		format_batch(o, &w->batch[o->batch % NBATCH]);
		out_flush(o);
		wait_turn(w, o);	/* also when there was nothing to write */
		pthread_mutex_lock(&w->mu);
		w->written = o->batch + 1;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* ---- capture (the caller's side) ---- */

static void writer_free(struct wult_csv_writer *w)
{
	int i;

	for (i = 0; i < NBATCH; i++) {
		free(w->batch[i].num);
		free(w->batch[i].str);
		free(w->batch[i].text);
	}
	free(w->cols);
	free(w->on);
	free(w->hole);
	free(w->kind);
	free(w->oc);
	free(w->numc);
	free(w->strc);
	free(w->numkind);
	free(w->seg);
	for (i = 0; i < NWORKER; i++)
		free(w->fmt[i].buf);
	free(w);
}

int wult_csv_writer_new(FILE *f, const enum wult_metric *cols, size_t ncols,
			struct wult_csv_writer **out)
{
	struct wult_csv_writer *w;
	size_t i;

	*out = NULL;
	if (ncols > WRITER_MAX_COLS)
		return -EINVAL;
	for (i = 0; i < ncols; i++)
		if (!wult_metric_desc(cols[i]))
			return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->cols = calloc(ncols + 1, sizeof(w->cols[0]));
	w->on = calloc(ncols + 1, 1);
	w->hole = calloc(ncols + 1, 1);
	w->kind = calloc(ncols + 1, 1);
	w->oc = calloc(ncols + 1, sizeof(w->oc[0]));
	w->numc = calloc(ncols + 1, sizeof(w->numc[0]));
	w->strc = calloc(ncols + 1, sizeof(w->strc[0]));
	w->numkind = calloc(ncols + 1, 1);
	w->seg = calloc(ncols + 1, sizeof(w->seg[0]));
	w->fmt[0].buf = malloc(OUT_BUF);
	for (i = 0; i < NWORKER; i++)
		w->fmt[i].w = w;
	if (!w->cols || !w->on || !w->hole || !w->kind || !w->oc || !w->numc || !w->strc ||
	    !w->numkind || !w->seg || !w->fmt[0].buf) {
		writer_free(w);
		return -ENOMEM;
	}
	w->f = f;
	w->ncols = ncols;
	memcpy(w->cols, cols, ncols * sizeof(cols[0]));
	for (i = 0; i < ncols; i++)
		w->kind[i] = cell_kind(wult_metric_desc(cols[i]));
	*out = w;
	return 0;
}

static int has_val(const struct wult_csv_writer *w, size_t i, const struct wult_point *pt)
{
	const struct wult_val *v = &pt->v[w->cols[i]];

	return w->kind[i] == K_STR ? !!v->str : !isnan(v->num);
}

/*
 * Grows the empty batch @b towards the current size, and its text to
 * @text bytes at least. Batches start small (a short export allocates
 * little) and double with each one handed over, to BATCH_CELLS cells: few
 * hand-overs between the threads on long exports. A failed growth keeps
 * the batch as it is; -ENOMEM only when it cannot hold @text.
 */
static int grow_batch(struct wult_csv_writer *w, struct batch *b, size_t text)
{
	size_t rows = w->max_rows >> (GROW_STEPS - w->grow), room;
	const char **s;
	double *x;
	char *t;

	rows += !rows;
	if (b->cap_rows < rows) {
		x = realloc(b->num, rows * (w->nnum ? w->nnum : 1) * sizeof(*x));
		if (x)
			b->num = x;
		s = x ? realloc(b->str, rows * (w->nstr ? w->nstr : 1) * sizeof(*s)) : NULL;
		if (s) {
			b->str = s;
			b->cap_rows = rows;
		}
	}
	room = TEXT_CAP >> (GROW_STEPS - w->grow);
	room = room > text ? room : text;
	if (b->text_cap < room) {
		t = realloc(b->text, room);
		if (t) {
			b->text = t;
			b->text_cap = room;
		}
	}
	return b->cap_rows && b->text_cap >= text ? 0 : -ENOMEM;
}

/* The workers wult_csv_threads() asks for, as many as can be had (none:
 * the caller formats, with the same result). */
static void start_workers(struct wult_csv_writer *w)
{
	int i, n = wult_csv_threads();

	n = n < NWORKER ? n : NWORKER;
	for (i = 1; i < n; i++)
		if (!w->fmt[i].buf && !(w->fmt[i].buf = malloc(OUT_BUF)))
			return;
	if (pthread_mutex_init(&w->mu, NULL))
		return;
	if (pthread_cond_init(&w->cv, NULL)) {
		pthread_mutex_destroy(&w->mu);
		return;
	}
	w->threaded = 1;	/* before the workers read it */
	for (i = 0; i < n; i++)
		if (pthread_create(&w->fmt[i].tid, NULL, worker, &w->fmt[i]))
			break;
	w->nworker = i;
	if (!i) {
		w->threaded = 0;
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
	}
}

/* Batch buffers, and the workers when threads are on; -ENOMEM. */
static int start(struct wult_csv_writer *w)
{
	size_t i;

	w->max_rows = BATCH_CELLS / (w->nout ? w->nout : 1);
	for (i = 0; i < NBATCH; i++)
		if (grow_batch(w, &w->batch[i], 0))
			return -ENOMEM;
	w->ready = 1;
	if (wult_csv_threads())
		start_workers(w);
	return 0;
}

/*
 * The header names the columns @pt fills (all of them when @pt is NULL:
 * no rows). intel wult refuses a CSV with any empty cell, so a counter the
 * machine lacks is left out rather than written empty. Written before any
 * batch and any worker.
 */
static int write_header(struct wult_csv_writer *w, const struct wult_point *pt)
{
	const char *name;
	size_t i;

	for (i = 0; i < w->ncols; i++) {
		w->on[i] = !pt || has_val(w, i, pt);
		if (!w->on[i])
			continue;
		if (w->nout)
			out_char(&w->fmt[0], ',');
		name = wult_metric_desc(w->cols[i])->name;
		out_mem(&w->fmt[0], name, strlen(name));
		w->oc[w->nout].m = w->cols[i];
		w->oc[w->nout++].col = i;
		if (w->kind[i] == K_STR) {
			w->strc[w->nstr++].m = w->cols[i];
			w->seg[w->nseg++].str = 1;
		} else {
			w->numkind[w->nnum] = w->kind[i];
			w->numc[w->nnum++].m = w->cols[i];
			w->seg[w->nseg].nnum++;
		}
		w->row_room += WULT_CSVNUM_MAX + 1;
	}
	w->nseg += w->seg[w->nseg].nnum > 0;	/* numbers after the last string */
	out_char(&w->fmt[0], '\n');
	w->row_room++;
	w->started = 1;
	out_flush(&w->fmt[0]);	/* no worker yet: out first */
	return start(w);
}

/* Hands the filled batch over (formats it when there is no worker) and
 * waits for the next one to be free (written). The write errors so far:
 * -EIO. */
static int submit(struct wult_csv_writer *w)
{
	int failed;

	if (!w->threaded) {
		w->fmt[0].batch = w->put;
		format_batch(&w->fmt[0], &w->batch[w->put % NBATCH]);
		w->taken = w->written = ++w->put;
	} else {
		pthread_mutex_lock(&w->mu);
		w->put++;
		pthread_cond_broadcast(&w->cv);
		while (w->put - w->written >= NBATCH)
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
	}
	failed = __atomic_load_n(&w->failed, __ATOMIC_RELAXED);
	w->batch[w->put % NBATCH].rows = 0;
	w->batch[w->put % NBATCH].text_len = 0;
	w->grow += w->grow < GROW_STEPS;
	return failed ? -EIO : 0;
}

/* Room for a row with @text bytes of strings in the current batch: a full
 * batch goes first; an empty one grows (for a row longer than TEXT_CAP,
 * to hold it). */
static int batch_room(struct wult_csv_writer *w, size_t text)
{
	struct batch *b = &w->batch[w->put % NBATCH];
	int ret;

	if (b->rows == b->cap_rows || b->text_cap - b->text_len < text) {
		if (b->rows && (ret = submit(w)))
			return ret;
		b = &w->batch[w->put % NBATCH];
	}
	return b->rows ? 0 : grow_batch(w, b, text);
}

/* Marks the header columns @pt lacks: their cells stay empty until
 * drop_holes() removes them. Rare, so out of the common path. */
static void mark_holes(struct wult_csv_writer *w, const struct wult_point *pt)
{
	size_t i;

	for (i = 0; i < w->nout; i++)
		if (!has_val(w, w->oc[i].col, pt))
			w->hole[w->oc[i].col] = w->holes = 1;
}

/*
 * One row into the current batch: the numbers first (a gather with no
 * branch per cell), then copies of the strings (@pt's strings need not
 * outlive the call), whose lengths decide first whether the batch has
 * room. A NaN makes the numbers' sums NaN: one test a row, not one a cell
 * (an inf - inf there only costs mark_holes() a look).
 */
int wult_csv_writer_add(struct wult_csv_writer *w, const struct wult_point *pt)
{
	size_t i, n, text = 0, len[WRITER_MAX_COLS];
	const char *str;
	struct batch *b;
	const char **s;
	double *c, x, sum0 = 0, sum1 = 0;
	int ret, hole = 0;

	if (!w->started)
		write_header(w, pt);
	if (!w->ready)
		return -ENOMEM;
	for (i = 0; i < w->nstr; i++) {
		str = pt->v[w->strc[i].m].str;
		len[i] = str ? strlen(str) + 1 : 0;
		text += len[i];
	}
	ret = batch_room(w, text);
	if (ret)
		return ret;
	b = &w->batch[w->put % NBATCH];
	c = b->num + b->rows * w->nnum;
	for (i = 0; i + 1 < w->nnum; i += 2) {
		x = c[i] = pt->v[w->numc[i].m].num;
		sum0 += x;
		x = c[i + 1] = pt->v[w->numc[i + 1].m].num;
		sum1 += x;
	}
	if (i < w->nnum)
		sum0 += c[i] = pt->v[w->numc[i].m].num;
	hole = isnan(sum0 + sum1);
	s = b->str + b->rows * w->nstr;
	for (i = 0; i < w->nstr; i++) {
		str = pt->v[w->strc[i].m].str;
		n = len[i];
		hole |= !str;
		s[i] = str ? memcpy(b->text + b->text_len, str, n) : NULL;
		b->text_len += n;
	}
	if (hole)
		mark_holes(w, pt);
	b->rows++;
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
	unsigned char drop[WRITER_MAX_COLS + 1] = { 0 };
	size_t i, cap = 0;
	char *line = NULL;
	FILE *tmp;
	int ret = 0;

	for (i = 0; i < w->nout; i++)
		drop[i] = w->hole[w->oc[i].col];
	if (out_flush(&w->fmt[0]) || fflush(w->f) == EOF || fseek(w->f, 0, SEEK_SET))
		return -ESPIPE;	/* not a regular file opened for reading too */
	tmp = tmpfile();
	if (!tmp)
		return -EIO;
	while (!ret && getline(&line, &cap, w->f) > 0)
		ret = copy_line(line, drop, w->nout, tmp);
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

/* The last batch out, the workers gone: fmt[0] is the caller's again. */
static int finish(struct wult_csv_writer *w)
{
	int i, ret = 0;

	if (!w->ready)
		ret = -ENOMEM;
	else if (w->batch[w->put % NBATCH].rows)
		ret = submit(w);
	if (w->threaded) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		for (i = 0; i < w->nworker; i++)
			pthread_join(w->fmt[i].tid, NULL);
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		w->threaded = 0;
	}
	return ret;
}

int wult_csv_writer_close(struct wult_csv_writer *w)
{
	int failed;

	if (!w)
		return 0;
	failed = !w->started && write_header(w, NULL);
	failed |= finish(w) != 0;
	failed |= out_flush(&w->fmt[0]) || (w->holes && drop_holes(w)) || fflush(w->f) == EOF ||
		  ferror(w->f);
	writer_free(w);
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
	/* Quoted when it has a colon: YAML 1.1 reads a PCI address such as
	 * 0000:00:10.0 (the nic method's devid) as a base-60 number. */
	if (ret >= 0 && in->devid)
		ret = fprintf(f, strchr(in->devid, ':') ? "devid: '%s'\n" : "devid: %s\n",
			      in->devid);
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
