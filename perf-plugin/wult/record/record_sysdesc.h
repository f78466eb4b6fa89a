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
 * stored is said on stderr: neither fails the recording.
 */
void rec_sysdesc_store(struct wult_pdw *pdw, struct perf_cpu_map *cpus, int quiet);

#endif
