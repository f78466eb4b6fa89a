// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: intel wult datapoints.csv import, then export, through
 * either input path (data[0] bit 1: a mapped memfd, else a stdio stream),
 * once with the CSV worker threads (one or two formatters, data[0] bit 2)
 * and once without: the rows, the error
 * and the bytes written must be the same (a difference aborts); and the
 * fast number paths against strtod/printf, the writer's cell loop against
 * the one-value formatters (a difference aborts).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wult/csv.h>
#include "internal/csvnum.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* The input as a number: the fast parser must agree with strtod, the
 * formatter with printf. */
static void numbers(const uint8_t *data, size_t size)
{
	char s[64], buf[96], got[WULT_CSVNUM_MAX + 16], want[WULT_CSVNUM_MAX + 16];
	unsigned char kind;
	size_t n = size < 63 ? size : 63;
	int exp10 = data[0] & 1 ? 3 : 0;
	const char *end;
	double v, w;

	memcpy(s, data, n);
	s[n] = '\0';
	end = wult_csvnum_parse(s, exp10, &v);
	if (end) {
		snprintf(buf, sizeof(buf), "%.*se%d", (int)(end - s), s, exp10);
		w = strtod(buf, NULL);
		if (memcmp(&v, &w, sizeof(v)))
			abort();
	}
	if (size >= 8) {
		memcpy(&v, data, 8);
		got[wult_csvnum_fixed(got, v, data[0] & 3)] = '\0';
		snprintf(want, sizeof(want), "%.*f", data[0] & 3, v);
		if (strcmp(got, want))
			abort();
	}
	/* The writer's cell loop: the text of the one-value calls, a comma. */
	if (size >= 9) {
		kind = data[8] & 3;
		got[wult_csvnum_cells(got, &v, &kind, 1)] = '\0';
		n = isnan(v) ? 0 : kind == WULT_CSVNUM_NS_US ? wult_csvnum_ns_us(want, v) :
		    wult_csvnum_fixed(want, v, kind - WULT_CSVNUM_FIX0);
		memcpy(want + n, ",", 2);
		if (strcmp(got, want))
			abort();
	}
}

static FILE *input(const uint8_t *data, size_t size)
{
	int fd;
	FILE *f;

	if (!(data[0] & 2))
		return fmemopen((void *)data, size, "r");
	fd = memfd_create("fuzz.csv", 0);
	if (fd < 0)
		return NULL;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/* What one import + export gave: its error, and the CSV written (a
 * memfd: the writer may re-read it to drop a column). */
struct outcome {
	int ret, wret;
	char err[512];
	char *csv;
	size_t len;
};

static void import_export(const uint8_t *data, size_t size, int threads, struct outcome *o)
{
	static const enum wult_metric cols[] = {
		WULT_M_WAKE_LATENCY, WULT_M_REQ_CSTATE, WULT_M_CC0, WULT_M_LTIME,
		WULT_M_CPU_FREQ,
	};
	struct wult_csv_reader *r;
	struct wult_csv_writer *w;
	struct wult_point pt;
	FILE *f, *out = NULL;
	int fd;
	long n;

	memset(o, 0, sizeof(*o));
	wult_csv_set_threads(threads);
	f = input(data, size);
	if (!f)
		return;
	o->ret = wult_csv_open_stream(f, "fuzz.csv", data[0] & 1, &r, o->err, sizeof(o->err));
	if (!o->ret) {
		fd = memfd_create("out.csv", 0);
		out = fd >= 0 ? fdopen(fd, "w+") : NULL;
		if (fd >= 0 && !out)
			close(fd);
		if (out && !wult_csv_writer_new(out, cols, 5, &w)) {
			while ((o->ret = wult_csv_next(r, &pt)) > 0)
				wult_csv_writer_add(w, &pt);
			o->wret = wult_csv_writer_close(w);
		}
		snprintf(o->err, sizeof(o->err), "%s", wult_csv_error(r));
		wult_csv_close(r);
	}
	fclose(f);
	if (!out)
		return;
	n = ftell(out);
	o->csv = n > 0 ? malloc(n) : NULL;
	if (o->csv && !fseek(out, 0, SEEK_SET))
		o->len = fread(o->csv, 1, n, out);
	fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome a, b;

	if (!size)
		return 0;
	numbers(data, size);
	import_export(data, size, 0, &a);
	import_export(data, size, data[0] & 4 ? 2 : 1, &b);	/* 2: two formatters */
	wult_csv_set_threads(-1);
	if (a.ret != b.ret || a.wret != b.wret || strcmp(a.err, b.err) || a.len != b.len ||
	    (a.len && memcmp(a.csv, b.csv, a.len)))
		abort();
	free(a.csv);
	free(b.csv);
	return 0;
}
