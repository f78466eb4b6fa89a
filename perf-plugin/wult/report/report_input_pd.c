// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's perf.data input, a file or a pipe (stdin): from wult
 * record, from `perf record -R -e wult/datapoints/` or from `perf record
 * -e wult:datapoint`. One of the input kinds of report_input.h.
 *
 * Samples are decoded through the wult:datapoint format, taken from the
 * first of: the file's TRACING_DATA (the recording's own layout), --format,
 * tracefs (the module loaded now), the layout built into this binary. The
 * decoder is set up at the first sample because in pipe mode attrs, event
 * names and tracing data arrive in the stream before it. Besides the
 * datapoints: the branch contexts (attached to their datapoint) and wult.ko's
 * idle accounting (report_resid.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/wult.h>
#include <wult/dpdec.h>

#include "report_input_kind.h"
#include "report_resid.h"
#include "report_view.h"

struct pending_br {
	int valid;
	struct wult_branches br;
};

#define MAX_BR_CPUS	8192

struct src_pd {
	struct rpt_src s;
	struct wult_pd *pd;
	struct wult_dpdec *dp;
	int dp_ready;
	long fmt_id;			/* tracepoint id, when the format is the file's */
	char fmt_desc[160];
	char fmt_warn[512];
	const struct wult_pd_attr *c_attr;	/* attr classification cache */
	unsigned int c_nattrs;
	int c_wult;
	int c_checked;			/* the attr passed wult_dpdec_is_wult() */
	uint64_t samples, undecodable, other, lost, lost_records;
	/* Branch contexts waiting for their datapoint, by CPU. */
	struct pending_br *br;
	unsigned int nbr;
	uint64_t br_read, br_bad, br_matched;
	const struct wult_branches *br_last;	/* attached to the last point */
	/* Idle residency: the accounting members' ids, learnt per attr set. */
	struct rpt_resid *resid;
	unsigned int resid_nattrs;
};

static struct src_pd *pd_of(struct rpt_src *s)
{
	return (struct src_pd *)s;
}

static const struct src_pd *cpd_of(const struct rpt_src *s)
{
	return (const struct src_pd *)s;
}

/* wult_pd_open()'s "not a perf.data" said as what to give instead. */
static void not_perf_data(char *err, size_t errlen)
{
	char why[256];

	if (!strstr(err, "not a perf.data") && !strstr(err, "header truncated"))
		return;
	snprintf(why, sizeof(why), "%s", err);
	snprintf(err, errlen, "not a perf.data file (%s): give a perf.data from wult "
		 "record or perf record, or an intel wult result directory", why);
}

/* @flags: wult_pd_open()'s. */
static int pd_open_flags(struct rpt_src *src, int flags, char *err, size_t errlen)
{
	struct src_pd *s = pd_of(src);
	int ret;

	s->fmt_id = -1;
	ret = wult_pd_open(src->path, flags, &s->pd, err, errlen);
	if (ret == -EINVAL)
		not_perf_data(err, errlen);
	if (ret)
		return ret;
	ret = wult_dpdec_new(&s->dp);
	if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

/* A perf.data file: the data mapped ahead in a thread of its own (the
 * reading thread, report_pipe.c, bounds a pass). */
static int pd_open(struct rpt_src *src, char *err, size_t errlen)
{
	return pd_open_flags(src, src->o->threads ? WULT_PD_PREFETCH : 0, err, errlen);
}

/* Standard input, in perf's pipe mode. */
static int pipe_open(struct rpt_src *src, char *err, size_t errlen)
{
	if (isatty(0)) {
		snprintf(err, errlen, "stdin is a terminal: pipe a perf.data into it, "
			 "e.g. perf record -o - ... | wult report -");
		return -EINVAL;
	}
	return pd_open_flags(src, 0, err, errlen);
}

/* The "ID: N" line of the file's own wult:datapoint format, or -1. */
static long file_format_id(const struct wult_pd *pd)
{
	const char *sys, *text, *p;
	unsigned int i;
	size_t len;

	for (i = 0; i < wult_pd_nr_formats(pd); i++) {
		if (wult_pd_format(pd, i, &sys, &text, &len) || strcmp(sys, "wult") ||
		    !strstr(text, "name: datapoint\n"))
			continue;
		p = strstr(text, "\nID: ");
		return p ? strtol(p + 5, NULL, 10) : -1;
	}
	return -1;
}

/* Names requested-state indexes: --cstates, else libwult's one rule
 * (wult_dpdec_name_states(): the file's names, this machine's when
 * recorded here, the defaults). */
static int load_cstate_names(struct src_pd *s)
{
	const char *names[64];
	char *copy, *tok, *save = NULL;
	unsigned int n = 0;
	int ret;

	if (s->s.o->cstate_names) {
		copy = strdup(s->s.o->cstate_names);
		if (!copy)
			return -ENOMEM;
		for (tok = strtok_r(copy, ",", &save); tok && n < 64;
		     tok = strtok_r(NULL, ",", &save))
			names[n++] = tok;
		ret = wult_dpdec_set_cstate_names(s->dp, names, n);
		free(copy);
		return ret;
	}
	wult_dpdec_name_states(s->dp, s->pd, 0);
	return 0;
}

static int load_decoder(struct src_pd *s);

static int setup_decoder(struct src_pd *s)
{
	int ret = load_decoder(s);

	return ret ?: rpt_src_check_metrics(&s->s, wult_dpdec_metrics(s->dp, 1), 1);
}

static int load_decoder(struct src_pd *s)
{
	char err[512];
	const char *fmt;
	int ret;

	s->dp_ready = 1;
	/* Also registers the counters of the file's named attrs (EVENT_DESC). */
	ret = wult_dpdec_load_pd(s->dp, s->pd, err, sizeof(err));
	if (!ret) {
		s->fmt_id = file_format_id(s->pd);
		snprintf(s->fmt_desc, sizeof(s->fmt_desc), "the file's TRACING_DATA");
		return load_cstate_names(s);
	}
	if (ret != -ENOENT) {
		rpt_src_err(&s->s, "%s (the file's TRACING_DATA)", err);
		return ret;
	}
	/* An explicit --format beats tracefs, which describes whatever module
	 * is loaded now rather than the one that recorded. */
	if (s->s.o->format_path) {
		ret = wult_dpdec_load_format_file(s->dp, s->s.o->format_path, err, sizeof(err));
		if (ret) {
			rpt_src_err(&s->s, "--format: %s", err);
			return ret;
		}
		snprintf(s->fmt_desc, sizeof(s->fmt_desc), "%s (--format)", s->s.o->format_path);
		return load_cstate_names(s);
	}
	if (!access(WULT_DP_FORMAT_PATH, R_OK) &&
	    !wult_dpdec_load_format_file(s->dp, WULT_DP_FORMAT_PATH, err, sizeof(err))) {
		snprintf(s->fmt_desc, sizeof(s->fmt_desc), "%s", WULT_DP_FORMAT_PATH);
		return load_cstate_names(s);
	}
	fmt = wult_dpdec_builtin_format();
	ret = wult_dpdec_load_format(s->dp, fmt, strlen(fmt), err, sizeof(err));
	if (ret) {
		rpt_src_err(&s->s, "built-in format: %s", err);
		return ret;
	}
	snprintf(s->fmt_desc, sizeof(s->fmt_desc), "built in (payload version %d)",
		 WULT_DP_VERSION);
	snprintf(s->fmt_warn, sizeof(s->fmt_warn),
		 "no wult:datapoint format in the file or in tracefs: decoding with the "
		 "built-in payload version %d (give --format FILE if the recording module "
		 "differs)", WULT_DP_VERSION);
	return load_cstate_names(s);
}

/* A format without fields wult decodes (e.g. intr_off) changes metrics. */
static void warn_missing_fields(struct src_pd *s)
{
	char list[256];
	size_t at = strlen(s->fmt_warn);

	if (!wult_dpdec_missing_fields(s->dp, list, sizeof(list)))
		return;
	snprintf(s->fmt_warn + at, sizeof(s->fmt_warn) - at, "%sthe wult:datapoint format "
		 "lacks %s: metrics that need them are missing", at ? "; " : "", list);
	fprintf(stderr, "wult report: %s: warning: the wult:datapoint format lacks %s: "
		"metrics that need them are missing\n", s->s.path, list);
}

#define KIND_OTHER_PMU	(-1)
#define KIND_UNKNOWN	(-2)

/*
 * The wult kind (enum wult_kind) of a non-tracepoint attr of the "wult"
 * PMU, told by its PMU mapping or else its event name; KIND_OTHER_PMU for
 * other events; KIND_UNKNOWN for a dynamic PMU with neither.
 */
static int pmu_kind(const struct src_pd *s, const struct wult_pd_attr *a)
{
	const char *pmu = wult_pd_pmu_name(s->pd, a->attr.type);
	int is_wult;

	if (pmu)
		is_wult = !strcmp(pmu, "wult");
	else if (a->name)
		is_wult = !strncmp(a->name, "wult/", 5);
	else
		return a->attr.type >= PERF_TYPE_MAX ? KIND_UNKNOWN : KIND_OTHER_PMU;
	if (!is_wult)
		return KIND_OTHER_PMU;
	return (int)wult_cfg_kind(a->attr.config);
}

/*
 * 1 if samples of @a are wult datapoints, 0 if not, -1 when only the payload
 * can tell (no event name, no PMU mapping): a tracepoint's config is its id,
 * a PMU's type is mapped to its name in PMU_MAPPINGS.
 */
static int classify_attr(const struct src_pd *s, const struct wult_pd_attr *a)
{
	int kind;

	if (!(a->attr.sample_type & PERF_SAMPLE_RAW))
		return 0;
	if (a->attr.type == PERF_TYPE_TRACEPOINT) {
		if (s->fmt_id >= 0)
			return a->attr.config == (uint64_t)s->fmt_id;
		if (a->name)
			return !strcmp(a->name, "wult:datapoint");
		return -1;
	}
	kind = pmu_kind(s, a);
	if (kind == KIND_UNKNOWN)
		return -1;
	/* A latency-band event samples the datapoints in its band. */
	return kind == WULT_KIND_DATAPOINTS || kind == WULT_KIND_WAKE_BAND ||
	       kind == WULT_KIND_INTR_BAND;
}

/* Are samples of @a branch contexts: wult/branches/ or wult:wake_branches? */
static int is_branches_attr(const struct src_pd *s, const struct wult_pd_attr *a)
{
	if (!(a->attr.sample_type & PERF_SAMPLE_RAW))
		return 0;
	if (a->attr.type == PERF_TYPE_TRACEPOINT)
		return a->name && !strcmp(a->name, "wult:wake_branches");
	return pmu_kind(s, a) == WULT_KIND_BRANCHES;
}

/* Keeps a branch context until its datapoint, which follows on its CPU. */
static int keep_branches(struct src_pd *s, const struct wult_pd_sample *smp)
{
	struct wult_branches br;

	if (wult_br_decode(smp->raw, smp->raw_size, &br) || br.cpu >= MAX_BR_CPUS) {
		s->br_bad++;
		return 0;
	}
	s->br_read++;
	if (br.cpu >= s->nbr) {
		unsigned int n = br.cpu + 1;
		struct pending_br *p = realloc(s->br, n * sizeof(*p));

		if (!p) {
			rpt_src_err(&s->s, "out of memory");
			return -ENOMEM;
		}
		memset(p + s->nbr, 0, (n - s->nbr) * sizeof(*p));
		s->br = p;
		s->nbr = n;
	}
	s->br[br.cpu].valid = 1;
	s->br[br.cpu].br = br;
	return 0;
}

/* Attaches the pending branch context of @pt's CPU if it is @pt's. */
static void attach_branches(struct src_pd *s, const struct wult_point *pt)
{
	double cpu = pt->v[WULT_M_CPU].num, ltime = pt->v[WULT_M_LTIME].num;
	struct pending_br *p;

	s->br_last = NULL;
	if (!s->nbr || isnan(cpu) || cpu < 0 || cpu >= s->nbr)
		return;
	p = &s->br[(unsigned int)cpu];
	if (p->valid && (double)p->br.ltime == ltime) {
		p->valid = 0;
		s->br_last = &p->br;
		s->br_matched++;
	}
}

static const struct wult_branches *pd_branches(const struct rpt_src *src)
{
	return cpd_of(src)->br_last;
}

/*
 * The ids of wult.ko's idle accounting members (wult record adds them to
 * its group), learnt again whenever a pipe brings attrs; the states named
 * as the datapoints are. 0 or -ENOMEM.
 */
static int resid_scan(struct src_pd *s, unsigned int n)
{
	unsigned int i, j, k, state;
	const struct wult_pd_attr *a;
	int kind;

	s->resid_nattrs = n;
	for (i = 0; i < n; i++) {
		a = wult_pd_attr(s->pd, i);
		kind = pmu_kind(s, a);
		if (kind < 0 || !rpt_resid_kind(kind))
			continue;
		if (!s->resid) {
			if (rpt_resid_new(&s->resid))
				return -ENOMEM;
			for (k = 0; k < WULT_IDLE_STATES; k++)
				rpt_resid_name(s->resid, k, wult_dpdec_cstate_name(s->dp, k));
		}
		state = wult_cfg_state(a->attr.config);
		for (j = 0; j < a->nr_ids; j++)
			rpt_resid_add_id(s->resid, a->ids[j], kind, state);
	}
	return 0;
}

static inline int resid_learn(struct src_pd *s, unsigned int n)
{
	return n == s->resid_nattrs ? 0 : resid_scan(s, n);
}

static struct rpt_resid *pd_take_resid(struct rpt_src *src)
{
	struct src_pd *s = pd_of(src);
	struct rpt_resid *r = s->resid;

	if (!rpt_resid_any(r))
		return NULL;
	s->resid = NULL;
	return r;
}

/* What pd_next_some() asks for: the metrics of set into out[], the name. */
struct some {
	uint64_t set;
	double *out;
	const char **state;
};

/*
 * A wult sample into @pt, or with @w into w->out only, where the decoder's
 * short path applies: not for the first datapoint (its CPU is kept) nor
 * once branch contexts came (they attach by CPU and LTime).
 */
static inline __attribute__((always_inline)) int
decode_one(struct src_pd *s, const struct wult_pd_sample *smp, struct wult_point *pt,
	   const struct some *w)
{
	unsigned int i;
	uint64_t set;
	int ret;

	if (w && !s->nbr && s->s.cpu >= 0) {
		ret = wult_dpdec_decode_set(s->dp, smp, w->set, w->out, w->state);
		if (ret != -EAGAIN)
			return ret;
	}
	ret = wult_dpdec_decode(s->dp, smp, pt);
	if (ret)
		return ret;
	if (s->s.cpu < 0 && pt->v[WULT_M_CPU].num >= 0)
		s->s.cpu = (int)pt->v[WULT_M_CPU].num;
	attach_branches(s, pt);
	for (set = w ? w->set : 0, i = 0; set; set &= set - 1)
		w->out[i++] = pt->v[__builtin_ctzll(set)].num;
	if (w)
		*w->state = pt->v[WULT_M_REQ_CSTATE].str;
	return 0;
}

/* Inlined into each caller: pd_next_some() calls it per datapoint of a
 * batch, whose frame is then set up once. */
static inline __attribute__((always_inline)) int next_pd(struct src_pd *s, struct wult_point *pt,
							 const struct some *w)
{
	struct wult_pd_event ev;
	unsigned int nattrs;
	int ret, is;

	while ((ret = wult_pd_next(s->pd, &ev)) > 0) {
		if (ev.type == PERF_RECORD_LOST || ev.type == PERF_RECORD_LOST_SAMPLES) {
			s->lost += ev.lost;
			s->lost_records++;
			continue;
		}
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		s->samples++;
		if (!s->dp_ready) {
			ret = setup_decoder(s);
			if (ret)
				return ret;
			warn_missing_fields(s);
		}
		/* Attrs only move when a pipe brings a new one: cache by both. */
		nattrs = wult_pd_nr_attrs(s->pd);
		if (ev.sample.attr != s->c_attr || nattrs != s->c_nattrs) {
			s->c_attr = ev.sample.attr;
			s->c_nattrs = nattrs;
			s->c_wult = classify_attr(s, ev.sample.attr);
			s->c_checked = 0;
		}
		is = s->c_wult < 0 ? wult_dpdec_is_wult(s->dp, &ev.sample) : s->c_wult;
		if (!is) {
			if (!is_branches_attr(s, ev.sample.attr))
				s->other++;
			else if (keep_branches(s, &ev.sample))
				return -ENOMEM;
			continue;
		}
		/*
		 * Decided by the payload: checked already. Once a sample of the
		 * attr passed, the attr's part of the check holds; decoding
		 * checks the rest (the payload's size).
		 */
		if (s->c_wult > 0 && !s->c_checked) {
			if (!wult_dpdec_is_wult(s->dp, &ev.sample)) {
				s->undecodable++;
				continue;
			}
			s->c_checked = 1;
		}
		if (decode_one(s, &ev.sample, pt, w)) {
			s->undecodable++;
			continue;
		}
		if (resid_learn(s, nattrs) ||
		    (s->resid && rpt_resid_sample(s->resid, &ev.sample))) {
			rpt_src_err(&s->s, "out of memory");
			return -ENOMEM;
		}
		s->s.read++;
		return 1;
	}
	if (ret < 0)
		rpt_src_err(&s->s, "%s", wult_pd_error(s->pd));
	return ret;
}

static int pd_next(struct rpt_src *src, struct wult_point *pt)
{
	return next_pd(pd_of(src), pt, NULL);
}

/*
 * Whether the next samples may be taken by their payloads alone
 * (wult_pd_next_raws()): once next_pd() took one, of a file of one attr
 * that it found to be wult's, with no group read, no residency and no
 * branch context to attach, and a format decode_one()'s short path takes.
 */
static int raws_lane(const struct src_pd *s)
{
	return s->dp_ready && s->c_nattrs == 1 && s->c_wult > 0 && s->c_checked &&
	       s->resid_nattrs == 1 && !s->resid && !s->nbr && s->s.cpu >= 0 &&
	       s->c_attr == wult_pd_attr(s->pd, 0) && wult_dpdec_decodes_sets(s->dp);
}

#define RAWS	64	/* payloads taken at once */

static int pd_next_some(struct rpt_src *src, uint64_t set, unsigned int stride, double *out,
			const char **state, unsigned int max, unsigned int *got)
{
	struct some w = { set, out, state };
	struct src_pd *s = pd_of(src);
	const void *raw[RAWS];
	uint32_t size[RAWS];
	struct wult_point pt;
	unsigned int n = 0, k, d;
	int ret = 1;

	while (n < max) {
		k = raws_lane(s) ? wult_pd_next_raws(s->pd, raw, size,
						     max - n < RAWS ? max - n : RAWS) : 0;
		if (k) {
			/* next_pd()'s counts, for what decode_one() takes */
			d = (unsigned int)wult_dpdec_decode_raws(s->dp, raw, size, k, w.set, stride,
								 w.out, w.state);
			s->samples += k;
			s->undecodable += k - d;
			s->s.read += d;
			w.out += (size_t)d * stride;
			w.state += d;
			n += d;
			continue;
		}
		ret = next_pd(s, &pt, &w);
		if (ret <= 0)
			break;
		w.out += stride;
		w.state++;
		n++;
	}
	*got = n;
	return ret;
}

static uint64_t pd_metrics(const struct rpt_src *src)
{
	const struct src_pd *s = cpd_of(src);

	return s->dp_ready ? wult_dpdec_metrics(s->dp, 1) : WULT_METRICS_ALL;
}

static int pd_has_sysdesc(const struct rpt_src *src)
{
	return wult_pd_sysdesc(cpd_of(src)->pd) != NULL;
}

/* The nic method's device: the wult event's "device" term. */
static const char *pd_device(const struct rpt_src *src, char *buf, size_t len)
{
	const struct src_pd *s = cpd_of(src);
	unsigned int i, n;

	n = wult_pd_nr_attrs(s->pd);
	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a = &wult_pd_attr(s->pd, i)->attr;
		const char *pmu = wult_pd_pmu_name(s->pd, a->type);
		uint64_t d = wult_cfg_device(a->config2);
		/* config2 is the source's own: ipi's launcher and flags are no device. */
		uint64_t srcid = wult_cfg_source(a->config);

		if (!pmu || strcmp(pmu, "wult") || srcid != WULT_SOURCE_NIC || !d)
			continue;
		snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned int)(d >> 16),
			 (unsigned int)(d >> 8) & 0xff, (unsigned int)(d >> 3) & 0x1f,
			 (unsigned int)d & 7);
		return buf;
	}
	return NULL;
}

/* Branch addresses are symbolized with this machine's symbols by default. */
static void describe_symbols(const struct src_pd *s, struct rpt_file *f, const char *os)
{
	const struct rpt_opts *o = s->s.o;
	struct utsname u;

	if (!o->branches || !s->br_read || o->kallsyms || o->vmlinux)
		return;
	if (os && !uname(&u) && strcmp(os, u.release))
		rpt_desc_add(f, "warning: recorded on kernel %s, branch addresses are "
			     "symbolized with this machine's (%s): give the recording "
			     "machine's --kallsyms", os, u.release);
}

static int pd_describe(const struct rpt_src *src, struct rpt_file *f)
{
	const struct src_pd *s = cpd_of(src);
	const char *host, *os, *cmd;
	char dev[32];

	rpt_desc_add(f, "perf.data (%s mode)", wult_pd_is_pipe(s->pd) ? "pipe" : "file");
	host = wult_pd_hostname(s->pd);
	os = wult_pd_osrelease(s->pd);
	cmd = wult_pd_cmdline(s->pd);
	if (host || os)
		rpt_desc_add(f, "host: %s, kernel %s", host ? host : "?", os ? os : "?");
	if (cmd)
		rpt_desc_add(f, "command: %s", cmd);
	if (pd_device(src, dev, sizeof(dev)))
		rpt_desc_add(f, "device: %s (the nic method's)", dev);
	if (s->dp_ready)
		rpt_desc_add(f, "wult:datapoint format: %s", s->fmt_desc);
	if (s->fmt_warn[0])
		rpt_desc_add(f, "warning: %s", s->fmt_warn);
	if (s->br_read || s->br_bad)
		rpt_desc_add(f, "branch contexts: %llu, %llu attached to datapoints%s",
			     (unsigned long long)s->br_read, (unsigned long long)s->br_matched,
			     s->br_bad ? ", some undecodable" : "");
	describe_symbols(s, f, os);
	f->undecodable = s->undecodable;
	f->lost = s->lost;
	f->lost_records = s->lost_records;
	f->other = s->other;
	f->br_read = s->br_read;
	f->br_matched = s->br_matched;
	return 0;
}

/* The perf.data's event names, each once (a CPU back online repeats its
 * group's). 0 or -ENOMEM. */
static int meta_events(const struct src_pd *s, struct rpt_meta *m)
{
	unsigned int i, k, n = wult_pd_nr_attrs(s->pd);
	const char *name;

	m->events = calloc(n ? n : 1, sizeof(*m->events));
	if (!m->events)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		name = wult_pd_attr(s->pd, i)->name;
		for (k = 0; name && k < m->nevents && strcmp(m->events[k], name); k++)
			;
		if (!name || k < m->nevents)
			continue;
		m->events[m->nevents] = strdup(name);
		if (!m->events[m->nevents++])
			return -ENOMEM;
	}
	return 0;
}

static int pd_meta(const struct rpt_src *src, struct rpt_meta *m)
{
	const struct src_pd *s = cpd_of(src);
	char dev[32];
	int ret = 0;

	m->kind = "perf.data";
	m->pipe = wult_pd_is_pipe(s->pd);
	ret |= rpt_meta_str(&m->host, wult_pd_hostname(s->pd));
	ret |= rpt_meta_str(&m->kernel, wult_pd_osrelease(s->pd));
	ret |= rpt_meta_str(&m->command, wult_pd_cmdline(s->pd));
	ret |= rpt_meta_str(&m->device, pd_device(src, dev, sizeof(dev)));
	ret |= rpt_meta_str(&m->format, s->dp_ready ? s->fmt_desc : NULL);
	ret |= rpt_meta_str(&m->format_warning, s->fmt_warn[0] ? s->fmt_warn : NULL);
	ret |= meta_events(s, m);
	ret |= rpt_sysinfo_parse(m, wult_pd_sysdesc(s->pd));
	return ret ? -ENOMEM : 0;
}

static void pd_close(struct rpt_src *src)
{
	struct src_pd *s = pd_of(src);

	wult_dpdec_free(s->dp);
	rpt_resid_free(s->resid);
	free(s->br);
	if (s->pd)
		wult_pd_close(s->pd);
}

#define PD_OPS(open_fn) {				\
	.size = sizeof(struct src_pd),			\
	.open = open_fn,				\
	.next = pd_next,				\
	.next_some = pd_next_some,			\
	.metrics = pd_metrics,				\
	.stable_names = 1,				\
	.has_sysdesc = pd_has_sysdesc,			\
	.device = pd_device,				\
	.branches = pd_branches,			\
	.take_resid = pd_take_resid,			\
	.describe = pd_describe,			\
	.meta = pd_meta,				\
	.close = pd_close,				\
}

const struct rpt_src_ops rpt_src_pd_ops = PD_OPS(pd_open);
const struct rpt_src_ops rpt_src_pipe_ops = PD_OPS(pipe_open);
