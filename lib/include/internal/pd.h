/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: the perf.data reader's insides, shared by its files:
 *   perfdata_io.c      the input: file and stream reads, bounded sub-readers,
 *                      record framing, zstd
 *   perfdata_header.c  attrs and ids, features, tracing data, the file header,
 *                      the metadata records of pipe mode, the metadata budget
 *   perfdata_sample.c  PERF_RECORD_SAMPLE decoding (also public, for records
 *                      that come from a ring buffer instead of a file)
 *   perfdata.c         the public API: open, next (ordered or not), close,
 *                      accessors
 * Everything read from the file is untrusted: each size and count is checked
 * against what contains it before it is used, and every failure says where
 * and why.
 */
#ifndef WULT_INTERNAL_PD_H
#define WULT_INTERNAL_PD_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include <perf/event.h>
#include <wult/pdwrite.h>
#include <wult/perfdata.h>

#include "internal/err.h"
#include "internal/perf_file.h"

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
/* read()'s buffer: as large as the pipe buffer asked for, so that a read
 * can drain the pipe (a quarter of 256 KiB's reads and wake-ups of the
 * writer: pipe mode's system time 0.6x, wall time 0.9x, measured). */
#define INBUF_SIZE		(1U << 20)
/* File mode maps the data a window at a time (see map_window()). */
#define MAP_WINDOW		(4U << 20)
/* ... or, where copying is cheaper than mapping (pd_input_choose()), read
 * into the helper's buffers a window at a time */
#define READ_WINDOW		(1U << 20)


/* The sample fields before READ: u64s each. */
#define FIXED_HEAD	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/*
 * Whether a sample's RAW field of @rs bytes fits in the @left bytes from
 * its u32 size on, with that size and the padding to 8 bytes: parse_raw()'s
 * checks in one test, for the samples' short paths.
 */
static inline int pd_raw_fits(uint32_t rs, uint64_t left)
{
	return (uint64_t)rs + 4 + (8 - (4 + rs) % 8) % 8 <= left;
}

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct file_section attrs, data, event_types;
	uint64_t features[PERF_FEAT_BITS / 64];
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

	/* the data stream: in the read buffer or in the mapped window */
	uint8_t *in;
	size_t in_pos, in_len;
	uint8_t *inbuf;		/* INBUF_SIZE, for read() */
	int map_ok;		/* file mode: map windows instead of read() */
	void *map;
	size_t map_len;
	struct pd_mapper *mapper;	/* WULT_PD_PREFETCH's helper (perfdata_map.c) */
	int map_bufs;		/* the windows are the helper's read buffers */
	char input[160];	/* how the data is read, and why (wult_pd_input()) */
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
	int id_pos;		/* samples' common id position (pd_find_attr()) */
	unsigned int id_pos_nattrs;	/* ... for this many attrs */

	char *hostname, *osrelease, *cmdline;
	uint32_t cpus_online, cpus_avail;
	struct pmu_map *pmus;
	struct cstate_name *cstates;	/* WULT_PDW_FEAT_CSTATES */
	unsigned int ncstates;
	char *sysdesc;			/* WULT_PDW_FEAT_SYSDESC's text */
	unsigned int npmus;
	struct format *formats;
	unsigned int nformats;
	uint64_t counts[128];

	/* kept metadata, in bytes: all of it, and per feature (0: attrs and
	 * ids), so a repeated feature gives its old share back
	 */
	uint64_t meta;
	uint64_t feat_meta[PERF_FEAT_BITS];
	unsigned int charging;		/* the feature being parsed, or 0 */

	/* ordered mode: records of the rounds not yet flushed */
	uint8_t *qbuf;
	size_t qlen, qcap;
	struct qent *q;
	size_t qn, qcapn, qready, qemit;
	uint64_t qseq, round_max, prev_round_max;
	int draining;
};

/* The reader's first failure, in words in pd->err; returns @ret. */
#define pd_fail(pd, ret, ...) wult_err_set((pd)->err, sizeof((pd)->err), (ret), __VA_ARGS__)

/* ---- perfdata_io.c ---- */
int pd_pread(struct wult_pd *pd, void *buf, size_t n, uint64_t off);
/* Makes @n bytes available in the stream buffer: 1, 0 at a clean end, or
 * an error. */
int pd_in_fill(struct wult_pd *pd, size_t n);
int pd_in_skip(struct wult_pd *pd, uint64_t n, const char *what);

/* ---- perfdata_map.c ---- */
/*
 * File mode: the next window mapped, pd_in_fill()'s way of filling. Returns
 * as pd_in_fill(), or PD_MAP_READ when mapping failed: map_ok is cleared,
 * the file is at pd->in_off and the caller reads instead.
 */
#define PD_MAP_READ	2
int pd_map_window(struct wult_pd *pd, size_t n);
/*
 * File mode: map the data or read it, whichever costs less CPU here,
 * measured on the data's first windows (WULT_PD_INPUT=map|read forces
 * one). Sets map_ok and pd->input.
 */
void pd_input_choose(struct wult_pd *pd, uint64_t data_off);
/* WULT_PD_PREFETCH: the helper thread that maps (or reads) ahead. */
int pd_mapper_start(struct wult_pd *pd);
/* Every window unmapped, the helper stopped. */
void pd_map_close(struct wult_pd *pd);

/* A bounded sub-reader: a feature section (pread) or part of the stream. */
struct pd_rd {
	struct wult_pd *pd;
	int stream;
	const uint8_t *mem;	/* a section already in memory */
	uint64_t off, left;
	const char *what;
};

int pd_rd_read(struct pd_rd *r, void *dst, uint64_t n);
int pd_rd_skip(struct pd_rd *r, uint64_t n);
int pd_rd_u32(struct pd_rd *r, uint32_t *v);
int pd_rd_u64(struct pd_rd *r, uint64_t *v);
/* Reads up to and including a NUL (at most @max bytes) into a new string. */
int pd_rd_cstr(struct pd_rd *r, size_t max, char **out);
/* struct perf_header_string: u32 len, then len bytes (NUL-padded). */
int pd_rd_hstr(struct pd_rd *r, char **out);
/* Decompresses a COMPRESSED record's payload; its records come next. */
int pd_decompress(struct wult_pd *pd, const uint8_t *src, size_t len);
/* Reads the next raw record into pd->cur: 1, 0 at the end, or an error. */
int pd_read_record(struct wult_pd *pd);

/* ---- perfdata_header.c ---- */
int pd_read_file_header(struct wult_pd *pd, const struct file_header *h);
/* A record other than a sample: attrs, features, tracing data, ... */
int pd_handle_meta(struct wult_pd *pd, const struct perf_event_header *h);

/* ---- perfdata_sample.c ---- */
/* The attr index of a record's id (@sample: a sample's, else the trailing
 * sample_id's); negative when not found (an error for samples). */
int pd_find_attr(struct wult_pd *pd, const uint8_t *body, size_t len, int sample);
int pd_parse_sample(struct wult_pd *pd, const uint8_t *rec, size_t size,
		    struct wult_pd_sample *s);

/* The attr of sample id @id, or -1. */
static inline int pd_idmap_get(const struct wult_pd *pd, uint64_t id)
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

#endif
