/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf.data (file mode, "PERFILE2") writer that stock perf reads.
 *
 *   wult_pdw_open()                       a valid, empty perf.data
 *   wult_pdw_add_attr() / _add_id()       events and their sample ids
 *   wult_pdw_write()                      records, as read from the ring
 *   wult_pdw_set_*() / _add_pmu()         feature sections
 *   wult_pdw_sync()                       all of it on disk, still valid
 *   wult_pdw_close()                      a last sync
 *
 * The file on disk is a valid perf.data at every instant: a writer killed
 * at any point leaves every record of its last sync readable by perf and
 * libwult. Records wait in memory until the next sync (forced past 4 MiB),
 * and only attrs, ids and feature data are kept besides, so memory does
 * not grow with the recording.
 */
#ifndef WULT_PDWRITE_H
#define WULT_PDWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_pdw;

/* String features (struct perf_header_string). */
enum wult_pdw_str {
	WULT_PDW_HOSTNAME,
	WULT_PDW_OSRELEASE,
	WULT_PDW_VERSION,
	WULT_PDW_ARCH,
	WULT_PDW_CPUDESC,
	WULT_PDW_NR_STR,
};

int wult_pdw_open(const char *path, struct wult_pdw **out, char *err, size_t errlen);

/* Adds an event, named @name in EVENT_DESC; returns its index or -errno. */
int wult_pdw_add_attr(struct wult_pdw *w, const struct perf_event_attr *attr,
		      const char *name);
/* Records that samples with @id belong to event @idx. 0 or -errno. */
int wult_pdw_add_id(struct wult_pdw *w, int idx, uint64_t id);
/* Declares events [@leader, @leader + @nr) a group (GROUP_DESC). */
int wult_pdw_set_group(struct wult_pdw *w, int leader, unsigned int nr);

/* Appends one record, its perf_event_header included. 0 or -errno. */
int wult_pdw_write(struct wult_pdw *w, const void *rec, size_t size);

int wult_pdw_set_str(struct wult_pdw *w, enum wult_pdw_str which, const char *s);
int wult_pdw_set_cmdline(struct wult_pdw *w, int argc, char *const *argv);
int wult_pdw_set_nrcpus(struct wult_pdw *w, uint32_t online, uint32_t avail);
/* TRACING_DATA carrying one event format of @system (e.g. wult:datapoint). */
int wult_pdw_set_tracing(struct wult_pdw *w, const char *system, const char *format);
/* PMU_MAPPINGS: PMU @type is called @name (a type already mapped keeps its
 * first name). */
int wult_pdw_add_pmu(struct wult_pdw *w, uint32_t type, const char *name);

/*
 * WULT_PDW_FEAT_CSTATES, a feature section of wult's own, at the last bit
 * of perf's feature bitmap so perf (which reads only the features it knows,
 * in bit order) skips it: the idle-state names of the measured CPUs,
 *   u32 nr; { u32 cpu; u32 index; struct perf_header_string name; }[nr]
 */
#define WULT_PDW_FEAT_CSTATES	255
int wult_pdw_add_cstate(struct wult_pdw *w, uint32_t cpu, uint32_t idx, const char *name);

/*
 * WULT_PDW_FEAT_SYSDESC, the system's description (wult/sysdesc.h's text
 * form) as one struct perf_header_string, next to the cstates at a bit
 * perf skips. Pipe mode has no such bit (perf 6.1 fails on a feature id it
 * does not know), so there it goes as a HEADER_FEATURE record with the id
 * of HEADER_STAT, a feature perf has no reader for and ignores in pipe mode
 * (6.1 and 6.12: feat_ops[HEADER_STAT].process is NULL) and never writes
 * in a pipe itself; readers tell it by the text's first line. -E2BIG in
 * pipe mode for a text beyond a record's 64 KiB (then left out).
 */
#define WULT_PDW_FEAT_SYSDESC	254
int wult_pdw_set_sysdesc(struct wult_pdw *w, const char *text);

/*
 * Puts the records written so far and the current attrs, ids and features
 * on disk without a moment where the file is unreadable. 0 or -errno.
 */
int wult_pdw_sync(struct wult_pdw *w);

/* Bytes of records written so far. */
uint64_t wult_pdw_data_size(const struct wult_pdw *w);

/* Syncs and closes; frees @w either way. */
int wult_pdw_close(struct wult_pdw *w, char *err, size_t errlen);

#pragma GCC visibility pop

#endif
