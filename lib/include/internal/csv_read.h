/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: the CSV reader (wult/csv.h) for its files: the reader
 * (csv.c: opening, info.yml, batches of rows and their worker), its input
 * (csv_input.c: bytes to lines to fields) and its rows (csv_row.c: the
 * header's columns, the values of a row).
 */
#ifndef WULT_INTERNAL_CSV_READ_H
#define WULT_INTERNAL_CSV_READ_H

#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

#include <wult/csv.h>

#define MAX_LINE	65536	/* longer lines are corrupt input */
#define MAX_COLS	256
#define MAX_INFO	64
#define NRBATCH		3		/* batches of parsed rows in flight */

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

/* The reader's error, "NAME:LINE: ..." (csv_input.c). */
void csv_rerr(struct wult_csv_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* csv_input.c: the input window over the stream, its lines and fields. */
int csv_input_init(struct wult_csv_reader *r);
void csv_input_free(struct wult_csv_reader *r);
int csv_read_line(struct wult_csv_reader *r, char *dst, size_t *len);
int csv_cut_field(struct wult_csv_reader *r, char **pp, int n, char **field);

/* csv_row.c: the header line into columns, a line into a row's values. */
int csv_read_header(struct wult_csv_reader *r);
int csv_parse_row(struct wult_csv_reader *r, char *line, union slot *slots);

#endif
