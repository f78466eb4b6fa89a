/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's description of the measured system (record_sysdesc.c),
 * stored in the output as WULT_PDW_FEAT_SYSDESC (wult/pdwrite.h).
 */
#ifndef WULT_RECORD_SYSDESC_H
#define WULT_RECORD_SYSDESC_H

struct perf_cpu_map;
struct wult_pdw;

/*
 * Describes the system and the measured CPUs @cpus into @pdw, as they are
 * set for the recording (after --states and --idle-governor). What cannot
 * be read is said in the description, and a description that cannot be
 * stored is said on stderr: neither fails the recording. Returns what the
 * end needs, NULL when nothing was stored.
 */
struct rec_sysdesc;
struct rec_sysdesc *rec_sysdesc_store(struct wult_pdw *pdw, struct perf_cpu_map *cpus,
				      int quiet);
/*
 * cpuidle's counters of the measured CPUs' states are stored with it as
 * the recording starts; at its end (before the file is closed) they are
 * added again (file mode; a pipe's description was sent at its start), so
 * the report can show cpuidle's own above/below counts over the recording.
 * Frees @r (NULL: nothing was stored).
 */
void rec_sysdesc_end(struct rec_sysdesc *r, struct wult_pdw *pdw, int pipe, int quiet);
void rec_sysdesc_free(struct rec_sysdesc *r);

#endif
