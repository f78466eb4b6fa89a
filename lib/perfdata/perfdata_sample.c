// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader, PERF_RECORD_SAMPLE: each field present by its
 * sample_type bit, each size checked against the record. The decoder does
 * not depend on the reader (wult_pd_sample_parse()), so records taken from
 * a ring buffer decode the same way as those read from a file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal/pd.h"

struct cur {
	const uint8_t *p, *end;
	const char *field;
	struct wult_pd_read_value *vals;	/* WULT_PD_MAX_GROUP of them */
	char *err;
	size_t errlen;
};

/* A malformed record: -EINVAL, and why in the caller's buffer. */
#define cfail(c, ...) wult_err_set((c)->err, (c)->errlen, -EINVAL, __VA_ARGS__)

static inline int need(struct cur *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p))
		return cfail(c, "sample field %s needs %llu bytes, %zu left in the record",
			     c->field, (unsigned long long)n, (size_t)(c->end - c->p));
	return 0;
}

static inline int get64(struct cur *c, const char *field, uint64_t *v)
{
	c->field = field;
	if (need(c, 8))
		return -EINVAL;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

static inline int get_arr(struct cur *c, const char *field, uint64_t nr, uint64_t each,
			  const void **out)
{
	c->field = field;
	if (nr > (uint64_t)(c->end - c->p) / each)
		return cfail(c, "%s count %llu runs past the record end", field,
			     (unsigned long long)nr);
	*out = c->p;
	c->p += nr * each;
	return 0;
}

static int read_group(struct cur *c, uint64_t rf, struct wult_pd_sample *s)
{
	uint64_t each = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST)), nr, i;
	int ret = get64(c, "READ nr", &nr);

	if (ret)
		return ret;
	if (nr > WULT_PD_MAX_GROUP || nr > (uint64_t)(c->end - c->p) / each)
		return cfail(c, "absurd group read count %llu (record has room for %llu)",
			     (unsigned long long)nr,
			     (unsigned long long)((c->end - c->p) / each));
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		ret = get64(c, "READ time_enabled", &s->read.time_enabled);
	if (!ret && (rf & PERF_FORMAT_TOTAL_TIME_RUNNING))
		ret = get64(c, "READ time_running", &s->read.time_running);
	for (i = 0; !ret && i < nr; i++) {
		struct wult_pd_read_value *v = &c->vals[i];

		v->id = v->lost = 0;
		ret = get64(c, "READ value", &v->value);
		if (!ret && (rf & PERF_FORMAT_ID))
			ret = get64(c, "READ id", &v->id);
		if (!ret && (rf & PERF_FORMAT_LOST))
			ret = get64(c, "READ lost", &v->lost);
	}
	s->read.nr = nr;
	return ret;
}

static int parse_read(struct cur *c, const struct perf_event_attr *at, struct wult_pd_sample *s)
{
	struct wult_pd_read_value *v = &c->vals[0];
	uint64_t rf = at->read_format;
	int ret;

	s->read.values = c->vals;
	if (rf & PERF_FORMAT_GROUP)
		return read_group(c, rf, s);
	v->id = v->lost = 0;
	ret = get64(c, "READ value", &v->value);
	if (!ret && (rf & PERF_FORMAT_TOTAL_TIME_ENABLED))
		ret = get64(c, "READ time_enabled", &s->read.time_enabled);
	if (!ret && (rf & PERF_FORMAT_TOTAL_TIME_RUNNING))
		ret = get64(c, "READ time_running", &s->read.time_running);
	if (!ret && (rf & PERF_FORMAT_ID))
		ret = get64(c, "READ id", &v->id);
	if (!ret && (rf & PERF_FORMAT_LOST))
		ret = get64(c, "READ lost", &v->lost);
	s->read.nr = 1;
	return ret;
}

static int parse_regs(struct cur *c, const char *field, uint64_t mask, uint64_t *abi,
		      uint32_t *nr, const uint64_t **regs)
{
	int ret = get64(c, field, abi);

	*nr = 0;
	if (ret || !*abi)
		return ret;
	*nr = __builtin_popcountll(mask);
	return get_arr(c, field, *nr, 8, (const void **)regs);
}

/*
 * The fields before READ of a sample with only those (and RAW or none
 * after): one bounds check for all of them, the common case of wult
 * datapoints.
 */
static inline __attribute__((always_inline)) void parse_fixed(struct cur *c, uint64_t st,
							     struct wult_pd_sample *s)
{
	const uint8_t *p = c->p;
	uint64_t v;

#define TAKE(bit, dst) do { if (st & (bit)) { memcpy(&v, p, 8); p += 8; dst; } } while (0)
	TAKE(PERF_SAMPLE_IDENTIFIER, s->id = v);
	TAKE(PERF_SAMPLE_IP, s->ip = v);
	TAKE(PERF_SAMPLE_TID, (s->pid = (uint32_t)v, s->tid = v >> 32));
	TAKE(PERF_SAMPLE_TIME, s->time = v);
	TAKE(PERF_SAMPLE_ADDR, s->addr = v);
	TAKE(PERF_SAMPLE_ID, s->id = v);
	TAKE(PERF_SAMPLE_STREAM_ID, s->stream_id = v);
	TAKE(PERF_SAMPLE_CPU, s->cpu = (uint32_t)v);
	TAKE(PERF_SAMPLE_PERIOD, s->period = v);
#undef TAKE
	c->p = p;
}

/* The fields up to READ, in the order the kernel writes them. */
static int parse_head(struct cur *c, const struct perf_event_attr *at, struct wult_pd_sample *s)
{
	uint64_t st = at->sample_type, v = 0;
	int ret = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		ret = get64(c, "IDENTIFIER", &s->id);
	if (!ret && (st & PERF_SAMPLE_IP))
		ret = get64(c, "IP", &s->ip);
	if (!ret && (st & PERF_SAMPLE_TID)) {
		ret = get64(c, "TID", &v);
		s->pid = (uint32_t)v;
		s->tid = v >> 32;
	}
	if (!ret && (st & PERF_SAMPLE_TIME))
		ret = get64(c, "TIME", &s->time);
	if (!ret && (st & PERF_SAMPLE_ADDR))
		ret = get64(c, "ADDR", &s->addr);
	if (!ret && (st & PERF_SAMPLE_ID))
		ret = get64(c, "ID", &s->id);
	if (!ret && (st & PERF_SAMPLE_STREAM_ID))
		ret = get64(c, "STREAM_ID", &s->stream_id);
	if (!ret && (st & PERF_SAMPLE_CPU)) {
		ret = get64(c, "CPU", &v);
		s->cpu = (uint32_t)v;
	}
	if (!ret && (st & PERF_SAMPLE_PERIOD))
		ret = get64(c, "PERIOD", &s->period);
	if (!ret && (st & PERF_SAMPLE_READ))
		ret = parse_read(c, at, s);
	if (!ret && (st & PERF_SAMPLE_CALLCHAIN)) {
		ret = get64(c, "CALLCHAIN nr", &s->callchain_nr);
		ret = ret ?: get_arr(c, "CALLCHAIN", s->callchain_nr, 8,
				     (const void **)&s->callchain);
	}
	return ret;
}

static inline __attribute__((always_inline)) int parse_raw(struct cur *c,
							   struct wult_pd_sample *s)
{
	const void *pad;
	uint32_t rs;
	int ret;

	c->field = "RAW size";
	ret = need(c, 4);
	if (ret)
		return ret;
	memcpy(&rs, c->p, 4);
	c->p += 4;
	s->raw_size = rs;
	ret = get_arr(c, "RAW", rs, 1, &s->raw);
	/* The u32 size and the data together are u64-aligned. */
	if (!ret && ((4 + rs) % 8))
		ret = get_arr(c, "RAW padding", 8 - (4 + rs) % 8, 1, &pad);
	return ret;
}

static int parse_branches(struct cur *c, const struct perf_event_attr *at,
			  struct wult_pd_sample *s)
{
	uint64_t v = 0;
	int ret = get64(c, "BRANCH_STACK nr", &s->branch_nr);

	if (!ret && (at->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)) {
		ret = get64(c, "BRANCH_STACK hw_idx", &v);
		s->branch_hw_idx = (int64_t)v;
	}
	return ret ?: get_arr(c, "BRANCH_STACK", s->branch_nr, sizeof(struct perf_branch_entry),
			      (const void **)&s->branches);
}

/* The fields after CALLCHAIN. */
static int parse_tail(struct cur *c, const struct perf_event_attr *at, struct wult_pd_sample *s)
{
	uint64_t st = at->sample_type;
	int ret = 0;

	if (st & PERF_SAMPLE_RAW)
		ret = parse_raw(c, s);
	if (!ret && (st & PERF_SAMPLE_BRANCH_STACK))
		ret = parse_branches(c, at, s);
	if (!ret && (st & PERF_SAMPLE_REGS_USER))
		ret = parse_regs(c, "REGS_USER", at->sample_regs_user, &s->regs_user_abi,
				 &s->regs_user_nr, &s->regs_user);
	if (!ret && (st & PERF_SAMPLE_STACK_USER)) {
		ret = get64(c, "STACK_USER size", &s->stack_size);
		ret = ret ?: get_arr(c, "STACK_USER", s->stack_size, 1, &s->stack);
		if (!ret && s->stack_size)
			ret = get64(c, "STACK_USER dyn_size", &s->stack_dyn_size);
	}
	if (!ret && (st & PERF_SAMPLE_WEIGHT_TYPE))
		ret = get64(c, "WEIGHT", &s->weight);
	if (!ret && (st & PERF_SAMPLE_DATA_SRC))
		ret = get64(c, "DATA_SRC", &s->data_src);
	if (!ret && (st & PERF_SAMPLE_TRANSACTION))
		ret = get64(c, "TRANSACTION", &s->transaction);
	if (!ret && (st & PERF_SAMPLE_REGS_INTR))
		ret = parse_regs(c, "REGS_INTR", at->sample_regs_intr, &s->regs_intr_abi,
				 &s->regs_intr_nr, &s->regs_intr);
	if (!ret && (st & PERF_SAMPLE_PHYS_ADDR))
		ret = get64(c, "PHYS_ADDR", &s->phys_addr);
	if (!ret && (st & PERF_SAMPLE_CGROUP))
		ret = get64(c, "CGROUP", &s->cgroup);
	if (!ret && (st & PERF_SAMPLE_DATA_PAGE_SIZE))
		ret = get64(c, "DATA_PAGE_SIZE", &s->data_page_size);
	if (!ret && (st & PERF_SAMPLE_CODE_PAGE_SIZE))
		ret = get64(c, "CODE_PAGE_SIZE", &s->code_page_size);
	if (!ret && (st & PERF_SAMPLE_AUX)) {
		ret = get64(c, "AUX size", &s->aux_size);
		ret = ret ?: get_arr(c, "AUX", s->aux_size, 1, &s->aux);
	}
	return ret;
}

/*
 * A sample's fields are valid per sample_type bit: clear only those a set
 * bit leaves untouched (a full memset costs more than the parsing).
 */
static inline void sample_start(struct wult_pd_sample *s, const struct wult_pd_attr *attr)
{
	s->attr = attr;
	s->read.nr = 0;
	s->read.time_enabled = s->read.time_running = 0;
	s->stack_dyn_size = 0;
	s->raw = NULL;
	s->raw_size = 0;
	s->branch_hw_idx = -1;
}

/* wult_pd_sample_parse(), inlined into the reader's per-record path (a
 * call per layer was a tenth of a sample's parse). */
static inline __attribute__((always_inline)) int
sample_parse(const struct wult_pd_attr *attr, const void *rec, size_t size,
	     struct wult_pd_sample *s, struct wult_pd_read_value *vals, char *err, size_t errlen)
{
	struct cur c = { .p = (const uint8_t *)rec + 8, .end = (const uint8_t *)rec + size,
			 .vals = vals, .err = err, .errlen = errlen };
	uint64_t st = attr->attr.sample_type;
	int ret;

	if (size < sizeof(struct perf_event_header))
		return cfail(&c, "sample of %zu bytes, less than its header", size);
	sample_start(s, attr);
	/* The common case (wult datapoints): the fields before READ and RAW,
	 * nothing after it to test for; 72 bytes: room for all nine (no
	 * popcount: not an instruction everywhere). */
	if (!(st & ~(FIXED_HEAD | PERF_SAMPLE_RAW)) && c.end - c.p >= 72) {
		parse_fixed(&c, st, s);
		return st & PERF_SAMPLE_RAW ? parse_raw(&c, s) : 0;
	}
	ret = parse_head(&c, &attr->attr, s);
	ret = ret ?: parse_tail(&c, &attr->attr, s);
	if (!ret && (st & ~((uint64_t)PERF_SAMPLE_MAX - 1)))
		ret = cfail(&c, "unknown sample_type bits 0x%llx",
			    (unsigned long long)(st & ~((uint64_t)PERF_SAMPLE_MAX - 1)));
	return ret;
}

int wult_pd_sample_parse(const struct wult_pd_attr *attr, const void *rec, size_t size,
			 struct wult_pd_sample *s, struct wult_pd_read_value *vals,
			 char *err, size_t errlen)
{
	return sample_parse(attr, rec, size, s, vals, err, errlen);
}

int pd_find_attr(struct wult_pd *pd, const uint8_t *body, size_t len, int sample)
{
	uint64_t id;
	int pos = -1, a;
	unsigned int i;

	if (pd->nattrs == 1)
		return 0;
	if (!pd->nattrs)
		return pd_fail(pd, -EINVAL, "offset %llu: record before any event attr",
			       (unsigned long long)pd->rec_off);
	/* All attrs must put the id at the same place for it to be found;
	 * for samples, worked out once per set of attrs. */
	if (sample && pd->id_pos_nattrs == pd->nattrs) {
		pos = pd->id_pos;
	} else {
		for (i = 0; i < pd->nattrs; i++) {
			int p = sample ? pd->attrs[i].id_pos : pd->attrs[i].is_pos;

			if (i && p != pos)
				pos = -2;
			else if (!i)
				pos = p;
		}
		if (sample) {
			pd->id_pos = pos;
			pd->id_pos_nattrs = pd->nattrs;
		}
	}
	if (pos < 0) {
		if (!sample)
			return -1;	/* not worth failing for: rarely needed */
		return pd_fail(pd, -EINVAL, "offset %llu: cannot tell which event a sample belongs "
			       "to (no common ID/IDENTIFIER position)",
			       (unsigned long long)pd->rec_off);
	}
	if (sample) {
		if ((size_t)(pos + 1) * 8 > len)
			return pd_fail(pd, -EINVAL, "offset %llu: sample too short for its id",
				       (unsigned long long)pd->rec_off);
		memcpy(&id, body + pos * 8, 8);
	} else {
		if ((size_t)pos * 8 > len)
			return -1;
		memcpy(&id, body + len - pos * 8, 8);
	}
	a = pd_idmap_get(pd, id);
	if (a < 0 && sample)
		return pd_fail(pd, -EINVAL, "offset %llu: sample id %llu matches no event attr",
			       (unsigned long long)pd->rec_off, (unsigned long long)id);
	return a;
}

/* pd_parse_sample() of any sample, an error's message made. */
static int __attribute__((noinline)) parse_sample_slow(struct wult_pd *pd, const uint8_t *rec,
							size_t size, struct wult_pd_sample *s)
{
	char why[256];
	int a, ret;

	a = pd->nattrs == 1 ? 0 : pd_find_attr(pd, rec + 8, size - 8, 1);
	if (a < 0)
		return a;
	ret = sample_parse(&pd->attrs[a].pub, rec, size, s, pd->readvals, why, sizeof(why));
	if (ret)
		return pd_fail(pd, ret, "offset %llu: %s", (unsigned long long)pd->rec_off, why);
	return 0;
}

/*
 * The common sample, a file of one attr whose samples hold the fields
 * before READ and RAW (every wult datapoint), here; the rest, and every
 * malformed one (parsed again there for its message), by
 * parse_sample_slow(). Small enough for the link-time optimiser to inline
 * into wult_pd_next(): the call's frame (and the error buffer's) was a
 * fifth of a sample's parse.
 */
int pd_parse_sample(struct wult_pd *pd, const uint8_t *rec, size_t size,
		    struct wult_pd_sample *s)
{
	struct cur c = { .p = rec + 8, .end = rec + size };
	const struct wult_pd_attr *attr;
	uint64_t st;
	uint32_t rs;

	if (pd->nattrs != 1 || size < 8 + 72)
		return parse_sample_slow(pd, rec, size, s);
	attr = &pd->attrs[0].pub;
	st = attr->attr.sample_type;
	if (st & ~(FIXED_HEAD | PERF_SAMPLE_RAW))
		return parse_sample_slow(pd, rec, size, s);
	sample_start(s, attr);
	parse_fixed(&c, st, s);
	if (!(st & PERF_SAMPLE_RAW))
		return 0;
	/* parse_raw()'s checks: the size field, then the data and padding. */
	if (c.end - c.p < 4)
		return parse_sample_slow(pd, rec, size, s);
	memcpy(&rs, c.p, 4);
	if (!pd_raw_fits(rs, (uint64_t)(c.end - c.p)))
		return parse_sample_slow(pd, rec, size, s);
	s->raw = c.p + 4;
	s->raw_size = rs;
	return 0;
}
