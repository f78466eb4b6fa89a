// SPDX-License-Identifier: GPL-2.0
/*
 * Datapoint decoding. libtraceevent parses the format once; the per-sample
 * path then reads each field at the offset and size the format gives (no
 * tep call per field), which keeps decoding far above 10M datapoints/s.
 *
 * The derivation of the latencies (wult_comp_derive(), overhead
 * compensation included) and fallback state names are wult/comp.h's, which
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
#include <wult/perfdata.h>
#include <wult/sysdesc.h>
#include <linux/wult.h>
#include "internal/dpctr.h"
#include "internal/err.h"

#define MAX_CSTATES	64

/*
 * The payload's fields, from its one list (WULT_DP_FIELDS, linux/wult.h):
 * F_<name> for each, and its place in struct wult_dp (offset in the
 * payload, size, signedness: a negative value of its type compares below
 * zero) and version. The decoder reads the version-1 fields but the two
 * the kernel derives for ftrace (it derives its own, wult/comp.h): those
 * are required to lie in the record (min_size) and make the v1 fast path's
 * layout; later fields (source) are read where the record holds them.
 */
enum fld {
#define ENUM(type, name, version) F_##name,
	WULT_DP_FIELDS(ENUM)
#undef ENUM
	F_NR,
};

_Static_assert(F_NR <= 32, "field sets are 32-bit masks");

#define MEMBER_SIGNED(m) ((__typeof__(((struct wult_dp *)0)->m))-1 <	\
			  (__typeof__(((struct wult_dp *)0)->m))1)

static const struct {
	const char *name;
	int off, size, is_signed, version;
} flds[F_NR] = {
#define DESC(type, name, version) [F_##name] = { #name,				\
	WULT_DP_HDR_SIZE + offsetof(struct wult_dp, name),				\
	sizeof(((struct wult_dp *)0)->name), MEMBER_SIGNED(name), version },
	WULT_DP_FIELDS(DESC)
#undef DESC
};

/* The kernel's derived copies, which no decoder reads. */
#define DERIVED ((1U << F_wake_latency) | (1U << F_intr_latency))
/* Is field @i one of those the decoder reads in every record? */
#define CORE(i) (flds[i].version == 1 && !((1U << (i)) & DERIVED))

/* Fields without which no latency can be computed. */
#define REQUIRED ((1U << F_ltime) | (1U << F_tai) | (1U << F_tintr) | (1U << F_tbi))

struct wult_dpdec {
	struct tep_handle *tep;
	struct tep_event *ev;
	struct { int off, size, is_signed; } f[F_NR];
	size_t min_size;
	/*
	 * Payload v2's source (a u32), read where the record holds it: v1
	 * records end before it.
	 */
	int src_off;
	/* Payload v4's ttask, the same way: -1 where the format has none. */
	int ttask_off;
	char *cstates[MAX_CSTATES];
	char fallback[MAX_CSTATES][24];
	const char *name[MAX_CSTATES];	/* cstates[i], or fallback[i] without */
	double khz;		/* tsc_khz of the payload being decoded */
	double inv_khz;		/* and its inverse */
	uint64_t div_m;		/* cyc2ns()'s multiplier for khz, 0: none */
	unsigned int div_sh;	/* and shift */
	int v1;			/* the format is exactly struct wult_dp v1 */
	struct dpctr ctr;	/* the group-read counters */
};

const char *wult_dpdec_source_name(unsigned int source)
{
	/* The uapi header's source list. */
	const char *name = wult_source_name(source);

	return name ? name : "unknown";
}

const char *wult_dpdec_source_list(void)
{
	/* ", hrt, tdt, ..." from the uapi header's list, less its head. */
#define SOURCE_ITEM(id, name, value) ", " #name
	static const char list[] = WULT_SOURCES(SOURCE_ITEM);
#undef SOURCE_ITEM

	return list + 2;
}

int wult_dpdec_new(struct wult_dpdec **out)
{
	struct wult_dpdec *dp = calloc(1, sizeof(*dp));
	int i;

	*out = NULL;
	if (!dp)
		return -ENOMEM;
	/* Without names: wult's fallback, as the plugin's (wult/comp.h). */
	for (i = 0; i < MAX_CSTATES; i++) {
		wult_comp_state_fallback(i, dp->fallback[i], sizeof(dp->fallback[i]));
		dp->name[i] = dp->fallback[i];
	}
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
	dpctr_free(&dp->ctr);
	free(dp);
}

/* Does the format describe struct wult_dp v1 byte for byte? Then payloads
 * are read with one memcpy instead of a field at a time.
 */
static int is_v1(const struct wult_dpdec *dp)
{
	int i;

	for (i = 0; i < F_NR; i++)
		if (CORE(i) && (dp->f[i].off != flds[i].off || dp->f[i].size != flds[i].size ||
				dp->f[i].is_signed != flds[i].is_signed))
			return 0;
	return 1;
}

int wult_dpdec_load_format(struct wult_dpdec *dp, const char *text, size_t len,
			char *err, size_t errlen)
{
	struct tep_event *ev = NULL;
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
		if (CORE(i) && (size_t)(fl->offset + fl->size) > dp->min_size)
			dp->min_size = fl->offset + fl->size;
	}
	dp->v1 = is_v1(dp);
	dp->src_off = dp->f[F_source].size == 4 ? dp->f[F_source].off : -1;
	dp->ttask_off = dp->f[F_ttask].off >= 0 && dp->f[F_ttask].size == 8 ?
			dp->f[F_ttask].off : -1;
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
		if (!CORE(i) || dp->f[i].off >= 0)
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

/* State @idx's name, a copy of @name: 0, or -ENOMEM (the fallback then). */
static int set_name(struct wult_dpdec *dp, unsigned int idx, const char *name)
{
	free(dp->cstates[idx]);
	dp->cstates[idx] = strdup(name);
	dp->name[idx] = dp->cstates[idx] ? dp->cstates[idx] : dp->fallback[idx];
	return dp->cstates[idx] ? 0 : -ENOMEM;
}

int wult_dpdec_add_counter(struct wult_dpdec *dp, uint64_t id, const char *name)
{
	return dpctr_add(&dp->ctr, id, name);
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
		set_name(dp, idx, name);
	}
	return ret;
}

int wult_dpdec_set_cstate_names(struct wult_dpdec *dp, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && i < MAX_CSTATES; i++)
		if (set_name(dp, i, names[i]))
			return -ENOMEM;
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
			set_name(dp, i, name);
		}
		fclose(f);
	}
	return i ? 0 : -ENOENT;
}

/*
 * The state names of the recording's system description, where it has no
 * WULT_CSTATES feature: a pipe-mode recording (wult record -o -, and so
 * every wult record -H) cannot carry one (perf refuses feature ids past its
 * own in pipe mode), the description rides on HEADER_STAT. 0, or -ENOENT.
 */
static int names_from_sysdesc(struct wult_dpdec *dp, const struct wult_pd *pd, unsigned int cpu)
{
	const char *text = wult_pd_sysdesc(pd), *name;
	struct wult_sysdesc *sd;
	unsigned int k, n = 0;
	char err[128];

	if (!text || wult_sysdesc_parse(text, strlen(text), &sd, err, sizeof(err)))
		return -ENOENT;
	/* wult synth's made-up machine names states the data does not have
	 * unless wult synth was given names (then WULT_CSTATES has them). */
	for (k = wult_sysdesc_get(sd, "synthetic") ? MAX_CSTATES : 0; k < MAX_CSTATES; k++) {
		name = wult_sysdesc_state(sd, (int)cpu, k, "name");
		if (!name || !*name)
			break;
		n += !set_name(dp, k, name);
	}
	wult_sysdesc_free(sd);
	return n ? 0 : -ENOENT;
}

enum wult_dpdec_names wult_dpdec_name_states(struct wult_dpdec *dp, const struct wult_pd *pd,
					     unsigned int cpu)
{
	const char *host = pd ? wult_pd_hostname(pd) : NULL;
	char here[256];

	if (pd && (wult_pd_nr_cstates(pd) || !names_from_sysdesc(dp, pd, cpu)))
		return WULT_DPDEC_NAMES_FILE;
	if (pd && (!host || gethostname(here, sizeof(here)) || strcmp(here, host)))
		return WULT_DPDEC_NAMES_DEFAULT;
	return wult_dpdec_load_cstate_names_sysfs(dp, cpu) ? WULT_DPDEC_NAMES_DEFAULT :
							     WULT_DPDEC_NAMES_SYSFS;
}

const char *wult_dpdec_cstate_name(const struct wult_dpdec *dp, unsigned int idx)
{
	return idx < MAX_CSTATES ? dp->name[idx] : NULL;
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

static inline int64_t cyc2ns(const struct wult_dpdec *dp, uint64_t cycles, double khz)
{
	int64_t c = (int64_t)cycles, k = (int64_t)khz, n, q;

	if (dp->div_m && c >= 0 && c < (INT64_C(1) << DIV_N_BITS) / 1000000)
		return (int64_t)(((unsigned __int128)((uint64_t)c * 1000000) *
				  dp->div_m) >> dp->div_sh);
	/* Overheads are thousands of cycles: c * 1e6 fits in 64 bits unless
	 * the stamps are garbage, which the general conversion takes.
	 */
	if (c > INT64_MAX / 1000000 || c < INT64_MIN / 1000000)
		return wult_comp_cyc2ns(c, (uint64_t)khz);
	n = c * 1000000;
	/* A multiply by the inverse estimates the quotient; the steps make it
	 * the exact floor, as python's //.
	 */
	q = (int64_t)((double)n * dp->inv_khz);
	while (q * k > n)
		q--;
	while ((q + 1) * k <= n)
		q++;
	return q;
}

/* Reads every field the format has into @f (v1 payloads: decode_v1()). */
static void read_fields(const struct wult_dpdec *dp, const uint8_t *raw, uint64_t *f)
{
	int i;

	for (i = 0; i < F_NR; i++)
		f[i] = CORE(i) && dp->f[i].off >= 0 ? field(dp, raw, i) : 0;
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
	struct wult_comp_lat lat;
	double intr_raw, intr;	/* NaN: no interrupt (lat.no_intr) */
	double src;
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
 * its place): the same values as the general path below, derived by the
 * same wult_comp_derive() straight from the payload; of the two overheads
 * only the one IntrOff applies is converted. The format was checked to lay
 * out struct wult_dp v1's fields (later versions append, min_size stops at
 * v1's end).
 */
static inline __attribute__((always_inline)) void
v1_compute(struct wult_dpdec *dp, const uint8_t *raw, size_t size, struct v1 *c)
{
	uint64_t ts1, ts2;
	uint32_t src, intr_off;
	int32_t cs;
	int64_t ovh = 0;
	double khz;

	c->p = raw + WULT_DP_HDR_SIZE;
	intr_off = V1(c, intr_off);
	khz = V1(c, tsc_khz);
	set_khz(dp, khz);
	/* IntrOff is 0 or 1 at random: selected, not branched on. */
	ts1 = intr_off ? V1(c, ai_ts1) : V1(c, intr_ts1);
	ts2 = intr_off ? V1(c, ai_ts2) : V1(c, intr_ts2);
	if (khz > 0 && intr_off <= 1)
		ovh = cyc2ns(dp, ts2 - ts1, khz);
	wult_comp_derive(V1(c, ltime), V1(c, tbi), V1(c, tai), V1(c, tintr), intr_off,
			 V1(c, flags), ovh, &c->lat);
	c->intr_raw = c->lat.no_intr ? NAN : (double)c->lat.intr_raw;
	c->intr = c->lat.no_intr ? NAN : (double)c->lat.intr;
	c->src = 0;	/* v1 records: hrt */
	if (dp->src_off >= 0 && (size_t)dp->src_off + 4 <= size) {
		memcpy(&src, raw + dp->src_off, 4);
		c->src = src;
	}
	c->run = run_latency(dp, raw, size, V1(c, flags), V1(c, ltime));
	flagged(V1(c, flags), V1(c, tsc_delta), V1(c, mperf_delta), V1(c, smi_cnt),
		V1(c, nmi_cnt), c->fl);
	cs = V1(c, req_cstate);
	c->state = NULL;
	if (cs >= 0 && cs < MAX_CSTATES)
		c->state = dp->name[cs];
}

int wult_dpdec_decodes_sets(const struct wult_dpdec *dp)
{
	return dp->v1 && !dp->ctr.nctrs;
}

/*
 * Every metric a v1 payload gives, in ascending order: X(metric, its value
 * from struct v1 c) or N(first, last) for a run of metrics v1 lacks (NaN).
 * decode_v1() stores them in a struct wult_point; wult_dpdec_decode_raws()
 * writes a set's in that order with one predictable test each. The asserts
 * keep the list in the enum's order.
 */
#define V1_ORDERED(X, N)							\
	X(WAKE_LATENCY, c.lat.wake) X(WAKE_LATENCY_RAW, c.lat.wake_raw)		\
	X(INTR_LATENCY, c.intr) X(INTR_LATENCY_RAW, c.intr_raw)			\
	X(SILENT_TIME, c.lat.silent) X(LDIST, V1(&c, ldist))			\
	X(REQ_CSTATE, V1(&c, req_cstate)) X(INTR_OFF, V1(&c, intr_off))		\
	X(CC0, c.fl[0]) N(CC1, CPU_FREQ) X(SMI_CNT, c.fl[1]) X(NMI_CNT, c.fl[2])	\
	X(CPU, V1(&c, cpu)) X(LTIME, V1(&c, ltime)) X(TBI, V1(&c, tbi))		\
	X(TAI, V1(&c, tai)) X(TINTR, V1(&c, tintr)) N(SCALED, SCALED)		\
	X(SOURCE, c.src) X(RUN_LATENCY, c.run)

enum {
	ORD_BEFORE = -1,
#define ORD_X(m, val) ORD_##m,
#define ORD_N(a, b) ORD_##a, ORD_TO_##b = ORD_##a + WULT_M_##b - WULT_M_##a,
	V1_ORDERED(ORD_X, ORD_N)
#undef ORD_X
#undef ORD_N
	ORD_NR
};

#define ORD_X(m, val) _Static_assert((int)ORD_##m == (int)WULT_M_##m,		\
				     "V1_ORDERED: " #m " out of order");
#define ORD_N(a, b) _Static_assert((int)ORD_##a == (int)WULT_M_##a &&		\
				   (int)ORD_TO_##b == (int)WULT_M_##b,			\
				   "V1_ORDERED: " #a ".." #b " out of order");
V1_ORDERED(ORD_X, ORD_N)
#undef ORD_X
#undef ORD_N
_Static_assert((int)ORD_NR == (int)WULT_M_NR, "V1_ORDERED: not every metric");

/* A v1 payload into @v: every metric (those v1 lacks NaN), the state's name. */
static void decode_v1(struct wult_dpdec *dp, const uint8_t *raw, size_t size, struct wult_val *v)
{
	unsigned int m;
	struct v1 c;

	v1_compute(dp, raw, size, &c);
#define STORE(m, val)	v[WULT_M_##m].num = (val);
#define NANS(a, b)	for (m = WULT_M_##a; m <= WULT_M_##b; m++) v[m].num = NAN;
	V1_ORDERED(STORE, NANS)
#undef STORE
#undef NANS
	v[WULT_M_REQ_CSTATE].str = c.state;
}

/* The bits of metrics @a..@b. */
#define RUN_BITS(a, b)	((WULT_METRIC_BIT(WULT_M_##b) - WULT_METRIC_BIT(WULT_M_##a)) |	\
			 WULT_METRIC_BIT(WULT_M_##b))

/*
 * One loop over the batch, v1_compute() and the stores inlined in it (a
 * call per payload was 25 instructions of a report's datapoint), the
 * decoder's own checks made once per batch: only the payload's size is
 * checked per payload. Inlined with @metrics constant, the values no one
 * asked for are not computed and the tests of the others go.
 */
static inline __attribute__((always_inline)) int
raws_set(struct wult_dpdec *dp, const void *const *raw, const uint32_t *size, unsigned int n,
	 uint64_t metrics, unsigned int stride, double *out, const char **state)
{
	unsigned int i, got = 0;
	uint64_t run;
	double *o;
	struct v1 c;

	for (i = 0; i < n; i++) {
		if (!raw[i] || size[i] < dp->min_size)
			continue;
		v1_compute(dp, raw[i], size[i], &c);
		o = out + (size_t)got * stride;
#define PUT(m, val)	if (metrics & WULT_METRIC_BIT(WULT_M_##m)) *o++ = (val);
#define NANS(a, b)	for (run = metrics & RUN_BITS(a, b); run; run &= run - 1) *o++ = NAN;
		V1_ORDERED(PUT, NANS)
#undef PUT
#undef NANS
		state[got++] = c.state;
	}
	return (int)got;
}

/*
 * WULT_METRICS_SUMMARY has a loop of its own: 55 of a summary's ~300
 * instructions a datapoint on the reading thread were the tests of a set
 * known at run time and the values outside it (cachegrind, 1M datapoints).
 */
int wult_dpdec_decode_raws(struct wult_dpdec *dp, const void *const *raw, const uint32_t *size,
			   unsigned int n, uint64_t metrics, unsigned int stride, double *out,
			   const char **state)
{
	if (!wult_dpdec_decodes_sets(dp))
		return -EAGAIN;
	if (!dp->ev)
		return 0;	/* no format: nothing decodes */
	if (metrics == WULT_METRICS_SUMMARY)
		return raws_set(dp, raw, size, n, WULT_METRICS_SUMMARY, stride, out, state);
	return raws_set(dp, raw, size, n, metrics, stride, out, state);
}

int wult_dpdec_decode_set(struct wult_dpdec *dp, const struct wult_pd_sample *s,
			  uint64_t metrics, double *out, const char **state)
{
	const void *raw = s->raw;
	uint32_t size = s->raw_size;
	int ret = wult_dpdec_decode_raws(dp, &raw, &size, 1, metrics, 0, out, state);

	return ret < 0 ? ret : ret ? 0 : -EINVAL;
}

#define HAVE(i)	(dp->f[i].off >= 0)
#define OPT(i)	(HAVE(i) ? (double)f[i] : NAN)

int wult_dpdec_decode_raw(struct wult_dpdec *dp, const void *rawp, size_t size,
			  struct wult_point *pt)
{
	struct wult_comp_lat lat;
	double khz, intr_off;
	int64_t ovh = 0;
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
	khz = OPT(F_tsc_khz);
	set_khz(dp, khz);
	intr_off = OPT(F_intr_off);
	/* Compensated when the stamps IntrOff selects are in the format. */
	if (khz > 0 && ((intr_off == 1 && HAVE(F_ai_ts1) && HAVE(F_ai_ts2)) ||
			(intr_off == 0 && HAVE(F_intr_ts1) && HAVE(F_intr_ts2))))
		ovh = wult_comp_overhead(intr_off, f[F_ai_ts1], f[F_ai_ts2], f[F_intr_ts1],
					 f[F_intr_ts2], khz);
	/* flags is 0 where the format has none; no IntrOff: 2, neither. */
	wult_comp_derive(f[F_ltime], f[F_tbi], f[F_tai], f[F_tintr],
			 intr_off == 0 ? 0 : intr_off == 1 ? 1 : 2, f[F_flags], ovh, &lat);
	v[WULT_M_WAKE_LATENCY_RAW].num = lat.wake_raw;
	v[WULT_M_INTR_LATENCY_RAW].num = lat.no_intr ? NAN : (double)lat.intr_raw;
	v[WULT_M_WAKE_LATENCY].num = lat.wake;
	v[WULT_M_INTR_LATENCY].num = lat.no_intr ? NAN : (double)lat.intr;
	v[WULT_M_SILENT_TIME].num = lat.silent;
	v[WULT_M_LDIST].num = OPT(F_ldist);
	v[WULT_M_INTR_OFF].num = intr_off;
	v[WULT_M_CPU].num = OPT(F_cpu);
	v[WULT_M_LTIME].num = f[F_ltime];
	v[WULT_M_TBI].num = f[F_tbi];
	v[WULT_M_TAI].num = f[F_tai];
	v[WULT_M_TINTR].num = f[F_tintr];
	v[WULT_M_SOURCE].num = 0;	/* v1 records: hrt */
	if (dp->src_off >= 0 && (size_t)dp->src_off + 4 <= size) {
		uint32_t src;

		memcpy(&src, (const uint8_t *)rawp + dp->src_off, 4);
		v[WULT_M_SOURCE].num = src;
	}
	v[WULT_M_RUN_LATENCY].num = HAVE(F_flags) ?
		run_latency(dp, rawp, size, f[F_flags], f[F_ltime]) : NAN;
	if (HAVE(F_req_cstate)) {
		cs = (int64_t)f[F_req_cstate];
		/* The name for filters and CSV; the index for quick grouping. */
		v[WULT_M_REQ_CSTATE].num = cs;
		if (cs >= 0 && cs < MAX_CSTATES)
			v[WULT_M_REQ_CSTATE].str = dp->name[cs];
	}
	if (HAVE(F_flags)) {
		double fl[3];

		flagged(f[F_flags] & ~((HAVE(F_mperf_delta) ? 0 : WULT_DPF_MPERF) |
				       (HAVE(F_smi_cnt) ? 0 : WULT_DPF_SMI) |
				       (HAVE(F_nmi_cnt) ? 0 : WULT_DPF_NMI)),
			OPT(F_tsc_delta), f[F_mperf_delta], f[F_smi_cnt], f[F_nmi_cnt], fl);
		store_flagged(v, fl);
	}
	return 0;
}

uint64_t wult_dpdec_metrics(const struct wult_dpdec *dp, int with_counters)
{
	static const struct { int metric, fld, flag_fld; } opt[] = {
		{ WULT_M_LDIST, F_ldist, F_ldist },
		{ WULT_M_REQ_CSTATE, F_req_cstate, F_req_cstate },
		{ WULT_M_INTR_OFF, F_intr_off, F_intr_off },
		{ WULT_M_CPU, F_cpu, F_cpu },
		{ WULT_M_CC0, F_mperf_delta, F_tsc_delta },
		{ WULT_M_SMI_CNT, F_smi_cnt, F_flags },
		{ WULT_M_NMI_CNT, F_nmi_cnt, F_flags },
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
	if (dp->ttask_off >= 0 && HAVE(F_flags))
		bits |= WULT_METRIC_BIT(WULT_M_RUN_LATENCY);
	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
		if (HAVE(opt[i].fld) && HAVE(opt[i].flag_fld) &&
		    (opt[i].metric != WULT_M_CC0 || HAVE(F_flags)))
			bits |= WULT_METRIC_BIT(opt[i].metric);
	if (!with_counters || !HAVE(F_cpu))
		return bits;
	return bits | dpctr_metrics(&dp->ctr, HAVE(F_tsc_khz));
}

int wult_dpdec_decode(struct wult_dpdec *dp, const struct wult_pd_sample *s, struct wult_point *pt)
{
	int ret;

	if (!s->raw)
		return -EINVAL;
	ret = wult_dpdec_decode_raw(dp, s->raw, s->raw_size, pt);
	if (ret)
		return ret;
	dpctr_decode(&dp->ctr, s, dp->khz, pt);
	return 0;
}
