// SPDX-License-Identifier: GPL-2.0
/* CSV: intel wult fixtures (good and bad), export/import round trip, and
 * the worker threads (on and off give the same bytes, rows and errors). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <wult/csv.h>
#include "internal/csv.h"
#include "wt.h"
#include "wt_data.h"


static const char *fixdir(void)
{
	return wt_intel_fixtures();
}

static void good(void)
{
	struct wult_csv_reader *r;
	struct wult_point pt;
	char err[512], dir[512];
	int n = 0, ret;

	snprintf(dir, sizeof(dir), "%s/good", fixdir());
	if (access(dir, R_OK)) {
		WT_SKIP("intel wult fixtures not found");
		return;
	}
	ret = wult_csv_open(dir, &r, err, sizeof(err));
	WT_CHECK(!ret, "open good: %s", err);
	if (ret)
		return;
	WT_CHECK(!strcmp(wult_csv_info(r, "toolname"), "wult"), "toolname");
	WT_CHECK(!strcmp(wult_csv_info(r, "format_version"), "1.2"), "quotes stripped");
	while ((ret = wult_csv_next(r, &pt)) == 1) {
		if (!n) {
			WT_CHECK(fabs(pt.v[WULT_M_WAKE_LATENCY].num - 4179.7981021053525) < 1e-6,
				 "wake %f", pt.v[WULT_M_WAKE_LATENCY].num);
			WT_CHECK(fabs(pt.v[WULT_M_LDIST].num - 1757788) < 1e-6, "ldist");
			WT_CHECK(!strcmp(pt.v[WULT_M_REQ_CSTATE].str, "C6"), "state");
			WT_CHECK(pt.v[WULT_M_CC0].num == 0.33, "cc0");
			WT_CHECK(pt.v[WULT_M_PC2].num == 77.08, "pc2");
			WT_CHECK(pt.v[WULT_M_INTR_OFF].num == 1, "introff");
			WT_CHECK(isnan(pt.v[WULT_M_CPU_FREQ].num), "absent column is NaN");
		}
		if (n == 4)
			WT_CHECK(!strcmp(pt.v[WULT_M_REQ_CSTATE].str, "C1E"), "state 5");
		n++;
	}
	WT_EQ(ret, 0);
	WT_EQ(n, 9);
	wult_csv_close(r);
}

static void bad(const char *sub, const char *want)
{
	struct wult_csv_reader *r;
	struct wult_point pt;
	char err[512] = "", dir[512];
	int ret;

	snprintf(dir, sizeof(dir), "%s/bad/corrupt_csv/%s", fixdir(), sub);
	if (access(dir, R_OK)) {
		WT_SKIP("intel wult fixtures not found");
		return;
	}
	ret = wult_csv_open(dir, &r, err, sizeof(err));
	if (!ret) {
		while ((ret = wult_csv_next(r, &pt)) == 1)
			;
		snprintf(err, sizeof(err), "%s", wult_csv_error(r));
		wult_csv_close(r);
	}
	WT_CHECK(ret < 0, "%s accepted", sub);
	WT_CHECK(strstr(err, want), "%s: '%s' lacks '%s'", sub, err, want);
	printf("  %s -> %s\n", sub, err);
}

static void roundtrip(void)
{
	static const enum wult_metric cols[] = {
		WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_REQ_CSTATE,
		WULT_M_CC0, WULT_M_SMI_CNT, WULT_M_LTIME, WULT_M_CPU_FREQ,
	};
	struct wult_csv_writer *w;
	struct wult_csv_reader *r;
	struct wult_point pt, in;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f;
	int i, ret, fails = 0;

	f = open_memstream(&buf, &len);
	WT_CHECK(!wult_csv_writer_new(f, cols, 7, &w), "writer");
	for (i = 0; i < 1000; i++) {
		wult_point_clear(&pt);
		pt.v[WULT_M_WAKE_LATENCY].num = 1000 + i * 7;
		pt.v[WULT_M_INTR_LATENCY].num = i % 3 ? 2001 + i : NAN;
		pt.v[WULT_M_REQ_CSTATE].str = i % 2 ? "C1" : "we,\"ird";
		pt.v[WULT_M_CC0].num = 12.5;
		pt.v[WULT_M_SMI_CNT].num = i % 5;
		pt.v[WULT_M_LTIME].num = 123456789012345.0 + i;
		fails += !!wult_csv_writer_add(w, &pt);
	}
	WT_EQ(fails, 0);
	WT_CHECK(!wult_csv_writer_close(w), "close");
	fclose(f);
	/* The first row has no IntrLatency nor CPUFreq: neither is a column. */
	WT_CHECK(!strncmp(buf, "WakeLatency,ReqCState,CC0%,SMICnt,LTime\n"
			  "1.000,\"we,\"\"ird\",12.50,0,123456789012345\n", 80), "%.120s", buf);
	f = fmemopen(buf, len, "r");
	ret = wult_csv_open_stream(f, "mem.csv", 1, &r, err, sizeof(err));
	WT_CHECK(!ret, "open: %s", err);
	for (i = 0; !ret && wult_csv_next(r, &in) == 1; i++) {
		fails += in.v[WULT_M_WAKE_LATENCY].num != 1000 + i * 7;
		fails += !isnan(in.v[WULT_M_INTR_LATENCY].num);
		fails += !!strcmp(in.v[WULT_M_REQ_CSTATE].str, i % 2 ? "C1" : "we,\"ird");
		fails += in.v[WULT_M_LTIME].num != 123456789012345.0 + i;
	}
	WT_EQ(i, 1000);
	WT_EQ(fails, 0);
	wult_csv_close(r);
	fclose(f);
	free(buf);
}

static char *slurp(FILE *f, size_t *len);

/* The CSV of @n rows (WakeLatency @wake[i] ns, ReqCState @state, CPUFreq
 * @freq[i], SMICnt i) written in @cols, as a malloc'd string. */
static char *rows_csv(const enum wult_metric *cols, size_t ncols, const double *wake,
		      const char *state, const double *freq, int n)
{
	struct wult_csv_writer *w;
	struct wult_point pt;
	FILE *f = tmpfile();
	size_t len;
	char *text;
	int i;

	WT_CHECK(!wult_csv_writer_new(f, cols, ncols, &w), "writer");
	for (i = 0; i < n; i++) {
		wult_point_clear(&pt);
		pt.v[WULT_M_WAKE_LATENCY].num = wake[i];
		pt.v[WULT_M_REQ_CSTATE].str = state;
		pt.v[WULT_M_CPU_FREQ].num = freq[i];
		pt.v[WULT_M_SMI_CNT].num = i;
		WT_EQ(wult_csv_writer_add(w, &pt), 0);
	}
	WT_EQ(wult_csv_writer_close(w), 0);
	fseek(f, 0, SEEK_END);
	text = slurp(f, &len);
	fclose(f);
	return text;
}

/* A column the first row fills and a later row lacks is dropped at close:
 * no empty cell remains, quoted commas survive the rewrite. */
static void holes(void)
{
	static const enum wult_metric cols[] = {
		WULT_M_WAKE_LATENCY, WULT_M_REQ_CSTATE, WULT_M_CPU_FREQ, WULT_M_SMI_CNT,
	};
	static const double wake3[] = { 1000, 2000, 3000 }, freq3[] = { 2000, NAN, 2000 };
	static const double wake2[] = { 1000, INFINITY }, freq2[] = { 2000, -INFINITY };
	char *t;

	t = rows_csv(cols, 4, wake3, "C,6", freq3, 3);
	WT_CHECK(!strcmp(t, "WakeLatency,ReqCState,SMICnt\n1.000,\"C,6\",0\n"
			 "2.000,\"C,6\",1\n3.000,\"C,6\",2\n"), "got '%s'", t);
	free(t);
	/* inf and -inf in a row sum to NaN, as a hole does: nothing dropped. */
	t = rows_csv(cols, 4, wake2, "C1", freq2, 2);
	WT_CHECK(!strcmp(t, "WakeLatency,ReqCState,CPUFreq,SMICnt\n1.000,C1,2000.0,0\n"
			 "inf,C1,-inf,1\n"), "got '%s'", t);
	free(t);
	/* No rows: the header names every column. */
	t = rows_csv(cols, 4, NULL, NULL, NULL, 0);
	WT_CHECK(!strcmp(t, "WakeLatency,ReqCState,CPUFreq,SMICnt\n"), "got '%s'", t);
	free(t);
}

/* intel wult's metrics that wult.ko does not measure keep their values. */
static void intel_metrics(void)
{
	static const char text[] = "WakeLatency,ReqCState,CC1Derived%,MC6%,PC10%,SWIRQCnt,CC10%\n"
				   "3.5,C6,12.25,40.50,7.75,3,1.5\n";
	struct wult_csv_reader *r;
	struct wult_point pt;
	char err[256];
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	WT_CHECK(!wult_csv_open_stream(f, "m.csv", 1, &r, err, sizeof(err)), "%s", err);
	WT_EQ(wult_csv_next(r, &pt), 1);
	WT_CHECK(pt.v[WULT_M_CC1_DERIVED].num == 12.25, "CC1Derived%%");
	WT_CHECK(pt.v[WULT_M_MC6].num == 40.5, "MC6%%");
	WT_CHECK(pt.v[WULT_M_PC10].num == 7.75, "PC10%%");
	WT_CHECK(pt.v[WULT_M_SWIRQ_CNT].num == 3, "SWIRQCnt");
	WT_CHECK(pt.v[WULT_M_CC10].num == 1.5, "CC10%%");
	wult_csv_close(r);
	fclose(f);
}

/* Columns of each kind of value the writer formats: us (3 decimals), ns,
 * a count, % (2 decimals), MHz (1 decimal), a string. */
static const enum wult_metric edge_cols[] = {
	WULT_M_WAKE_LATENCY, WULT_M_LTIME, WULT_M_SMI_CNT, WULT_M_CC0, WULT_M_CPU_FREQ,
	WULT_M_REQ_CSTATE,
};
#define NEDGE 6

/* Row @i of the edge table: values at the ends of each path. */
static void edge_row(int i, struct wult_point *pt, char *longstr)
{
	static const double ns[] = {
		0, 1, -1, 999, -999, -1000, 9007199254740992.0, -9007199254740992.0,
		4611686018427387904.0, 9223372036854774784.0, -9223372036854775808.0,
		18446744073709551615.0, -0.0, 18446744073709549568.0,
	};
	static const double pct[] = { 0, 100, 12.34, -0.5, 99.99, 0.01, -0.0 };
	static const char *const str[] = { "C1", "a,b", "q\"uote\"", "cr\rin", "" };
	size_t n = sizeof(ns) / sizeof(ns[0]);

	wult_point_clear(pt);
	pt->v[WULT_M_WAKE_LATENCY].num = ns[i % n];
	pt->v[WULT_M_LTIME].num = ns[(i + 3) % n];
	pt->v[WULT_M_SMI_CNT].num = ns[(i + 5) % n];
	pt->v[WULT_M_CC0].num = pct[i % 7];
	pt->v[WULT_M_CPU_FREQ].num = 2999.9 + i;
	pt->v[WULT_M_REQ_CSTATE].str = i == 40 ? longstr : str[i % 5];
}

static int same_num(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/* Reads @f back (mapped when it is a file) and checks every row. */
static void edge_read(FILE *f, const char *how, int rows, char *longstr)
{
	struct wult_csv_reader *r;
	struct wult_point pt, in;
	char err[256];
	int i, j, ret, bad = 0;

	ret = wult_csv_open_stream(f, how, 1, &r, err, sizeof(err));
	WT_CHECK(!ret, "%s: %s", how, err);
	if (ret)
		return;
	for (i = 0; (ret = wult_csv_next(r, &in)) == 1; i++) {
		edge_row(i, &pt, longstr);
		for (j = 0; j < NEDGE - 1; j++)
			if (!same_num(in.v[edge_cols[j]].num, pt.v[edge_cols[j]].num) && bad++ < 5)
				printf("  %s row %d %s: %.17g, wrote %.17g\n", how, i,
				       wult_metric_desc(edge_cols[j])->name,
				       in.v[edge_cols[j]].num, pt.v[edge_cols[j]].num);
		bad += !!strcmp(in.v[WULT_M_REQ_CSTATE].str, pt.v[WULT_M_REQ_CSTATE].str);
	}
	WT_CHECK(ret == 0, "%s: %s", how, wult_csv_error(r));
	WT_EQ(i, rows);
	WT_EQ(bad, 0);
	wult_csv_close(r);
}

/*
 * Edge values through the fast writer and reader, both input paths: a
 * file (mapped; 150k rows cross several 4 MiB windows) and a stream. A
 * 60,000-byte string makes one very long line.
 */
static void edges(void)
{
	struct wult_csv_writer *w;
	struct wult_point pt;
	char *longstr = malloc(60001), *buf = NULL;
	size_t len = 0;
	FILE *f = tmpfile(), *m = open_memstream(&buf, &len);
	int i, fails = 0;

	memset(longstr, 'x', 60000);
	longstr[60000] = '\0';
	WT_CHECK(!wult_csv_writer_new(f, edge_cols, NEDGE, &w), "writer");
	for (i = 0; i < 150000; i++) {
		edge_row(i, &pt, longstr);
		fails += !!wult_csv_writer_add(w, &pt);
	}
	WT_CHECK(!wult_csv_writer_close(w), "close");
	WT_EQ(fails, 0);
	rewind(f);
	edge_read(f, "file", 150000, longstr);
	fclose(f);

	WT_CHECK(!wult_csv_writer_new(m, edge_cols, NEDGE, &w), "writer");
	for (i = 0; i < 100; i++) {
		edge_row(i, &pt, longstr);
		fails += !!wult_csv_writer_add(w, &pt);
	}
	WT_CHECK(!wult_csv_writer_close(w), "close");
	fclose(m);
	WT_CHECK(strstr(buf, "\n18446744073709549.568,") && strstr(buf, ",-0.50,") &&
		 strstr(buf, "\"q\"\"uote\"\"\"") && strstr(buf, "\n-9223372036854775.808,"),
		 "edge texts: %.300s", buf);
	f = fmemopen(buf, len, "r");
	edge_read(f, "stream", 100, longstr);
	fclose(f);
	free(buf);
	free(longstr);
}

/* A mapped file: the last line without its newline, CRLF, and a line
 * past the limit. */
static void mapped_lines(void)
{
	struct wult_csv_reader *r;
	struct wult_point pt;
	char err[256];
	FILE *f = tmpfile();
	int i;

	fputs("WakeLatency,ReqCState\r\n1.5,C1\r\n\r\n2.25,C6", f);
	rewind(f);
	WT_CHECK(!wult_csv_open_stream(f, "crlf.csv", 1, &r, err, sizeof(err)), "%s", err);
	WT_EQ(wult_csv_next(r, &pt), 1);
	WT_CHECK(pt.v[WULT_M_WAKE_LATENCY].num == 1500 && !strcmp(pt.v[WULT_M_REQ_CSTATE].str,
		 "C1"), "row 1");
	WT_EQ(wult_csv_next(r, &pt), 1);
	WT_CHECK(pt.v[WULT_M_WAKE_LATENCY].num == 2250 && !strcmp(pt.v[WULT_M_REQ_CSTATE].str,
		 "C6"), "row 2, no newline");
	WT_EQ(wult_csv_next(r, &pt), 0);
	wult_csv_close(r);
	fclose(f);

	f = tmpfile();
	fputs("WakeLatency,ReqCState\n1,", f);
	for (i = 0; i < 70000; i++)
		fputc('y', f);
	fputs("\n2,C1\n", f);
	rewind(f);
	WT_CHECK(!wult_csv_open_stream(f, "long.csv", 1, &r, err, sizeof(err)), "%s", err);
	WT_EQ(wult_csv_next(r, &pt), -EINVAL);
	WT_CHECK(strstr(wult_csv_error(r), "long.csv:2: line longer than 65536 bytes"), "%s",
		 wult_csv_error(r));
	wult_csv_close(r);
	fclose(f);
}

static void stream_err(const char *text, const char *want)
{
	struct wult_csv_reader *r;
	struct wult_point pt;
	char err[256] = "";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ret = wult_csv_open_stream(f, "t.csv", 1, &r, err, sizeof(err));
	if (!ret) {
		while ((ret = wult_csv_next(r, &pt)) == 1)
			;
		snprintf(err, sizeof(err), "%s", wult_csv_error(r));
		wult_csv_close(r);
	}
	fclose(f);
	WT_CHECK(ret < 0 && strstr(err, want), "'%s': '%s' lacks '%s'", text, err, want);
}

static void nul_byte(void)
{
	static const char text[] = "WakeLatency\n1\0002\n";
	struct wult_csv_reader *r;
	struct wult_point pt;
	char err[256];
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	WT_CHECK(!wult_csv_open_stream(f, "nul.csv", 1, &r, err, sizeof(err)), "%s", err);
	WT_EQ(wult_csv_next(r, &pt), -EINVAL);
	WT_CHECK(strstr(wult_csv_error(r), "nul.csv:2: NUL byte in line"), "%s",
		 wult_csv_error(r));
	wult_csv_close(r);
	fclose(f);
}

/* The whole of @f as a malloc'd string (*@len bytes). */
static char *slurp(FILE *f, size_t *len)
{
	char *buf;
	long n;

	fflush(f);
	n = ftell(f);
	buf = malloc(n + 1);
	rewind(f);
	*len = fread(buf, 1, n, f);
	buf[*len] = '\0';
	return buf;
}

/*
 * The writer with and without its worker thread: the same bytes, over
 * many batches, a row whose strings overflow a batch's text (a 200,000
 * byte string: the batch grows), and a column a late row lacks (the
 * rewrite after the worker is gone).
 */
static void writer_threads(void)
{
	char *longstr = malloc(60001), *huge = malloc(200001), *out[3];
	struct wult_csv_writer *w;
	struct wult_point pt;
	size_t len[3];
	int t, i, fails = 0;
	FILE *f;

	memset(longstr, 'x', 60000);
	longstr[60000] = '\0';
	memset(huge, 'h', 200000);
	huge[200000] = '\0';
	for (t = 0; t < 3; t++) {	/* no worker, one, two formatters */
		wult_csv_set_threads(t);
		f = tmpfile();
		WT_CHECK(!wult_csv_writer_new(f, edge_cols, NEDGE, &w), "writer");
		for (i = 0; i < 100000; i++) {
			edge_row(i, &pt, longstr);
			if (i == 70000)
				pt.v[WULT_M_REQ_CSTATE].str = huge;
			if (i == 99990)
				pt.v[WULT_M_CPU_FREQ].num = NAN;
			fails += !!wult_csv_writer_add(w, &pt);
		}
		fails += !!wult_csv_writer_close(w);
		out[t] = slurp(f, &len[t]);
		fclose(f);
	}
	wult_csv_set_threads(-1);
	WT_EQ(fails, 0);
	WT_CHECK(len[0] == len[1] && !memcmp(out[0], out[1], len[0]),
		 "threads change the output: %zu and %zu bytes", len[0], len[1]);
	WT_CHECK(len[0] == len[2] && !memcmp(out[0], out[2], len[0]),
		 "two formatters change the output: %zu and %zu bytes", len[0], len[2]);
	WT_CHECK(!strncmp(out[1], "WakeLatency,LTime,SMICnt,CC0%,ReqCState\n", 40),
		 "CPUFreq dropped: %.60s", out[1]);
	WT_CHECK(strstr(out[1], huge) != NULL, "the 200,000-byte string is whole");
	free(out[0]);
	free(out[1]);
	free(out[2]);
	free(longstr);
	free(huge);
}

/* A write error (/dev/full) reaches add or close, with the worker or
 * without. */
static void writer_full(void)
{
	struct wult_csv_writer *w;
	struct wult_point pt;
	int t, i, add_err, close_err;
	FILE *f;

	for (t = 0; t < 3; t++) {
		f = fopen("/dev/full", "w");
		if (!f) {
			WT_SKIP("no /dev/full");
			return;
		}
		wult_csv_set_threads(t);
		WT_CHECK(!wult_csv_writer_new(f, edge_cols, NEDGE, &w), "writer");
		for (i = 0, add_err = 0; i < 200000 && !add_err; i++) {
			edge_row(i % 40, &pt, NULL);
			add_err = wult_csv_writer_add(w, &pt);
		}
		close_err = wult_csv_writer_close(w);
		wult_csv_set_threads(-1);
		WT_CHECK(add_err == -EIO, "threads %d: add gave %d", t, add_err);
		WT_EQ(close_err, -EIO);
		fclose(f);
	}
}

/* What a reader gives for @text through a mapped file (@mapped) or a
 * stream: the rows' values folded into a hash, the last return value
 * and the error. */
struct read_sum {
	unsigned long long hash;
	int rows, ret;
	char err[256];
};

static void read_all(const char *text, int mapped, struct read_sum *sum)
{
	struct wult_csv_reader *r;
	struct wult_point pt;
	FILE *f;
	size_t i;

	memset(sum, 0, sizeof(*sum));
	if (mapped) {
		f = tmpfile();
		fputs(text, f);
		rewind(f);
	} else {
		f = fmemopen((void *)text, strlen(text), "r");
	}
	sum->ret = wult_csv_open_stream(f, "t.csv", 1, &r, sum->err, sizeof(sum->err));
	if (!sum->ret) {
		while ((sum->ret = wult_csv_next(r, &pt)) == 1) {
			unsigned long long b;
			const char *st = pt.v[WULT_M_REQ_CSTATE].str;

			memcpy(&b, &pt.v[WULT_M_WAKE_LATENCY].num, sizeof(b));
			sum->hash = sum->hash * 1000003 + b;
			memcpy(&b, &pt.v[WULT_M_CC0].num, sizeof(b));
			sum->hash = sum->hash * 1000003 + b;
			for (i = 0; st && st[i]; i++)
				sum->hash = sum->hash * 31 + (unsigned char)st[i];
			sum->rows++;
		}
		WT_EQ(wult_csv_next(r, &pt), sum->ret);	/* the end or error stays */
		snprintf(sum->err, sizeof(sum->err), "%s", wult_csv_error(r));
		wult_csv_close(r);
	}
	fclose(f);
}

/*
 * The reader with and without its worker: the same rows, errors and line
 * numbers, on CRLF lines, blank lines, rows across batches and mapping
 * windows (200k rows), a bad row after many batches, and a last line
 * without its newline; through a mapped file and a stream.
 */
static void reader_threads(void)
{
	size_t cap = 16 << 20, len = 0;
	char *text = malloc(cap);
	struct read_sum a, b;
	int i, bad, mapped;

	for (bad = 0; bad < 2; bad++) {
		len = (size_t)sprintf(text, "WakeLatency,ReqCState,CC0%%\r\n");
		for (i = 0; i < 200000; i++) {
			if (i % 1000 == 999)
				len += (size_t)sprintf(text + len, "\r\n");
			len += (size_t)sprintf(text + len, "%s%d.%03d,\"C%d,x\",%d.%02d%s",
					       bad && i == 150000 ? "abc" : "", i, i % 1000,
					       i % 7, i % 100, i % 97, i < 199999 ? "\r\n" : "");
		}
		for (mapped = 0; mapped < 2; mapped++) {
			wult_csv_set_threads(0);
			read_all(text, mapped, &a);
			wult_csv_set_threads(1);
			read_all(text, mapped, &b);
			wult_csv_set_threads(-1);
			WT_EQ(a.rows, bad ? 150000 : 200000);
			WT_EQ(a.ret, bad ? -EINVAL : 0);
			WT_CHECK(a.hash == b.hash && a.rows == b.rows && a.ret == b.ret &&
				 !strcmp(a.err, b.err), "threads change what is read: %d rows, "
				 "%d, '%s'; %d rows, %d, '%s'", a.rows, a.ret, a.err, b.rows,
				 b.ret, b.err);
			/* line 1 the header, a blank line before every 1000th row */
			WT_CHECK(!bad || strstr(b.err, "t.csv:150152: column 'WakeLatency': "
				 "'abc150000.000' is not a number"), "%s", b.err);
		}
	}
	free(text);
}

/* Who decides on threads: wult_csv_set_threads(), else WULT_CSV_THREADS,
 * else the number of CPUs. */
static void threads_knob(void)
{
	const char *old = getenv("WULT_CSV_THREADS");
	char *keep = old ? strdup(old) : NULL;

	wult_csv_set_threads(-1);
	setenv("WULT_CSV_THREADS", "0", 1);
	WT_EQ(wult_csv_threads(), 0);
	setenv("WULT_CSV_THREADS", "1", 1);
	WT_EQ(wult_csv_threads(), 1);
	wult_csv_set_threads(0);
	WT_EQ(wult_csv_threads(), 0);
	wult_csv_set_threads(1);
	setenv("WULT_CSV_THREADS", "0", 1);
	WT_EQ(wult_csv_threads(), 1);
	wult_csv_set_threads(99);
	WT_EQ(wult_csv_threads(), WULT_CSV_MAX_THREADS);
	wult_csv_set_threads(-1);
	setenv("WULT_CSV_THREADS", "2", 1);
	WT_EQ(wult_csv_threads(), 2);
	setenv("WULT_CSV_THREADS", "x", 1);	/* not a number: the default */
	WT_EQ(wult_csv_threads(), sysconf(_SC_NPROCESSORS_ONLN) > 1);
	unsetenv("WULT_CSV_THREADS");
	WT_EQ(wult_csv_threads(), sysconf(_SC_NPROCESSORS_ONLN) > 1);
	if (keep)
		setenv("WULT_CSV_THREADS", keep, 1);
	free(keep);
}

int main(void)
{
	good();
	bad("empty", "datapoints.csv: empty file");
	bad("random", "datapoints.csv: No such file");
	bad("too_long_line", "datapoints.csv:");
	bad("too_short_line", "datapoints.csv:2: 1 fields, but the header has 24");
	roundtrip();
	holes();
	intel_metrics();
	edges();
	mapped_lines();
	stream_err("Foo,Bar\n1,2\n", "t.csv:1: no known column");
	stream_err("WakeLatency\nabc\n", "t.csv:2: column 'WakeLatency': 'abc' is not a number");
	stream_err("WakeLatency,WakeLatency\n", "appears twice");
	stream_err("ReqCState\n\"C1\n", "t.csv:2: unterminated quoted");
	stream_err("WakeLatency\n1e999\n", "not a number");
	stream_err("WakeLatency,CC0%\n1.5x,2\n", "t.csv:2: column 'WakeLatency': '1.5x' is not a number");
	stream_err("WakeLatency,CC0%\nabc\n", "t.csv:2: 1 fields, but the header has 2");
	nul_byte();
	threads_knob();
	writer_threads();
	writer_full();
	reader_threads();
	return wt_done();
}
