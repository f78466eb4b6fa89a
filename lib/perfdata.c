// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader. Everything read from the file is untrusted: each size
 * and count is checked against what contains it before it is used, and
 * every failure says where and why. The data section is streamed through
 * one buffer; a record is at most 64 KiB (its size is a u16), so records
 * are decoded from a fixed, aligned copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <perf/event.h>
#include <wult/pdwrite.h>
#include <wult/perfdata.h>

#define PERF_MAGIC2		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_MAGIC2_SWAPPED	0x50455246494c4532ULL
#define PERF_MAGIC1		0x454c494646524550ULL	/* "PERFFILE" */
#define FILE_HDR_SIZE		104
#define PIPE_HDR_SIZE		16
#define FEAT_BITS		256
#define MAX_ATTRS		4096
#define MAX_IDS			(1U << 20)
#define MAX_FEAT_STR		(1U << 20)
#define MAX_FORMATS		4096
#define MAX_FORMAT_SIZE		(1U << 20)
/* A TRACING_DATA section: what is not kept (kallsyms, printk formats,
 * saved cmdlines) is skipped, but a larger one is not perf's.
 */
#define MAX_TRACING_DATA	(1ULL << 30)
#define MAX_DECOMP		(64U << 20)	/* one COMPRESSED record's output */
#define MAX_QUEUE		(256U << 20)	/* ordered mode: bytes held */
#define INBUF_SIZE		(256U << 10)

enum {
	FEAT_TRACING_DATA = 1, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_NRCPUS = 7,
	FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_PMU_MAPPINGS = 16,
	FEAT_WULT_CSTATES = WULT_PDW_FEAT_CSTATES,
};

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct file_section attrs, data, event_types;
	uint64_t features[FEAT_BITS / 64];
};

struct attr_ent {
	struct wult_pd_attr pub;
	uint64_t *ids;
	char *name;
	int id_pos;		/* sample: u64 index of the id, -1 none */
	int is_pos;		/* other records: u64 index from the end, -1 none */
};

struct id_slot {
	uint64_t id;
	int attr;		/* -1: empty */
};

struct format {
	char *system, *text;
	size_t len;
};

struct pmu_map {
	uint32_t type;
	char *name;
};

struct cstate_name {
	uint32_t cpu, idx;
	char *name;
};

struct qent {
	uint64_t time, seq;
	size_t off;
};

struct wult_pd {
	int fd;
	int pipe;
	unsigned int flags;
	char err[512];
	uint64_t file_size;

	/* the data stream */
	uint8_t *in;
	size_t in_pos, in_len;
	uint64_t in_off;	/* file offset of in[in_pos] */
	uint64_t data_end;	/* file mode: end of the data section */
	int eof;

	/* the current record (aligned copy) */
	uint64_t rec[65536 / 8];
	const uint8_t *cur;	/* the current record: in a buffer, or pd->rec */
	uint64_t rec_off;
	int rec_inner;		/* pd->rec came out of a COMPRESSED record */

	/* decompressed COMPRESSED payload being walked */
	ZSTD_DCtx *zd;
	uint8_t *dbuf;
	size_t dcap, dlen, dpos;
	uint64_t dsrc_off;

	struct attr_ent *attrs;
	unsigned int nattrs;
	struct id_slot *idmap;
	size_t idcap, nids;
	struct wult_pd_read_value readvals[WULT_PD_MAX_GROUP];

	char *hostname, *osrelease, *cmdline;
	uint32_t cpus_online, cpus_avail;
	struct pmu_map *pmus;
	struct cstate_name *cstates;	/* WULT_PDW_FEAT_CSTATES */
	unsigned int ncstates;
	unsigned int npmus;
	struct format *formats;
	unsigned int nformats;
	uint64_t counts[128];

	/* kept metadata, in bytes: all of it, and per feature (0: attrs and
	 * ids), so a repeated feature gives its old share back
	 */
	uint64_t meta;
	uint64_t feat_meta[FEAT_BITS];
	unsigned int charging;		/* the feature being parsed, or 0 */

	/* ordered mode: records of the rounds not yet flushed */
	uint8_t *qbuf;
	size_t qlen, qcap;
	struct qent *q;
	size_t qn, qcapn, qready, qemit;
	uint64_t qseq, round_max, prev_round_max;
	int draining;
};

static int fail(struct wult_pd *pd, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), cold, noinline));

static int fail(struct wult_pd *pd, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pd->err, sizeof(pd->err), fmt, ap);
	va_end(ap);
	return err;
}

/* ---- the metadata budget ---- */

/* Charges @n kept bytes to the budget and to the feature being parsed. */
static int meta_charge(struct wult_pd *pd, uint64_t n, const char *what)
{
	if (n > WULT_PD_META_BUDGET - pd->meta)
		return fail(pd, -EFBIG, "%s: the file's metadata (event formats, features, PMU "
			    "mappings, event ids) needs more than the reader's budget of %u %s "
			    "(%llu bytes kept, %llu more wanted)", what,
			    WULT_PD_META_BUDGET >= (1U << 20) ? WULT_PD_META_BUDGET >> 20 :
			    WULT_PD_META_BUDGET >> 10,
			    WULT_PD_META_BUDGET >= (1U << 20) ? "MiB" : "KiB",
			    (unsigned long long)pd->meta, (unsigned long long)n);
	pd->meta += n;
	pd->feat_meta[pd->charging] += n;
	return 0;
}

/* ---- raw input ---- */

static int pread_full(struct wult_pd *pd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(pd->fd, (char *)buf + done, n - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(pd, -errno, "read at offset %llu: %s",
				    (unsigned long long)(off + done), strerror(errno));
		if (!r)
			return fail(pd, -EINVAL, "unexpected end of file at offset %llu "
				    "(wanted %zu bytes at %llu)",
				    (unsigned long long)(off + done), n, (unsigned long long)off);
		done += r;
	}
	return 0;
}

/* Makes @n bytes available in the stream buffer: 1, 0 at a clean end, or
 * an error.
 */
static int in_fill(struct wult_pd *pd, size_t n)
{
	while (pd->in_len - pd->in_pos < n) {
		size_t want;
		ssize_t r;

		if (pd->in_pos) {
			memmove(pd->in, pd->in + pd->in_pos, pd->in_len - pd->in_pos);
			pd->in_len -= pd->in_pos;
			pd->in_pos = 0;
		}
		want = INBUF_SIZE - pd->in_len;
		if (!pd->pipe) {
			uint64_t left = pd->data_end - (pd->in_off + pd->in_len);

			if (left < want)
				want = left;
		}
		if (!want)
			return 0;
		r = read(pd->fd, pd->in + pd->in_len, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail(pd, -errno, "read: %s", strerror(errno));
		if (!r)
			return 0;
		pd->in_len += r;
	}
	return 1;
}

static int in_read(struct wult_pd *pd, void *dst, size_t n, const char *what)
{
	int ret = in_fill(pd, n);

	if (ret < 0)
		return ret;
	if (!ret)
		return fail(pd, -EINVAL, "offset %llu: %s truncated: %zu of %zu bytes before "
			    "the end of the %s", (unsigned long long)pd->in_off, what,
			    pd->in_len - pd->in_pos, n, pd->pipe ? "stream" : "data section");
	memcpy(dst, pd->in + pd->in_pos, n);
	pd->in_pos += n;
	pd->in_off += n;
	return 0;
}

static int in_skip(struct wult_pd *pd, uint64_t n, const char *what)
{
	while (n) {
		size_t chunk = n > INBUF_SIZE / 2 ? INBUF_SIZE / 2 : n;
		int ret = in_fill(pd, chunk);

		if (ret < 0)
			return ret;
		if (!ret)
			return fail(pd, -EINVAL, "offset %llu: %s runs past the end of the %s",
				    (unsigned long long)pd->in_off, what,
				    pd->pipe ? "stream" : "data section");
		pd->in_pos += chunk;
		pd->in_off += chunk;
		n -= chunk;
	}
	return 0;
}

/* A bounded sub-reader: a feature section (pread) or part of the stream. */
struct rd {
	struct wult_pd *pd;
	int stream;
	const uint8_t *mem;	/* a section already in memory */
	uint64_t off, left;
	const char *what;
};

static int rd_read(struct rd *r, void *dst, uint64_t n)
{
	int ret = 0;

	if (n > r->left)
		return fail(r->pd, -EINVAL, "%s: %llu bytes wanted past its end (%llu left)",
			    r->what, (unsigned long long)n, (unsigned long long)r->left);
	if (r->mem)
		memcpy(dst, r->mem + r->off, n);
	else if (r->stream)
		/* In pieces: the stream buffer is smaller than a format may be. */
		for (uint64_t done = 0, k; !ret && done < n; done += k) {
			k = n - done > INBUF_SIZE / 2 ? INBUF_SIZE / 2 : n - done;
			ret = in_read(r->pd, (uint8_t *)dst + done, k, r->what);
		}
	else
		ret = pread_full(r->pd, dst, n, r->off);
	if (ret)
		return ret;
	r->off += n;
	r->left -= n;
	return 0;
}

static int rd_skip(struct rd *r, uint64_t n)
{
	int ret = 0;

	if (n > r->left)
		return fail(r->pd, -EINVAL, "%s: %llu bytes to skip past its end (%llu left)",
			    r->what, (unsigned long long)n, (unsigned long long)r->left);
	if (r->stream)
		ret = in_skip(r->pd, n, r->what);
	if (ret)
		return ret;
	r->off += n;
	r->left -= n;
	return 0;
}

static int rd_u32(struct rd *r, uint32_t *v)
{
	return rd_read(r, v, 4);
}

static int rd_u64(struct rd *r, uint64_t *v)
{
	return rd_read(r, v, 8);
}

/* Reads up to and including a NUL (at most @max bytes) into a new string. */
static int rd_cstr(struct rd *r, size_t max, char **out)
{
	char *s = malloc(max + 1);
	size_t i;
	int ret;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < max; i++) {
		ret = rd_read(r, &s[i], 1);
		if (ret) {
			free(s);
			return ret;
		}
		if (!s[i]) {
			*out = s;
			return 0;
		}
	}
	free(s);
	return fail(r->pd, -EINVAL, "%s: string longer than %zu bytes", r->what, max);
}

/* struct perf_header_string: u32 len, then len bytes (NUL-padded). */
static int rd_hstr(struct rd *r, char **out)
{
	uint32_t len;
	char *s;
	int ret;

	ret = rd_u32(r, &len);
	if (ret)
		return ret;
	if (len > MAX_FEAT_STR || len > r->left)
		return fail(r->pd, -EINVAL, "%s: string length %u past the section end",
			    r->what, len);
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	ret = rd_read(r, s, len);
	if (ret) {
		free(s);
		return ret;
	}
	s[len] = '\0';
	*out = s;
	return 0;
}

/* ---- attrs and ids ---- */

static int sample_id_pos(uint64_t st)
{
	int pos = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	pos += !!(st & PERF_SAMPLE_IP);
	pos += !!(st & PERF_SAMPLE_TID);
	pos += !!(st & PERF_SAMPLE_TIME);
	pos += !!(st & PERF_SAMPLE_ADDR);
	return pos;
}

/* Position of the id in a non-sample record's trailing sample_id, counted
 * in u64 from the end (1 = the last u64).
 */
static int nonsample_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU);
}

static int idmap_put(struct wult_pd *pd, uint64_t id, int attr)
{
	size_t i;

	if ((pd->nids + 1) * 2 > pd->idcap) {
		size_t ncap = pd->idcap ? pd->idcap * 2 : 64, j;
		struct id_slot *nm;
		int ret = meta_charge(pd, (ncap - pd->idcap) * sizeof(*nm), "event ids");

		if (ret)
			return ret;
		nm = malloc(ncap * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		for (j = 0; j < ncap; j++)
			nm[j].attr = -1;
		for (j = 0; j < pd->idcap; j++) {
			if (pd->idmap[j].attr < 0)
				continue;
			i = (pd->idmap[j].id * 0x9e3779b97f4a7c15ULL) & (ncap - 1);
			while (nm[i].attr >= 0)
				i = (i + 1) & (ncap - 1);
			nm[i] = pd->idmap[j];
		}
		free(pd->idmap);
		pd->idmap = nm;
		pd->idcap = ncap;
	}
	i = (id * 0x9e3779b97f4a7c15ULL) & (pd->idcap - 1);
	while (pd->idmap[i].attr >= 0) {
		if (pd->idmap[i].id == id) {
			pd->idmap[i].attr = attr;	/* a later attr wins, as in perf */
			return 0;
		}
		i = (i + 1) & (pd->idcap - 1);
	}
	pd->idmap[i].id = id;
	pd->idmap[i].attr = attr;
	pd->nids++;
	return 0;
}

static int idmap_get(const struct wult_pd *pd, uint64_t id)
{
	size_t i;

	if (!pd->idcap)
		return -1;
	i = (id * 0x9e3779b97f4a7c15ULL) & (pd->idcap - 1);
	while (pd->idmap[i].attr >= 0) {
		if (pd->idmap[i].id == id)
			return pd->idmap[i].attr;
		i = (i + 1) & (pd->idcap - 1);
	}
	return -1;
}

static int attr_size_ok(uint32_t size)
{
	return size >= PERF_ATTR_SIZE_VER0 && size <= 4096 && !(size % 8);
}

/* Adds an attr whose on-disk bytes are @raw (@size bytes) with @nids ids. */
static int add_attr(struct wult_pd *pd, const void *raw, uint32_t size,
		    const uint64_t *ids, uint64_t nids)
{
	struct attr_ent *a, *na;
	uint64_t i;
	int ret;

	if (pd->nattrs >= MAX_ATTRS)
		return fail(pd, -EINVAL, "more than %d event attrs", MAX_ATTRS);
	if (nids > MAX_IDS || pd->nids + nids > MAX_IDS)
		return fail(pd, -EINVAL, "absurd number of event ids (%llu)",
			    (unsigned long long)nids);
	ret = meta_charge(pd, sizeof(*na) + nids * sizeof(*ids), "event attrs");
	if (ret)
		return ret;
	na = realloc(pd->attrs, (pd->nattrs + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	pd->attrs = na;
	/* Pointers into the array moved: refresh them. */
	for (i = 0; i < pd->nattrs; i++)
		na[i].pub.ids = na[i].ids;
	a = &na[pd->nattrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->pub.attr, raw, size < sizeof(a->pub.attr) ? size : sizeof(a->pub.attr));
	a->pub.attr.size = size;
	if (nids) {
		a->ids = malloc(nids * sizeof(*ids));
		if (!a->ids)
			return -ENOMEM;
		memcpy(a->ids, ids, nids * sizeof(*ids));
	}
	a->pub.ids = a->ids;
	a->pub.nr_ids = nids;
	a->id_pos = sample_id_pos(a->pub.attr.sample_type);
	a->is_pos = nonsample_id_pos(a->pub.attr.sample_type);
	pd->nattrs++;
	for (i = 0; i < nids; i++) {
		ret = idmap_put(pd, ids[i], pd->nattrs - 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- features ---- */

static int parse_tracing_data(struct wult_pd *pd, struct rd *r)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t m[10], bigendian, long_size;
	uint32_t page_size, n, nsys, i, j, sz32;
	char *ver = NULL, *name = NULL;
	uint64_t sz;
	int ret;

	ret = rd_read(r, m, sizeof(m));
	if (ret)
		return ret;
	if (memcmp(m, magic, sizeof(m)))
		return fail(pd, -EINVAL, "%s: bad tracing data magic", r->what);
	ret = rd_cstr(r, 16, &ver);
	if (ret)
		return ret;
	free(ver);
	ret = rd_read(r, &bigendian, 1);
	ret = ret ?: rd_read(r, &long_size, 1);
	ret = ret ?: rd_u32(r, &page_size);
	if (ret)
		return ret;
	if (bigendian)
		return fail(pd, -EINVAL, "%s: big-endian tracing data is not supported", r->what);
	/* header_page and header_event: a name, a u64 size, the text. */
	for (i = 0; i < 2; i++) {
		ret = rd_cstr(r, 32, &name);
		if (ret)
			return ret;
		free(name);
		ret = rd_u64(r, &sz);
		ret = ret ?: rd_skip(r, sz);
		if (ret)
			return ret;
	}
	/* ftrace's own formats: kept out, wult decodes only event formats. */
	ret = rd_u32(r, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = rd_u64(r, &sz);
		ret = ret ?: rd_skip(r, sz);
		if (ret)
			return ret;
	}
	ret = rd_u32(r, &nsys);
	if (ret)
		return ret;
	for (i = 0; i < nsys; i++) {
		char *sys = NULL;

		ret = rd_cstr(r, 256, &sys);
		if (ret)
			return ret;
		ret = rd_u32(r, &n);
		for (j = 0; !ret && j < n; j++) {
			struct format *nf;
			char *text;

			ret = rd_u64(r, &sz);
			if (ret)
				break;
			if (sz > MAX_FORMAT_SIZE || pd->nformats >= MAX_FORMATS) {
				ret = fail(pd, -EINVAL, "%s: absurd event format (size %llu, count %u)",
					   r->what, (unsigned long long)sz, pd->nformats);
				break;
			}
			ret = meta_charge(pd, sz + 1 + strlen(sys) + 1 + sizeof(*nf), r->what);
			if (ret)
				break;
			text = malloc(sz + 1);
			nf = realloc(pd->formats, (pd->nformats + 1) * sizeof(*nf));
			if (nf)
				pd->formats = nf;
			if (!text || !nf) {
				free(text);
				ret = -ENOMEM;
				break;
			}
			ret = rd_read(r, text, sz);
			if (ret) {
				free(text);
				break;
			}
			text[sz] = '\0';
			nf[pd->nformats].system = strdup(sys);
			nf[pd->nformats].text = text;
			nf[pd->nformats].len = sz;
			if (!nf[pd->nformats].system) {
				free(text);
				ret = -ENOMEM;
				break;
			}
			pd->nformats++;
		}
		free(sys);
		if (ret)
			return ret;
	}
	/* kallsyms and printk formats (u32 sizes): not needed here. */
	for (i = 0; i < 2 && r->left; i++) {
		ret = rd_u32(r, &sz32);
		ret = ret ?: rd_skip(r, sz32);
		if (ret)
			return ret;
	}
	return rd_skip(r, r->left);	/* saved cmdlines and padding */
}

static int parse_event_desc(struct wult_pd *pd, struct rd *r)
{
	uint32_t nr, asz, i, nids;
	uint8_t abuf[4096];
	uint64_t *ids = NULL;
	char *name;
	int ret, a;

	ret = rd_u32(r, &nr);
	ret = ret ?: rd_u32(r, &asz);
	if (ret)
		return ret;
	if (nr > MAX_ATTRS || !attr_size_ok(asz))
		return fail(pd, -EINVAL, "%s: absurd event count %u or attr size %u",
			    r->what, nr, asz);
	for (i = 0; i < nr; i++) {
		ret = rd_read(r, abuf, asz);
		ret = ret ?: rd_u32(r, &nids);
		if (ret)
			return ret;
		ret = rd_hstr(r, &name);
		if (ret)
			return ret;
		if ((uint64_t)nids * 8 > r->left || nids > MAX_IDS) {
			free(name);
			return fail(pd, -EINVAL, "%s: %u ids past the section end", r->what, nids);
		}
		ids = malloc((nids + 1) * 8ULL);
		if (!ids) {
			free(name);
			return -ENOMEM;
		}
		ret = rd_read(r, ids, nids * 8ULL);
		if (ret) {
			free(ids);
			free(name);
			return ret;
		}
		/* Names attach to the attrs through their ids. */
		a = nids ? idmap_get(pd, ids[0]) : (i < pd->nattrs ? (int)i : -1);
		free(ids);
		if (a >= 0 && !pd->attrs[a].name) {
			ret = meta_charge(pd, strlen(name) + 1, r->what);
			if (ret) {
				free(name);
				return ret;
			}
			pd->attrs[a].name = name;
			pd->attrs[a].pub.name = name;
		} else {
			free(name);
		}
	}
	return 0;
}

/* A string feature kept as it is (HOSTNAME, OSRELEASE). */
static int parse_str_feature(struct wult_pd *pd, struct rd *r, char **out)
{
	int ret = rd_hstr(r, out);

	if (ret)
		return ret;
	ret = meta_charge(pd, strlen(*out) + 1, r->what);
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

/* CMDLINE: u32 nr, then nr strings, kept joined by spaces. */
static int parse_cmdline(struct wult_pd *pd, struct rd *r)
{
	size_t len = 0;
	uint32_t nr, i;
	char *s, *n;
	int ret;

	ret = rd_u32(r, &nr);
	if (ret)
		return ret;
	if (nr > r->left / 4)
		return fail(pd, -EINVAL, "%s: %u strings past the section end", r->what, nr);
	pd->cmdline = calloc(1, 1);
	if (!pd->cmdline)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		ret = rd_hstr(r, &s);
		if (ret)
			return ret;
		ret = meta_charge(pd, strlen(s) + 1, r->what);
		n = ret ? NULL : realloc(pd->cmdline, len + strlen(s) + 2);
		if (!n) {
			free(s);
			return ret ?: -ENOMEM;
		}
		pd->cmdline = n;
		len += sprintf(n + len, "%s%s", i ? " " : "", s);
		free(s);
	}
	return 0;
}

/* PMU_MAPPINGS: u32 nr, then { u32 type; perf_header_string name; }. */
static int parse_pmu_mappings(struct wult_pd *pd, struct rd *r)
{
	struct pmu_map *np;
	uint32_t nr, i, type;
	char *name;
	int ret;

	ret = rd_u32(r, &nr);
	if (ret)
		return ret;
	if (nr > r->left / 8)
		return fail(pd, -EINVAL, "%s: %u PMUs past the section end", r->what, nr);
	for (i = 0; i < nr; i++) {
		ret = rd_u32(r, &type);
		ret = ret ?: rd_hstr(r, &name);
		if (ret)
			return ret;
		ret = meta_charge(pd, sizeof(*np) + strlen(name) + 1, r->what);
		np = ret ? NULL : realloc(pd->pmus, (pd->npmus + 1) * sizeof(*np));
		if (!np) {
			free(name);
			return ret ?: -ENOMEM;
		}
		pd->pmus = np;
		np[pd->npmus].type = type;
		np[pd->npmus].name = name;
		pd->npmus++;
	}
	return 0;
}

/* WULT_CSTATES: u32 nr, then { u32 cpu; u32 index; perf_header_string name; }. */
static int parse_cstates(struct wult_pd *pd, struct rd *r)
{
	struct cstate_name *nc;
	uint32_t nr, i, cpu, idx;
	char *name;
	int ret;

	ret = rd_u32(r, &nr);
	if (ret)
		return ret;
	if (nr > r->left / 12)
		return fail(pd, -EINVAL, "%s: %u names past the section end", r->what, nr);
	for (i = 0; i < nr; i++) {
		ret = rd_u32(r, &cpu);
		ret = ret ?: rd_u32(r, &idx);
		ret = ret ?: rd_hstr(r, &name);
		if (ret)
			return ret;
		ret = meta_charge(pd, sizeof(*nc) + strlen(name) + 1, r->what);
		nc = ret ? NULL : realloc(pd->cstates, (pd->ncstates + 1) * sizeof(*nc));
		if (!nc) {
			free(name);
			return ret ?: -ENOMEM;
		}
		pd->cstates = nc;
		nc[pd->ncstates].cpu = cpu;
		nc[pd->ncstates].idx = idx;
		nc[pd->ncstates].name = name;
		pd->ncstates++;
	}
	return 0;
}

/* Forgets what feature @feat said, and gives its bytes back. */
static void drop_feature(struct wult_pd *pd, unsigned int feat)
{
	unsigned int i;

	switch (feat) {
	case FEAT_TRACING_DATA:
		for (i = 0; i < pd->nformats; i++) {
			free(pd->formats[i].system);
			free(pd->formats[i].text);
		}
		free(pd->formats);
		pd->formats = NULL;
		pd->nformats = 0;
		break;
	case FEAT_HOSTNAME:
		free(pd->hostname);
		pd->hostname = NULL;
		break;
	case FEAT_OSRELEASE:
		free(pd->osrelease);
		pd->osrelease = NULL;
		break;
	case FEAT_CMDLINE:
		free(pd->cmdline);
		pd->cmdline = NULL;
		break;
	case FEAT_EVENT_DESC:
		for (i = 0; i < pd->nattrs; i++) {
			free(pd->attrs[i].name);
			pd->attrs[i].name = NULL;
			pd->attrs[i].pub.name = NULL;
		}
		break;
	case FEAT_PMU_MAPPINGS:
		for (i = 0; i < pd->npmus; i++)
			free(pd->pmus[i].name);
		free(pd->pmus);
		pd->pmus = NULL;
		pd->npmus = 0;
		break;
	case FEAT_WULT_CSTATES:
		for (i = 0; i < pd->ncstates; i++)
			free(pd->cstates[i].name);
		free(pd->cstates);
		pd->cstates = NULL;
		pd->ncstates = 0;
		break;
	}
	pd->meta -= pd->feat_meta[feat];
	pd->feat_meta[feat] = 0;
}

static int parse_feature_body(struct wult_pd *pd, unsigned int feat, struct rd *r)
{
	int ret;

	switch (feat) {
	case FEAT_TRACING_DATA:
		return parse_tracing_data(pd, r);
	case FEAT_HOSTNAME:
		return parse_str_feature(pd, r, &pd->hostname);
	case FEAT_OSRELEASE:
		return parse_str_feature(pd, r, &pd->osrelease);
	case FEAT_NRCPUS:
		ret = rd_u32(r, &pd->cpus_avail);
		return ret ?: rd_u32(r, &pd->cpus_online);
	case FEAT_CMDLINE:
		return parse_cmdline(pd, r);
	case FEAT_EVENT_DESC:
		return parse_event_desc(pd, r);
	case FEAT_PMU_MAPPINGS:
		return parse_pmu_mappings(pd, r);
	case FEAT_WULT_CSTATES:
		return parse_cstates(pd, r);
	default:
		return 0;	/* other features: not needed by wult */
	}
}

/*
 * A feature seen again (pipe mode can repeat HEADER_FEATURE records)
 * replaces what the previous one said instead of adding to it, so kept
 * memory follows the largest copy, not the number of copies.
 */
static int parse_feature(struct wult_pd *pd, unsigned int feat, struct rd *r)
{
	int ret;

	drop_feature(pd, feat);
	pd->charging = feat;
	ret = parse_feature_body(pd, feat, r);
	pd->charging = 0;
	return ret;
}

static const char *feat_name(unsigned int feat)
{
	switch (feat) {
	case FEAT_TRACING_DATA: return "TRACING_DATA";
	case FEAT_HOSTNAME: return "HOSTNAME";
	case FEAT_OSRELEASE: return "OSRELEASE";
	case FEAT_NRCPUS: return "NRCPUS";
	case FEAT_CMDLINE: return "CMDLINE";
	case FEAT_EVENT_DESC: return "EVENT_DESC";
	case FEAT_PMU_MAPPINGS: return "PMU_MAPPINGS";
	case FEAT_WULT_CSTATES: return "WULT_CSTATES";
	default: return "feature";
	}
}

/* ---- file mode header ---- */

static int check_section(struct wult_pd *pd, const struct file_section *s, const char *what)
{
	if (s->offset > pd->file_size || s->size > pd->file_size - s->offset)
		return fail(pd, -EINVAL, "%s section (offset %llu, size %llu) runs past the end "
			    "of the file (%llu bytes)", what, (unsigned long long)s->offset,
			    (unsigned long long)s->size, (unsigned long long)pd->file_size);
	return 0;
}

static int read_file_header(struct wult_pd *pd, const struct file_header *h)
{
	struct file_section fs;
	uint8_t abuf[4096 + 16];
	uint64_t nattrs, i, off, nids;
	unsigned int feat;
	uint64_t *ids;
	int ret;

	if (h->size != FILE_HDR_SIZE)
		return fail(pd, -EINVAL, "file header size %llu, expected %d",
			    (unsigned long long)h->size, FILE_HDR_SIZE);
	ret = check_section(pd, &h->attrs, "attrs");
	ret = ret ?: check_section(pd, &h->data, "data");
	if (ret)
		return ret;
	if (h->attr_size < PERF_ATTR_SIZE_VER0 + 16 || h->attr_size > sizeof(abuf))
		return fail(pd, -EINVAL, "attr size %llu in the header is not a perf_event_attr "
			    "size", (unsigned long long)h->attr_size);
	if (h->attrs.size % h->attr_size)
		return fail(pd, -EINVAL, "attrs section size %llu is not a multiple of the attr "
			    "size %llu", (unsigned long long)h->attrs.size,
			    (unsigned long long)h->attr_size);
	nattrs = h->attrs.size / h->attr_size;
	if (nattrs > MAX_ATTRS)
		return fail(pd, -EINVAL, "absurd attr count %llu", (unsigned long long)nattrs);
	for (i = 0; i < nattrs; i++) {
		uint32_t asz;

		ret = pread_full(pd, abuf, h->attr_size, h->attrs.offset + i * h->attr_size);
		if (ret)
			return ret;
		memcpy(&asz, abuf + 4, 4);
		if (asz != h->attr_size - 16 || !attr_size_ok(asz))
			return fail(pd, -EINVAL, "attr %llu: attr size mismatch: perf_event_attr.size "
				    "is %u but the header's attr size says %llu",
				    (unsigned long long)i, asz,
				    (unsigned long long)(h->attr_size - 16));
		memcpy(&fs, abuf + asz, sizeof(fs));
		ret = check_section(pd, &fs, "ids");
		if (ret)
			return ret;
		if (fs.size % 8 || fs.size / 8 > MAX_IDS)
			return fail(pd, -EINVAL, "attr %llu: bad ids section size %llu",
				    (unsigned long long)i, (unsigned long long)fs.size);
		nids = fs.size / 8;
		ids = malloc(fs.size + 8);
		if (!ids)
			return -ENOMEM;
		ret = pread_full(pd, ids, fs.size, fs.offset);
		ret = ret ?: add_attr(pd, abuf, asz, ids, nids);
		free(ids);
		if (ret)
			return ret;
	}
	/* The feature sections' table follows the data section. */
	off = h->data.offset + h->data.size;
	for (feat = 1; feat < FEAT_BITS; feat++) {
		struct rd r = { .pd = pd, .what = feat_name(feat) };

		if (!(h->features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		ret = pread_full(pd, &fs, sizeof(fs), off);
		if (ret)
			return fail(pd, ret, "feature table truncated (feature %u): %s", feat,
				    pd->err);
		off += sizeof(fs);
		ret = check_section(pd, &fs, feat_name(feat));
		if (ret)
			return ret;
		r.off = fs.offset;
		r.left = fs.size;
		if (feat == FEAT_TRACING_DATA && fs.size > MAX_TRACING_DATA)
			return fail(pd, -EINVAL, "TRACING_DATA section of %llu bytes, more than "
				    "the %llu MiB perf writes", (unsigned long long)fs.size,
				    MAX_TRACING_DATA >> 20);
		ret = parse_feature(pd, feat, &r);
		if (ret)
			return ret;
	}
	pd->data_end = h->data.offset + h->data.size;
	pd->in_off = h->data.offset;
	if (lseek(pd->fd, h->data.offset, SEEK_SET) < 0)
		return fail(pd, -errno, "seek to the data: %s", strerror(errno));
	return 0;
}

/* ---- samples ---- */

struct cur {
	const uint8_t *p, *end;
	struct wult_pd *pd;
	const char *field;
};

static inline int need(struct cur *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p))
		return fail(c->pd, -EINVAL, "offset %llu: sample field %s needs %llu bytes, "
			    "%zu left in the record", (unsigned long long)c->pd->rec_off,
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
		return fail(c->pd, -EINVAL, "offset %llu: %s count %llu runs past the record "
			    "end", (unsigned long long)c->pd->rec_off, field,
			    (unsigned long long)nr);
	*out = c->p;
	c->p += nr * each;
	return 0;
}

static int find_attr(struct wult_pd *pd, const uint8_t *body, size_t len, int sample)
{
	uint64_t id;
	int pos = -1, a;
	unsigned int i;

	if (pd->nattrs == 1)
		return 0;
	if (!pd->nattrs)
		return fail(pd, -EINVAL, "offset %llu: record before any event attr",
			    (unsigned long long)pd->rec_off);
	/* All attrs must put the id at the same place for it to be found. */
	for (i = 0; i < pd->nattrs; i++) {
		int p = sample ? pd->attrs[i].id_pos : pd->attrs[i].is_pos;

		if (i && p != pos)
			pos = -2;
		else if (!i)
			pos = p;
	}
	if (pos < 0) {
		if (!sample)
			return -1;	/* not worth failing for: rarely needed */
		return fail(pd, -EINVAL, "offset %llu: cannot tell which event a sample belongs "
			    "to (no common ID/IDENTIFIER position)",
			    (unsigned long long)pd->rec_off);
	}
	if (sample) {
		if ((size_t)(pos + 1) * 8 > len)
			return fail(pd, -EINVAL, "offset %llu: sample too short for its id",
				    (unsigned long long)pd->rec_off);
		memcpy(&id, body + pos * 8, 8);
	} else {
		if ((size_t)pos * 8 > len)
			return -1;
		memcpy(&id, body + len - pos * 8, 8);
	}
	a = idmap_get(pd, id);
	if (a < 0 && sample)
		return fail(pd, -EINVAL, "offset %llu: sample id %llu matches no event attr",
			    (unsigned long long)pd->rec_off, (unsigned long long)id);
	return a;
}

static int parse_read(struct cur *c, const struct perf_event_attr *at, struct wult_pd_sample *s)
{
	uint64_t rf = at->read_format, nr = 1, i;
	struct wult_pd *pd = c->pd;
	int ret = 0;

	if (rf & PERF_FORMAT_GROUP) {
		uint64_t each = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));

		ret = get64(c, "READ nr", &nr);
		if (ret)
			return ret;
		if (nr > WULT_PD_MAX_GROUP || nr > (uint64_t)(c->end - c->p) / each)
			return fail(pd, -EINVAL, "offset %llu: absurd group read count %llu "
				    "(record has room for %llu)", (unsigned long long)pd->rec_off,
				    (unsigned long long)nr,
				    (unsigned long long)((c->end - c->p) / each));
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			ret = get64(c, "READ time_enabled", &s->read.time_enabled);
		if (!ret && (rf & PERF_FORMAT_TOTAL_TIME_RUNNING))
			ret = get64(c, "READ time_running", &s->read.time_running);
		for (i = 0; !ret && i < nr; i++) {
			struct wult_pd_read_value *v = &pd->readvals[i];

			v->id = v->lost = 0;
			ret = get64(c, "READ value", &v->value);
			if (!ret && (rf & PERF_FORMAT_ID))
				ret = get64(c, "READ id", &v->id);
			if (!ret && (rf & PERF_FORMAT_LOST))
				ret = get64(c, "READ lost", &v->lost);
		}
	} else {
		struct wult_pd_read_value *v = &pd->readvals[0];

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
	}
	s->read.nr = nr;
	s->read.values = pd->readvals;
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

static int parse_sample(struct wult_pd *pd, const uint8_t *rec, size_t size,
			struct wult_pd_sample *s)
{
	struct cur c = { .p = rec + 8, .end = rec + size, .pd = pd };
	const struct perf_event_attr *at;
	uint64_t st, v;
	int a, ret = 0;

	/* Fields are valid per sample_type bit: clear only those a set bit
	 * leaves untouched (a full memset costs more than the parsing).
	 */
	s->read.nr = 0;
	s->read.time_enabled = s->read.time_running = 0;
	s->stack_dyn_size = 0;
	s->raw = NULL;
	s->raw_size = 0;
	s->branch_hw_idx = -1;
	a = find_attr(pd, rec + 8, size - 8, 1);
	if (a < 0)
		return a;
	s->attr = &pd->attrs[a].pub;
	at = &s->attr->attr;
	st = at->sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER)
		ret = get64(&c, "IDENTIFIER", &s->id);
	if (!ret && (st & PERF_SAMPLE_IP))
		ret = get64(&c, "IP", &s->ip);
	if (!ret && (st & PERF_SAMPLE_TID)) {
		ret = get64(&c, "TID", &v);
		s->pid = (uint32_t)v;
		s->tid = v >> 32;
	}
	if (!ret && (st & PERF_SAMPLE_TIME))
		ret = get64(&c, "TIME", &s->time);
	if (!ret && (st & PERF_SAMPLE_ADDR))
		ret = get64(&c, "ADDR", &s->addr);
	if (!ret && (st & PERF_SAMPLE_ID))
		ret = get64(&c, "ID", &s->id);
	if (!ret && (st & PERF_SAMPLE_STREAM_ID))
		ret = get64(&c, "STREAM_ID", &s->stream_id);
	if (!ret && (st & PERF_SAMPLE_CPU)) {
		ret = get64(&c, "CPU", &v);
		s->cpu = (uint32_t)v;
	}
	if (!ret && (st & PERF_SAMPLE_PERIOD))
		ret = get64(&c, "PERIOD", &s->period);
	if (!ret && (st & PERF_SAMPLE_READ))
		ret = parse_read(&c, at, s);
	if (!ret && (st & PERF_SAMPLE_CALLCHAIN)) {
		ret = get64(&c, "CALLCHAIN nr", &s->callchain_nr);
		ret = ret ?: get_arr(&c, "CALLCHAIN", s->callchain_nr, 8,
				     (const void **)&s->callchain);
	}
	if (!ret && (st & PERF_SAMPLE_RAW)) {
		uint32_t rs;

		c.field = "RAW size";
		ret = need(&c, 4);
		if (!ret) {
			memcpy(&rs, c.p, 4);
			c.p += 4;
			s->raw_size = rs;
			ret = get_arr(&c, "RAW", rs, 1, &s->raw);
			/* The u32 size and the data together are u64-aligned. */
			if (!ret && ((4 + rs) % 8))
				ret = get_arr(&c, "RAW padding", 8 - (4 + rs) % 8, 1,
					      (const void **)&c.field);
		}
	}
	if (!ret && (st & PERF_SAMPLE_BRANCH_STACK)) {
		ret = get64(&c, "BRANCH_STACK nr", &s->branch_nr);
		if (!ret && (at->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)) {
			ret = get64(&c, "BRANCH_STACK hw_idx", &v);
			s->branch_hw_idx = (int64_t)v;
		}
		ret = ret ?: get_arr(&c, "BRANCH_STACK", s->branch_nr,
				     sizeof(struct perf_branch_entry),
				     (const void **)&s->branches);
	}
	if (!ret && (st & PERF_SAMPLE_REGS_USER))
		ret = parse_regs(&c, "REGS_USER", at->sample_regs_user, &s->regs_user_abi,
				 &s->regs_user_nr, &s->regs_user);
	if (!ret && (st & PERF_SAMPLE_STACK_USER)) {
		ret = get64(&c, "STACK_USER size", &s->stack_size);
		ret = ret ?: get_arr(&c, "STACK_USER", s->stack_size, 1, &s->stack);
		if (!ret && s->stack_size)
			ret = get64(&c, "STACK_USER dyn_size", &s->stack_dyn_size);
	}
	if (!ret && (st & PERF_SAMPLE_WEIGHT_TYPE))
		ret = get64(&c, "WEIGHT", &s->weight);
	if (!ret && (st & PERF_SAMPLE_DATA_SRC))
		ret = get64(&c, "DATA_SRC", &s->data_src);
	if (!ret && (st & PERF_SAMPLE_TRANSACTION))
		ret = get64(&c, "TRANSACTION", &s->transaction);
	if (!ret && (st & PERF_SAMPLE_REGS_INTR))
		ret = parse_regs(&c, "REGS_INTR", at->sample_regs_intr, &s->regs_intr_abi,
				 &s->regs_intr_nr, &s->regs_intr);
	if (!ret && (st & PERF_SAMPLE_PHYS_ADDR))
		ret = get64(&c, "PHYS_ADDR", &s->phys_addr);
	if (!ret && (st & PERF_SAMPLE_CGROUP))
		ret = get64(&c, "CGROUP", &s->cgroup);
	if (!ret && (st & PERF_SAMPLE_DATA_PAGE_SIZE))
		ret = get64(&c, "DATA_PAGE_SIZE", &s->data_page_size);
	if (!ret && (st & PERF_SAMPLE_CODE_PAGE_SIZE))
		ret = get64(&c, "CODE_PAGE_SIZE", &s->code_page_size);
	if (!ret && (st & PERF_SAMPLE_AUX)) {
		ret = get64(&c, "AUX size", &s->aux_size);
		ret = ret ?: get_arr(&c, "AUX", s->aux_size, 1, &s->aux);
	}
	if (!ret && (st & ~((uint64_t)PERF_SAMPLE_MAX - 1)))
		ret = fail(pd, -EINVAL, "offset %llu: unknown sample_type bits 0x%llx",
			   (unsigned long long)pd->rec_off,
			   (unsigned long long)(st & ~((uint64_t)PERF_SAMPLE_MAX - 1)));
	return ret;
}

/* ---- records ---- */

static int known_type(uint32_t t)
{
	return (t >= PERF_RECORD_MMAP && t < PERF_RECORD_MAX) ||
	       (t >= PERF_RECORD_HEADER_ATTR && t < PERF_RECORD_HEADER_MAX);
}

static int decompress(struct wult_pd *pd, const uint8_t *src, size_t len)
{
	ZSTD_inBuffer zin = { src, len, 0 };

	if (!pd->zd) {
		pd->zd = ZSTD_createDCtx();
		if (!pd->zd)
			return -ENOMEM;
	}
	pd->dlen = pd->dpos = 0;
	pd->dsrc_off = pd->rec_off;
	/* Until the input is consumed and zstd had room to flush all. */
	while (zin.size) {
		ZSTD_outBuffer zout;
		size_t r;

		if (pd->dlen == pd->dcap) {
			size_t ncap = pd->dcap ? pd->dcap * 2 : 1U << 20;
			uint8_t *nb;

			if (ncap > MAX_DECOMP)
				return fail(pd, -EINVAL, "offset %llu: compressed record expands "
					    "past %u MiB", (unsigned long long)pd->rec_off,
					    MAX_DECOMP >> 20);
			nb = realloc(pd->dbuf, ncap);
			if (!nb)
				return -ENOMEM;
			pd->dbuf = nb;
			pd->dcap = ncap;
		}
		zout.dst = pd->dbuf;
		zout.size = pd->dcap;
		zout.pos = pd->dlen;
		r = ZSTD_decompressStream(pd->zd, &zout, &zin);
		if (ZSTD_isError(r))
			return fail(pd, -EINVAL, "offset %llu: zstd: %s",
				    (unsigned long long)pd->rec_off, ZSTD_getErrorName(r));
		pd->dlen = zout.pos;
		if (zout.pos < zout.size && zin.pos == zin.size)
			break;
	}
	return 0;
}

/* Reads the next raw record into pd->rec: 1, 0 at the end, or an error. */
static int read_record(struct wult_pd *pd)
{
	struct perf_event_header h;
	int ret;

	pd->rec_inner = 0;
	if (pd->dpos < pd->dlen) {
		size_t left = pd->dlen - pd->dpos;

		if (left < sizeof(h))
			return fail(pd, -EINVAL, "compressed record at %llu: %zu stray bytes "
				    "at its end", (unsigned long long)pd->dsrc_off, left);
		memcpy(&h, pd->dbuf + pd->dpos, sizeof(h));
		if (h.size < sizeof(h) || h.size > left)
			return fail(pd, -EINVAL, "compressed record at %llu: inner record size %u "
				    "(%zu bytes left)", (unsigned long long)pd->dsrc_off, h.size,
				    left);
		if ((pd->dpos & 7) || (h.size & 7)) {
			memcpy(pd->rec, pd->dbuf + pd->dpos, h.size);
			pd->cur = (const uint8_t *)pd->rec;
		} else {
			pd->cur = pd->dbuf + pd->dpos;
		}
		pd->dpos += h.size;
		pd->rec_inner = 1;
		if (!known_type(h.type))
			return fail(pd, -EINVAL, "compressed record at %llu: unknown inner record "
				    "type %u", (unsigned long long)pd->dsrc_off, h.type);
		if (h.type == PERF_RECORD_COMPRESSED)
			return fail(pd, -EINVAL, "compressed record at %llu holds another "
				    "compressed record", (unsigned long long)pd->dsrc_off);
		return 1;
	}
	pd->rec_off = pd->in_off;
	ret = in_fill(pd, sizeof(h));
	if (ret <= 0) {
		if (!ret && pd->in_len - pd->in_pos)
			return fail(pd, -EINVAL, "offset %llu: data truncated: %zu bytes left, less than a record "
				    "header", (unsigned long long)pd->in_off,
				    pd->in_len - pd->in_pos);
		return ret;
	}
	memcpy(&h, pd->in + pd->in_pos, sizeof(h));
	if (h.size < sizeof(h))
		return fail(pd, -EINVAL, "offset %llu: record of type %u has size %u, less than "
			    "its own header", (unsigned long long)pd->in_off, h.type, h.size);
	if (!known_type(h.type))
		return fail(pd, -EINVAL, "offset %llu: unknown record type %u (size %u)",
			    (unsigned long long)pd->in_off, h.type, h.size);
	/*
	 * Decode in place when the record is whole and aligned in the buffer
	 * (the common case: perf pads records to 8 bytes). Records followed by
	 * out-of-record data move the buffer while handled: copy those.
	 */
	ret = in_fill(pd, h.size);
	if (ret < 0)
		return ret;
	if (ret && !(pd->in_pos & 7) && !(h.size & 7) &&
	    h.type != PERF_RECORD_HEADER_TRACING_DATA && h.type != PERF_RECORD_AUXTRACE) {
		pd->cur = pd->in + pd->in_pos;
		pd->in_pos += h.size;
		pd->in_off += h.size;
		return 1;
	}
	pd->cur = (const uint8_t *)pd->rec;
	ret = in_read(pd, pd->rec, h.size, "record");
	return ret ?: 1;
}

static int handle_meta(struct wult_pd *pd, const struct perf_event_header *h)
{
	const uint8_t *rec = pd->cur;
	uint64_t v;

	switch (h->type) {
	case PERF_RECORD_HEADER_ATTR: {
		uint32_t asz;

		if (h->size < 8 + PERF_ATTR_SIZE_VER0)
			return fail(pd, -EINVAL, "offset %llu: attr record too short (%u)",
				    (unsigned long long)pd->rec_off, h->size);
		memcpy(&asz, rec + 8 + 4, 4);
		if (!attr_size_ok(asz) || asz > h->size - 8u)
			return fail(pd, -EINVAL, "offset %llu: attr size mismatch: "
				    "perf_event_attr.size %u in a %u-byte record",
				    (unsigned long long)pd->rec_off, asz, h->size);
		return add_attr(pd, rec + 8, asz, (const uint64_t *)(rec + 8 + asz),
				(h->size - 8 - asz) / 8);
	}
	case PERF_RECORD_HEADER_FEATURE: {
		struct rd r = { .pd = pd, .mem = rec + 16 };

		if (h->size < 16)
			return fail(pd, -EINVAL, "offset %llu: feature record too short",
				    (unsigned long long)pd->rec_off);
		memcpy(&v, rec + 8, 8);
		if (v >= FEAT_BITS)
			return fail(pd, -EINVAL, "offset %llu: feature id %llu out of range",
				    (unsigned long long)pd->rec_off, (unsigned long long)v);
		r.what = feat_name(v);
		if (v == FEAT_TRACING_DATA)
			return 0;	/* pipe mode sends it as its own record */
		r.left = h->size - 16;
		return parse_feature(pd, v, &r);
	}
	case PERF_RECORD_HEADER_TRACING_DATA: {
		struct rd r = { .pd = pd, .stream = 1, .what = "TRACING_DATA" };
		uint32_t sz;

		if (h->size < 12 || pd->rec_inner)
			return fail(pd, -EINVAL, "offset %llu: bad tracing data record",
				    (unsigned long long)pd->rec_off);
		memcpy(&sz, rec + 8, 4);
		/* The data follows the record, padded to 8 bytes (in 64 bits:
		 * a u32 size near 4 GiB would wrap to nothing).
		 */
		r.left = (uint64_t)sz + (8 - sz % 8) % 8;
		if (r.left > MAX_TRACING_DATA)
			return fail(pd, -EINVAL, "offset %llu: tracing data of %llu bytes, more "
				    "than the %llu MiB perf writes", (unsigned long long)pd->rec_off,
				    (unsigned long long)r.left, MAX_TRACING_DATA >> 20);
		return parse_feature(pd, FEAT_TRACING_DATA, &r);
	}
	case PERF_RECORD_AUXTRACE:
		if (h->size < 16 || pd->rec_inner)
			return fail(pd, -EINVAL, "offset %llu: bad auxtrace record",
				    (unsigned long long)pd->rec_off);
		memcpy(&v, rec + 8, 8);
		return in_skip(pd, v, "AUXTRACE data");
	case PERF_RECORD_COMPRESSED:
		return decompress(pd, rec + 8, h->size - 8);
	default:
		return 0;
	}
}

/* Fills @ev from the record in pd->rec. */
static int decode(struct wult_pd *pd, const uint8_t *rec, struct wult_pd_event *ev)
{
	struct perf_event_header h;
	int a;

	memcpy(&h, rec, sizeof(h));
	/* No memset of the whole event: the sample part is cleared by
	 * parse_sample() only for samples.
	 */
	ev->attr = NULL;
	ev->lost = 0;
	ev->type = h.type;
	ev->misc = h.misc;
	ev->size = h.size;
	ev->raw = rec;
	if (h.type == PERF_RECORD_SAMPLE) {
		int ret = parse_sample(pd, rec, h.size, &ev->sample);

		ev->attr = ev->sample.attr;
		return ret;
	}
	if (h.type == PERF_RECORD_LOST || h.type == PERF_RECORD_LOST_SAMPLES) {
		size_t off = h.type == PERF_RECORD_LOST ? 16 : 8;

		if (h.size < off + 8)
			return fail(pd, -EINVAL, "offset %llu: lost record too short (%u)",
				    (unsigned long long)pd->rec_off, h.size);
		memcpy(&ev->lost, rec + off, 8);
		a = find_attr(pd, rec + 8, h.size - 8, 0);
		if (a >= 0)
			ev->attr = &pd->attrs[a].pub;
	}
	return 0;
}

/* ---- ordered mode ---- */

static int qcmp(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int queue_sample(struct wult_pd *pd, const struct wult_pd_event *ev)
{
	uint64_t t = ev->sample.time;

	if (pd->qlen + ev->size > pd->qcap) {
		size_t ncap = pd->qcap ? pd->qcap * 2 : 1U << 20;
		uint8_t *nb;

		while (ncap < pd->qlen + ev->size)
			ncap *= 2;
		if (ncap > MAX_QUEUE)
			return fail(pd, -E2BIG, "more than %u MiB of samples between two "
				    "FINISHED_ROUND records", MAX_QUEUE >> 20);
		nb = realloc(pd->qbuf, ncap);
		if (!nb)
			return -ENOMEM;
		pd->qbuf = nb;
		pd->qcap = ncap;
	}
	if (pd->qn == pd->qcapn) {
		size_t ncap = pd->qcapn ? pd->qcapn * 2 : 4096;
		struct qent *nq = realloc(pd->q, ncap * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		pd->q = nq;
		pd->qcapn = ncap;
	}
	memcpy(pd->qbuf + pd->qlen, ev->raw, ev->size);
	pd->q[pd->qn].time = t;
	pd->q[pd->qn].seq = pd->qseq++;
	pd->q[pd->qn].off = pd->qlen;
	pd->qn++;
	pd->qlen += (ev->size + 7) & ~7U;
	if (t > pd->round_max)
		pd->round_max = t;
	return 0;
}

/* Marks the queued samples up to @limit ready, in time order. */
static void queue_flush(struct wult_pd *pd, uint64_t limit)
{
	size_t i;

	if (pd->qn)
		qsort(pd->q, pd->qn, sizeof(*pd->q), qcmp);
	for (i = 0; i < pd->qn && pd->q[i].time <= limit; i++)
		;
	pd->qready = i;
	pd->qemit = 0;
}

/* After the ready part was emitted: keep the rest, compacted. */
static void queue_compact(struct wult_pd *pd)
{
	size_t i, off = 0;
	uint8_t *tmp;

	if (!pd->qready)
		return;
	tmp = pd->qn > pd->qready ? malloc(pd->qlen) : NULL;
	for (i = pd->qready; tmp && i < pd->qn; i++) {
		uint16_t sz;

		memcpy(&sz, pd->qbuf + pd->q[i].off + 6, 2);
		memcpy(tmp + off, pd->qbuf + pd->q[i].off, sz);
		pd->q[i - pd->qready] = pd->q[i];
		pd->q[i - pd->qready].off = off;
		off += (sz + 7) & ~7U;
	}
	if (tmp) {
		memcpy(pd->qbuf, tmp, off);
		free(tmp);
	} else if (pd->qn > pd->qready) {
		/* No memory to compact: keep entries where they are. */
		memmove(pd->q, pd->q + pd->qready, (pd->qn - pd->qready) * sizeof(*pd->q));
		pd->qn -= pd->qready;
		pd->qready = pd->qemit = 0;
		return;
	}
	pd->qn -= pd->qready;
	pd->qlen = off;
	pd->qready = pd->qemit = 0;
}

static int next_raw(struct wult_pd *pd, struct wult_pd_event *ev)
{
	struct perf_event_header h;
	int ret;

	for (;;) {
		ret = read_record(pd);
		if (ret <= 0)
			return ret;
		memcpy(&h, pd->cur, sizeof(h));
		if (h.type < 128)
			pd->counts[h.type]++;
		if (h.type != PERF_RECORD_SAMPLE) {
			ret = handle_meta(pd, &h);
			if (ret)
				return ret;
			if (h.type == PERF_RECORD_COMPRESSED)
				continue;	/* its inner records come next */
		}
		ret = decode(pd, pd->cur, ev);
		return ret ?: 1;
	}
}

int wult_pd_next(struct wult_pd *pd, struct wult_pd_event *ev)
{
	int ret;

	if (!(pd->flags & WULT_PD_ORDERED))
		return next_raw(pd, ev);
	for (;;) {
		if (pd->qemit < pd->qready) {
			struct qent *q = &pd->q[pd->qemit++];

			return decode(pd, pd->qbuf + q->off, ev) ?: 1;
		}
		queue_compact(pd);
		if (pd->draining)
			return 0;
		ret = next_raw(pd, ev);
		if (ret < 0)
			return ret;
		if (!ret) {
			pd->draining = 1;
			queue_flush(pd, UINT64_MAX);
			continue;
		}
		if (ev->type == PERF_RECORD_SAMPLE &&
		    (ev->sample.attr->attr.sample_type & PERF_SAMPLE_TIME)) {
			ret = queue_sample(pd, ev);
			if (ret)
				return ret;
			continue;
		}
		if (ev->type == PERF_RECORD_FINISHED_ROUND) {
			/* As perf: what came before the previous round's
			 * newest sample can no longer be overtaken.
			 */
			queue_flush(pd, pd->prev_round_max);
			pd->prev_round_max = pd->round_max;
		}
		return 1;
	}
}

/* ---- open / close ---- */

int wult_pd_open_fd(int fd, unsigned int flags, struct wult_pd **out, char *err,
		    size_t errlen)
{
	struct file_header h;
	struct wult_pd *pd;
	struct stat st;
	uint64_t magic;
	int ret;

	*out = NULL;
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		close(fd);
		return -ENOMEM;
	}
	pd->fd = fd;
	pd->flags = flags;
	pd->data_end = UINT64_MAX;	/* until the header says where data ends */
	pd->in = malloc(INBUF_SIZE);
	if (!pd->in) {
		ret = -ENOMEM;
		goto out;
	}
	if (fstat(fd, &st)) {
		ret = fail(pd, -errno, "fstat: %s", strerror(errno));
		goto out;
	}
	pd->file_size = st.st_size;
	/* Read the magic and size through the stream: works for pipes too. */
	ret = in_fill(pd, PIPE_HDR_SIZE);
	if (ret <= 0) {
		if (!ret)
			ret = fail(pd, -EINVAL, "file header truncated: %zu bytes, a perf.data "
				   "header needs at least %d", pd->in_len, PIPE_HDR_SIZE);
		goto out;
	}
	memcpy(&magic, pd->in, 8);
	if (magic == PERF_MAGIC2_SWAPPED) {
		ret = fail(pd, -EINVAL, "perf.data of the other endianness (byte-swapped magic): "
			   "not supported, re-record on this architecture");
		goto out;
	}
	if (magic == PERF_MAGIC1) {
		ret = fail(pd, -EINVAL, "perf.data version 1 (\"PERFFILE\"): too old, not "
			   "supported");
		goto out;
	}
	if (magic != PERF_MAGIC2) {
		ret = fail(pd, -EINVAL, "not a perf.data file (magic 0x%016llx, expected "
			   "\"PERFILE2\")", (unsigned long long)magic);
		goto out;
	}
	memcpy(&h.size, pd->in + 8, 8);
	if (h.size == PIPE_HDR_SIZE) {
		pd->pipe = 1;
		pd->in_pos = PIPE_HDR_SIZE;
		pd->in_off = PIPE_HDR_SIZE;
		*out = pd;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = fail(pd, -EINVAL, "file-mode perf.data (header size %llu) on a pipe: "
			   "record with -o - for pipe mode", (unsigned long long)h.size);
		goto out;
	}
	if (st.st_size < FILE_HDR_SIZE) {
		ret = fail(pd, -EINVAL, "file header truncated: %lld bytes, a perf.data "
			   "header needs %d", (long long)st.st_size, FILE_HDR_SIZE);
		goto out;
	}
	ret = pread_full(pd, &h, sizeof(h), 0);
	if (ret)
		goto out;
	pd->in_pos = pd->in_len = 0;
	ret = read_file_header(pd, &h);
	if (ret)
		goto out;
	*out = pd;
	return 0;
out:
	if (err && errlen)
		snprintf(err, errlen, "%s", pd->err[0] ? pd->err : strerror(-ret));
	wult_pd_close(pd);
	return ret;
}

int wult_pd_open(const char *path, unsigned int flags, struct wult_pd **out, char *err,
		 size_t errlen)
{
	int fd;

	*out = NULL;
	if (!strcmp(path, "-"))
		fd = dup(0);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	return wult_pd_open_fd(fd, flags, out, err, errlen);
}

void wult_pd_close(struct wult_pd *pd)
{
	unsigned int i;

	if (!pd)
		return;
	if (pd->fd >= 0)
		close(pd->fd);
	for (i = 0; i < pd->nattrs; i++) {
		free(pd->attrs[i].ids);
		free(pd->attrs[i].name);
	}
	free(pd->attrs);
	free(pd->idmap);
	for (i = 0; i < pd->nformats; i++) {
		free(pd->formats[i].system);
		free(pd->formats[i].text);
	}
	free(pd->formats);
	for (i = 0; i < pd->npmus; i++)
		free(pd->pmus[i].name);
	free(pd->pmus);
	for (i = 0; i < pd->ncstates; i++)
		free(pd->cstates[i].name);
	free(pd->cstates);
	free(pd->hostname);
	free(pd->osrelease);
	free(pd->cmdline);
	ZSTD_freeDCtx(pd->zd);
	free(pd->dbuf);
	free(pd->qbuf);
	free(pd->q);
	free(pd->in);
	free(pd);
}

const char *wult_pd_error(const struct wult_pd *pd)
{
	return pd->err;
}

int wult_pd_is_pipe(const struct wult_pd *pd)
{
	return pd->pipe;
}

unsigned int wult_pd_nr_attrs(const struct wult_pd *pd)
{
	return pd->nattrs;
}

const struct wult_pd_attr *wult_pd_attr(const struct wult_pd *pd, unsigned int idx)
{
	return idx < pd->nattrs ? &pd->attrs[idx].pub : NULL;
}

const char *wult_pd_hostname(const struct wult_pd *pd)
{
	return pd->hostname;
}

const char *wult_pd_osrelease(const struct wult_pd *pd)
{
	return pd->osrelease;
}

const char *wult_pd_cmdline(const struct wult_pd *pd)
{
	return pd->cmdline;
}

uint32_t wult_pd_nr_cpus_online(const struct wult_pd *pd)
{
	return pd->cpus_online;
}

uint32_t wult_pd_nr_cpus_avail(const struct wult_pd *pd)
{
	return pd->cpus_avail;
}

const char *wult_pd_pmu_name(const struct wult_pd *pd, uint32_t type)
{
	unsigned int i;

	for (i = 0; i < pd->npmus; i++)
		if (pd->pmus[i].type == type)
			return pd->pmus[i].name;
	return NULL;
}

unsigned int wult_pd_nr_cstates(const struct wult_pd *pd)
{
	return pd->ncstates;
}

int wult_pd_cstate(const struct wult_pd *pd, unsigned int i, uint32_t *cpu, uint32_t *idx,
		   const char **name)
{
	if (i >= pd->ncstates)
		return -ENOENT;
	*cpu = pd->cstates[i].cpu;
	*idx = pd->cstates[i].idx;
	*name = pd->cstates[i].name;
	return 0;
}

unsigned int wult_pd_nr_formats(const struct wult_pd *pd)
{
	return pd->nformats;
}

int wult_pd_format(const struct wult_pd *pd, unsigned int idx, const char **system,
		   const char **text, size_t *len)
{
	if (idx >= pd->nformats)
		return -ENOENT;
	*system = pd->formats[idx].system;
	*text = pd->formats[idx].text;
	*len = pd->formats[idx].len;
	return 0;
}

uint64_t wult_pd_count(const struct wult_pd *pd, uint32_t type)
{
	return type < 128 ? pd->counts[type] : 0;
}
