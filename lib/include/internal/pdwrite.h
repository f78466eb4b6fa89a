/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: the perf.data writer (wult/pdwrite.h) for its two
 * files: pdwrite.c, the object, its records and the syncs that keep the
 * file valid; pdwrite_format.c, the bytes of perf's header, feature table
 * and sections, attrs, and pipe mode's metadata records.
 */
#ifndef WULT_INTERNAL_PDWRITE_H
#define WULT_INTERNAL_PDWRITE_H

#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include <wult/pdwrite.h>

#define ATTR_SIZE	sizeof(struct perf_event_attr)

struct pdw_event {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	uint32_t nr_ids, cap_ids;
};

struct pdw_pmu {
	uint32_t type;
	char *name;
};

struct pdw_cstate {
	uint32_t cpu, idx;
	char *name;
};

struct wult_pdw {
	int fd;
	char *path;
	int failed;
	int pipe, announced;	/* pipe mode; its metadata written */
	uint64_t data_end;	/* file offset: end of the data, where the table is */
	uint64_t tbl_len;	/* bytes of that table, 0: nothing on disk yet */
	uint64_t sec_lo;	/* file offset: the sections the header refers to, */
	uint64_t tail_end;	/* ...up to here */
	uint64_t rec_bytes;	/* records written to disk */
	uint64_t slot_base;	/* file offset of slot 0; slot 1 follows */
	uint64_t slot_size;
	int slot;		/* the slot the header uses, -1: none yet */
	char *buf;		/* records not yet on disk */
	size_t buf_len, buf_cap;
	int dirty;		/* attrs, ids or features changed since the sync */
	struct pdw_event *ev;
	unsigned int nr_ev;
	struct pdw_pmu *pmu;
	unsigned int nr_pmu;
	struct pdw_cstate *cst;
	unsigned int nr_cst;
	char *sysdesc;
	char *str[WULT_PDW_NR_STR];
	char **argv;
	int argc;
	uint32_t cpus_online, cpus_avail;
	char *trace_system, *trace_format;
	int group_leader;
	unsigned int group_nr;
};

/* Bytes of the feature table: the features, and entry 0. */
uint64_t pdw_table_size(const struct wult_pdw *w);
/* Bytes of the sections pdw_put_tail() writes. */
uint64_t pdw_tail_size(struct wult_pdw *w);
/* perf_file_header: the data up to @data_end, features per @feats. */
void pdw_put_header(struct wult_pdw *w, FILE *f, uint64_t data_end,
		    uint64_t attrs_off, const uint64_t *feats);
/* The feature table into @tbl, the sections, attrs and ids into @sec. */
uint64_t pdw_put_tail(struct wult_pdw *w, FILE *tbl, FILE *sec, uint64_t sec_off,
		      uint64_t *feats);
/* Pipe mode's header, attrs, features and event format. */
void pdw_put_pipe_meta(struct wult_pdw *w, FILE *f);

#endif
