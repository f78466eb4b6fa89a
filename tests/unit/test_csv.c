// SPDX-License-Identifier: GPL-2.0
/* CSV: intel wult fixtures (good and bad), export/import round trip. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <wult/csv.h>
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

/* A column the first row fills and a later row lacks is dropped at close:
 * no empty cell remains, quoted commas survive the rewrite. */
static void holes(void)
{
	static const enum wult_metric cols[] = {
		WULT_M_WAKE_LATENCY, WULT_M_REQ_CSTATE, WULT_M_CPU_FREQ, WULT_M_SMI_CNT,
	};
	struct wult_csv_writer *w;
	struct wult_point pt;
	char buf[256] = "";
	size_t n;
	FILE *f = tmpfile();
	int i;

	WT_CHECK(!wult_csv_writer_new(f, cols, 4, &w), "writer");
	for (i = 0; i < 3; i++) {
		wult_point_clear(&pt);
		pt.v[WULT_M_WAKE_LATENCY].num = 1000 * (i + 1);
		pt.v[WULT_M_REQ_CSTATE].str = "C,6";
		pt.v[WULT_M_CPU_FREQ].num = i == 1 ? NAN : 2000;
		pt.v[WULT_M_SMI_CNT].num = i;
		WT_EQ(wult_csv_writer_add(w, &pt), 0);
	}
	WT_EQ(wult_csv_writer_close(w), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	WT_CHECK(!strcmp(buf, "WakeLatency,ReqCState,SMICnt\n1.000,\"C,6\",0\n"
			 "2.000,\"C,6\",1\n3.000,\"C,6\",2\n"), "got '%s'", buf);
	fclose(f);

	/* No rows: the header names every column. */
	f = tmpfile();
	WT_CHECK(!wult_csv_writer_new(f, cols, 4, &w), "writer");
	WT_EQ(wult_csv_writer_close(w), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	WT_CHECK(!strcmp(buf, "WakeLatency,ReqCState,CPUFreq,SMICnt\n"), "got '%s'", buf);
	fclose(f);
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
	stream_err("Foo,Bar\n1,2\n", "t.csv:1: no known column");
	stream_err("WakeLatency\nabc\n", "t.csv:2: column 'WakeLatency': 'abc' is not a number");
	stream_err("WakeLatency,WakeLatency\n", "appears twice");
	stream_err("ReqCState\n\"C1\n", "t.csv:2: unterminated quoted");
	stream_err("WakeLatency\n1e999\n", "not a number");
	return wt_done();
}
