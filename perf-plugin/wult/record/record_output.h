/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's outputs (record_output.c): the perf.data file opened with
 * the group's events and the features that describe the machine, the
 * group's sample ids, and the summary said at the end.
 */
#ifndef WULT_RECORD_OUTPUT_H
#define WULT_RECORD_OUTPUT_H

struct perf_cpu_map;
struct rec_opts;
struct rec_state;

/*
 * The output (an existing FILE kept as FILE.old) with the events and
 * features of @st's group on @cpus, before any record: 0, or -1 (said).
 */
int rec_output_open(struct rec_state *st, const struct rec_opts *o,
		    struct perf_cpu_map *cpus, int argc, char **argv);

/*
 * Every sample id of the group on every CPU, before any sample of its,
 * written to the file: after the open and after a CPU's group reopened.
 */
void rec_output_add_ids(struct rec_state *st);

/* What was recorded in @t s, and the CPUs that were offline. */
void rec_output_summary(struct rec_state *st, const struct rec_opts *o, double t);

#endif
