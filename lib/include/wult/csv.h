/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSV in intel wult's raw-result layout: a directory with datapoints.csv
 * (one row per datapoint, intel wult's column names, times in us) and
 * info.yml (key: value metadata).
 */
#ifndef WULT_CSV_H
#define WULT_CSV_H

#include <stdio.h>

#include <wult/metrics.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_csv_writer;
struct wult_csv_reader;

/*
 * Numbers as the CSV writer writes them, without stdio on the common path
 * (for other text of the same numbers, e.g. wult report's HTML page), into
 * @buf (WULT_CSV_NUM_MAX bytes, room for printf("%.0f", DBL_MAX)'s 309
 * digits; not NUL-terminated); the length.
 * wult_csv_format_fixed(): printf("%.*f", @dec, @x), @dec 0 to 3 (else
 * nothing is written and 0 returned).
 * wult_csv_format_us(): @ns as us with 3 decimals: integral @ns
 * (|@ns| < 2^64) exactly, its last three digits after the point; other
 * values as printf("%.3f", @ns / 1e3), which is the same text below 2^43 ns.
 */
#define WULT_CSV_NUM_MAX	400
size_t wult_csv_format_fixed(char *buf, double x, int dec);
size_t wult_csv_format_us(char *buf, double ns);

/*
 * Whether the CSV writer and reader use worker threads (formatting and
 * writing batches of rows in order; reading and parsing rows ahead of
 * wult_csv_next()): @n 0 none, 1 one each, more (at most
 * WULT_CSV_MAX_THREADS) that many formatters for the writer, the reader
 * one; -1 (the default) the environment's WULT_CSV_THREADS (the same
 * numbers), else 1 when the machine has more than one CPU. Taken when a
 * reader is opened and when a writer gets its first row. The bytes
 * written, the values read and the errors are the same either way.
 */
#define WULT_CSV_MAX_THREADS	4
void wult_csv_set_threads(int n);

/*
 * A writer of columns @cols (at most 128) to @f (which stays the caller's,
 * and which nobody else may use until close), or -EINVAL. Rows are copied
 * into batches, formatted and written to @f in blocks (by worker threads,
 * see wult_csv_set_threads()). The header,
 * written with the first row, names only the columns that row fills; a
 * later row that lacks one of them makes close rewrite @f without it, so
 * every cell is filled (intel wult refuses empty ones). That rewrite needs
 * @f seekable and readable ("w+").
 */
int wult_csv_writer_new(FILE *f, const enum wult_metric *cols, size_t ncols,
			struct wult_csv_writer **out);
/* One row (its strings are copied); 0, -EIO (an earlier block's write
 * failed) or -ENOMEM. */
int wult_csv_writer_add(struct wult_csv_writer *w, const struct wult_point *pt);
/* Flushes and frees; 0 or -EIO if any write (or the rewrite) failed. */
int wult_csv_writer_close(struct wult_csv_writer *w);
/* info.yml of a result directory: what intel wult 1.12 requires (toolname,
 * toolver, reportid, format_version) and what is known of the rest. */
struct wult_csv_info {
	const char *reportid;
	const char *toolver;
	int cpu;			/* -1: unknown */
	const char *devid;		/* NULL: unknown */
	const char *date;		/* "YYYY-MM-DD HH:MM:SS UTC", NULL: unknown */
	double duration;		/* s, NAN: unknown */
	double resolution;		/* ns, NAN: unknown */
};

/* Writes @info as info.yml to @f; 0 or -EIO. */
int wult_csv_write_info(FILE *f, const struct wult_csv_info *info);

/*
 * Opens the raw result directory @dir. Returns 0, or a negative errno with
 * the reason in @err ("datapoints.csv: empty file", ...).
 */
int wult_csv_open(const char *dir, struct wult_csv_reader **out, char *err, size_t errlen);
/*
 * Reads datapoints from @csv (the caller's, named @name in errors; a worker
 * thread may read it until close, see wult_csv_set_threads()). Time
 * columns are in us when @times_in_us, else in ns (intel wult before raw
 * format 1.2).
 */
int wult_csv_open_stream(FILE *csv, const char *name, int times_in_us,
			 struct wult_csv_reader **out, char *err, size_t errlen);
/* 1 and fills @pt, 0 at the end, or -EINVAL (see wult_csv_error()): the
 * rows before a bad line come first, and the end or the error stays (every
 * later call returns it). Strings in @pt stay valid until the next call.
 */
int wult_csv_next(struct wult_csv_reader *r, struct wult_point *pt);
const char *wult_csv_error(const struct wult_csv_reader *r);
/* A value from info.yml, or NULL. */
const char *wult_csv_info(const struct wult_csv_reader *r, const char *key);
void wult_csv_close(struct wult_csv_reader *r);

#pragma GCC visibility pop

#endif
