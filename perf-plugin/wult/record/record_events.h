/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's event group (record_events.c): the wult event leading the
 * counters this machine has, wult.ko's idle accounting and the -e events,
 * each probed before it joins; the LBR keepers; what an open error means.
 */
#ifndef WULT_RECORD_EVENTS_H
#define WULT_RECORD_EVENTS_H

#include <stdint.h>
#include <linux/perf_event.h>
#include <linux/wult.h>

struct perf_cpu_map;
struct perf_evsel;
struct rec_held;
struct rec_opts;

#define REC_MAX_EVENTS	96
/* Counters joined to the group when this machine has them (record_events.c). */
#define REC_NR_DISCOVERED	17
/* wult.ko's idle accounting members: idle_time, idle_entries,
 * idle_irq_time and idle_irqs per state.
 */
#define REC_NR_IDLE_EV	(4 * WULT_IDLE_STATES)
/* What -e may add: the group holds the leader, branches, the rest above. */
#define REC_MAX_USER_EV	(REC_MAX_EVENTS - 2 - REC_NR_DISCOVERED - REC_NR_IDLE_EV)

struct rec_ev {
	char name[160];
	struct perf_event_attr attr;
	struct perf_evsel *evsel;
	int pdw_idx;
	int branches;		/* the wult branches member: samples of its own */
};

/*
 * Builds the group in @ev (REC_MAX_EVENTS) for @o on @cpus: the wult
 * leader, discovered counters, the idle accounting, -e events. Returns 0,
 * 1 when the wult PMU is missing or refuses the leader, 2 for a bad -e
 * event (said). On 0, *@held is the group it was probed with, left open
 * so that wult.ko keeps its probes registered until the recording's
 * events are open: rec_events_release() it then.
 */
int rec_events_build(const struct rec_opts *o, struct perf_cpu_map *cpus, struct rec_ev *ev,
		     unsigned int *nr, struct rec_held **held);

/* Closes what rec_events_build() held open; NULL is fine. */
void rec_events_release(struct rec_held *held);

/*
 * Explains an errno from opening perf events (@what, on @cpu, -1 if not
 * known): wult.ko's reason for that open (one that began at @mark,
 * wult_refusal_mark(): wult/refusal.h) in the same line, else the likely
 * causes and their fixes.
 */
void rec_events_explain(int err, const char *what, int cpu, uint64_t mark);

/*
 * Keeps perf's LBR recording on @cpu, so that wult.ko can read it: the
 * keeper's fd, or -1 (said: the branch contexts will say LBR was off).
 */
int rec_lbr_open(int cpu);

#endif
