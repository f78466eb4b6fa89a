// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic datapoints and the perf.data writer for them.
 *
 * The file is what `perf record -e wult:datapoint` would write: one
 * tracepoint attr (config = the format's ID) sampling IDENTIFIER, TID,
 * TIME, CPU and RAW, the format in TRACING_DATA, and the features perf
 * report --header-only shows. Writing goes through stdio in one pass; the
 * header is rewritten at the end with the data size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perf/event.h>
#include <wult/dpdec.h>
#include <wult/pdwrite.h>
#include <wult/synth.h>
#include <wult/sysinfo.h>
#include "internal/err.h"

#define FORMAT_ID	1500
#define SAMPLE_ID	1
#define ATTR_SIZE	PERF_ATTR_SIZE_VER7	/* what perf 6.1 writes */
#define SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

struct wult_synth {
	struct wult_synth_opts o;
	uint64_t rng, n, now;
	uint32_t *seq;
};


void wult_synth_defaults(struct wult_synth_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->count = 1000;
	o->seed = 1;
	o->ncpus = 1;
	o->ncstates = 3;
	o->tsc_khz = 2000000;
	o->wake_min = 1000;
	o->wake_max = 20000;
	o->tail_frac = 0.001;
	o->tail_max = 500000;
	o->ldist_min = 1000;
	o->ldist_max = 4000000;
	o->round = 1000;
}

int wult_synth_new(const struct wult_synth_opts *o, struct wult_synth **out)
{
	struct wult_synth *g;

	*out = NULL;
	if (!o->ncpus || o->ncpus > 4096 || !o->ncstates || !o->tsc_khz ||
	    o->wake_min > o->wake_max || o->ldist_min > o->ldist_max ||
	    o->tail_frac < 0 || o->tail_frac > 1 || o->source >= WULT_SOURCE_MAX)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->seq = calloc(o->ncpus, sizeof(*g->seq));
	if (!g->seq) {
		free(g);
		return -ENOMEM;
	}
	g->o = *o;
	g->rng = o->seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	g->now = 1000000000ULL;	/* 1 s of uptime */
	*out = g;
	return 0;
}

void wult_synth_free(struct wult_synth *g)
{
	if (!g)
		return;
	free(g->seq);
	free(g);
}

static uint64_t rnd(struct wult_synth *g)
{
	/* xorshift64*: fast, and the same sequence for a seed everywhere */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t uniform(struct wult_synth *g, uint64_t lo, uint64_t hi)
{
	return lo + rnd(g) % (hi - lo + 1);
}

void wult_synth_next(struct wult_synth *g, struct wult_dp *dp)
{
	const struct wult_synth_opts *o = &g->o;
	uint64_t wake, ldist, silent, ovh_ai, ovh_intr, gap, tsc;

	memset(dp, 0, sizeof(*dp));
	dp->cpu = g->n % o->ncpus;
	ldist = uniform(g, o->ldist_min, o->ldist_max);
	if (o->tail_frac > 0 && (double)(rnd(g) >> 11) / (1ULL << 53) < o->tail_frac)
		wake = uniform(g, o->wake_max, o->tail_max > o->wake_max ? o->tail_max : o->wake_max);
	else
		wake = uniform(g, o->wake_min, o->wake_max);
	/* The CPU went idle somewhere in the first half of the distance. */
	silent = ldist / 2 + uniform(g, 0, ldist / 2);
	g->now += ldist + 10000;
	dp->ldist = ldist;
	dp->ltime = g->now;
	dp->tbi = dp->ltime - silent;
	dp->tai = dp->ltime + wake;
	dp->intr_off = rnd(g) & 1;
	ovh_ai = uniform(g, 200, 600);		/* cycles */
	ovh_intr = uniform(g, 300, 900);
	gap = uniform(g, 50, 3000);		/* ns between TAI and TIntr */
	dp->tintr = dp->intr_off ? dp->tai + gap : dp->tai - (gap < wake ? gap : wake / 2);
	tsc = (dp->tai - dp->tbi) * (uint64_t)o->tsc_khz / 1000000;
	dp->ai_ts1 = tsc * 7 + 12345;
	dp->ai_ts2 = dp->ai_ts1 + ovh_ai;
	dp->intr_ts1 = dp->ai_ts1 + 5000;
	dp->intr_ts2 = dp->intr_ts1 + ovh_intr;
	dp->tsc_delta = tsc;
	dp->mperf_delta = tsc / 100 * uniform(g, 0, 5);	/* 0-5% in C0 */
	dp->req_cstate = uniform(g, 0, o->ncstates - 1);
	/* A state's own wake cost (a method comparison's pre-wake): after
	 * every draw, so that files without one stay as they were. */
	if (dp->req_cstate < WULT_SYNTH_MAX_OFFSETS) {
		dp->tai += o->state_offset[dp->req_cstate];
		dp->tintr += o->state_offset[dp->req_cstate];
	}
	dp->source = o->source;
	dp->flags = WULT_DPF_MPERF | WULT_DPF_SMI | WULT_DPF_NMI;
	dp->smi_cnt = 0;
	dp->nmi_cnt = (rnd(g) % 1000) == 0;
	dp->tsc_khz = o->tsc_khz;
	dp->seq = g->seq[dp->cpu]++;
	dp->wake_latency = dp->tai - dp->ltime;
	dp->intr_latency = dp->tintr - dp->ltime;
	g->n++;
}

/* ---- perf.data output, through the shared writer ---- */

static void make_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_TRACEPOINT;
	a->size = ATTR_SIZE;
	a->config = FORMAT_ID;
	a->sample_period = 1;
	a->sample_type = SAMPLE_TYPE;
	a->read_format = PERF_FORMAT_ID;
	a->sample_id_all = 1;
	a->disabled = 1;
}

/* A plausible description of a machine, marked synthetic: its declared
 * latencies give wult report's declared-against-measured figures to test. */
static int set_sysdesc(struct wult_pdw *w, const struct wult_synth_opts *o)
{
	struct wult_sysdesc *sd = NULL;
	char *text = NULL;
	int ret = wult_sysdesc_new(&sd);

	ret = ret ?: wult_sysinfo_synthetic(sd, o->ncpus, o->ncstates);
	ret = ret ?: wult_sysdesc_format(sd, &text);
	ret = ret ?: wult_pdw_set_sysdesc(w, text);
	free(text);
	wult_sysdesc_free(sd);
	return ret;
}

/* The requested states' names, as wult record stores a machine's, on every CPU. */
static int add_cstate_names(struct wult_pdw *w, const struct wult_synth_opts *o)
{
	const char *p = o->cstate_names, *end;
	char name[64];
	unsigned int cpu, idx;

	for (idx = 0; p && *p; idx++, p = *end ? end + 1 : end) {
		end = p + strcspn(p, ",");
		snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
		for (cpu = 0; cpu < o->ncpus; cpu++)
			if (wult_pdw_add_cstate(w, cpu, idx, name))
				return -ENOMEM;
	}
	return 0;
}

int wult_synth_write(const struct wult_synth_opts *opts, const char *path,
		     char *err, size_t errlen)
{
	char *argv[] = { "wult", "synth" };
	struct perf_event_attr attr;
	struct wult_synth *g;
	struct wult_pdw *w;
	uint64_t i;
	int ret, idx;

	ret = wult_synth_new(opts, &g);
	if (ret)
		return wult_err_set(err, errlen, ret, "bad synthetic data options");
	ret = wult_pdw_open(path, &w, err, errlen);
	if (ret) {
		wult_synth_free(g);
		return ret;
	}
	make_attr(&attr);
	idx = wult_pdw_add_attr(w, &attr, "wult:datapoint");
	if (idx < 0 || wult_pdw_add_id(w, idx, SAMPLE_ID) ||
	    wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format()) ||
	    wult_pdw_set_str(w, WULT_PDW_HOSTNAME, "wult-synth") ||
	    wult_pdw_set_str(w, WULT_PDW_OSRELEASE, "synthetic") ||
	    wult_pdw_set_str(w, WULT_PDW_VERSION, "6.1") ||
	    wult_pdw_set_str(w, WULT_PDW_ARCH, "x86_64") ||
	    wult_pdw_set_nrcpus(w, opts->ncpus, opts->ncpus) ||
	    wult_pdw_set_cmdline(w, 2, argv) || set_sysdesc(w, opts) ||
	    add_cstate_names(w, opts))
		ret = -ENOMEM;
	for (i = 0; !ret && i < opts->count; i++) {
		struct {
			struct perf_event_header h;
			uint64_t id;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t period;
			uint32_t raw_size;
			uint8_t raw[WULT_DP_HDR_SIZE + sizeof(struct wult_dp) + 4];
		} __attribute__((packed)) rec;
		struct wult_dp dp;
		uint16_t type = FORMAT_ID;

		_Static_assert(sizeof(rec) % 8 == 0, "sample records are u64-aligned");
		wult_synth_next(g, &dp);
		memset(&rec, 0, sizeof(rec));
		rec.h.type = PERF_RECORD_SAMPLE;
		rec.h.misc = PERF_RECORD_MISC_KERNEL;
		rec.h.size = sizeof(rec);
		rec.id = SAMPLE_ID;
		rec.time = dp.tintr;	/* the sample is taken in the timer handler */
		rec.cpu = dp.cpu;
		rec.period = 1;
		/* u32 size + data is u64-aligned: the data carries 4 pad bytes */
		rec.raw_size = sizeof(rec.raw);
		memcpy(rec.raw, &type, 2);
		memcpy(rec.raw + WULT_DP_HDR_SIZE, &dp, sizeof(dp));
		ret = wult_pdw_write(w, &rec, sizeof(rec));
		if (!ret && opts->round && (i + 1) % opts->round == 0) {
			struct perf_event_header fr = { PERF_RECORD_FINISHED_ROUND, 0, 8 };

			ret = wult_pdw_write(w, &fr, sizeof(fr));
		}
	}
	wult_synth_free(g);
	if (ret) {
		wult_pdw_close(w, NULL, 0);
		return wult_err_set(err, errlen, ret, "%s: write failed", path);
	}
	return wult_pdw_close(w, err, errlen);
}
