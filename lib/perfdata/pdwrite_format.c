// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data writer's bytes (internal/pdwrite.h): perf's file header,
 * the feature table and its sections, the attrs with their ids, and pipe
 * mode's metadata records, in perf's layout
 * (tools/perf/Documentation/perf.data-file-format.txt). Where they go and
 * when is pdwrite.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal/pdwrite.h"
#include "internal/perf_file.h"

/* perf's user record types (tools/perf/util/event.h). */
enum {
	R_HEADER_ATTR = 64, R_HEADER_TRACING_DATA = 66, R_FINISHED_ROUND = 68,
	R_HEADER_FEATURE = 80,
};

/* perf 6.1's HEADER_LAST_FEATURE: it refuses higher ids in pipe mode. */
#define PERF_LAST_FEATURE	31

static const int str_feat[WULT_PDW_NR_STR] = {
	[WULT_PDW_HOSTNAME] = PERF_FEAT_HOSTNAME, [WULT_PDW_OSRELEASE] = PERF_FEAT_OSRELEASE,
	[WULT_PDW_VERSION] = PERF_FEAT_VERSION, [WULT_PDW_ARCH] = PERF_FEAT_ARCH,
	[WULT_PDW_CPUDESC] = PERF_FEAT_CPUDESC,
};

static void put(struct wult_pdw *w, FILE *f, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, f) != n)
		w->failed = ENOMEM;
}

static void put32(struct wult_pdw *w, FILE *f, uint32_t v)
{
	put(w, f, &v, 4);
}

static void put64(struct wult_pdw *w, FILE *f, uint64_t v)
{
	put(w, f, &v, 8);
}

/* struct perf_header_string: u32 length (64-byte aligned, as perf) + text. */
static void put_hstr(struct wult_pdw *w, FILE *f, const char *s)
{
	static const char zero[64];
	size_t n = strlen(s);
	uint32_t len = (n + 1 + 63) & ~63U;

	put32(w, f, len);
	put(w, f, s, n);
	put(w, f, zero, len - n);
}

/* TRACING_DATA (perf's trace-event-read format, version 0.6). */
static void put_tracing(struct wult_pdw *w, FILE *f)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	static const char header_page[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	static const char header_event[] =
		"# compressed entry header\n\ttype_len    :    5 bits\n"
		"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
		"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
		"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";
	size_t flen = strlen(w->trace_format);

	put(w, f, magic, sizeof(magic));
	put(w, f, "0.6", 4);
	put(w, f, "\0\x08", 2);		/* little endian, 8-byte long */
	put32(w, f, 4096);			/* page size */
	put(w, f, "header_page", 12);
	put64(w, f, sizeof(header_page) - 1);
	put(w, f, header_page, sizeof(header_page) - 1);
	put(w, f, "header_event", 13);
	put64(w, f, sizeof(header_event) - 1);
	put(w, f, header_event, sizeof(header_event) - 1);
	put32(w, f, 0);				/* ftrace formats */
	put32(w, f, 1);				/* event systems */
	put(w, f, w->trace_system, strlen(w->trace_system) + 1);
	put32(w, f, 1);
	put64(w, f, flen);
	put(w, f, w->trace_format, flen);
	put32(w, f, 0);				/* kallsyms */
	put32(w, f, 0);				/* printk formats */
	put64(w, f, 0);				/* saved cmdlines */
}

static int has_feature(const struct wult_pdw *w, int feat)
{
	unsigned int i;

	for (i = 0; i < WULT_PDW_NR_STR; i++)
		if (str_feat[i] == feat)
			return w->str[i] != NULL;
	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		return w->trace_format != NULL;
	case PERF_FEAT_NRCPUS:
		return w->cpus_avail != 0;
	case PERF_FEAT_CMDLINE:
		return w->argv != NULL;
	case PERF_FEAT_EVENT_DESC:
		return w->nr_ev != 0;
	case PERF_FEAT_PMU_MAPPINGS:
		return w->nr_pmu != 0;
	case PERF_FEAT_GROUP_DESC:
		return w->group_leader >= 0;
	case PERF_FEAT_WULT_CSTATES:
		return w->nr_cst != 0;
	case PERF_FEAT_WULT_SYSDESC:
		return w->sysdesc != NULL;
	}
	return 0;
}

static void put_feature(struct wult_pdw *w, FILE *f, int feat)
{
	unsigned int i, j;

	for (i = 0; i < WULT_PDW_NR_STR; i++) {
		if (str_feat[i] == feat) {
			put_hstr(w, f, w->str[i]);
			return;
		}
	}
	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		put_tracing(w, f);
		break;
	case PERF_FEAT_NRCPUS:
		put32(w, f, w->cpus_avail);
		put32(w, f, w->cpus_online);
		break;
	case PERF_FEAT_CMDLINE:
		put32(w, f, w->argc);
		for (i = 0; i < (unsigned int)w->argc; i++)
			put_hstr(w, f, w->argv[i]);
		break;
	case PERF_FEAT_EVENT_DESC:
		put32(w, f, w->nr_ev);
		put32(w, f, ATTR_SIZE);
		for (i = 0; i < w->nr_ev; i++) {
			put(w, f, &w->ev[i].attr, ATTR_SIZE);
			put32(w, f, w->ev[i].nr_ids);
			put_hstr(w, f, w->ev[i].name);
			for (j = 0; j < w->ev[i].nr_ids; j++)
				put64(w, f, w->ev[i].ids[j]);
		}
		break;
	case PERF_FEAT_PMU_MAPPINGS:
		put32(w, f, w->nr_pmu);
		for (i = 0; i < w->nr_pmu; i++) {
			put32(w, f, w->pmu[i].type);
			put_hstr(w, f, w->pmu[i].name);
		}
		break;
	case PERF_FEAT_GROUP_DESC:
		put32(w, f, 1);
		put_hstr(w, f, "{wult}");
		put32(w, f, w->group_leader);
		put32(w, f, w->group_nr);
		break;
	case PERF_FEAT_WULT_CSTATES:
		put32(w, f, w->nr_cst);
		for (i = 0; i < w->nr_cst; i++) {
			put32(w, f, w->cst[i].cpu);
			put32(w, f, w->cst[i].idx);
			put_hstr(w, f, w->cst[i].name);
		}
		break;
	case PERF_FEAT_WULT_SYSDESC:
		put_hstr(w, f, w->sysdesc);
		break;
	}
}

/* Size of a feature section, measured by writing it to /dev/null. */
static long feature_size(struct wult_pdw *w, int feat)
{
	FILE *f = fopen("/dev/null", "w");
	long sz;

	if (!f) {
		w->failed = errno;
		return 0;
	}
	put_feature(w, f, feat);
	sz = ftell(f);
	fclose(f);
	return sz < 0 ? 0 : sz;
}

static unsigned int nr_features(const struct wult_pdw *w)
{
	unsigned int n = 0;
	int feat;

	for (feat = 0; feat < PERF_FEAT_BITS; feat++)
		n += !!has_feature(w, feat);
	return n;
}

/* Bytes of the feature table: the features, and entry 0. */
uint64_t pdw_table_size(const struct wult_pdw *w)
{
	return 16 * (1 + nr_features(w));
}

/* perf_file_header: the data up to @data_end, features per @feats. */
void pdw_put_header(struct wult_pdw *w, FILE *f, uint64_t data_end,
		    uint64_t attrs_off, const uint64_t *feats)
{
	static const uint64_t none[PERF_FEAT_BITS / 64];

	put64(w, f, PERF_FILE_MAGIC2);
	put64(w, f, PERF_FILE_HDR_SIZE);
	put64(w, f, ATTR_SIZE + 16);		/* attr_size: attr + ids section */
	put64(w, f, attrs_off);
	put64(w, f, w->nr_ev * (ATTR_SIZE + 16));
	put64(w, f, PERF_FILE_HDR_SIZE);			/* data */
	put64(w, f, data_end - PERF_FILE_HDR_SIZE);
	put64(w, f, 0);				/* event_types: unused */
	put64(w, f, 0);
	put(w, f, feats ? feats : none, sizeof(none));
}

/*
 * The feature table for sections placed from @sec_off on, then (into
 * @sec) the sections, the attrs, each followed by the file section of its
 * ids, and the ids. Returns the attrs' file offset.
 */
uint64_t pdw_put_tail(struct wult_pdw *w, FILE *tbl, FILE *sec, uint64_t sec_off,
		      uint64_t *feats)
{
	struct perf_event_header pad = {
		.type = R_FINISHED_ROUND, .size = pdw_table_size(w),
	};
	uint64_t off = sec_off, ids_off;
	unsigned int i;
	int feat;

	/* Entry 0 (HEADER_RESERVED): the table read as a record, see the top. */
	feats[0] |= 1;
	put(w, tbl, &pad, sizeof(pad));
	put64(w, tbl, 0);
	for (feat = 1; feat < PERF_FEAT_BITS; feat++) {
		long sz;

		if (!has_feature(w, feat))
			continue;
		feats[feat / 64] |= 1ULL << (feat % 64);
		sz = feature_size(w, feat);
		put64(w, tbl, off);
		put64(w, tbl, sz);
		put_feature(w, sec, feat);
		off += sz;
	}
	ids_off = off + w->nr_ev * (ATTR_SIZE + 16);
	for (i = 0; i < w->nr_ev; i++) {
		put(w, sec, &w->ev[i].attr, ATTR_SIZE);
		put64(w, sec, ids_off);
		put64(w, sec, w->ev[i].nr_ids * 8ULL);
		ids_off += w->ev[i].nr_ids * 8ULL;
	}
	for (i = 0; i < w->nr_ev; i++)
		put(w, sec, w->ev[i].ids, w->ev[i].nr_ids * 8ULL);
	return off;
}

static void put_rec_header(struct wult_pdw *w, FILE *f, uint32_t type, size_t size)
{
	struct perf_event_header h = { .type = type, .size = size };

	put(w, f, &h, sizeof(h));
}

/* One feature as a HEADER_FEATURE record of id @id, padded to 8 bytes. */
static void put_pipe_feature(struct wult_pdw *w, FILE *f, int feat, int id)
{
	static const char zero[8];
	long sz = feature_size(w, feat), pad = (8 - sz % 8) % 8;

	if (16 + sz + pad > 0xffff)	/* a record's size is a u16 */
		return;
	put_rec_header(w, f, R_HEADER_FEATURE, 16 + sz + pad);
	put64(w, f, id);
	put_feature(w, f, feat);
	put(w, f, zero, pad);
}

/* Pipe mode's header, attrs, features and event format, in perf's order. */
void pdw_put_pipe_meta(struct wult_pdw *w, FILE *f)
{
	static const char zero[8];
	unsigned int i;
	long sz;
	int feat;

	put64(w, f, PERF_FILE_MAGIC2);
	put64(w, f, PERF_PIPE_HDR_SIZE);
	for (i = 0; i < w->nr_ev; i++) {
		put_rec_header(w, f, R_HEADER_ATTR, 8 + ATTR_SIZE + w->ev[i].nr_ids * 8);
		put(w, f, &w->ev[i].attr, ATTR_SIZE);
		put(w, f, w->ev[i].ids, w->ev[i].nr_ids * 8ULL);
	}
	for (feat = 1; feat <= PERF_LAST_FEATURE; feat++)
		if (feat != PERF_FEAT_TRACING_DATA && has_feature(w, feat))
			put_pipe_feature(w, f, feat, feat);
	if (has_feature(w, PERF_FEAT_WULT_SYSDESC))
		put_pipe_feature(w, f, PERF_FEAT_WULT_SYSDESC, PERF_FEAT_STAT);
	if (has_feature(w, PERF_FEAT_TRACING_DATA)) {
		/* perf checks the size with the padding to 8 bytes included. */
		sz = feature_size(w, PERF_FEAT_TRACING_DATA);
		put_rec_header(w, f, R_HEADER_TRACING_DATA, 16);
		put32(w, f, sz + (8 - sz % 8) % 8);
		put32(w, f, 0);
		put_tracing(w, f);		/* follows the record */
		put(w, f, zero, (8 - sz % 8) % 8);
	}
}

/* Bytes of the sections pdw_put_tail() writes. */
uint64_t pdw_tail_size(struct wult_pdw *w)
{
	uint64_t n = w->nr_ev * (ATTR_SIZE + 16);
	unsigned int i;
	int feat;

	for (feat = 0; feat < PERF_FEAT_BITS; feat++)
		if (has_feature(w, feat))
			n += feature_size(w, feat);
	for (i = 0; i < w->nr_ev; i++)
		n += w->ev[i].nr_ids * 8ULL;
	return n;
}
