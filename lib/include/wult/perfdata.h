/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming perf.data reader (file and pipe mode, zstd-compressed
 * records), following tools/perf/Documentation/perf.data-file-format.txt.
 *
 *	wult_pd_open(path, 0, &pd, err, sizeof(err));
 *	while ((ret = wult_pd_next(pd, &ev)) > 0)
 *		if (ev.type == PERF_RECORD_SAMPLE) use(&ev.sample);
 *	if (ret < 0) puts(wult_pd_error(pd));
 *	wult_pd_close(pd);
 *
 * One record is decoded at a time into buffers the reader owns; pointers in
 * an event stay valid until the next wult_pd_next(). Memory does not grow
 * with the file: only attrs, ids, event formats and feature values are
 * kept, within WULT_PD_META_BUDGET (and, in ordered mode, the records of
 * two FINISHED_ROUND rounds). A feature that comes again (pipe mode)
 * replaces the previous one: pointers to feature values (names, formats)
 * stay valid until then or until wult_pd_close().
 */
#ifndef WULT_PERFDATA_H
#define WULT_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_pd;

/* wult_pd_open() flags */
#define WULT_PD_ORDERED	(1U << 0)	/* sort samples by time per FINISHED_ROUND, as perf */
#define WULT_PD_SMALL_META (1U << 1)	/* WULT_PD_SMALL_META_BUDGET: fuzz-sized inputs reach it */
/* File mode: a helper thread maps the data ahead of the caller (for a
 * caller whose own work competes with the reading for its thread) */
#define WULT_PD_PREFETCH	(1U << 2)

/* Bytes of metadata a reader keeps at most: event formats, feature values,
 * PMU mappings, attrs and their ids. A file needing more is refused with
 * -EFBIG (real ones need well under a MiB).
 */
#define WULT_PD_META_BUDGET	(32U << 20)
#define WULT_PD_SMALL_META_BUDGET (16U << 10)

/* Group entries beyond this are corrupt input, not a real group. */
#define WULT_PD_MAX_GROUP	1024

struct wult_pd_attr {
	struct perf_event_attr attr;	/* zero-extended to our struct size */
	const char *name;		/* from EVENT_DESC, or NULL */
	const uint64_t *ids;
	uint32_t nr_ids;
};

struct wult_pd_read_value {
	uint64_t value, id, lost;
};

/* A decoded PERF_RECORD_SAMPLE; a field is valid when its sample_type bit
 * is set in attr->attr.sample_type.
 */
struct wult_pd_sample {
	const struct wult_pd_attr *attr;
	uint64_t id, ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
	struct {			/* PERF_SAMPLE_READ */
		uint64_t nr;		/* 1 without PERF_FORMAT_GROUP */
		uint64_t time_enabled, time_running;
		const struct wult_pd_read_value *values;
	} read;
	uint64_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr;
	int64_t branch_hw_idx;		/* -1 without PERF_SAMPLE_BRANCH_HW_INDEX */
	const struct perf_branch_entry *branches;
	uint64_t regs_user_abi, regs_intr_abi;
	uint32_t regs_user_nr, regs_intr_nr;
	const uint64_t *regs_user, *regs_intr;
	uint64_t stack_size, stack_dyn_size;
	const void *stack;
	uint64_t weight, data_src, transaction, phys_addr, cgroup;
	uint64_t data_page_size, code_page_size;
	uint64_t aux_size;
	const void *aux;
};

struct wult_pd_event {
	uint32_t type;			/* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	const void *raw;		/* the record, header included */
	const struct wult_pd_attr *attr;	/* SAMPLE, LOST, LOST_SAMPLES when known */
	struct wult_pd_sample sample;	/* PERF_RECORD_SAMPLE */
	uint64_t lost;			/* PERF_RECORD_LOST / LOST_SAMPLES */
};

/* Opens @path ("-" is stdin). 0, or a negative errno with the reason in
 * @err. In file mode the attrs and features are read here; in pipe mode
 * they arrive with the stream, before the samples that use them.
 */
int wult_pd_open(const char *path, unsigned int flags, struct wult_pd **out,
		 char *err, size_t errlen);
/* Same on an open descriptor, which the reader then owns. */
int wult_pd_open_fd(int fd, unsigned int flags, struct wult_pd **out,
		    char *err, size_t errlen);
/* 1 and fills @ev, 0 at the end of the data, or a negative errno. */
int wult_pd_next(struct wult_pd *pd, struct wult_pd_event *ev);
const char *wult_pd_error(const struct wult_pd *pd);
void wult_pd_close(struct wult_pd *pd);
/*
 * For a reader that decodes sample payloads itself: up to @max consecutive
 * PERF_RECORD_SAMPLEs, each taken as wult_pd_next() would take it, of a
 * file or pipe of one attr whose sample_type has RAW and nothing after it
 * but the fields before READ (IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD): the RAW data of each into @raw and @size. The
 * number taken: 0 when the next record is not such a sample, or not whole
 * in the data read so far, or in ordered mode (wult_pd_next() takes it).
 * The pointers stay valid until the next call of either.
 */
unsigned int wult_pd_next_raws(struct wult_pd *pd, const void **raw, uint32_t *size,
			       unsigned int max);

/*
 * The sample decoder wult_pd_next() uses, for records that do not come from
 * a file (e.g. wult record's ring buffer): decodes the PERF_RECORD_SAMPLE
 * @rec (@size bytes, its header included) of the event @attr into @s, whose
 * pointers then point into @rec and @vals (WULT_PD_MAX_GROUP entries, for
 * PERF_SAMPLE_READ). 0, or -EINVAL with the reason in @err.
 */
int wult_pd_sample_parse(const struct wult_pd_attr *attr, const void *rec, size_t size,
			 struct wult_pd_sample *s, struct wult_pd_read_value *vals,
			 char *err, size_t errlen);

int wult_pd_is_pipe(const struct wult_pd *pd);
/* How the data is read (a pipe, the file mapped or read) and, for a file,
 * what that choice was measured to cost on this host: one line. */
const char *wult_pd_input(const struct wult_pd *pd);
unsigned int wult_pd_nr_attrs(const struct wult_pd *pd);
const struct wult_pd_attr *wult_pd_attr(const struct wult_pd *pd, unsigned int idx);
/* Feature values, NULL/0 when absent. */
const char *wult_pd_hostname(const struct wult_pd *pd);
const char *wult_pd_osrelease(const struct wult_pd *pd);
const char *wult_pd_cmdline(const struct wult_pd *pd);	/* arguments joined by spaces */
uint32_t wult_pd_nr_cpus_online(const struct wult_pd *pd);
uint32_t wult_pd_nr_cpus_avail(const struct wult_pd *pd);
/* The PMU name of attr.type @type from PMU_MAPPINGS. */
const char *wult_pd_pmu_name(const struct wult_pd *pd, uint32_t type);
/* Idle-state names recorded by wult record (WULT_PDW_FEAT_CSTATES, see
 * wult/pdwrite.h): count, then entry @i's CPU, state index and name. */
unsigned int wult_pd_nr_cstates(const struct wult_pd *pd);
int wult_pd_cstate(const struct wult_pd *pd, unsigned int i, uint32_t *cpu, uint32_t *idx,
		   const char **name);
/* The system description wult record stored (WULT_PDW_FEAT_SYSDESC, in
 * wult/sysdesc.h's text form, unchecked: wult_sysdesc_parse() it), or NULL. */
const char *wult_pd_sysdesc(const struct wult_pd *pd);
/* Event formats from TRACING_DATA: count, then system name and format text. */
unsigned int wult_pd_nr_formats(const struct wult_pd *pd);
int wult_pd_format(const struct wult_pd *pd, unsigned int idx, const char **system,
		   const char **text, size_t *len);
/* Counters of records seen so far, by type (PERF_RECORD_*, < 128). */
uint64_t wult_pd_count(const struct wult_pd *pd, uint32_t type);

#pragma GCC visibility pop

#endif
