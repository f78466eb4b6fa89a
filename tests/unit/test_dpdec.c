// SPDX-License-Identifier: GPL-2.0
/* Datapoint decoding: through the format file and through perf.data. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/comp.h>
#include <wult/dpdec.h>
#include <wult/sysdesc.h>
#include <wult/pdwrite.h>
#include <wult/synth.h>
#include "wt.h"
#include "wt_data.h"


static void payload(const struct wult_dp *d, uint8_t *raw)
{
	memset(raw, 0, WULT_DP_HDR_SIZE);
	memcpy(raw + WULT_DP_HDR_SIZE, d, sizeof(*d));
}

static void metrics(void)
{
	static const char *const names[] = { "POLL", "C1", "C6" };
	uint8_t raw[256];
	struct wult_dpdec *dp;
	struct wult_point pt;
	struct wult_dp d = {
		.ltime = 1000000, .tbi = 900000, .tai = 1005000, .tintr = 1007000,
		.ldist = 150000, .ai_ts1 = 100, .ai_ts2 = 100 + 2000,	/* 1 us at 2 GHz */
		.intr_ts1 = 5000, .intr_ts2 = 5000 + 3000,		/* 1.5 us */
		.tsc_delta = 210000, .mperf_delta = 21000, .cpu = 1, .req_cstate = 2,
		.intr_off = 1, .flags = WULT_DPF_MPERF | WULT_DPF_NMI, .nmi_cnt = 3,
		.tsc_khz = 2000000, .seq = 7,
	};
	char err[256];
	int ret;

	WT_CHECK(!wult_dpdec_new(&dp), "new");
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/wult_datapoint.format", wt_data_dir());
	ret = wult_dpdec_load_format_file(dp, path, err, sizeof(err));
	WT_CHECK(!ret, "format: %s", err);
	wult_dpdec_set_cstate_names(dp, names, 3);
	payload(&d, raw);
	WT_CHECK(!wult_dpdec_decode_raw(dp, raw, 132, &pt), "decode");
	WT_EQ(pt.v[WULT_M_WAKE_LATENCY_RAW].num, 5000);
	WT_EQ(pt.v[WULT_M_INTR_LATENCY_RAW].num, 7000);
	/* IntrOff = 1: the probe's 1 us comes off IntrLatency only. */
	WT_EQ(pt.v[WULT_M_WAKE_LATENCY].num, 5000);
	WT_EQ(pt.v[WULT_M_INTR_LATENCY].num, 6000);
	WT_EQ(pt.v[WULT_M_SILENT_TIME].num, 100000);
	WT_EQ(pt.v[WULT_M_LDIST].num, 150000);
	WT_CHECK(!strcmp(pt.v[WULT_M_REQ_CSTATE].str, "C6"), "state");
	WT_CHECK(fabs(pt.v[WULT_M_CC0].num - 10) < 1e-9, "cc0 %f", pt.v[WULT_M_CC0].num);
	WT_CHECK(isnan(pt.v[WULT_M_SMI_CNT].num), "SMI not valid");
	WT_EQ(pt.v[WULT_M_NMI_CNT].num, 3);
	WT_EQ(pt.v[WULT_M_CPU].num, 1);
	/* IntrOff = 0: the handler's 1.5 us comes off WakeLatency. */
	d.intr_off = 0;
	d.tintr = 1003000;
	payload(&d, raw);
	wult_dpdec_decode_raw(dp, raw, 128, &pt);
	WT_EQ(pt.v[WULT_M_WAKE_LATENCY].num, 3500);
	WT_EQ(pt.v[WULT_M_INTR_LATENCY].num, 3000);
	/* An ipi flag-write wake: no interrupt, no IntrLatency (NaN), on both paths. */
	d.flags |= WULT_DPF_FLAG_WAKE;
	payload(&d, raw);
	wult_dpdec_decode_raw(dp, raw, 128, &pt);
	WT_CHECK(isnan(pt.v[WULT_M_INTR_LATENCY].num), "flag wake: no IntrLatency");
	WT_CHECK(isnan(pt.v[WULT_M_INTR_LATENCY_RAW].num), "flag wake: no IntrLatencyRaw");
	WT_EQ(pt.v[WULT_M_WAKE_LATENCY].num, 3500);
	{
		struct wult_pd_attr a = { .attr.sample_type = PERF_SAMPLE_RAW };
		struct wult_pd_sample smp = { .attr = &a, .raw = raw, .raw_size = 132 };
		uint64_t m = WULT_METRIC_BIT(WULT_M_INTR_LATENCY) |
			     WULT_METRIC_BIT(WULT_M_WAKE_LATENCY);
		const char *st;
		double out[2];

		WT_EQ(wult_dpdec_decode_set(dp, &smp, m, out, &st), 0);
		WT_EQ(out[0], 3500);	/* ascending: WakeLatency first */
		WT_CHECK(isnan(out[1]), "flag wake, fast path: no IntrLatency");
	}
	d.flags &= ~WULT_DPF_FLAG_WAKE;
	/* Unnamed state index: a fallback name. */
	d.req_cstate = 9;
	payload(&d, raw);
	wult_dpdec_decode_raw(dp, raw, 128, &pt);
	WT_CHECK(!strcmp(pt.v[WULT_M_REQ_CSTATE].str, "state9"), "fallback name");
	/* The same names by index, for tables of states without datapoints. */
	WT_CHECK(!strcmp(wult_dpdec_cstate_name(dp, 2), "C6"), "name of 2");
	WT_CHECK(!strcmp(wult_dpdec_cstate_name(dp, 9), "state9"), "name of 9");
	WT_CHECK(!wult_dpdec_cstate_name(dp, 70), "no name of 70");
	WT_EQ(wult_dpdec_decode_raw(dp, raw, 127, &pt), -EINVAL);
	{
		struct wult_pd_attr a = { .attr.sample_type = PERF_SAMPLE_RAW };
		struct wult_pd_sample smp = { .attr = &a, .raw = raw, .raw_size = 127 };
		enum wult_metric m = WULT_M_WAKE_LATENCY;
		const char *st;
		double out;

		WT_EQ(wult_dpdec_decode_set(dp, &smp, WULT_METRIC_BIT(m), &out, &st), -EINVAL);
		smp.raw_size = 132;
		WT_EQ(wult_dpdec_decode_set(dp, &smp, WULT_METRIC_BIT(m), &out, &st), 0);
		WT_EQ(out, pt.v[WULT_M_WAKE_LATENCY].num);
	}
	wult_dpdec_free(dp);
}

static void bad_formats(void)
{
	struct wult_dpdec *dp;
	char err[256], *f;
	const char *fmt = wult_dpdec_builtin_format();

	wult_dpdec_new(&dp);
	WT_EQ(wult_dpdec_load_format(dp, "garbage", 7, err, sizeof(err)), -EINVAL);
	printf("  garbage -> %s\n", err);
	/* Without the tai field the format cannot give latencies. */
	f = strdup(fmt);
	memcpy(strstr(f, "u64 tai;"), "u64 tax;", 8);
	WT_EQ(wult_dpdec_load_format(dp, f, strlen(f), err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "'tai'"), "%s", err);
	free(f);
	/* A newer layout with an appended field still decodes. */
	f = malloc(strlen(fmt) + 100);
	strcpy(f, fmt);
	strcpy(strstr(f, "\nprint fmt"), "\tfield:u64 extra;\toffset:128;\tsize:8;\tsigned:0;\n\n"
	       "print fmt: \"x\"\n");
	WT_EQ(wult_dpdec_load_format(dp, f, strlen(f), err, sizeof(err)), 0);
	free(f);
	WT_EQ(wult_dpdec_load_format_file(dp, "/nonexistent", err, sizeof(err)), -ENOENT);
	wult_dpdec_free(dp);
}

/* wult_dpdec_decode_set() the same, in ascending order, for every metric,
 * none, and sets that start, end or skip runs of metrics v1 lacks. */
static int set_differs(struct wult_dpdec *dp, const struct wult_pd_sample *s,
		       const struct wult_point *pt)
{
	static const uint64_t sets[] = {
		WULT_METRICS_ALL, 0, WULT_METRIC_BIT(WULT_M_RUN_LATENCY),
		WULT_METRIC_BIT(WULT_M_CC0) | WULT_METRIC_BIT(WULT_M_CC3) |
		WULT_METRIC_BIT(WULT_M_SMI_CNT) | WULT_METRIC_BIT(WULT_M_SCALED) |
		WULT_METRIC_BIT(WULT_M_SOURCE),
		0x5555555555555555ULL & WULT_METRICS_ALL, 0xaaaaaaaaaaaaaaaaULL & WULT_METRICS_ALL,
	};
	double out[WULT_M_NR + 1];
	const char *state;
	unsigned int i, k;
	uint64_t set;
	int bad = 0;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		state = "unset";
		out[__builtin_popcountll(sets[i])] = 12345;	/* nothing past the set's */
		if (wult_dpdec_decode_set(dp, s, sets[i], out, &state))
			return 1;
		for (set = sets[i], k = 0; set; set &= set - 1, k++) {
			double want = pt->v[__builtin_ctzll(set)].num;

			bad += isnan(want) ? !isnan(out[k]) : out[k] != want;
		}
		bad += out[k] != 12345 || state != pt->v[WULT_M_REQ_CSTATE].str;
	}
	return bad;
}

/* The generator's file, read back, gives the generator's values. */
static void synth_roundtrip(void)
{
	struct wult_synth_opts o;
	struct wult_synth *g;
	struct wult_pd *pd;
	struct wult_dpdec *dp;
	struct wult_pd_event ev;
	struct wult_point pt;
	struct wult_dp d;
	char path[] = "/tmp/wult-test-dp-XXXXXX", err[256];
	int fd = mkstemp(path), n = 0, ret, bad = 0, set_bad = 0;

	close(fd);
	wult_synth_defaults(&o);
	o.count = 5000;
	o.ncpus = 2;
	WT_CHECK(!wult_synth_write(&o, path, err, sizeof(err)), "write: %s", err);
	WT_CHECK(!wult_pd_open(path, 0, &pd, err, sizeof(err)), "open: %s", err);
	wult_dpdec_new(&dp);
	WT_CHECK(!wult_dpdec_load_pd(dp, pd, err, sizeof(err)), "load: %s", err);
	wult_synth_new(&o, &g);
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		wult_synth_next(g, &d);
		if (!wult_dpdec_is_wult(dp, &ev.sample) || wult_dpdec_decode(dp, &ev.sample, &pt) ||
		    pt.v[WULT_M_WAKE_LATENCY_RAW].num != (double)(int64_t)(d.tai - d.ltime) ||
		    pt.v[WULT_M_LDIST].num != d.ldist || pt.v[WULT_M_CPU].num != d.cpu ||
		    pt.v[WULT_M_SILENT_TIME].num != (double)(d.ltime - d.tbi))
			bad++;
		set_bad += set_differs(dp, &ev.sample, &pt);
		n++;
	}
	WT_EQ(ret, 0);
	WT_EQ(n, 5000);
	WT_EQ(bad, 0);
	WT_CHECK(!set_bad, "decode_set: %d values differ from decode's", set_bad);
	wult_synth_free(g);
	wult_dpdec_free(dp);
	wult_pd_close(pd);
	unlink(path);
}

/*
 * wult_dpdec_decode_raws(): a batch of 300 payloads (every tenth cut to
 * 16 bytes, short of the format) gives, row by row at the stride asked, what
 * wult_dpdec_decode() gives of each whole one, skipping the short ones;
 * nothing is written past the rows; -EAGAIN once counters are registered.
 * For a set of its general loop and for WULT_METRICS_SUMMARY, which has a
 * loop of its own.
 */
static void raws_batch(void)
{
	enum { N = 300, STRIDE = 12 };
	static const uint64_t sets[] = {
		WULT_METRIC_BIT(WULT_M_WAKE_LATENCY) | WULT_METRIC_BIT(WULT_M_INTR_LATENCY) |
		WULT_METRIC_BIT(WULT_M_SILENT_TIME) | WULT_METRIC_BIT(WULT_M_CC1) |
		WULT_METRIC_BIT(WULT_M_CPU) | WULT_METRIC_BIT(WULT_M_RUN_LATENCY),
		WULT_METRICS_SUMMARY,
	};
	uint64_t set = sets[0];
	static double want[N][WULT_M_NR], out[N * STRIDE + 1];
	static const char *wstate[N], *state[N + 1];
	static uint8_t copy[N][256];
	const void *raw[N];
	uint32_t size[N];
	struct wult_synth_opts o;
	struct wult_pd_event ev;
	struct wult_dpdec *dp;
	struct wult_point pt;
	struct wult_pd *pd;
	char path[] = "/tmp/wult-test-raws-XXXXXX", err[256];
	int fd = mkstemp(path), n = 0, nw = 0, got, r, k, m, bad;
	unsigned int i;

	close(fd);
	wult_synth_defaults(&o);
	o.count = N;
	WT_CHECK(!wult_synth_write(&o, path, err, sizeof(err)), "write: %s", err);
	WT_CHECK(!wult_pd_open(path, 0, &pd, err, sizeof(err)), "open: %s", err);
	wult_dpdec_new(&dp);
	WT_CHECK(!wult_dpdec_load_pd(dp, pd, err, sizeof(err)), "load: %s", err);
	while (n < N && wult_pd_next(pd, &ev) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE || ev.sample.raw_size > sizeof(copy[0]))
			continue;
		memcpy(copy[n], ev.sample.raw, ev.sample.raw_size);
		raw[n] = copy[n];
		size[n] = ev.sample.raw_size;
		if (n % 10 == 3) {
			size[n] = 16;
		} else {
			WT_EQ(wult_dpdec_decode(dp, &ev.sample, &pt), 0);
			for (m = 0; m < WULT_M_NR; m++)
				want[nw][m] = pt.v[m].num;
			wstate[nw++] = pt.v[WULT_M_REQ_CSTATE].str;
		}
		n++;
	}
	WT_EQ(n, N);
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		set = sets[i];
		WT_CHECK(__builtin_popcountll(set) <= STRIDE, "set %u fits the stride", i);
		memset(out, 0, sizeof(out));
		out[nw * STRIDE - STRIDE + __builtin_popcountll(set)] = 12345;
		state[nw] = "unset";
		got = wult_dpdec_decode_raws(dp, raw, size, N, set, STRIDE, out, state);
		WT_EQ(got, nw);
		for (bad = 0, r = 0; r < nw && r < got; r++) {
			uint64_t b = set;

			for (k = 0; b; b &= b - 1, k++) {
				double w = want[r][__builtin_ctzll(b)], v = out[r * STRIDE + k];

				bad += isnan(w) ? !isnan(v) : v != w;
			}
			bad += state[r] != wstate[r];
		}
		WT_CHECK(!bad, "decode_raws, set %u: %d values differ from decode's", i, bad);
		WT_CHECK(out[nw * STRIDE - STRIDE + __builtin_popcountll(set)] == 12345 &&
			 !strcmp(state[nw], "unset"), "decode_raws, set %u: wrote past its rows", i);
	}
	WT_EQ(wult_dpdec_add_counter(dp, 11, "msr/tsc/"), 0);
	WT_EQ(wult_dpdec_decode_raws(dp, raw, size, N, set, STRIDE, out, state), -EAGAIN);
	wult_dpdec_free(dp);
	wult_pd_close(pd);
	unlink(path);
}

/* Group-read counters: deltas, scaling under multiplexing, CPUFreq. */
static void counters(void)
{
	struct wult_pd_attr attr = { 0 };
	struct wult_pd_read_value vals[4];
	struct wult_pd_sample s = { 0 };
	struct wult_dpdec *dp;
	struct wult_point pt;
	struct wult_dp d = { .tai = 10, .tintr = 20, .cpu = 0, .tsc_khz = 2000000 };
	uint8_t raw[WULT_DP_HDR_SIZE + sizeof(struct wult_dp)];
	char err[256];

	wult_dpdec_new(&dp);
	wult_dpdec_load_format(dp, wult_dpdec_builtin_format(), strlen(wult_dpdec_builtin_format()),
			       err, sizeof(err));
	WT_EQ(wult_dpdec_add_counter(dp, 11, "msr/tsc/"), 0);
	WT_EQ(wult_dpdec_add_counter(dp, 12, "msr/aperf/"), 0);
	WT_EQ(wult_dpdec_add_counter(dp, 13, "msr/mperf/"), 0);
	WT_EQ(wult_dpdec_add_counter(dp, 14, "cstate_core/c6-residency/"), 0);
	WT_EQ(wult_dpdec_add_counter(dp, 15, "cycles"), -ENOENT);
	{
		enum wult_metric m = WULT_M_WAKE_LATENCY;
		const char *st;
		double out;

		WT_EQ(wult_dpdec_decode_set(dp, &s, WULT_METRIC_BIT(m), &out, &st), -EAGAIN);
	}
	attr.attr.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_READ;
	attr.attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	s.attr = &attr;
	payload(&d, raw);
	s.raw = raw;
	s.raw_size = 128;
	s.read.nr = 4;
	s.read.values = vals;
	s.read.time_enabled = s.read.time_running = 100;
	vals[0] = (struct wult_pd_read_value){ 1000, 11, 0 };
	vals[1] = (struct wult_pd_read_value){ 500, 12, 0 };
	vals[2] = (struct wult_pd_read_value){ 500, 13, 0 };
	vals[3] = (struct wult_pd_read_value){ 100, 14, 0 };
	wult_dpdec_decode(dp, &s, &pt);
	WT_CHECK(isnan(pt.v[WULT_M_CPU_FREQ].num), "no delta on the first datapoint");
	vals[0].value += 10000;	/* TSC */
	vals[1].value += 3000;	/* APERF: 1.5x MPERF */
	vals[2].value += 2000;
	vals[3].value += 8000;	/* 80% in CC6 */
	wult_dpdec_decode(dp, &s, &pt);
	WT_CHECK(fabs(pt.v[WULT_M_CPU_FREQ].num - 3000) < 1e-6, "freq %f",
		 pt.v[WULT_M_CPU_FREQ].num);
	WT_CHECK(fabs(pt.v[WULT_M_CC6].num - 80) < 1e-6, "cc6 %f", pt.v[WULT_M_CC6].num);
	WT_EQ(pt.v[WULT_M_SCALED].num, 0);
	/* Half the time running since the last sample: flagged. */
	s.read.time_enabled = 200;
	s.read.time_running = 150;
	vals[0].value += 10000;
	vals[3].value += 2000;
	wult_dpdec_decode(dp, &s, &pt);
	WT_EQ(pt.v[WULT_M_SCALED].num, 1);
	WT_CHECK(fabs(pt.v[WULT_M_CC6].num - 20) < 1e-6, "scaled cc6 %f", pt.v[WULT_M_CC6].num);
	/* What the decoder fills: the format's, then the counters' metrics. */
	WT_CHECK(wult_dpdec_metrics(dp, 0) & WULT_METRIC_BIT(WULT_M_LDIST), "LDist");
	WT_CHECK(wult_dpdec_metrics(dp, 0) & WULT_METRIC_BIT(WULT_M_CC0), "CC0%%");
	WT_EQ(wult_dpdec_metrics(dp, 0) & (WULT_METRIC_BIT(WULT_M_CPU_FREQ) |
	      WULT_METRIC_BIT(WULT_M_CC6) | WULT_METRIC_BIT(WULT_M_SCALED)), 0);
	WT_EQ(wult_dpdec_metrics(dp, 1) & ~wult_dpdec_metrics(dp, 0),
	      WULT_METRIC_BIT(WULT_M_CPU_FREQ) | WULT_METRIC_BIT(WULT_M_CC6) |
	      WULT_METRIC_BIT(WULT_M_SCALED));
	/* Not running at all since then: no value rather than a guess. */
	s.read.time_enabled = 300;
	wult_dpdec_decode(dp, &s, &pt);
	WT_EQ(pt.v[WULT_M_SCALED].num, 1);
	WT_CHECK(isnan(pt.v[WULT_M_CC6].num), "cc6 %f", pt.v[WULT_M_CC6].num);
	wult_dpdec_free(dp);
}

/*
 * A perf.data whose counters are multiplexed at a share that changes over
 * time: each datapoint is judged by the share since the previous one (the
 * running totals would flag the later, fully counted datapoints too).
 */
struct mux_rec {
	struct perf_event_header h;
	uint64_t id, time;
	uint32_t cpu, res;
	uint64_t nr, en, run;
	struct { uint64_t value, id; } v[2];
	uint32_t raw_size;
	uint8_t raw[WULT_DP_HDR_SIZE + sizeof(struct wult_dp)];
	uint8_t pad[4];
} __attribute__((packed));

static void mux_file(const char *path)
{
	/* cumulative enabled, running; the share since the last sample */
	static const uint64_t t[][2] = {
		{ 1000, 1000 },		/* 1.0 */
		{ 2000, 1500 },		/* 0.5 */
		{ 3000, 2500 },		/* 1.0, 0.83 cumulative */
		{ 4000, 3250 },		/* 0.75 */
		{ 5000, 4250 },		/* 1.0 */
	};
	struct perf_event_attr a = { .size = sizeof(a), .type = 77, .sample_period = 1 };
	struct wult_pdw *w;
	struct mux_rec r;
	struct wult_dp d = { .tai = 10, .tintr = 20, .tsc_khz = 2000000 };
	uint64_t tsc = 0, c6 = 0;
	char err[256];
	size_t i;

	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_READ | PERF_SAMPLE_RAW;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	WT_EQ(wult_pdw_open(path, &w, err, sizeof(err)), 0);
	WT_EQ(wult_pdw_add_attr(w, &a, "wult/datapoints/"), 0);
	a.type = 78;		/* msr, cstate_core: PMUs of their own */
	WT_EQ(wult_pdw_add_attr(w, &a, "msr/tsc/"), 1);
	WT_EQ(wult_pdw_add_attr(w, &a, "cstate_core/c6-residency/"), 2);
	wult_pdw_add_id(w, 0, 10);
	wult_pdw_add_id(w, 1, 11);
	wult_pdw_add_id(w, 2, 14);
	wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format());
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t run = t[i][1] - (i ? t[i - 1][1] : 0);

		/* Counting for @run of every 1000 ns: 40% of it in C6. */
		tsc += run * 10;
		c6 += run * 4;
		memset(&r, 0, sizeof(r));
		r.h.type = PERF_RECORD_SAMPLE;
		r.h.size = sizeof(r);
		r.id = 10;
		r.time = i + 1;
		r.nr = 2;
		r.en = t[i][0];
		r.run = t[i][1];
		r.v[0].value = tsc;
		r.v[0].id = 11;
		r.v[1].value = c6;
		r.v[1].id = 14;
		r.raw_size = sizeof(r.raw) + sizeof(r.pad);
		d.ltime = i;
		payload(&d, r.raw);
		WT_EQ(wult_pdw_write(w, &r, sizeof(r)), 0);
	}
	WT_EQ(wult_pdw_close(w, err, sizeof(err)), 0);
}

/* A format without optional fields: their metrics are not offered. */
static void format_metrics(void)
{
	const char *full = wult_dpdec_builtin_format(), *ld = strstr(full, "\tfield:u64 ldist;");
	const char *nl = ld ? strchr(ld, '\n') : NULL;
	struct wult_dpdec *dp;
	char fmt[8192], err[256];
	uint64_t bits;

	WT_CHECK(nl && strlen(full) < sizeof(fmt), "ldist field in the synth format");
	if (!nl)
		return;
	snprintf(fmt, sizeof(fmt), "%.*s%s", (int)(ld - full), full, nl + 1);
	wult_dpdec_new(&dp);
	WT_EQ(wult_dpdec_metrics(dp, 1), 0);
	WT_EQ(wult_dpdec_load_format(dp, fmt, strlen(fmt), err, sizeof(err)), 0);
	bits = wult_dpdec_metrics(dp, 1);
	WT_CHECK(!(bits & WULT_METRIC_BIT(WULT_M_LDIST)), "no LDist without its field");
	WT_CHECK(bits & WULT_METRIC_BIT(WULT_M_WAKE_LATENCY), "WakeLatency");
	wult_dpdec_free(dp);
}

static void mux_changing(void)
{
	static const int scaled[] = { 0, 1, 0, 1, 0 };
	char path[] = "/tmp/wult-test-mux-XXXXXX", err[256];
	struct wult_pd_event ev;
	struct wult_dpdec *dp;
	struct wult_point pt;
	struct wult_pd *pd;
	int fd = mkstemp(path), n = 0;

	WT_CHECK(sizeof(struct mux_rec) % 8 == 0, "record size %zu", sizeof(struct mux_rec));
	close(fd);
	mux_file(path);
	WT_EQ(wult_pd_open(path, 0, &pd, err, sizeof(err)), 0);
	wult_dpdec_new(&dp);
	WT_EQ(wult_dpdec_load_pd(dp, pd, err, sizeof(err)), 0);
	while (wult_pd_next(pd, &ev) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE || !wult_dpdec_is_wult(dp, &ev.sample))
			continue;
		WT_EQ(wult_dpdec_decode(dp, &ev.sample, &pt), 0);
		WT_EQ(pt.v[WULT_M_SCALED].num, scaled[n]);
		if (n)
			WT_CHECK(fabs(pt.v[WULT_M_CC6].num - 40) < 1e-9, "datapoint %d: CC6%% %f",
				 n, pt.v[WULT_M_CC6].num);
		n++;
	}
	WT_EQ(n, 5);
	wult_dpdec_free(dp);
	wult_pd_close(pd);
	unlink(path);
}

/* Other events' samples are not taken for datapoints. */
static void not_wult(void)
{
	struct wult_pd_attr attr = { 0 };
	struct wult_pd_sample s = { 0 };
	struct wult_dpdec *dp;
	struct wult_pd *pd;
	struct wult_pd_event ev;
	uint8_t raw[200] = { 0 };
	char err[256], path[PATH_MAX + 64];
	int n = 0, wult = 0;

	wult_dpdec_new(&dp);
	wult_dpdec_load_format(dp, wult_dpdec_builtin_format(), strlen(wult_dpdec_builtin_format()),
			       err, sizeof(err));
	attr.attr.type = PERF_TYPE_TRACEPOINT;
	attr.attr.config = 1500;
	attr.attr.sample_type = PERF_SAMPLE_RAW;
	s.attr = &attr;
	s.raw = raw;
	s.raw_size = 132;
	WT_CHECK(wult_dpdec_is_wult(dp, &s), "wult:datapoint by id");
	attr.attr.config = 1501;
	WT_CHECK(!wult_dpdec_is_wult(dp, &s), "another tracepoint");
	attr.attr.type = 42;	/* a PMU: the caller picked it */
	WT_CHECK(wult_dpdec_is_wult(dp, &s), "PMU sample");
	s.raw_size = 100;
	WT_CHECK(!wult_dpdec_is_wult(dp, &s), "short payload");
	snprintf(path, sizeof(path), "%s/sched_pipe.data", wt_data_dir());
	if (!wult_pd_open(path, 0, &pd, err, sizeof(err))) {
		WT_EQ(wult_dpdec_load_pd(dp, pd, err, sizeof(err)), -ENOENT);
		WT_CHECK(strstr(err, "no wult:datapoint format"), "%s", err);
		while (wult_pd_next(pd, &ev) > 0)
			if (ev.type == PERF_RECORD_SAMPLE) {
				n++;
				wult += wult_dpdec_is_wult(dp, &ev.sample);
			}
		WT_CHECK(n > 0 && !wult, "%d of %d sched samples taken", wult, n);
		wult_pd_close(pd);
	}
	wult_dpdec_free(dp);
}

/* The one naming rule: the file's names, this machine's when recorded
 * here or live, else the defaults.
 */
static void state_names(void)
{
	char path[] = "/tmp/wult-test-names-XXXXXX", err[256];
	struct wult_pd_sample s = { 0 };
	struct wult_pd_attr attr = { 0 };
	struct wult_dp d = { .tai = 10, .tintr = 20, .req_cstate = 2 };
	uint8_t raw[WULT_DP_HDR_SIZE + sizeof(struct wult_dp)];
	struct wult_dpdec *dp;
	struct wult_point pt;
	struct wult_pd *pd;
	struct wult_pdw *w;
	int fd = mkstemp(path), sysfs, stdout_fd, synthetic, ok;
	struct wult_pd_event ev;

	close(fd);
	attr.attr.sample_type = PERF_SAMPLE_RAW;
	s.attr = &attr;
	s.raw = raw;
	s.raw_size = sizeof(raw);
	payload(&d, raw);
	/* A file with neither names nor a system description, from another
	 * machine (no HOSTNAME: not this one): the defaults. */
	WT_EQ(wult_pdw_open(path, &w, err, sizeof(err)), 0);
	wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format());
	WT_EQ(wult_pdw_close(w, err, sizeof(err)), 0);
	WT_EQ(wult_pd_open(path, 0, &pd, err, sizeof(err)), 0);
	wult_dpdec_new(&dp);
	wult_dpdec_load_pd(dp, pd, err, sizeof(err));
	WT_EQ(wult_dpdec_name_states(dp, pd, 0), WULT_DPDEC_NAMES_DEFAULT);
	WT_EQ(wult_dpdec_decode(dp, &s, &pt), 0);
	WT_CHECK(pt.v[WULT_M_REQ_CSTATE].str && !strcmp(pt.v[WULT_M_REQ_CSTATE].str, "state2"),
		 "default name %s", pt.v[WULT_M_REQ_CSTATE].str);
	wult_dpdec_free(dp);
	wult_pd_close(pd);
	/* A file with wult record's names. */
	WT_EQ(wult_pdw_open(path, &w, err, sizeof(err)), 0);
	wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format());
	wult_pdw_add_cstate(w, 0, 2, "C6");
	WT_EQ(wult_pdw_close(w, err, sizeof(err)), 0);
	WT_EQ(wult_pd_open(path, 0, &pd, err, sizeof(err)), 0);
	wult_dpdec_new(&dp);
	wult_dpdec_load_pd(dp, pd, err, sizeof(err));
	WT_EQ(wult_dpdec_name_states(dp, pd, 0), WULT_DPDEC_NAMES_FILE);
	WT_EQ(wult_dpdec_decode(dp, &s, &pt), 0);
	WT_CHECK(pt.v[WULT_M_REQ_CSTATE].str && !strcmp(pt.v[WULT_M_REQ_CSTATE].str, "C6"),
		 "file name %s", pt.v[WULT_M_REQ_CSTATE].str);
	wult_dpdec_free(dp);
	wult_pd_close(pd);
	/* A pipe-mode recording (wult record -o -, wult record -H) carries no
	 * cpuidle names, but its system description names the states: those,
	 * unless the description is wult synth's made-up machine. */
	for (synthetic = 0; synthetic < 2; synthetic++) {
		fflush(stdout);		/* this test's own lines stay out of the file */
		fd = open(path, O_WRONLY | O_TRUNC);
		stdout_fd = dup(1);
		/* Checked once stdout is back: nothing printed into the file. */
		ok = fd >= 0 && stdout_fd >= 0 && dup2(fd, 1) == 1 &&
		     !wult_pdw_open("-", &w, err, sizeof(err));
		if (ok) {
			wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format());
			ok = !wult_pdw_set_sysdesc(w, synthetic ?
				WULT_SYSDESC_MAGIC "synthetic=yes\nstate2.name=C6\n" :
				WULT_SYSDESC_MAGIC "state0.name=POLL\nstate1.name=C1\n"
				"state2.name=C3\n");
			ok = !wult_pdw_close(w, err, sizeof(err)) && ok;
		}
		fflush(stdout);
		dup2(stdout_fd, 1);
		close(stdout_fd);
		close(fd);
		WT_CHECK(ok, "a pipe-mode file written to %s", path);
		WT_EQ(wult_pd_open(path, 0, &pd, err, sizeof(err)), 0);
		WT_EQ(wult_pd_is_pipe(pd), 1);
		/* The features arrive with the stream (here all of it). */
		while (wult_pd_next(pd, &ev) > 0)
			;
		wult_dpdec_new(&dp);
		wult_dpdec_load_pd(dp, pd, err, sizeof(err));
		WT_EQ(wult_dpdec_name_states(dp, pd, 0),
		      synthetic ? WULT_DPDEC_NAMES_DEFAULT : WULT_DPDEC_NAMES_FILE);
		memset(&pt, 0, sizeof(pt));
		WT_EQ(wult_dpdec_decode(dp, &s, &pt), 0);
		WT_CHECK(pt.v[WULT_M_REQ_CSTATE].str &&
			 !strcmp(pt.v[WULT_M_REQ_CSTATE].str, synthetic ? "state2" : "C3"),
			 "pipe mode, %s description: name %s", synthetic ? "synthetic" : "real",
			 pt.v[WULT_M_REQ_CSTATE].str);
		wult_dpdec_free(dp);
		wult_pd_close(pd);
	}
	/* Live data: this machine's names, where it has cpuidle. */
	sysfs = !access("/sys/devices/system/cpu/cpu0/cpuidle/state0/name", R_OK);
	wult_dpdec_new(&dp);
	WT_EQ(wult_dpdec_name_states(dp, NULL, 0),
	      sysfs ? WULT_DPDEC_NAMES_SYSFS : WULT_DPDEC_NAMES_DEFAULT);
	wult_dpdec_free(dp);
	unlink(path);
}

/* The same stamps every run. */
static uint64_t comp_rng = 0x9e3779b97f4a7c15ULL;

static uint64_t comp_next(void)
{
	return wt_xorshift(&comp_rng);
}

/* A format the fast path does not take (no ldist field), for the generic one. */
static int load_generic(struct wult_dpdec *dp)
{
	const char *full = wult_dpdec_builtin_format(), *ld = strstr(full, "\tfield:u64 ldist;");
	const char *nl = ld ? strchr(ld, '\n') : NULL;
	char fmt[8192], err[256];

	if (!nl)
		return -1;
	snprintf(fmt, sizeof(fmt), "%.*s%s", (int)(ld - full), full, nl + 1);
	return wult_dpdec_load_format(dp, fmt, strlen(fmt), err, sizeof(err));
}

/*
 * The fast path's multiply-and-shift division at its edges: tsc_khz from 1
 * to 2^32 - 1 (powers of two and their neighbours, the widest), overheads
 * at multiples of tsc_khz and one off, and about the last value it takes
 * (cycles * 1e6 < 2^53), against comp.h's division.
 */
static void comp_edges(struct wult_dpdec *fast)
{
	static const uint32_t khz[] = {
		1, 2, 3, 7, 1000, 1024, 1025, 999999, 1000000, 2000000, 2100000,
		2999999, 4194304, 4194305, 2147483647, 2147483648U, 4294967295U,
	};
	static const uint64_t cyc[] = {
		0, 1, 2, 999, 1000, 1001, 123456789, 9007199253, 9007199254,
		9007199255, 9007199256, 1ULL << 33,
	};
	const unsigned int NKHZ = sizeof(khz) / sizeof(khz[0]);
	const unsigned int NCYC = sizeof(cyc) / sizeof(cyc[0]);
	unsigned int i, j, k, bad = 0, n = 0;
	uint8_t raw[256];
	struct wult_point pt;
	struct wult_dp d;
	int64_t wake, intr, c;

	for (i = 0; i < NKHZ; i++) {
		for (j = 0; j < NCYC + 3; j++) {
			for (k = 0; k < 3; k++, n++) {
				/* multiples of khz and their neighbours too */
				c = j < NCYC ? (int64_t)cyc[j] :
				    (int64_t)khz[i] * (int64_t)((j - NCYC) * 2 + 1);
				c += (int64_t)k - 1;
				if (c < 0)
					c = 0;
				memset(&d, 0, sizeof(d));
				d.ltime = 1ULL << 50;
				d.tai = d.ltime + 5000000;
				d.tintr = d.ltime + 6000000;
				d.tsc_khz = khz[i];
				d.intr_ts1 = 1000;
				d.intr_ts2 = 1000 + (uint64_t)c;
				payload(&d, raw);
				wake = 5000000;
				intr = 6000000;
				wult_comp_latencies(0, wult_comp_cyc2ns(c, khz[i]), &wake, &intr);
				if (wult_dpdec_decode_raw(fast, raw, sizeof(d) + WULT_DP_HDR_SIZE,
							  &pt) ||
				    pt.v[WULT_M_WAKE_LATENCY].num != (double)wake) {
					if (bad++ < 5)
						printf("# khz %u cycles %lld: %.0f, want %lld\n",
						       khz[i], (long long)c,
						       pt.v[WULT_M_WAKE_LATENCY].num,
						       (long long)wake);
				}
			}
		}
	}
	WT_CHECK(bad == 0, "%u of %u edge overheads decode as comp.h divides", n - bad, n);
}

/*
 * Both decoding paths compensate as wult/comp.h says, to the ns: 200,000
 * random datapoints (IntrOff 0 or 1, overheads up to 2^24 cycles and a few
 * negative ones, tsc_khz from 100 MHz to 5 GHz), and comp.h's rounding
 * against a plain floor.
 */
static void comp_rules(void)
{
	struct wult_dpdec *fast, *gen;
	struct wult_point pf, pg;
	int64_t wake, intr, ovh;
	unsigned int i, bad_f = 0, bad_g = 0;
	uint8_t raw[256];
	struct wult_dp d;

	WT_EQ(wult_comp_cyc2ns(3000, 2000000), 1500);
	WT_EQ(wult_comp_cyc2ns(2999, 2000000), 1499);
	WT_EQ(wult_comp_cyc2ns(-1, 2000000), -1);	/* floored, as python's // */
	WT_EQ(wult_comp_cyc2ns(-3000, 2000000), -1500);
	WT_EQ(wult_comp_cyc2ns(12345, 0), 0);
	WT_CHECK(!wult_dpdec_new(&fast) && !wult_dpdec_new(&gen), "new");
	WT_EQ(wult_dpdec_load_format(fast, wult_dpdec_builtin_format(),
				     strlen(wult_dpdec_builtin_format()), NULL, 0), 0);
	WT_EQ(load_generic(gen), 0);
	for (i = 0; i < 200000; i++) {
		memset(&d, 0, sizeof(d));
		d.ltime = 1000000000 + comp_next() % 1000000;
		d.tai = d.ltime + comp_next() % 500000;
		d.tintr = d.ltime + comp_next() % 500000;
		d.intr_off = comp_next() & 1;
		d.tsc_khz = 100000 + comp_next() % 4900000;
		d.ai_ts1 = comp_next() >> 8;
		d.ai_ts2 = d.ai_ts1 + (comp_next() % (1U << 24)) - (i % 97 == 0 ? 1U << 20 : 0);
		d.intr_ts1 = comp_next() >> 8;
		d.intr_ts2 = d.intr_ts1 + (comp_next() % (1U << 24));
		payload(&d, raw);
		wake = (int64_t)(d.tai - d.ltime);
		intr = (int64_t)(d.tintr - d.ltime);
		ovh = wult_comp_overhead(d.intr_off, d.ai_ts1, d.ai_ts2, d.intr_ts1, d.intr_ts2,
					 d.tsc_khz);
		wult_comp_latencies(d.intr_off, ovh, &wake, &intr);
		if (wult_dpdec_decode_raw(fast, raw, sizeof(d) + WULT_DP_HDR_SIZE, &pf) ||
		    pf.v[WULT_M_WAKE_LATENCY].num != wake || pf.v[WULT_M_INTR_LATENCY].num != intr)
			bad_f++;
		if (wult_dpdec_decode_raw(gen, raw, sizeof(d) + WULT_DP_HDR_SIZE, &pg) ||
		    pg.v[WULT_M_WAKE_LATENCY].num != wake || pg.v[WULT_M_INTR_LATENCY].num != intr)
			bad_g++;
	}
	WT_EQ(bad_f, 0);
	WT_EQ(bad_g, 0);
	comp_edges(fast);
	wult_dpdec_free(fast);
	wult_dpdec_free(gen);
}

int main(void)
{
	comp_rules();
	metrics();
	bad_formats();
	synth_roundtrip();
	raws_batch();
	counters();
	mux_changing();
	format_metrics();
	state_names();
	not_wult();
	return wt_done();
}
