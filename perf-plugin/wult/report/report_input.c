// SPDX-License-Identifier: GPL-2.0
/*
 * wult report inputs: perf.data (file or pipe mode, from wult record, from
 * `perf record -R -e wult/datapoints/` or from `perf record -e
 * wult:datapoint`) and intel wult raw results, as one stream of datapoints.
 *
 * perf.data samples are decoded through the wult:datapoint format, taken
 * from the first of: the file's TRACING_DATA (the recording's own layout),
 * --format, tracefs (the module loaded now), the layout built into this
 * binary. The decoder is set up at the first sample because in pipe mode
 * attrs, event names and tracing data arrive in the stream before it.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/wult.h>
#include <wult/dpdec.h>

#include "report.h"

struct pending_br {
	int valid;
	struct wult_branches br;
};

#define MAX_BR_CPUS	8192

struct rpt_src {
	const char *path;
	const struct rpt_opts *o;
	/* perf.data */
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
	/* intel wult CSV */
	struct wult_csv_reader *csv;
	FILE *csvf;
	int cpu;			/* first datapoint's CPU, -1 unknown */
	uint64_t read;
	char err[1024];
};

static void src_err(struct rpt_src *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void src_err(struct rpt_src *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Is the file's start perf.data's magic? Decides how a regular file is read. */
static int has_perf_magic(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	int ret;

	if (!f)
		return 0;
	ret = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	      !memcmp(magic, "PERFILE2", 8);
	fclose(f);
	return ret;
}

static int check_metrics(struct rpt_src *s, uint64_t bits, int time);

/* The metrics an intel wult CSV provides: the columns of its header, which
 * libwult's CSV reader maps to metrics one to one. All when unreadable
 * here (the reader then says why).
 */
static uint64_t csv_metrics(const char *path, int is_dir)
{
	char file[4096], line[8192], *tok, *save = NULL;
	uint64_t bits = 0;
	FILE *f;
	int m;

	snprintf(file, sizeof(file), is_dir ? "%s/datapoints.csv" : "%s", path);
	f = fopen(file, "r");
	if (!f)
		return WULT_METRICS_ALL;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, ",\r\n", &save); tok; tok = strtok_r(NULL, ",\r\n", &save)) {
			size_t n;

			while (*tok == ' ' || *tok == '"')
				tok++;
			n = strcspn(tok, "\" ");
			m = wult_metric_lookup(tok, n);
			if (m >= 0)
				bits |= WULT_METRIC_BIT(m);
		}
	fclose(f);
	return bits ? bits : WULT_METRICS_ALL;
}

static int open_csv(struct rpt_src *s, const char *path, int is_dir, char *err, size_t errlen)
{
	int ret;

	if (is_dir) {
		ret = wult_csv_open(path, &s->csv, err, errlen);
	} else {
		s->csvf = fopen(path, "r");
		if (!s->csvf) {
			snprintf(err, errlen, "%s", strerror(errno));
			return -errno;
		}
		/* A bare datapoints.csv: intel wult's current layout, times in us. */
		ret = wult_csv_open_stream(s->csvf, path, 1, &s->csv, err, errlen);
	}
	/* Not --metrics: the default ones may be missing from old results. */
	if (!ret && check_metrics(s, csv_metrics(path, is_dir), 0)) {
		snprintf(err, errlen, "%s", s->err);
		ret = -EINVAL;
	}
	return ret;
}

int rpt_src_open(const char *path, const struct rpt_opts *o, struct rpt_src **out,
		 char *err, size_t errlen)
{
	struct rpt_src *s;
	struct stat st;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->path = path;
	s->o = o;
	s->fmt_id = -1;
	s->cpu = -1;
	if (!strcmp(path, "-")) {
		if (isatty(0)) {
			snprintf(err, errlen, "stdin is a terminal: pipe a perf.data into it, "
				 "e.g. perf record -o - ... | wult report -");
			ret = -EINVAL;
			goto fail;
		}
		ret = wult_pd_open("-", 0, &s->pd, err, errlen);
	} else if (stat(path, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s (give a perf.data file or an intel wult result "
			 "directory)", strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		ret = open_csv(s, path, 1, err, errlen);
	} else if (access(path, R_OK)) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
	} else if (S_ISREG(st.st_mode) && ends_with(path, ".csv") && !has_perf_magic(path)) {
		/* Only regular files are peeked at: a FIFO would lose the bytes. */
		ret = open_csv(s, path, 0, err, errlen);
	} else {
		/* the data mapped ahead in a thread of its own: the reading
		 * thread (report_pipe.c) bounds a pass */
		ret = wult_pd_open(path, o->threads ? WULT_PD_PREFETCH : 0, &s->pd,
				   err, errlen);
	}
	if (ret == -EINVAL && s->pd == NULL && !s->csv &&
	    (strstr(err, "not a perf.data") || strstr(err, "header truncated"))) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "not a perf.data file (%s): give a perf.data from wult "
			 "record or perf record, or an intel wult result directory", why);
	}
	if (ret)
		goto fail;
	if (s->pd) {
		ret = wult_dpdec_new(&s->dp);
		if (ret) {
			snprintf(err, errlen, "%s", strerror(-ret));
			goto fail;
		}
	}
	*out = s;
	return 0;
fail:
	rpt_src_close(s);
	return ret;
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
static int load_cstate_names(struct rpt_src *s)
{
	const char *names[64];
	char *copy, *tok, *save = NULL;
	unsigned int n = 0;
	int ret;

	if (s->o->cstate_names) {
		copy = strdup(s->o->cstate_names);
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

/*
 * What this input is asked for (filters, --hist, --plots and, with @time,
 * --metrics) must be metrics its decoder fills (@bits): any other is NaN
 * on every datapoint, and a filter on it would drop everything without a
 * word.
 */
static int check_metrics(struct rpt_src *s, uint64_t bits, int time)
{
	const struct rpt_opts *o = s->o;
	struct wult_metric_set set;
	const char *why;
	unsigned int i, m;

	for (m = 0; m < WULT_M_NR; m++) {
		if (bits & WULT_METRIC_BIT(m))
			continue;
		why = o->hist && o->hist_metric == m ? "--hist" : NULL;
		for (i = 0; time && i < o->ntime && !why; i++)
			why = o->time[i] == m ? "--metrics" : NULL;
		for (i = 0; i < o->ninc && !why; i++)
			why = wult_filter_reads(o->inc[i], m) ? "--include" : NULL;
		for (i = 0; i < o->nexc && !why; i++)
			why = wult_filter_reads(o->exc[i], m) ? "--exclude" : NULL;
		for (i = 0; o->html_out && i < o->nplot && !why; i++)
			why = o->plot[i] == m ? "--plots" : NULL;
		for (i = 0; o->html_out && i < o->nplot_x && !why; i++)
			why = o->plot_x[i] == m ? "--plot-x" : NULL;
		if (!why)
			continue;
		wult_metric_set_init(&set, bits);
		src_err(s, "%s uses %s, which this input does not provide (available: %s)", why,
			wult_metric_desc(m)->name, set.names);
		return -EINVAL;
	}
	return 0;
}

static int load_decoder(struct rpt_src *s);

static int setup_decoder(struct rpt_src *s)
{
	int ret = load_decoder(s);

	return ret ?: check_metrics(s, wult_dpdec_metrics(s->dp, 1), 1);
}

static int load_decoder(struct rpt_src *s)
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
		src_err(s, "%s (the file's TRACING_DATA)", err);
		return ret;
	}
	/* An explicit --format beats tracefs, which describes whatever module
	 * is loaded now rather than the one that recorded. */
	if (s->o->format_path) {
		ret = wult_dpdec_load_format_file(s->dp, s->o->format_path, err, sizeof(err));
		if (ret) {
			src_err(s, "--format: %s", err);
			return ret;
		}
		snprintf(s->fmt_desc, sizeof(s->fmt_desc), "%s (--format)", s->o->format_path);
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
		src_err(s, "built-in format: %s", err);
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
static void warn_missing_fields(struct rpt_src *s)
{
	char list[256];
	size_t at = strlen(s->fmt_warn);

	if (!wult_dpdec_missing_fields(s->dp, list, sizeof(list)))
		return;
	snprintf(s->fmt_warn + at, sizeof(s->fmt_warn) - at, "%sthe wult:datapoint format "
		 "lacks %s: metrics that need them are missing", at ? "; " : "", list);
	fprintf(stderr, "wult report: %s: warning: the wult:datapoint format lacks %s: "
		"metrics that need them are missing\n", s->path, list);
}

#define KIND_OTHER_PMU	(-1)
#define KIND_UNKNOWN	(-2)

/*
 * The wult kind (enum wult_kind) of a non-tracepoint attr of the "wult"
 * PMU, told by its PMU mapping or else its event name; KIND_OTHER_PMU for
 * other events; KIND_UNKNOWN for a dynamic PMU with neither.
 */
static int pmu_kind(const struct rpt_src *s, const struct wult_pd_attr *a)
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
	return (a->attr.config >> WULT_CFG_KIND_SHIFT) & WULT_CFG_KIND_MASK;
}

/*
 * 1 if samples of @a are wult datapoints, 0 if not, -1 when only the payload
 * can tell (no event name, no PMU mapping): a tracepoint's config is its id,
 * a PMU's type is mapped to its name in PMU_MAPPINGS.
 */
static int classify_attr(const struct rpt_src *s, const struct wult_pd_attr *a)
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
static int is_branches_attr(const struct rpt_src *s, const struct wult_pd_attr *a)
{
	if (!(a->attr.sample_type & PERF_SAMPLE_RAW))
		return 0;
	if (a->attr.type == PERF_TYPE_TRACEPOINT)
		return a->name && !strcmp(a->name, "wult:wake_branches");
	return pmu_kind(s, a) == WULT_KIND_BRANCHES;
}

/* Keeps a branch context until its datapoint, which follows on its CPU. */
static int keep_branches(struct rpt_src *s, const struct wult_pd_sample *smp)
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
			src_err(s, "out of memory");
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
static void attach_branches(struct rpt_src *s, const struct wult_point *pt)
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

const struct wult_branches *rpt_src_branches(const struct rpt_src *s)
{
	return s->br_last;
}

/*
 * The ids of wult.ko's idle accounting members (wult record adds them to
 * its group), learnt again whenever a pipe brings attrs; the states named
 * as the datapoints are. 0 or -ENOMEM.
 */
static int resid_learn(struct rpt_src *s, unsigned int n)
{
	unsigned int i, j, k, state;
	const struct wult_pd_attr *a;
	int kind;

	if (n == s->resid_nattrs)
		return 0;
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
		state = (a->attr.config >> WULT_CFG_STATE_SHIFT) & WULT_CFG_STATE_MASK;
		for (j = 0; j < a->nr_ids; j++)
			rpt_resid_add_id(s->resid, a->ids[j], kind, state);
	}
	return 0;
}

struct rpt_resid *rpt_src_take_resid(struct rpt_src *s)
{
	struct rpt_resid *r = s->resid;

	if (!rpt_resid_any(r))
		return NULL;
	s->resid = NULL;
	return r;
}

/* What rpt_src_next_some() asks for: metrics m[] into out[], the name. */
struct some {
	const enum wult_metric *m;
	unsigned int n;
	double *out;
	const char **state;
};

/*
 * A wult sample into @pt, or with @w into w->out only, where the decoder's
 * short path applies: not for the first datapoint (its CPU is kept) nor
 * once branch contexts came (they attach by CPU and LTime).
 */
static int decode_one(struct rpt_src *s, const struct wult_pd_sample *smp, struct wult_point *pt,
		      const struct some *w)
{
	unsigned int i;
	int ret;

	if (w && !s->nbr && s->cpu >= 0) {
		ret = wult_dpdec_decode_some(s->dp, smp, w->m, w->n, w->out, w->state);
		if (ret != -EAGAIN)
			return ret;
	}
	ret = wult_dpdec_decode(s->dp, smp, pt);
	if (ret)
		return ret;
	if (s->cpu < 0 && pt->v[WULT_M_CPU].num >= 0)
		s->cpu = (int)pt->v[WULT_M_CPU].num;
	attach_branches(s, pt);
	for (i = 0; w && i < w->n; i++)
		w->out[i] = pt->v[w->m[i]].num;
	if (w)
		*w->state = pt->v[WULT_M_REQ_CSTATE].str;
	return 0;
}

static int next_pd(struct rpt_src *s, struct wult_point *pt, const struct some *w)
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
			src_err(s, "out of memory");
			return -ENOMEM;
		}
		s->read++;
		return 1;
	}
	if (ret < 0)
		src_err(s, "%s", wult_pd_error(s->pd));
	return ret;
}

int rpt_src_next(struct rpt_src *s, struct wult_point *pt)
{
	int ret;

	if (s->pd)
		return next_pd(s, pt, NULL);
	ret = wult_csv_next(s->csv, pt);
	if (ret < 0) {
		src_err(s, "%s", wult_csv_error(s->csv));
		return ret;
	}
	if (ret) {
		if (s->cpu < 0 && pt->v[WULT_M_CPU].num >= 0)
			s->cpu = (int)pt->v[WULT_M_CPU].num;
		s->read++;
	}
	return ret;
}

int rpt_src_next_some(struct rpt_src *s, const enum wult_metric *m, unsigned int n,
		      double *out, const char **state)
{
	struct some w = { m, n, out, state };
	struct wult_point pt;

	return next_pd(s, &pt, &w);
}

uint64_t rpt_src_metrics(const struct rpt_src *s)
{
	return s->pd && s->dp_ready ? wult_dpdec_metrics(s->dp, 1) : WULT_METRICS_ALL;
}

int rpt_src_stable_names(const struct rpt_src *s)
{
	return s->pd != NULL;
}

int rpt_src_has_sysdesc(const struct rpt_src *s)
{
	return s->pd && wult_pd_sysdesc(s->pd) != NULL;
}

const char *rpt_src_error(const struct rpt_src *s)
{
	return s->err;
}

int rpt_src_cpu(const struct rpt_src *s)
{
	const char *v;

	if (s->cpu >= 0)
		return s->cpu;
	v = s->csv ? wult_csv_info(s->csv, "cpu") : NULL;
	return v ? atoi(v) : 0;
}

static void add_line(char **desc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_line(char **desc, const char *fmt, ...)
{
	char *line = NULL, *nd = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (asprintf(&nd, "%s  %s\n", *desc ? *desc : "", line) >= 0) {
		free(*desc);
		*desc = nd;
	}
	free(line);
}

/* Branch addresses are symbolized with this machine's symbols by default. */
static void describe_symbols(const struct rpt_src *s, struct rpt_file *f, const char *os)
{
	struct utsname u;

	if (!s->o->branches || !s->br_read || s->o->kallsyms || s->o->vmlinux)
		return;
	if (os && !uname(&u) && strcmp(os, u.release))
		add_line(&f->desc, "warning: recorded on kernel %s, branch addresses are "
			 "symbolized with this machine's (%s): give the recording "
			 "machine's --kallsyms", os, u.release);
}

/* A copy of @v into *@dst (NULL stays NULL). 0 or -ENOMEM. */
static int meta_str(char **dst, const char *v)
{
	*dst = v ? strdup(v) : NULL;
	return v && !*dst ? -ENOMEM : 0;
}

/* The perf.data's event names, each once (a CPU back online repeats its
 * group's). 0 or -ENOMEM. */
static int meta_events(const struct rpt_src *s, struct rpt_meta *m)
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

const char *rpt_src_device(const struct rpt_src *s, char *buf, size_t len)
{
	unsigned int i, n;

	if (s->csv)
		return NULL;
	n = wult_pd_nr_attrs(s->pd);
	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a = &wult_pd_attr(s->pd, i)->attr;
		const char *pmu = wult_pd_pmu_name(s->pd, a->type);
		uint64_t d = a->config2 & WULT_CFG2_DEVICE_MASK;
		/* config2 is the source's own: ipi's launcher and flags are no device. */
		uint64_t src = (a->config >> WULT_CFG_SOURCE_SHIFT) & WULT_CFG_SOURCE_MASK;

		if (!pmu || strcmp(pmu, "wult") || src != WULT_SOURCE_NIC || !d)
			continue;
		snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned int)(d >> 16),
			 (unsigned int)(d >> 8) & 0xff, (unsigned int)(d >> 3) & 0x1f,
			 (unsigned int)d & 7);
		return buf;
	}
	return NULL;
}

/* The input's metadata, field by field. 0 or -ENOMEM. */
static int describe_meta(const struct rpt_src *s, struct rpt_meta *m)
{
	char dev[32];
	int ret = 0;

	rpt_meta_free(m);
	if (s->csv) {
		m->kind = "intel wult";
		ret |= meta_str(&m->tool, wult_csv_info(s->csv, "toolname"));
		ret |= meta_str(&m->tool_version, wult_csv_info(s->csv, "toolver"));
		ret |= meta_str(&m->device, wult_csv_info(s->csv, "devid"));
		ret |= meta_str(&m->cpu, wult_csv_info(s->csv, "cpu"));
		return ret ? -ENOMEM : 0;
	}
	m->kind = "perf.data";
	m->pipe = wult_pd_is_pipe(s->pd);
	ret |= meta_str(&m->host, wult_pd_hostname(s->pd));
	ret |= meta_str(&m->kernel, wult_pd_osrelease(s->pd));
	ret |= meta_str(&m->command, wult_pd_cmdline(s->pd));
	ret |= meta_str(&m->device, rpt_src_device(s, dev, sizeof(dev)));
	ret |= meta_str(&m->format, s->dp_ready ? s->fmt_desc : NULL);
	ret |= meta_str(&m->format_warning, s->fmt_warn[0] ? s->fmt_warn : NULL);
	ret |= meta_events(s, m);
	ret |= rpt_sysinfo_parse(m, wult_pd_sysdesc(s->pd));
	return ret ? -ENOMEM : 0;
}

void rpt_meta_free(struct rpt_meta *m)
{
	unsigned int i;

	free(m->host);
	free(m->kernel);
	free(m->command);
	free(m->format);
	free(m->format_warning);
	free(m->tool);
	free(m->tool_version);
	free(m->device);
	free(m->cpu);
	wult_sysdesc_free(m->sysdesc);
	free(m->sysdesc_err);
	for (i = 0; i < m->nevents; i++)
		free(m->events[i]);
	free(m->events);
	memset(m, 0, sizeof(*m));
}

int rpt_src_describe(const struct rpt_src *s, struct rpt_file *f)
{
	const char *host, *os, *cmd, *v;
	char dev[32];

	free(f->desc);
	f->desc = NULL;
	if (s->csv) {
		const char *tool = wult_csv_info(s->csv, "toolname");
		const char *ver = wult_csv_info(s->csv, "toolver");

		add_line(&f->desc, "intel wult raw result%s%s%s%s",
			 tool ? ", " : "", tool ? tool : "", ver ? " " : "", ver ? ver : "");
		if ((v = wult_csv_info(s->csv, "devid")))
			add_line(&f->desc, "device: %s%s%s%s", v,
				 wult_csv_info(s->csv, "devdescr") ? " (" : "",
				 wult_csv_info(s->csv, "devdescr") ?
				 wult_csv_info(s->csv, "devdescr") : "",
				 wult_csv_info(s->csv, "devdescr") ? ")" : "");
		if ((v = wult_csv_info(s->csv, "cpu")))
			add_line(&f->desc, "cpu: %s", v);
	} else {
		add_line(&f->desc, "perf.data (%s mode)", wult_pd_is_pipe(s->pd) ? "pipe" : "file");
		host = wult_pd_hostname(s->pd);
		os = wult_pd_osrelease(s->pd);
		cmd = wult_pd_cmdline(s->pd);
		if (host || os)
			add_line(&f->desc, "host: %s, kernel %s", host ? host : "?", os ? os : "?");
		if (cmd)
			add_line(&f->desc, "command: %s", cmd);
		if (rpt_src_device(s, dev, sizeof(dev)))
			add_line(&f->desc, "device: %s (the nic method's)", dev);
		if (s->dp_ready)
			add_line(&f->desc, "wult:datapoint format: %s", s->fmt_desc);
		if (s->fmt_warn[0])
			add_line(&f->desc, "warning: %s", s->fmt_warn);
		if (s->br_read || s->br_bad)
			add_line(&f->desc, "branch contexts: %llu, %llu attached to datapoints%s",
				 (unsigned long long)s->br_read,
				 (unsigned long long)s->br_matched,
				 s->br_bad ? ", some undecodable" : "");
		describe_symbols(s, f, os);
	}
	f->read = s->read;
	f->undecodable = s->undecodable;
	f->lost = s->lost;
	f->lost_records = s->lost_records;
	f->other = s->other;
	f->br_read = s->br_read;
	f->br_matched = s->br_matched;
	return describe_meta(s, &f->meta);
}

void rpt_src_close(struct rpt_src *s)
{
	if (!s)
		return;
	if (s->csv)
		wult_csv_close(s->csv);
	if (s->csvf)
		fclose(s->csvf);
	wult_dpdec_free(s->dp);
	rpt_resid_free(s->resid);
	free(s->br);
	if (s->pd)
		wult_pd_close(s->pd);
	free(s);
}
