// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader, the metadata: attrs and their ids, feature sections
 * (file mode) and HEADER_* records (pipe mode), tracing data, all kept
 * within one byte budget.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/sysdesc.h>

#include "internal/pd.h"

/* ---- the metadata budget ---- */

/* Charges @n kept bytes to the budget and to the feature being parsed. */
static int meta_charge(struct wult_pd *pd, uint64_t n, const char *what)
{
	uint64_t budget = pd->flags & WULT_PD_SMALL_META ? WULT_PD_SMALL_META_BUDGET :
			  WULT_PD_META_BUDGET;

	if (n > budget - pd->meta)
		return pd_fail(pd, -EFBIG, "%s: the file's metadata (event formats, features, PMU "
			       "mappings, event ids) needs more than the reader's budget of %llu %s "
			       "(%llu bytes kept, %llu more wanted)", what,
			       (unsigned long long)(budget >= (1U << 20) ? budget >> 20 : budget >> 10),
			       budget >= (1U << 20) ? "MiB" : "KiB",
			       (unsigned long long)pd->meta, (unsigned long long)n);
	pd->meta += n;
	pd->feat_meta[pd->charging] += n;
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
		return pd_fail(pd, -EINVAL, "more than %d event attrs", MAX_ATTRS);
	if (nids > MAX_IDS || pd->nids + nids > MAX_IDS)
		return pd_fail(pd, -EINVAL, "absurd number of event ids (%llu)",
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

/* Tracing data up to the event formats: magic, version, endianness, the
 * ring buffer's header formats and ftrace's own formats, all skipped.
 */
static int tracing_head(struct wult_pd *pd, struct pd_rd *r)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t m[10], bigendian, long_size;
	uint32_t page_size, n, i;
	char *s = NULL;
	uint64_t sz;
	int ret;

	ret = pd_rd_read(r, m, sizeof(m));
	if (ret)
		return ret;
	if (memcmp(m, magic, sizeof(m)))
		return pd_fail(pd, -EINVAL, "%s: bad tracing data magic", r->what);
	ret = pd_rd_cstr(r, 16, &s);
	if (ret)
		return ret;
	free(s);
	ret = pd_rd_read(r, &bigendian, 1);
	ret = ret ?: pd_rd_read(r, &long_size, 1);
	ret = ret ?: pd_rd_u32(r, &page_size);
	if (ret)
		return ret;
	if (bigendian)
		return pd_fail(pd, -EINVAL, "%s: big-endian tracing data is not supported", r->what);
	/* header_page and header_event: a name, a u64 size, the text. */
	for (i = 0; i < 2; i++) {
		ret = pd_rd_cstr(r, 32, &s);
		if (ret)
			return ret;
		free(s);
		ret = pd_rd_u64(r, &sz);
		ret = ret ?: pd_rd_skip(r, sz);
		if (ret)
			return ret;
	}
	/* ftrace's own formats: kept out, wult decodes only event formats. */
	ret = pd_rd_u32(r, &n);
	for (i = 0; !ret && i < n; i++) {
		ret = pd_rd_u64(r, &sz);
		ret = ret ?: pd_rd_skip(r, sz);
	}
	return ret;
}

/* One event format of system @sys, kept (charged to the budget). */
static int read_format(struct wult_pd *pd, struct pd_rd *r, const char *sys)
{
	struct format *nf;
	char *text;
	uint64_t sz;
	int ret;

	ret = pd_rd_u64(r, &sz);
	if (ret)
		return ret;
	if (sz > MAX_FORMAT_SIZE || pd->nformats >= MAX_FORMATS)
		return pd_fail(pd, -EINVAL, "%s: absurd event format (size %llu, count %u)",
			       r->what, (unsigned long long)sz, pd->nformats);
	ret = meta_charge(pd, sz + 1 + strlen(sys) + 1 + sizeof(*nf), r->what);
	if (ret)
		return ret;
	text = malloc(sz + 1);
	nf = realloc(pd->formats, (pd->nformats + 1) * sizeof(*nf));
	if (nf)
		pd->formats = nf;
	if (!text || !nf) {
		free(text);
		return -ENOMEM;
	}
	ret = pd_rd_read(r, text, sz);
	if (ret) {
		free(text);
		return ret;
	}
	text[sz] = '\0';
	nf[pd->nformats].system = strdup(sys);
	nf[pd->nformats].text = text;
	nf[pd->nformats].len = sz;
	if (!nf[pd->nformats].system) {
		free(text);
		return -ENOMEM;
	}
	pd->nformats++;
	return 0;
}

static int parse_tracing_data(struct wult_pd *pd, struct pd_rd *r)
{
	uint32_t n, nsys, i, j, sz32;
	int ret = tracing_head(pd, r);

	ret = ret ?: pd_rd_u32(r, &nsys);
	for (i = 0; !ret && i < nsys; i++) {
		char *sys = NULL;

		ret = pd_rd_cstr(r, 256, &sys);
		if (ret)
			return ret;
		ret = pd_rd_u32(r, &n);
		for (j = 0; !ret && j < n; j++)
			ret = read_format(pd, r, sys);
		free(sys);
	}
	/* kallsyms and printk formats (u32 sizes): not needed here. */
	for (i = 0; !ret && i < 2 && r->left; i++) {
		ret = pd_rd_u32(r, &sz32);
		ret = ret ?: pd_rd_skip(r, sz32);
	}
	return ret ?: pd_rd_skip(r, r->left);	/* saved cmdlines and padding */
}

static int parse_event_desc(struct wult_pd *pd, struct pd_rd *r)
{
	uint32_t nr, asz, i, nids;
	uint8_t abuf[4096];
	uint64_t *ids = NULL;
	char *name;
	int ret, a;

	ret = pd_rd_u32(r, &nr);
	ret = ret ?: pd_rd_u32(r, &asz);
	if (ret)
		return ret;
	if (nr > MAX_ATTRS || !attr_size_ok(asz))
		return pd_fail(pd, -EINVAL, "%s: absurd event count %u or attr size %u",
			       r->what, nr, asz);
	for (i = 0; i < nr; i++) {
		ret = pd_rd_read(r, abuf, asz);
		ret = ret ?: pd_rd_u32(r, &nids);
		if (ret)
			return ret;
		ret = pd_rd_hstr(r, &name);
		if (ret)
			return ret;
		if ((uint64_t)nids * 8 > r->left || nids > MAX_IDS) {
			free(name);
			return pd_fail(pd, -EINVAL, "%s: %u ids past the section end", r->what, nids);
		}
		ids = malloc((nids + 1) * 8ULL);
		if (!ids) {
			free(name);
			return -ENOMEM;
		}
		ret = pd_rd_read(r, ids, nids * 8ULL);
		if (ret) {
			free(ids);
			free(name);
			return ret;
		}
		/* Names attach to the attrs through their ids. */
		a = nids ? pd_idmap_get(pd, ids[0]) : (i < pd->nattrs ? (int)i : -1);
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
static int parse_str_feature(struct wult_pd *pd, struct pd_rd *r, char **out)
{
	int ret = pd_rd_hstr(r, out);

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
static int parse_cmdline(struct wult_pd *pd, struct pd_rd *r)
{
	size_t len = 0;
	uint32_t nr, i;
	char *s, *n;
	int ret;

	ret = pd_rd_u32(r, &nr);
	if (ret)
		return ret;
	if (nr > r->left / 4)
		return pd_fail(pd, -EINVAL, "%s: %u strings past the section end", r->what, nr);
	pd->cmdline = calloc(1, 1);
	if (!pd->cmdline)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		ret = pd_rd_hstr(r, &s);
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
static int parse_pmu_mappings(struct wult_pd *pd, struct pd_rd *r)
{
	struct pmu_map *np;
	uint32_t nr, i, type;
	char *name;
	int ret;

	ret = pd_rd_u32(r, &nr);
	if (ret)
		return ret;
	if (nr > r->left / 8)
		return pd_fail(pd, -EINVAL, "%s: %u PMUs past the section end", r->what, nr);
	for (i = 0; i < nr; i++) {
		ret = pd_rd_u32(r, &type);
		ret = ret ?: pd_rd_hstr(r, &name);
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
static int parse_cstates(struct wult_pd *pd, struct pd_rd *r)
{
	struct cstate_name *nc;
	uint32_t nr, i, cpu, idx;
	char *name;
	int ret;

	ret = pd_rd_u32(r, &nr);
	if (ret)
		return ret;
	if (nr > r->left / 12)
		return pd_fail(pd, -EINVAL, "%s: %u names past the section end", r->what, nr);
	for (i = 0; i < nr; i++) {
		ret = pd_rd_u32(r, &cpu);
		ret = ret ?: pd_rd_u32(r, &idx);
		ret = ret ?: pd_rd_hstr(r, &name);
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

/*
 * WULT_SYSDESC: a perf_header_string kept as it is. Under HEADER_STAT's id
 * (pipe mode, @stat) only a text that opens as a description is ours.
 */
static int parse_sysdesc(struct wult_pd *pd, struct pd_rd *r, int stat)
{
	size_t ml = strlen(WULT_SYSDESC_MAGIC);
	char *s;
	int ret = pd_rd_hstr(r, &s);

	if (ret)
		return ret;
	if (stat && strncmp(s, WULT_SYSDESC_MAGIC, ml)) {
		free(s);
		return 0;
	}
	ret = meta_charge(pd, strlen(s) + 1, r->what);
	if (ret) {
		free(s);
		return ret;
	}
	pd->sysdesc = s;
	return 0;
}

/* Forgets what feature @feat said, and gives its bytes back. */
static void drop_feature(struct wult_pd *pd, unsigned int feat)
{
	unsigned int i;

	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		for (i = 0; i < pd->nformats; i++) {
			free(pd->formats[i].system);
			free(pd->formats[i].text);
		}
		free(pd->formats);
		pd->formats = NULL;
		pd->nformats = 0;
		break;
	case PERF_FEAT_HOSTNAME:
		free(pd->hostname);
		pd->hostname = NULL;
		break;
	case PERF_FEAT_OSRELEASE:
		free(pd->osrelease);
		pd->osrelease = NULL;
		break;
	case PERF_FEAT_CMDLINE:
		free(pd->cmdline);
		pd->cmdline = NULL;
		break;
	case PERF_FEAT_EVENT_DESC:
		for (i = 0; i < pd->nattrs; i++) {
			free(pd->attrs[i].name);
			pd->attrs[i].name = NULL;
			pd->attrs[i].pub.name = NULL;
		}
		break;
	case PERF_FEAT_PMU_MAPPINGS:
		for (i = 0; i < pd->npmus; i++)
			free(pd->pmus[i].name);
		free(pd->pmus);
		pd->pmus = NULL;
		pd->npmus = 0;
		break;
	case PERF_FEAT_WULT_CSTATES:
		for (i = 0; i < pd->ncstates; i++)
			free(pd->cstates[i].name);
		free(pd->cstates);
		pd->cstates = NULL;
		pd->ncstates = 0;
		break;
	case PERF_FEAT_WULT_SYSDESC:
		free(pd->sysdesc);
		pd->sysdesc = NULL;
		break;
	}
	pd->meta -= pd->feat_meta[feat];
	pd->feat_meta[feat] = 0;
}

static int parse_feature_body(struct wult_pd *pd, unsigned int feat, struct pd_rd *r)
{
	int ret;

	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		return parse_tracing_data(pd, r);
	case PERF_FEAT_HOSTNAME:
		return parse_str_feature(pd, r, &pd->hostname);
	case PERF_FEAT_OSRELEASE:
		return parse_str_feature(pd, r, &pd->osrelease);
	case PERF_FEAT_NRCPUS:
		ret = pd_rd_u32(r, &pd->cpus_avail);
		return ret ?: pd_rd_u32(r, &pd->cpus_online);
	case PERF_FEAT_CMDLINE:
		return parse_cmdline(pd, r);
	case PERF_FEAT_EVENT_DESC:
		return parse_event_desc(pd, r);
	case PERF_FEAT_PMU_MAPPINGS:
		return parse_pmu_mappings(pd, r);
	case PERF_FEAT_WULT_CSTATES:
		return parse_cstates(pd, r);
	case PERF_FEAT_WULT_SYSDESC:
		return parse_sysdesc(pd, r, 0);
	default:
		return 0;	/* other features: not needed by wult */
	}
}

/*
 * A feature seen again (pipe mode can repeat HEADER_FEATURE records)
 * replaces what the previous one said instead of adding to it, so kept
 * memory follows the largest copy, not the number of copies.
 */
static int parse_feature(struct wult_pd *pd, unsigned int feat, struct pd_rd *r)
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
	case PERF_FEAT_TRACING_DATA: return "TRACING_DATA";
	case PERF_FEAT_HOSTNAME: return "HOSTNAME";
	case PERF_FEAT_OSRELEASE: return "OSRELEASE";
	case PERF_FEAT_NRCPUS: return "NRCPUS";
	case PERF_FEAT_CMDLINE: return "CMDLINE";
	case PERF_FEAT_EVENT_DESC: return "EVENT_DESC";
	case PERF_FEAT_PMU_MAPPINGS: return "PMU_MAPPINGS";
	case PERF_FEAT_WULT_CSTATES: return "WULT_CSTATES";
	case PERF_FEAT_WULT_SYSDESC: return "WULT_SYSDESC";
	default: return "feature";
	}
}

/* ---- file mode header ---- */

static int check_section(struct wult_pd *pd, const struct file_section *s, const char *what)
{
	if (s->offset > pd->file_size || s->size > pd->file_size - s->offset)
		return pd_fail(pd, -EINVAL, "truncated: its %s section (offset %llu, size %llu) "
			       "runs past the end of the file (%llu bytes); was it copied in "
			       "part, or its writer killed before its header was written?", what,
			       (unsigned long long)s->offset, (unsigned long long)s->size,
			       (unsigned long long)pd->file_size);
	return 0;
}

/* Attr @i of the attrs section (@abuf holds h->attr_size bytes), and its ids. */
static int file_attr(struct wult_pd *pd, const struct file_header *h, uint64_t i,
		     uint8_t *abuf)
{
	struct file_section fs;
	uint64_t *ids;
	uint32_t asz;
	int ret;

	ret = pd_pread(pd, abuf, h->attr_size, h->attrs.offset + i * h->attr_size);
	if (ret)
		return ret;
	memcpy(&asz, abuf + 4, 4);
	if (asz != h->attr_size - 16 || !attr_size_ok(asz))
		return pd_fail(pd, -EINVAL, "attr %llu: attr size mismatch: perf_event_attr.size "
			       "is %u but the header's attr size says %llu",
			       (unsigned long long)i, asz, (unsigned long long)(h->attr_size - 16));
	memcpy(&fs, abuf + asz, sizeof(fs));
	ret = check_section(pd, &fs, "ids");
	if (ret)
		return ret;
	if (fs.size % 8 || fs.size / 8 > MAX_IDS)
		return pd_fail(pd, -EINVAL, "attr %llu: bad ids section size %llu",
			       (unsigned long long)i, (unsigned long long)fs.size);
	ids = malloc(fs.size + 8);
	if (!ids)
		return -ENOMEM;
	ret = pd_pread(pd, ids, fs.size, fs.offset);
	ret = ret ?: add_attr(pd, abuf, asz, ids, fs.size / 8);
	free(ids);
	return ret;
}

/* The feature sections, whose table follows the data section. */
static int file_features(struct wult_pd *pd, const struct file_header *h)
{
	uint64_t off = h->data.offset + h->data.size;
	struct file_section fs;
	unsigned int feat;
	char why[sizeof(pd->err)];
	int ret;

	/*
	 * Bit 0 (HEADER_RESERVED) has an entry perf skips unread; wult's
	 * writer keeps a record header there (lib/perfdata/pdwrite.c).
	 */
	if (h->features[0] & 1)
		off += sizeof(fs);
	for (feat = 1; feat < PERF_FEAT_BITS; feat++) {
		struct pd_rd r = { .pd = pd, .what = feat_name(feat) };

		if (!(h->features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		ret = pd_pread(pd, &fs, sizeof(fs), off);
		if (ret) {
			snprintf(why, sizeof(why), "%s", pd->err);
			return pd_fail(pd, ret, "feature table truncated (feature %u): %s", feat,
				       why);
		}
		off += sizeof(fs);
		ret = check_section(pd, &fs, feat_name(feat));
		if (ret)
			return ret;
		r.off = fs.offset;
		r.left = fs.size;
		if (feat == PERF_FEAT_TRACING_DATA && fs.size > MAX_TRACING_DATA)
			return pd_fail(pd, -EINVAL, "TRACING_DATA section of %llu bytes, more than "
				       "the %llu MiB perf writes", (unsigned long long)fs.size,
				       MAX_TRACING_DATA >> 20);
		ret = parse_feature(pd, feat, &r);
		if (ret)
			return ret;
	}
	return 0;
}

int pd_read_file_header(struct wult_pd *pd, const struct file_header *h)
{
	uint8_t abuf[4096 + 16];
	uint64_t nattrs, i;
	int ret;

	if (h->size != PERF_FILE_HDR_SIZE)
		return pd_fail(pd, -EINVAL, "file header size %llu, expected %d",
			       (unsigned long long)h->size, PERF_FILE_HDR_SIZE);
	ret = check_section(pd, &h->attrs, "attrs");
	ret = ret ?: check_section(pd, &h->data, "data");
	if (ret)
		return ret;
	if (h->attr_size < PERF_ATTR_SIZE_VER0 + 16 || h->attr_size > sizeof(abuf))
		return pd_fail(pd, -EINVAL, "attr size %llu in the header is not a perf_event_attr "
			       "size", (unsigned long long)h->attr_size);
	if (h->attrs.size % h->attr_size)
		return pd_fail(pd, -EINVAL, "attrs section size %llu is not a multiple of the attr "
			       "size %llu", (unsigned long long)h->attrs.size,
			       (unsigned long long)h->attr_size);
	nattrs = h->attrs.size / h->attr_size;
	if (nattrs > MAX_ATTRS)
		return pd_fail(pd, -EINVAL, "absurd attr count %llu", (unsigned long long)nattrs);
	for (i = 0; !ret && i < nattrs; i++)
		ret = file_attr(pd, h, i, abuf);
	ret = ret ?: file_features(pd, h);
	if (ret)
		return ret;
	pd->data_end = h->data.offset + h->data.size;
	pd->in_off = h->data.offset;
	pd_input_choose(pd, h->data.offset);
	if (lseek(pd->fd, h->data.offset, SEEK_SET) < 0)
		return pd_fail(pd, -errno, "seek to the data: %s", strerror(errno));
	return pd->flags & WULT_PD_PREFETCH ? pd_mapper_start(pd) : 0;
}

int pd_handle_meta(struct wult_pd *pd, const struct perf_event_header *h)
{
	const uint8_t *rec = pd->cur;
	uint64_t v;
	int ret;

	switch (h->type) {
	case PERF_RECORD_HEADER_ATTR: {
		uint32_t asz;

		if (h->size < 8 + PERF_ATTR_SIZE_VER0)
			return pd_fail(pd, -EINVAL, "offset %llu: attr record too short (%u)",
				       (unsigned long long)pd->rec_off, h->size);
		memcpy(&asz, rec + 8 + 4, 4);
		if (!attr_size_ok(asz) || asz > h->size - 8u)
			return pd_fail(pd, -EINVAL, "offset %llu: attr size mismatch: "
				       "perf_event_attr.size %u in a %u-byte record",
				       (unsigned long long)pd->rec_off, asz, h->size);
		return add_attr(pd, rec + 8, asz, (const uint64_t *)(rec + 8 + asz),
				(h->size - 8 - asz) / 8);
	}
	case PERF_RECORD_HEADER_FEATURE: {
		struct pd_rd r = { .pd = pd, .mem = rec + 16 };

		if (h->size < 16)
			return pd_fail(pd, -EINVAL, "offset %llu: feature record too short",
				       (unsigned long long)pd->rec_off);
		memcpy(&v, rec + 8, 8);
		if (v >= PERF_FEAT_BITS)
			return pd_fail(pd, -EINVAL, "offset %llu: feature id %llu out of range",
				       (unsigned long long)pd->rec_off, (unsigned long long)v);
		r.what = feat_name(v);
		if (v == PERF_FEAT_TRACING_DATA)
			return 0;	/* pipe mode sends it as its own record */
		r.left = h->size - 16;
		if (v == PERF_FEAT_STAT) {
			/* wult's description, see pdwrite.h; perf's own is not kept */
			drop_feature(pd, PERF_FEAT_WULT_SYSDESC);
			pd->charging = PERF_FEAT_WULT_SYSDESC;
			r.what = "WULT_SYSDESC";
			ret = parse_sysdesc(pd, &r, 1);
			pd->charging = 0;
			return ret;
		}
		return parse_feature(pd, v, &r);
	}
	case PERF_RECORD_HEADER_TRACING_DATA: {
		struct pd_rd r = { .pd = pd, .stream = 1, .what = "TRACING_DATA" };
		uint32_t sz;

		if (h->size < 12 || pd->rec_inner)
			return pd_fail(pd, -EINVAL, "offset %llu: bad tracing data record",
				       (unsigned long long)pd->rec_off);
		memcpy(&sz, rec + 8, 4);
		/* The data follows the record, padded to 8 bytes (in 64 bits:
		 * a u32 size near 4 GiB would wrap to nothing).
		 */
		r.left = (uint64_t)sz + (8 - sz % 8) % 8;
		if (r.left > MAX_TRACING_DATA)
			return pd_fail(pd, -EINVAL, "offset %llu: tracing data of %llu bytes, more "
				       "than the %llu MiB perf writes", (unsigned long long)pd->rec_off,
				       (unsigned long long)r.left, MAX_TRACING_DATA >> 20);
		return parse_feature(pd, PERF_FEAT_TRACING_DATA, &r);
	}
	case PERF_RECORD_AUXTRACE:
		if (h->size < 16 || pd->rec_inner)
			return pd_fail(pd, -EINVAL, "offset %llu: bad auxtrace record",
				       (unsigned long long)pd->rec_off);
		memcpy(&v, rec + 8, 8);
		return pd_in_skip(pd, v, "AUXTRACE data");
	case PERF_RECORD_COMPRESSED:
		return pd_decompress(pd, rec + 8, h->size - 8);
	default:
		return 0;
	}
}

