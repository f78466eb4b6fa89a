// SPDX-License-Identifier: GPL-2.0
/*
 * Files recorded by the real perf and wult record in a Debian 6.1 guest
 * with wult.ko (tests/data/wult_*.data, LDist 20-40 ms, CPU 1) decode
 * through libwult with consistent fields:
 *   wult_pmu_group.data  perf record -R -e '{wult/datapoints,.../,msr/tsc/}:S'
 *   wult_tp.data         perf record -e wult/datapoints,.../ -e wult:datapoint
 *   wult_record.data     wult record -c 30 -e cpu-clock
 * The group file has no TRACING_DATA; it decodes with the format file the
 * module had in tracefs (wult_datapoint.kernel.format). Without -R perf
 * records a payload for the tracepoint only.
 */
#include <errno.h>
#include <stdlib.h>

#include <wult/dpdec.h>
#include <wult/perfdata.h>
#include "wt.h"
#include "wt_data.h"

#define MAX_DP	1024

struct seen {
	unsigned int n, bad;
	unsigned int pmu_samples;	/* samples of a wult/.../ event, payload or not */
	double ltime[MAX_DP];
	char state[32];		/* the decoder owns its strings: a copy */
};

static void check_point(const char *what, const struct wult_point *pt, struct seen *s)
{
	const struct wult_val *v = pt->v;
	double lt = v[WULT_M_LTIME].num;
	int ok;

	ok = lt > v[WULT_M_TBI].num && v[WULT_M_TAI].num >= lt && v[WULT_M_TINTR].num >= lt &&
	     v[WULT_M_LDIST].num >= 20e6 && v[WULT_M_LDIST].num <= 40e6 &&
	     v[WULT_M_CPU].num == 1 &&
	     v[WULT_M_WAKE_LATENCY_RAW].num == v[WULT_M_TAI].num - lt &&
	     v[WULT_M_INTR_LATENCY_RAW].num == v[WULT_M_TINTR].num - lt &&
	     v[WULT_M_SILENT_TIME].num == lt - v[WULT_M_TBI].num;
	if (!ok && s->bad++ < 3)
		printf("%s: inconsistent datapoint at LTime %.0f\n", what, lt);
	if (s->n < MAX_DP)
		s->ltime[s->n] = lt;
	snprintf(s->state, sizeof(s->state), "%s", v[WULT_M_REQ_CSTATE].str);
	s->n++;
}

/* Decodes the wult samples of @name: the tracepoint's if @want_tp, else
 * the PMU's. */
static int decode_file(const char *name, const char *format, int want_tp,
		       struct seen *s)
{
	char path[512], fpath[512], err[256];
	struct wult_pd_event ev;
	struct wult_dpdec *dp;
	struct wult_point pt;
	struct wult_pd *pd;
	int ret;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/%s", wt_data_dir(), name);
	ret = wult_pd_open(path, 0, &pd, err, sizeof(err));
	WT_CHECK(ret == 0, "%s: %s", name, err);
	if (ret)
		return ret;
	WT_EQ(wult_dpdec_new(&dp), 0);
	ret = wult_dpdec_load_pd(dp, pd, err, sizeof(err));
	if (format) {
		WT_EQ(ret, -ENOENT);	/* PMU-only recordings carry no format */
		snprintf(fpath, sizeof(fpath), "%s/%s", wt_data_dir(), format);
		ret = wult_dpdec_load_format_file(dp, fpath, err, sizeof(err));
	}
	WT_CHECK(ret == 0, "%s: format: %s", name, err);
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		const char *an;
		int is_tp;

		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		an = ev.sample.attr ? ev.sample.attr->name : NULL;
		if (an && !strncmp(an, "wult/", 5))
			s->pmu_samples++;
		if (!wult_dpdec_is_wult(dp, &ev.sample))
			continue;
		is_tp = an && !strcmp(an, "wult:datapoint");
		if (is_tp != want_tp)
			continue;
		WT_CHECK(!wult_dpdec_decode(dp, &ev.sample, &pt), "%s: decode", name);
		check_point(name, &pt, s);
	}
	WT_CHECK(ret == 0, "%s: %s", name, wult_pd_error(pd));
	wult_dpdec_free(dp);
	wult_pd_close(pd);
	return 0;
}

int main(void)
{
	static struct seen a, b;
	unsigned int i, rising = 0;

	decode_file("wult_pmu_group.data", "wult_datapoint.kernel.format", 0, &a);
	WT_CHECK(a.n >= 20, "group file datapoints: %u", a.n);
	WT_EQ(a.bad, 0);

	/*
	 * Without -R perf records the payload of the tracepoint only: its
	 * records decode, one per PMU sample (the same datapoints).
	 */
	decode_file("wult_tp.data", NULL, 1, &b);
	WT_CHECK(b.n >= 20, "tracepoint datapoints: %u", b.n);
	WT_EQ(b.bad, 0);
	WT_EQ(b.pmu_samples, b.n);

	/* One CPU's datapoints come in order: LTime grows with every one. */
	decode_file("wult_pmu_group.data", "wult_datapoint.kernel.format", 0, &a);
	for (i = 1; i < a.n && i < MAX_DP; i++)
		if (a.ltime[i] > a.ltime[i - 1])
			rising++;
	WT_EQ(rising, a.n - 1);

	decode_file("wult_record.data", NULL, 0, &a);
	WT_EQ(a.n, 30);
	WT_EQ(a.bad, 0);
	WT_CHECK(!strcmp(a.state, "C1"), "state name from the file: %s", a.state);
	return wt_done();
}
