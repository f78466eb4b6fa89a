// SPDX-License-Identifier: GPL-2.0
/*
 * Datapoint decoding. libtraceevent parses the format once; the per-sample
 * path then reads each field at the offset and size the format gives (no
 * tep call per field), which keeps decoding far above 10M datapoints/s.
 *
 * Overhead compensation and fallback state names are wult/comp.h's, which
 * the libtraceevent plugin shares; payloads laid out as struct wult_dp v1
 * take a fast path (v1_compute()) whose cycles-to-ns conversion avoids
 * the division, checked equal to wult_comp_cyc2ns() by test_dpdec. The
 * *Raw metrics keep the measured values.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include <wult/comp.h>
#include <wult/dpdec.h>
#include <linux/wult.h>
#include "internal/err.h"

#define MAX_CSTATES	64
#define MAX_COUNTERS	64
#define MAX_CPUS	4096

/*
 * The one table of payload fields: X(NAME, member) for each field the
 * decoder reads, by its name in the format file, which is also its member
 * of struct wult_dp (version 1). The enum, the names, the v1 layout check
 * and the v1 fast path are all made from it.
 */
#define WULT_DP_FIELDS(X)						\
	X(LTIME, ltime) X(TBI, tbi) X(TAI, tai) X(TINTR, tintr) X(LDIST, ldist)	\
	X(AI_TS1, ai_ts1) X(AI_TS2, ai_ts2) X(INTR_TS1, intr_ts1)		\
	X(INTR_TS2, intr_ts2) X(TSC_DELTA, tsc_delta) X(MPERF_DELTA, mperf_delta) \
	X(CPU, cpu) X(REQ_CSTATE, req_cstate) X(INTR_OFF, intr_off)		\
	X(FLAGS, flags) X(SMI_CNT, smi_cnt) X(NMI_CNT, nmi_cnt)		\
	X(TSC_KHZ, tsc_khz) X(SEQ, seq)

enum fld {
#define ENUM(F, m) F_##F,
	WULT_DP_FIELDS(ENUM)
#undef ENUM
	F_NR,
};

/* A member's place in struct wult_dp v1: offset in the payload, size and
 * signedness (a negative value of its type compares below zero).
 */
#define MEMBER_SIGNED(m) ((__typeof__(((struct wult_dp *)0)->m))-1 <	\
			  (__typeof__(((struct wult_dp *)0)->m))1)

/* Where the table's last field (seq) ends in struct wult_dp. */
#define V1_END	(offsetof(struct wult_dp, seq) + sizeof(((struct wult_dp *)0)->seq))

static const struct {
	const char *name;
	int off, size, is_signed;
} flds[F_NR] = {
#define DESC(F, m) [F_##F] = { #m, WULT_DP_HDR_SIZE + offsetof(struct wult_dp, m),	\
			       sizeof(((struct wult_dp *)0)->m), MEMBER_SIGNED(m) },
	WULT_DP_FIELDS(DESC)
#undef DESC
};

/* Fields without which no latency can be computed. */
#define REQUIRED ((1U << F_LTIME) | (1U << F_TAI) | (1U << F_TINTR) | (1U << F_TBI))

enum ctr_kind { C_TSC, C_APERF, C_MPERF, C_RES };

struct counter {
	uint64_t id;
	enum ctr_kind kind;
	int metric;		/* C_RES: the residency metric */
};

struct wult_dpdec {
	struct tep_handle *tep;
	struct tep_event *ev;
	struct { int off, size, is_signed; } f[F_NR];
	size_t min_size;
	/*
	 * Payload v2's source: outside the table, so that v1 records (which
	 * end before it) keep decoding; read where the record holds it.
	 */
	int src_off;
	/* Payload v4's ttask, the same way: -1 where the format has none. */
	int ttask_off;
	char *cstates[MAX_CSTATES];
	char fallback[MAX_CSTATES][24];
	double khz;		/* tsc_khz of the payload being decoded */
	double inv_khz;		/* and its inverse */
	uint64_t div_m;		/* cyc2ns()'s multiplier for khz, 0: none */
	unsigned int div_sh;	/* and shift */
	int v1;			/* the format is exactly struct wult_dp v1 */
	struct counter ctrs[MAX_COUNTERS];
	unsigned int nctrs;
	/* previous group-read values per CPU and counter, for deltas */
	uint64_t *prev;
	uint8_t *have_prev;
	/* previous time_enabled/time_running per CPU: the group's own */
	struct { uint64_t en, run; } *prev_t;
};

const char *wult_dpdec_source_name(unsigned int source)
{
	static const char *const names[WULT_SOURCE_MAX] = {
		[WULT_SOURCE_HRT] = "hrt",
		[WULT_SOURCE_TDT] = "tdt",
		[WULT_SOURCE_IPI] = "ipi",
		[WULT_SOURCE_NIC] = "nic",
	};

	return source < WULT_SOURCE_MAX && names[source] ? names[source] : "unknown";
}

int wult_dpdec_new(struct wult_dpdec **out)
{
	struct wult_dpdec *dp = calloc(1, sizeof(*dp));
	int i;

	*out = NULL;
	if (!dp)
		return -ENOMEM;
	/* Without names: wult's fallback, as the plugin's (wult/comp.h). */
	for (i = 0; i < MAX_CSTATES; i++)
		wult_comp_state_fallback(i, dp->fallback[i], sizeof(dp->fallback[i]));
	*out = dp;
	return 0;
}

void wult_dpdec_free(struct wult_dpdec *dp)
{
	int i;

	if (!dp)
		return;
	if (dp->tep)
		tep_free(dp->tep);
	for (i = 0; i < MAX_CSTATES; i++)
		free(dp->cstates[i]);
	free(dp->prev);
	free(dp->have_prev);
	free(dp->prev_t);
	free(dp);
}

/* Does the format describe struct wult_dp v1 byte for byte? Then payloads
 * are read with one memcpy instead of a field at a time.
 */
static int is_v1(const struct wult_dpdec *dp)
{
	int i;

	for (i = 0; i < F_NR; i++)
		if (dp->f[i].off != flds[i].off || dp->f[i].size != flds[i].size ||
		    dp->f[i].is_signed != flds[i].is_signed)
			return 0;
	return 1;
}

int wult_dpdec_load_format(struct wult_dpdec *dp, const char *text, size_t len,
			char *err, size_t errlen)
{
	struct tep_event *ev = NULL;
	struct tep_format_field *src;
	unsigned int missing = 0;
	char buf[64];
	int i;

	if (dp->tep)
		tep_free(dp->tep);
	dp->tep = tep_alloc();
	if (!dp->tep)
		return -ENOMEM;
	if (tep_parse_format(dp->tep, &ev, text, len, "wult") || !ev) {
		tep_strerror(dp->tep, TEP_ERRNO__PARSE_EVENT_FAILED, buf, sizeof(buf));
		wult_err_set(err, errlen, 0, "wult:datapoint format: %s", buf);
		return -EINVAL;
	}
	if (strcmp(ev->name, "datapoint")) {
		wult_err_set(err, errlen, 0, "format is for event '%s', not wult:datapoint", ev->name);
		return -EINVAL;
	}
	dp->ev = ev;
	dp->min_size = WULT_DP_HDR_SIZE;
	for (i = 0; i < F_NR; i++) {
		struct tep_format_field *fl = tep_find_field(ev, flds[i].name);

		dp->f[i].off = -1;
		if (!fl || !(fl->size == 1 || fl->size == 2 || fl->size == 4 || fl->size == 8) ||
		    fl->offset < 0) {
			if ((1U << i) & REQUIRED)
				missing |= 1U << i;
			continue;
		}
		dp->f[i].off = fl->offset;
		dp->f[i].size = fl->size;
		dp->f[i].is_signed = !!(fl->flags & TEP_FIELD_IS_SIGNED);
		if ((size_t)(fl->offset + fl->size) > dp->min_size)
			dp->min_size = fl->offset + fl->size;
	}
	dp->v1 = is_v1(dp);
	src = tep_find_field(ev, "source");
	dp->src_off = src && src->size == 4 && src->offset >= 0 ? src->offset : -1;
	src = tep_find_field(ev, "ttask");
	dp->ttask_off = src && src->size == 8 && src->offset >= 0 ? src->offset : -1;
	if (missing) {
		for (i = 0; !((1U << i) & missing); i++)
			;
		wult_err_set(err, errlen, 0, "wult:datapoint format lacks the '%s' field (or it is "
			"not an integer)", flds[i].name);
		dp->ev = NULL;
		return -EINVAL;
	}
	return 0;
}

int wult_dpdec_missing_fields(const struct wult_dpdec *dp, char *buf, size_t len)
{
	size_t at = 0;
	int i, n = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < F_NR; i++) {
		if (dp->f[i].off >= 0)
			continue;
		if (at < len)
			at += snprintf(buf + at, len - at, "%s%s", n ? ", " : "", flds[i].name);
		n++;
	}
	return n;
}

int wult_dpdec_load_format_file(struct wult_dpdec *dp, const char *path, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		wult_err_set(err, errlen, 0, "%s: %s", path, strerror(errno));
		return -errno;
	}
	for (;;) {
		size_t n;

		if (len + 4096 > cap) {
			char *nb;

			if (cap >= (1U << 20)) {
				free(buf);
				fclose(f);
				wult_err_set(err, errlen, 0, "%s: larger than 1 MiB, not a format file", path);
				return -EINVAL;
			}
			nb = realloc(buf, cap + 65536);
			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (!n)
			break;
	}
	fclose(f);
	ret = wult_dpdec_load_format(dp, buf, len, err, errlen);
	free(buf);
	return ret;
}

static int classify(const char *name, enum ctr_kind *kind, int *metric)
{
	static const struct { const char *pat; int metric; } res[] = {
		{ "cstate_core/c1-residency", WULT_M_CC1 },
		{ "cstate_core/c3-residency", WULT_M_CC3 },
		{ "cstate_core/c6-residency", WULT_M_CC6 },
		{ "cstate_core/c7-residency", WULT_M_CC7 },
		{ "cstate_pkg/c2-residency", WULT_M_PC2 },
		{ "cstate_pkg/c3-residency", WULT_M_PC3 },
		{ "cstate_pkg/c6-residency", WULT_M_PC6 },
		{ "cstate_pkg/c7-residency", WULT_M_PC7 },
	};
	size_t i;

	if (strstr(name, "msr/tsc")) {
		*kind = C_TSC;
		return 0;
	}
	if (strstr(name, "msr/aperf")) {
		*kind = C_APERF;
		return 0;
	}
	if (strstr(name, "msr/mperf")) {
		*kind = C_MPERF;
		return 0;
	}
	for (i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		if (strstr(name, res[i].pat)) {
			*kind = C_RES;
			*metric = res[i].metric;
			return 0;
		}
	}
	return -ENOENT;
}

int wult_dpdec_add_counter(struct wult_dpdec *dp, uint64_t id, const char *name)
{
	struct counter *c;
	enum ctr_kind kind;
	int metric = -1;

	if (classify(name, &kind, &metric))
		return -ENOENT;		/* a counter no metric uses */
	if (dp->nctrs == MAX_COUNTERS)
		return -ENOSPC;
	c = &dp->ctrs[dp->nctrs++];
	c->id = id;
	c->kind = kind;
	c->metric = metric;
	if (dp->prev)
		return 0;
	dp->prev = calloc((size_t)MAX_CPUS * MAX_COUNTERS, sizeof(*dp->prev));
	dp->have_prev = calloc((size_t)MAX_CPUS * MAX_COUNTERS, 1);
	dp->prev_t = calloc(MAX_CPUS, sizeof(*dp->prev_t));
	if (dp->prev && dp->have_prev && dp->prev_t)
		return 0;
	dp->nctrs--;
	free(dp->prev);
	free(dp->have_prev);
	free(dp->prev_t);
	dp->prev = NULL;
	dp->have_prev = NULL;
	dp->prev_t = NULL;
	return -ENOMEM;
}

int wult_dpdec_load_pd(struct wult_dpdec *dp, const struct wult_pd *pd, char *err, size_t errlen)
{
	unsigned int i, j;
	uint32_t cpu0;
	const char *sys, *text;
	size_t len;
	int ret = -ENOENT;

	for (i = 0; i < wult_pd_nr_formats(pd); i++) {
		wult_pd_format(pd, i, &sys, &text, &len);
		if (strcmp(sys, "wult") || !strstr(text, "name: datapoint\n"))
			continue;
		ret = wult_dpdec_load_format(dp, text, len, err, errlen);
		break;
	}
	if (ret == -ENOENT)
		wult_err_set(err, errlen, 0, "no wult:datapoint format in the file's TRACING_DATA: give "
			"the format file (%s while the module is loaded)", WULT_DP_FORMAT_PATH);
	for (i = 0; i < wult_pd_nr_attrs(pd); i++) {
		const struct wult_pd_attr *a = wult_pd_attr(pd, i);

		for (j = 0; a->name && j < a->nr_ids; j++)
			wult_dpdec_add_counter(dp, a->ids[j], a->name);
	}
	/* State names the recording stored: those of its first CPU. */
	for (i = 0, cpu0 = 0; i < wult_pd_nr_cstates(pd); i++) {
		uint32_t cpu, idx;
		const char *name;

		wult_pd_cstate(pd, i, &cpu, &idx, &name);
		if (!i)
			cpu0 = cpu;
		if (cpu != cpu0 || idx >= MAX_CSTATES)
			continue;
		free(dp->cstates[idx]);
		dp->cstates[idx] = strdup(name);
	}
	return ret;
}

int wult_dpdec_set_cstate_names(struct wult_dpdec *dp, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && i < MAX_CSTATES; i++) {
		free(dp->cstates[i]);
		dp->cstates[i] = strdup(names[i]);
		if (!dp->cstates[i])
			return -ENOMEM;
	}
	return 0;
}

int wult_dpdec_load_cstate_names_sysfs(struct wult_dpdec *dp, unsigned int cpu)
{
	char path[128], name[64];
	unsigned int i;
	FILE *f;

	for (i = 0; i < MAX_CSTATES; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cpuidle/state%u/name",
			 cpu, i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fgets(name, sizeof(name), f)) {
			name[strcspn(name, "\n")] = '\0';
			free(dp->cstates[i]);
			dp->cstates[i] = strdup(name);
		}
		fclose(f);
	}
	return i ? 0 : -ENOENT;
}

enum wult_dpdec_names wult_dpdec_name_states(struct wult_dpdec *dp, const struct wult_pd *pd,
					     unsigned int cpu)
{
	const char *host = pd ? wult_pd_hostname(pd) : NULL;
	char here[256];

	if (pd && wult_pd_nr_cstates(pd))
		return WULT_DPDEC_NAMES_FILE;
	if (pd && (!host || gethostname(here, sizeof(here)) || strcmp(here, host)))
		return WULT_DPDEC_NAMES_DEFAULT;
	return wult_dpdec_load_cstate_names_sysfs(dp, cpu) ? WULT_DPDEC_NAMES_DEFAULT :
							     WULT_DPDEC_NAMES_SYSFS;
}

const char *wult_dpdec_cstate_name(const struct wult_dpdec *dp, unsigned int idx)
{
	if (idx >= MAX_CSTATES)
		return NULL;
	return dp->cstates[idx] ? dp->cstates[idx] : dp->fallback[idx];
}

int wult_dpdec_is_wult(const struct wult_dpdec *dp, const struct wult_pd_sample *s)
{
	if (!dp->ev || !s->raw || s->raw_size < dp->min_size ||
	    !(s->attr->attr.sample_type & PERF_SAMPLE_RAW))
		return 0;
	/* Another tracepoint's record may be as large: tracepoint attrs name
	 * their event by id. PMU samples are the "wult" PMU's (the caller
	 * picks the attrs; wult_pd_pmu_name() tells the PMU). */
	return s->attr->attr.type != PERF_TYPE_TRACEPOINT ||
	       s->attr->attr.config == (uint64_t)dp->ev->id;
}

static inline uint64_t field(const struct wult_dpdec *dp, const uint8_t *raw, enum fld i)
{
	const uint8_t *p = raw + dp->f[i].off;

	/* Host byte order: perf.data of the other endianness is refused. */
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;

	switch (dp->f[i].size) {
	case 8:
		memcpy(&v64, p, 8);
		return v64;
	case 4:
		memcpy(&v32, p, 4);
		return dp->f[i].is_signed ? (uint64_t)(int64_t)(int32_t)v32 : v32;
	case 2:
		memcpy(&v16, p, 2);
		return dp->f[i].is_signed ? (uint64_t)(int64_t)(int16_t)v16 : v16;
	default:
		return dp->f[i].is_signed ? (uint64_t)(int64_t)(int8_t)*p : *p;
	}
}

/*
 * TSC cycles -> ns, floored to whole ns (cycles * 1e6 // tsc_khz, as
 * scripts/perf/wult_perf.py does), so compensated values stay integers and
 * both decoders agree to the nanosecond.
 *
 * The common case (0 <= cycles * 1e6 < 2^53, an integral tsc_khz below
 * 2^32) is one 64 x 64 -> 128-bit multiply and a shift (set_khz()): with
 * l = ceil(log2 khz) and m = floor(2^(53 + l) / khz) + 1, m * khz lies in
 * (2^(53 + l), 2^(53 + l) + 2^l], which makes floor(n * m / 2^(53 + l))
 * the exact floor(n / khz) for every n < 2^53 (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", 1994, thm 4.2).
 * The estimate-and-correct path below was half of a v1 decode's time.
 */
#define DIV_N_BITS	53

static inline double cyc2ns(const struct wult_dpdec *dp, uint64_t cycles, double khz)
{
	int64_t c = (int64_t)cycles, k = (int64_t)khz, n, q;

	if (dp->div_m && c >= 0 && c < (INT64_C(1) << DIV_N_BITS) / 1000000)
		return (double)(uint64_t)(((unsigned __int128)((uint64_t)c * 1000000) *
					   dp->div_m) >> dp->div_sh);
	/* Overheads are thousands of cycles: c * 1e6 fits in 64 bits unless
	 * the stamps are garbage, and then any value will do.
	 */
	if (c > INT64_MAX / 1000000 || c < INT64_MIN / 1000000)
		return (double)c / khz * 1e6;
	n = c * 1000000;
	/* A multiply by the inverse estimates the quotient; the steps make it
	 * the exact floor, as python's //.
	 */
	q = (int64_t)((double)n * dp->inv_khz);
	while (q * k > n)
		q--;
	while ((q + 1) * k <= n)
		q++;
	return (double)q;
}

/* Reads every field the format has into @f (v1 payloads: decode_v1()). */
static void read_fields(const struct wult_dpdec *dp, const uint8_t *raw, uint64_t *f)
{
	int i;

	for (i = 0; i < F_NR; i++)
		f[i] = dp->f[i].off >= 0 ? field(dp, raw, i) : 0;
}

/* cyc2ns()'s multiplier and shift for an integral @khz in [1, 2^32). */
static void set_div(struct wult_dpdec *dp, double khz)
{
	uint64_t d = (uint64_t)khz;
	unsigned int l = 0;

	dp->div_m = 0;
	if (!(khz >= 1 && khz < 4294967296.0) || (double)d != khz)
		return;
	while ((UINT64_C(1) << l) < d)
		l++;
	dp->div_m = (uint64_t)(((unsigned __int128)1 << (DIV_N_BITS + l)) / d) + 1;
	dp->div_sh = DIV_N_BITS + l;
}

/* A new tsc_khz: what cyc2ns() needs for it is kept. */
static inline void set_khz(struct wult_dpdec *dp, double khz)
{
	if (khz != dp->khz) {
		dp->khz = khz;
		dp->inv_khz = 1.0 / khz;
		set_div(dp, khz);
	}
}

/* CC0%, SMICnt, NMICnt where the payload's flags say they are valid, else
 * NaN. */
static inline void flagged(uint32_t fl, double tsc, uint64_t mperf, uint64_t smi, uint64_t nmi,
			   double out[3])
{
	double cc0;

	out[0] = out[1] = out[2] = NAN;
	if ((fl & WULT_DPF_MPERF) && tsc > 0) {
		/* fmin(100, cc0) without a call: cc0 is a number here. */
		cc0 = (double)mperf / tsc * 100;
		out[0] = cc0 > 100.0 ? 100.0 : cc0;
	}
	if (fl & WULT_DPF_SMI)
		out[1] = smi;
	if (fl & WULT_DPF_NMI)
		out[2] = nmi;
}

/*
 * An ipi wake written as need_resched to a polling CPU: no interrupt, so
 * no IntrLatency (absent, not 0); TIntr is when the queued call ran.
 */
static inline int flag_wake(uint64_t flags)
{
	return !!(flags & WULT_DPF_FLAG_WAKE);
}

/*
 * RunLatency, ns: when the task the wake woke ran (ipi waketask,
 * WULT_DPF_TASK) - LTime, raw (nothing of ours runs between the wake and
 * its TSC read but the handler, whose overhead IntrLatency already has);
 * NaN where there is no task, or the format has no ttask.
 */
static double run_latency(const struct wult_dpdec *dp, const uint8_t *raw, size_t size,
			  uint64_t flags, uint64_t ltime)
{
	uint64_t t;

	if (!(flags & WULT_DPF_TASK) || dp->ttask_off < 0 ||
	    (size_t)dp->ttask_off + 8 > size)
		return NAN;
	memcpy(&t, raw + dp->ttask_off, 8);
	return (double)(int64_t)(t - ltime);
}

static inline void store_flagged(struct wult_val *v, const double fl[3])
{
	v[WULT_M_CC0].num = fl[0];
	v[WULT_M_SMI_CNT].num = fl[1];
	v[WULT_M_NMI_CNT].num = fl[2];
}

/* What a v1 payload decodes to, before it is stored anywhere; its other
 * fields are read where they are (V1()). */
struct v1 {
	const uint8_t *p;	/* struct wult_dp, unaligned */
	int64_t wake_raw;
	double intr_raw;	/* NaN: no interrupt (flag_wake()) */
	double wake, intr, src;
	double run;		/* RunLatency, NaN: no task (run_latency()) */
	double fl[3];		/* CC0%, SMICnt, NMICnt (flagged()) */
	const char *state;
};

/* Member @m of the payload at @c->p: one load, no copy of the struct. */
#define V1(c, m) ({							\
	__typeof__(((struct wult_dp *)0)->m) v1_;			\
	memcpy(&v1_, (c)->p + offsetof(struct wult_dp, m), sizeof(v1_));	\
	v1_; })

/*
 * The fast path of a payload laid out as struct wult_dp v1 (every field at
 * its place): the same values as the general path below, computed straight
 * from the payload; of the two overheads only the one IntrOff applies is
 * converted. The format was checked to lay out struct wult_dp v1's fields
 * (later versions append, min_size stops at v1's end).
 */
static void v1_compute(struct wult_dpdec *dp, const uint8_t *raw, size_t size, struct v1 *c)
{
	uint64_t ltime, ts1, ts2;
	uint32_t src, intr_off;
	int32_t cs;
	double khz, ovh = 0;

	c->p = raw + WULT_DP_HDR_SIZE;
	intr_off = V1(c, intr_off);
	ltime = V1(c, ltime);
	c->wake_raw = (int64_t)(V1(c, tai) - ltime);
	c->intr_raw = (int64_t)(V1(c, tintr) - ltime);
	khz = V1(c, tsc_khz);
	set_khz(dp, khz);
	/* IntrOff is 0 or 1 at random: selected, not branched on. */
	ts1 = intr_off ? V1(c, ai_ts1) : V1(c, intr_ts1);
	ts2 = intr_off ? V1(c, ai_ts2) : V1(c, intr_ts2);
	if (khz > 0 && intr_off <= 1)
		ovh = cyc2ns(dp, ts2 - ts1, khz);
	c->wake = c->wake_raw - (intr_off == 0 ? ovh : 0);
	c->intr = c->intr_raw - (intr_off == 1 ? ovh : 0);
	if (flag_wake(V1(c, flags))) {
		c->intr_raw = NAN;
		c->intr = NAN;
	}
	c->src = 0;	/* v1 records: hrt */
	if (dp->src_off >= 0 && (size_t)dp->src_off + 4 <= size) {
		memcpy(&src, raw + dp->src_off, 4);
		c->src = src;
	}
	c->run = run_latency(dp, raw, size, V1(c, flags), ltime);
	flagged(V1(c, flags), V1(c, tsc_delta), V1(c, mperf_delta), V1(c, smi_cnt),
		V1(c, nmi_cnt), c->fl);
	cs = V1(c, req_cstate);
	c->state = NULL;
	if (cs >= 0 && cs < MAX_CSTATES)
		c->state = dp->cstates[cs] ? dp->cstates[cs] : dp->fallback[cs];
}

static void decode_v1(struct wult_dpdec *dp, const uint8_t *raw, size_t size, struct wult_val *v)
{
	struct v1 c;

	v1_compute(dp, raw, size, &c);
	v[WULT_M_WAKE_LATENCY_RAW].num = c.wake_raw;
	v[WULT_M_INTR_LATENCY_RAW].num = c.intr_raw;
	v[WULT_M_WAKE_LATENCY].num = c.wake;
	v[WULT_M_INTR_LATENCY].num = c.intr;
	v[WULT_M_SILENT_TIME].num = (int64_t)(V1(&c, ltime) - V1(&c, tbi));
	v[WULT_M_LDIST].num = V1(&c, ldist);
	v[WULT_M_INTR_OFF].num = V1(&c, intr_off);
	v[WULT_M_CPU].num = V1(&c, cpu);
	v[WULT_M_LTIME].num = V1(&c, ltime);
	v[WULT_M_TBI].num = V1(&c, tbi);
	v[WULT_M_TAI].num = V1(&c, tai);
	v[WULT_M_TINTR].num = V1(&c, tintr);
	v[WULT_M_SOURCE].num = c.src;
	v[WULT_M_RUN_LATENCY].num = c.run;
	v[WULT_M_REQ_CSTATE].num = V1(&c, req_cstate);
	v[WULT_M_REQ_CSTATE].str = c.state;
	store_flagged(v, c.fl);
}

/*
 * decode_some()'s values of a v1 payload: every metric it has in a fixed
 * slot (slot 0 is NaN: the metrics v1 lacks), so that the caller's list is
 * served by table lookups. (A switch per requested metric was 40% of the
 * call: an indirect jump whose target changes every iteration.)
 */
enum {
	S_NONE, S_WAKE, S_WAKE_RAW, S_INTR, S_INTR_RAW, S_SILENT, S_LDIST, S_CSTATE,
	S_INTR_OFF, S_CPU, S_LTIME, S_TBI, S_TAI, S_TINTR, S_SOURCE, S_CC0, S_SMI,
	S_NMI, S_RUN, S_NR
};

static const unsigned char v1_slot[WULT_M_NR] = {
	[WULT_M_WAKE_LATENCY] = S_WAKE,		[WULT_M_WAKE_LATENCY_RAW] = S_WAKE_RAW,
	[WULT_M_INTR_LATENCY] = S_INTR,		[WULT_M_INTR_LATENCY_RAW] = S_INTR_RAW,
	[WULT_M_SILENT_TIME] = S_SILENT,	[WULT_M_LDIST] = S_LDIST,
	[WULT_M_REQ_CSTATE] = S_CSTATE,		[WULT_M_INTR_OFF] = S_INTR_OFF,
	[WULT_M_CPU] = S_CPU,			[WULT_M_LTIME] = S_LTIME,
	[WULT_M_TBI] = S_TBI,			[WULT_M_TAI] = S_TAI,
	[WULT_M_TINTR] = S_TINTR,		[WULT_M_SOURCE] = S_SOURCE,
	[WULT_M_CC0] = S_CC0,			[WULT_M_SMI_CNT] = S_SMI,
	[WULT_M_NMI_CNT] = S_NMI,		[WULT_M_RUN_LATENCY] = S_RUN,
};

static void v1_slots(const struct v1 *c, double *v)
{
	v[S_NONE] = NAN;
	v[S_WAKE] = c->wake;
	v[S_WAKE_RAW] = c->wake_raw;
	v[S_INTR] = c->intr;
	v[S_INTR_RAW] = c->intr_raw;
	v[S_SILENT] = (int64_t)(V1(c, ltime) - V1(c, tbi));
	v[S_LDIST] = V1(c, ldist);
	v[S_CSTATE] = V1(c, req_cstate);
	v[S_INTR_OFF] = V1(c, intr_off);
	v[S_CPU] = V1(c, cpu);
	v[S_LTIME] = V1(c, ltime);
	v[S_TBI] = V1(c, tbi);
	v[S_TAI] = V1(c, tai);
	v[S_TINTR] = V1(c, tintr);
	v[S_SOURCE] = c->src;
	v[S_CC0] = c->fl[0];
	v[S_SMI] = c->fl[1];
	v[S_NMI] = c->fl[2];
	v[S_RUN] = c->run;
}

int wult_dpdec_decode_some(struct wult_dpdec *dp, const struct wult_pd_sample *s,
			   const enum wult_metric *m, unsigned int n, double *out,
			   const char **state)
{
	double v[S_NR];
	unsigned int i;
	struct v1 c;

	if (!dp->v1 || dp->nctrs)
		return -EAGAIN;
	if (!dp->ev || !s->raw || s->raw_size < dp->min_size)
		return -EINVAL;
	v1_compute(dp, s->raw, s->raw_size, &c);
	v1_slots(&c, v);
	for (i = 0; i < n; i++)
		out[i] = v[(unsigned int)m[i] < WULT_M_NR ? v1_slot[m[i]] : S_NONE];
	*state = c.state;
	return 0;
}

#define HAVE(i)	(dp->f[i].off >= 0)
#define OPT(i)	(HAVE(i) ? (double)f[i] : NAN)

int wult_dpdec_decode_raw(struct wult_dpdec *dp, const void *rawp, size_t size,
			  struct wult_point *pt)
{
	uint64_t ltime, tai, tintr, tbi;
	int64_t wake, intr;
	double khz, intr_off;
	struct wult_val *v = pt->v;
	uint64_t f[F_NR];
	int64_t cs;

	if (!dp->ev || size < dp->min_size)
		return -EINVAL;
	/* Every number is set below (no wult_point_clear(): it costs as much
	 * as the decoding); only ReqCState carries a string.
	 */
	for (cs = WULT_M_CC0; cs <= WULT_M_NMI_CNT; cs++)
		v[cs].num = NAN;
	v[WULT_M_SCALED].num = NAN;
	v[WULT_M_REQ_CSTATE].num = NAN;
	v[WULT_M_REQ_CSTATE].str = NULL;
	if (dp->v1) {
		decode_v1(dp, rawp, size, v);
		return 0;
	}
	read_fields(dp, rawp, f);
	ltime = f[F_LTIME];
	tai = f[F_TAI];
	tintr = f[F_TINTR];
	tbi = f[F_TBI];
	/* Differences wrap instead of overflowing on garbage stamps. */
	wake = (int64_t)(tai - ltime);
	intr = (int64_t)(tintr - ltime);
	khz = OPT(F_TSC_KHZ);
	set_khz(dp, khz);
	intr_off = OPT(F_INTR_OFF);
	v[WULT_M_WAKE_LATENCY_RAW].num = wake;
	v[WULT_M_INTR_LATENCY_RAW].num = intr;
	/* Compensated when the stamps IntrOff selects are in the format. */
	if (khz > 0 && ((intr_off == 1 && HAVE(F_AI_TS1) && HAVE(F_AI_TS2)) ||
			(intr_off == 0 && HAVE(F_INTR_TS1) && HAVE(F_INTR_TS2))))
		wult_comp_latencies(intr_off, wult_comp_overhead(intr_off, f[F_AI_TS1],
				    f[F_AI_TS2], f[F_INTR_TS1], f[F_INTR_TS2], khz),
				    &wake, &intr);
	v[WULT_M_WAKE_LATENCY].num = wake;
	v[WULT_M_INTR_LATENCY].num = intr;
	if (HAVE(F_FLAGS) && flag_wake(f[F_FLAGS])) {
		v[WULT_M_INTR_LATENCY_RAW].num = NAN;
		v[WULT_M_INTR_LATENCY].num = NAN;
	}
	v[WULT_M_SILENT_TIME].num = (int64_t)(ltime - tbi);
	v[WULT_M_LDIST].num = OPT(F_LDIST);
	v[WULT_M_INTR_OFF].num = intr_off;
	v[WULT_M_CPU].num = OPT(F_CPU);
	v[WULT_M_LTIME].num = ltime;
	v[WULT_M_TBI].num = tbi;
	v[WULT_M_TAI].num = tai;
	v[WULT_M_TINTR].num = tintr;
	v[WULT_M_SOURCE].num = 0;	/* v1 records: hrt */
	if (dp->src_off >= 0 && (size_t)dp->src_off + 4 <= size) {
		uint32_t src;

		memcpy(&src, (const uint8_t *)rawp + dp->src_off, 4);
		v[WULT_M_SOURCE].num = src;
	}
	v[WULT_M_RUN_LATENCY].num = HAVE(F_FLAGS) ?
		run_latency(dp, rawp, size, f[F_FLAGS], ltime) : NAN;
	if (HAVE(F_REQ_CSTATE)) {
		cs = (int64_t)f[F_REQ_CSTATE];
		/* The name for filters and CSV; the index for quick grouping. */
		v[WULT_M_REQ_CSTATE].num = cs;
		if (cs >= 0 && cs < MAX_CSTATES)
			v[WULT_M_REQ_CSTATE].str = dp->cstates[cs] ? dp->cstates[cs] :
						   dp->fallback[cs];
	}
	if (HAVE(F_FLAGS)) {
		double fl[3];

		flagged(f[F_FLAGS] & ~((HAVE(F_MPERF_DELTA) ? 0 : WULT_DPF_MPERF) |
				       (HAVE(F_SMI_CNT) ? 0 : WULT_DPF_SMI) |
				       (HAVE(F_NMI_CNT) ? 0 : WULT_DPF_NMI)),
			OPT(F_TSC_DELTA), f[F_MPERF_DELTA], f[F_SMI_CNT], f[F_NMI_CNT], fl);
		store_flagged(v, fl);
	}
	return 0;
}

/*
 * The factor that turns this sample's counter deltas into full-time
 * values: while multiplexed, a counter counts only for part of the time
 * since the previous sample, delta-running of delta-enabled. The
 * cumulative times would apply the whole run's average to each delta,
 * wrong as soon as the share changes. NaN: the group did not run at all
 * since the previous sample, so its deltas say nothing.
 */
static double mux_scale(struct wult_dpdec *dp, const struct wult_pd_sample *s,
			unsigned int cpu, struct wult_point *pt)
{
	const struct perf_event_attr *at = &s->attr->attr;
	uint64_t den, drun, want = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
	double scale = 1;

	pt->v[WULT_M_SCALED].num = 0;
	if ((at->read_format & want) != want)
		return 1;
	den = s->read.time_enabled - dp->prev_t[cpu].en;
	drun = s->read.time_running - dp->prev_t[cpu].run;
	dp->prev_t[cpu].en = s->read.time_enabled;
	dp->prev_t[cpu].run = s->read.time_running;
	if (drun > den || !den)
		return 1;	/* not multiplexed (or clocks disagree) */
	if (!drun) {
		pt->v[WULT_M_SCALED].num = 1;
		return NAN;
	}
	if (drun < den) {
		scale = (double)den / (double)drun;
		pt->v[WULT_M_SCALED].num = 1.0 / scale < WULT_DP_SCALE_THRESHOLD;
	}
	return scale;
}

/* Group-read counters: deltas since the previous datapoint of the CPU. */
static void decode_counters(struct wult_dpdec *dp, const struct wult_pd_sample *s,
			    struct wult_point *pt)
{
	double d[4] = { NAN, NAN, NAN, NAN }, res[WULT_M_NR], scale;
	unsigned int cpu = (unsigned int)pt->v[WULT_M_CPU].num, i, k;
	int have_res = 0;

	if (!dp->nctrs || isnan(pt->v[WULT_M_CPU].num) || cpu >= MAX_CPUS ||
	    !(s->attr->attr.sample_type & PERF_SAMPLE_READ))
		return;
	scale = mux_scale(dp, s, cpu, pt);
	for (i = 0; i < s->read.nr; i++) {
		const struct wult_pd_read_value *rv = &s->read.values[i];

		for (k = 0; k < dp->nctrs; k++) {
			size_t slot = (size_t)cpu * MAX_COUNTERS + k;
			double delta;

			if (dp->ctrs[k].id != rv->id)
				continue;
			delta = (double)(rv->value - dp->prev[slot]) * scale;
			if (dp->have_prev[slot]) {
				if (dp->ctrs[k].kind == C_RES) {
					res[dp->ctrs[k].metric] = delta;
					have_res |= 1;
					pt->v[dp->ctrs[k].metric].num = delta; /* made % below */
				} else {
					d[dp->ctrs[k].kind] = delta;
				}
			}
			dp->prev[slot] = rv->value;
			dp->have_prev[slot] = 1;
		}
	}
	/* MPERF ticks at the TSC rate, APERF at the actual one. */
	if (d[C_APERF] >= 0 && d[C_MPERF] > 0 && dp->khz > 0)
		pt->v[WULT_M_CPU_FREQ].num = dp->khz / 1e3 * d[C_APERF] / d[C_MPERF];
	for (i = WULT_M_CC1; i <= WULT_M_PC7; i++) {
		if (!have_res || isnan(pt->v[i].num))
			continue;
		pt->v[i].num = d[C_TSC] > 0 ? fmin(100.0, res[i] / d[C_TSC] * 100) : NAN;
	}
}

/* The metrics decode_counters() fills with the registered counters. */
static uint64_t counter_metrics(const struct wult_dpdec *dp)
{
	unsigned int have = 0, k;
	uint64_t bits = 0;

	if (!dp->nctrs || !HAVE(F_CPU))
		return 0;
	for (k = 0; k < dp->nctrs; k++)
		have |= 1U << dp->ctrs[k].kind;
	for (k = 0; k < dp->nctrs; k++)
		if (dp->ctrs[k].kind == C_RES && (have & (1U << C_TSC)))
			bits |= WULT_METRIC_BIT(dp->ctrs[k].metric);
	if ((have & (1U << C_APERF)) && (have & (1U << C_MPERF)) && HAVE(F_TSC_KHZ))
		bits |= WULT_METRIC_BIT(WULT_M_CPU_FREQ);
	return bits | WULT_METRIC_BIT(WULT_M_SCALED);
}

uint64_t wult_dpdec_metrics(const struct wult_dpdec *dp, int with_counters)
{
	static const struct { int metric, fld, flag_fld; } opt[] = {
		{ WULT_M_LDIST, F_LDIST, F_LDIST },
		{ WULT_M_REQ_CSTATE, F_REQ_CSTATE, F_REQ_CSTATE },
		{ WULT_M_INTR_OFF, F_INTR_OFF, F_INTR_OFF },
		{ WULT_M_CPU, F_CPU, F_CPU },
		{ WULT_M_CC0, F_MPERF_DELTA, F_TSC_DELTA },
		{ WULT_M_SMI_CNT, F_SMI_CNT, F_FLAGS },
		{ WULT_M_NMI_CNT, F_NMI_CNT, F_FLAGS },
	};
	uint64_t bits;
	size_t i;

	if (!dp->ev)
		return 0;
	/* From the required fields. */
	bits = WULT_METRIC_BIT(WULT_M_WAKE_LATENCY) | WULT_METRIC_BIT(WULT_M_WAKE_LATENCY_RAW) |
	       WULT_METRIC_BIT(WULT_M_INTR_LATENCY) | WULT_METRIC_BIT(WULT_M_INTR_LATENCY_RAW) |
	       WULT_METRIC_BIT(WULT_M_SILENT_TIME) | WULT_METRIC_BIT(WULT_M_LTIME) |
	       WULT_METRIC_BIT(WULT_M_TBI) | WULT_METRIC_BIT(WULT_M_TAI) |
	       WULT_METRIC_BIT(WULT_M_TINTR) | WULT_METRIC_BIT(WULT_M_SOURCE);
	if (dp->ttask_off >= 0 && HAVE(F_FLAGS))
		bits |= WULT_METRIC_BIT(WULT_M_RUN_LATENCY);
	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
		if (HAVE(opt[i].fld) && HAVE(opt[i].flag_fld) &&
		    (opt[i].metric != WULT_M_CC0 || HAVE(F_FLAGS)))
			bits |= WULT_METRIC_BIT(opt[i].metric);
	return with_counters ? bits | counter_metrics(dp) : bits;
}

int wult_dpdec_decode(struct wult_dpdec *dp, const struct wult_pd_sample *s, struct wult_point *pt)
{
	int ret;

	if (!s->raw)
		return -EINVAL;
	ret = wult_dpdec_decode_raw(dp, s->raw, s->raw_size, pt);
	if (ret)
		return ret;
	decode_counters(dp, s, pt);
	return 0;
}
