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

struct wult_csv_writer;
struct wult_csv_reader;

/* Writes the header of columns @cols to @f (which stays the caller's). */
int wult_csv_writer_new(FILE *f, const enum wult_metric *cols, size_t ncols,
			struct wult_csv_writer **out);
/* One row; 0 or -EIO. */
int wult_csv_writer_add(struct wult_csv_writer *w, const struct wult_point *pt);
/* Flushes and frees; 0 or -EIO if any write failed. */
int wult_csv_writer_close(struct wult_csv_writer *w);
/* Writes a minimal info.yml for a result directory; 0 or -errno. */
int wult_csv_write_info(FILE *f, const char *reportid, int cpu, const char *devid);

/*
 * Opens the raw result directory @dir. Returns 0, or a negative errno with
 * the reason in @err ("datapoints.csv: empty file", ...).
 */
int wult_csv_open(const char *dir, struct wult_csv_reader **out, char *err, size_t errlen);
/*
 * Reads datapoints from @csv (the caller's, named @name in errors). Time
 * columns are in us when @times_in_us, else in ns (intel wult before raw
 * format 1.2).
 */
int wult_csv_open_stream(FILE *csv, const char *name, int times_in_us,
			 struct wult_csv_reader **out, char *err, size_t errlen);
/* 1 and fills @pt, 0 at the end, or -EINVAL/-EIO (see wult_csv_error()).
 * Strings in @pt stay valid until the next call.
 */
int wult_csv_next(struct wult_csv_reader *r, struct wult_point *pt);
const char *wult_csv_error(const struct wult_csv_reader *r);
/* A value from info.yml, or NULL. */
const char *wult_csv_info(const struct wult_csv_reader *r, const char *key);
void wult_csv_close(struct wult_csv_reader *r);

#endif
