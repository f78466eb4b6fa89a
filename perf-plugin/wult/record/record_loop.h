/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's recording loop (record_loop.c): the rings drained into the
 * file, every sample counted and its ids learnt, the file synced, the
 * measured CPUs' hotplug followed, until a limit, a signal or a failure.
 * The state the outputs (record_output.c) write and sum up.
 */
#ifndef WULT_RECORD_LOOP_H
#define WULT_RECORD_LOOP_H

#include <stdint.h>

#include <wult/perfdata.h>

struct perf_cpu_map;
struct perf_evlist;
struct rec_ev;
struct rec_opts;
struct wult_pdw;

/* One recording: its group, its file and what was counted on the way. */
struct rec_state {
	struct rec_ev *ev;
	unsigned int nr_ev;
	struct wult_pdw *pdw;
	unsigned long long samples, lost, limit;
	unsigned long long br_samples;	/* branch contexts */
	struct rec_fallback *fallback;	/* datapoints of disabled states */
	int keep_lbr;			/* hp[].lbr_fd keep perf's LBR on */
	/*
	 * Datapoints the wult event counted without a sample reaching the
	 * ring (seen rarely, with no LOST record): the leader's count in the
	 * group read grows by more than one between samples of a CPU.
	 */
	unsigned long long unsampled;
	/* ...of which the kernel counted as lost (PERF_FORMAT_LOST) */
	unsigned long long unsampled_klost;
	uint64_t *last_count;		/* per CPU, 0: no sample yet */
	uint64_t *last_klost;		/* per CPU: the leader's lost count */
	int max_cpu;
	int failed;
	/* Ring samples decode with the reader's decoder: every member samples
	 * with the group's layout, so the leader's attr describes them all. */
	struct wult_pd_attr layout;
	struct wult_pd_read_value *vals;	/* WULT_PD_MAX_GROUP: a group read */
	unsigned long long undecoded;	/* samples it refused (written still) */
	struct rec_hp *hp;		/* the measured CPUs' hotplug state */
	int nr_hp;
	int hp_stop;			/* a CPU returned and cannot be measured */
	int *cpu_ids;			/* the measured CPUs */
	struct rec_yield *yield;	/* their wult.ko counters, NULL: unread */
	struct rec_stop *stop;		/* --stop-on, NULL: none */
	struct rec_sysdesc *sysdesc;	/* the description stored, for its end */
};

/*
 * A CPU going offline takes its perf events out of their context for good
 * (re-enabling them does nothing), so a CPU that returns gets its group
 * opened anew, in an evlist of its own.
 */
struct rec_hp {
	int cpu;
	int online;
	double offline_s;		/* time spent offline */
	double since;			/* when it went offline */
	struct perf_evlist *evlist;	/* the group opened on its return */
	int lbr_fd;			/* keeps perf's LBR recording, -1: none */
};

/*
 * The per-CPU counts, the decoding buffers, the fallback counts and the
 * hotplug state of @st for @cpus, st->ev[0] (the leader) set. 0, or -1
 * (ENOMEM); rec_loop_free() frees what was made either way.
 */
int rec_loop_init(struct rec_state *st, struct perf_cpu_map *cpus);
void rec_loop_free(struct rec_state *st);

/* Records until a limit, a signal or a failure; returns the time taken (s). */
double rec_loop_run(struct rec_state *st, const struct rec_opts *o, struct perf_evlist *evlist);

/* Keeps perf's LBR recording on the measured CPUs, where the PMU has LBR. */
void rec_lbr_keep(struct rec_state *st);

/* SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the recording, SIGPIPE is ignored. */
void rec_signals_catch(void);
/* The stop signal caught, 0 if none. */
int rec_signal_caught(void);

#endif
