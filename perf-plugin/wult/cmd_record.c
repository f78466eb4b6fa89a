// SPDX-License-Identifier: GPL-2.0
/*
 * wult record: record wult datapoints with libperf, each one a sample of a
 * group led by the wult event whose members are the counters this machine
 * has, so every datapoint carries the counters read at the same instant.
 * The output is a perf.data file that stock perf and `wult report` read.
 *
 * This file keeps the order of the steps and what each puts back on the
 * way out; the roles are in record/: the options (record_opts.c), the
 * event group (record_events.c), the recording loop (record_loop.c), the
 * file and the summary (record_output.c), and the idle states, the yield
 * checks, --stop-on/--capture and the fallback counts (record_cstates.c,
 * record_yield.c, record_capture.c, record_fallback.c). With -H the
 * recordings are other hosts', over ssh (record_remote.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include <wult/pdwrite.h>
#include <wult/refusal.h>

#include "cmds.h"
#include "record/record_capture.h"
#include "record/record_cstates.h"
#include "record/record_events.h"
#include "record/record_fallback.h"
#include "record/record_loop.h"
#include "record/record_opts.h"
#include "record/record_output.h"
#include "record/record_remote.h"
#include "record/record_sys.h"
#include "record/record_sysdesc.h"
#include "record/record_yield.h"

/* The measured CPUs (-C, else CPU 1 or 0), each there and online: 0, 1 or 2 (said). */
static int check_cpus(const struct rec_opts *o, struct perf_cpu_map **cpus)
{
	int i, nr;

	if (!o->cpus) {
		*cpus = perf_cpu_map__new(rec_cpu_online(1) == 1 ? "1" : "0");
	} else {
		*cpus = perf_cpu_map__new(o->cpus);
		if (!*cpus || perf_cpu_map__empty(*cpus)) {
			fprintf(stderr, "wult record: bad CPU list '%s'\n", o->cpus);
			return 2;
		}
	}
	if (!*cpus)
		return 1;
	nr = perf_cpu_map__nr(*cpus);
	for (i = 0; i < nr; i++) {
		int cpu = perf_cpu_map__cpu(*cpus, i).cpu;
		int on = rec_cpu_online(cpu);

		if (on < 0) {
			fprintf(stderr, "wult record: CPU %d does not exist\n", cpu);
			return 2;
		}
		if (!on) {
			fprintf(stderr, "wult record: CPU %d is offline; bring it online "
				"with: echo 1 > " REC_SYSFS_CPU "/cpu%d/online\n", cpu, cpu);
			return 1;
		}
	}
	return 0;
}

static void note_machine(void)
{
	char buf[64];

	if (rec_file_read(REC_SYSFS_CPU "/cpuidle/current_driver", buf, sizeof(buf)) ||
	    !strncmp(buf, "none", 4))
		fprintf(stderr, "wult record: no cpuidle driver: the kernel's default "
			"idle is measured (POLL with idle=poll, else C1)\n");
}

/*
 * The LDist range against the measured CPUs' floors (record_yield.c): 0,
 * 2 when it cannot yield a valid datapoint. Without wult.ko's counters,
 * nothing is checked here; the module still refuses what it knows to be
 * below a floor.
 */
static int check_ldist(const struct rec_opts *o, struct perf_cpu_map *cpus,
		       struct rec_state *st)
{
	int i, nr = perf_cpu_map__nr(cpus);

	st->cpu_ids = calloc(nr, sizeof(*st->cpu_ids));
	if (!st->cpu_ids)
		return 1;
	for (i = 0; i < nr; i++)
		st->cpu_ids[i] = perf_cpu_map__cpu(cpus, i).cpu;
	st->yield = rec_yield_new(st->cpu_ids, nr);
	if (st->yield && rec_yield_check_ldist(st->yield, o->ldist_min, o->ldist_max,
					       o->term))
		return 2;
	return 0;
}

/*
 * The recording proper, the group open and mapped: the output opened,
 * the ring drained until a limit or a signal, the file closed, the
 * summary said. 0, or 1 when it failed.
 */
static int record_run(struct rec_state *st, const struct rec_opts *o,
		      struct perf_evlist *evlist, struct perf_cpu_map *cpus,
		      int argc, char **argv)
{
	unsigned int i;
	char err[256];
	double t;

	if (rec_output_open(st, o, cpus, argc, argv))
		return 1;
	rec_signals_catch();
	if (!o->quiet) {
		fprintf(stderr, "wult record: %s", st->ev[0].name);
		for (i = 1; i < st->nr_ev; i++)
			fprintf(stderr, "%s%s", i == 1 ? " with " : ", ", st->ev[i].name);
		fprintf(stderr, "\n");
	}
	if (st->nr_ev > 1 && st->ev[1].branches)	/* rec_events_build() puts it there */
		rec_lbr_keep(st);
	t = rec_loop_run(st, o, evlist);
	rec_sysdesc_end(st->sysdesc, st->pdw, !strcmp(o->output, "-"), o->quiet);
	st->sysdesc = NULL;
	if (wult_pdw_close(st->pdw, err, sizeof(err))) {
		fprintf(stderr, "wult record: %s\n", err);
		st->failed = 1;
	}
	st->pdw = NULL;
	rec_output_summary(st, o, t);
	rec_yield_end(st->yield);
	rec_fallback_end(st->fallback);
	return st->failed || st->hp_stop ? 1 : 0;
}

/*
 * --states, --deepest-state, --idle-governor: the idle states and the
 * governor set before anything measures.
 * A signal from here on stops cleanly (the states are put back), also
 * during the setup. 0, or an exit status with the cause said.
 */
static int choose_cstates(const struct rec_opts *o, struct perf_cpu_map *cpus,
			  struct rec_cstates **out)
{
	int i, nr = perf_cpu_map__nr(cpus), *ids, ret;

	*out = NULL;
	if (!o->states && !o->deepest && !o->governor)
		return 0;
	ids = calloc(nr, sizeof(*ids));
	if (!ids)
		return 1;
	for (i = 0; i < nr; i++)
		ids[i] = perf_cpu_map__cpu(cpus, i).cpu;
	rec_signals_catch();
	ret = rec_cstates_set(o->states, o->deepest, o->governor, ids, nr, o->quiet, out);
	free(ids);
	return ret;
}

/* FILE.capture beside FILE. */
static int capture_save(struct rec_capture *cap, const struct rec_stop *stop, const char *output)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s.capture", output);
	return rec_capture_save(cap, stop, path);
}

/* A stop signal during the setup: no recording, and no output file. */
static int stopped_early(void)
{
	fprintf(stderr, "wult record: stopped by signal %d before recording\n",
		rec_signal_caught());
	return 1;
}

static int record(const struct rec_opts *o, int argc, char **argv)
{
	struct perf_thread_map *threads = NULL;
	struct perf_evlist *evlist = NULL;
	struct perf_cpu_map *cpus = NULL;
	struct rec_ev ev[REC_MAX_EVENTS];
	struct rec_state st = { .ev = ev, .limit = o->count };
	struct rec_cstates *cst = NULL;
	struct rec_capture *cap = NULL;
	struct rec_held *held = NULL;
	unsigned int i;
	uint64_t mark;
	int ret;

	rec_capture_cleanup();
	ret = check_cpus(o, &cpus);
	if (ret)
		goto out;
	ret = choose_cstates(o, cpus, &cst);
	if (ret)
		goto out;
	note_machine();
	ret = rec_events_build(o, cpus, ev, &st.nr_ev, &held);
	if (ret)
		goto out;
	ret = check_ldist(o, cpus, &st);
	if (ret)
		goto out;
	if (o->stop_on) {
		ret = rec_stop_new(o->stop_on, st.cpu_ids[0], &st.stop);
		if (ret)
			goto out;
	}
	if (o->capture_ms &&
	    rec_capture_start(st.cpu_ids, perf_cpu_map__nr(cpus), o->capture_ms, o->quiet, &cap)) {
		ret = 1;
		goto out;
	}
	ret = 1;

	threads = perf_thread_map__new_dummy();
	evlist = perf_evlist__new();
	if (!threads || !evlist)
		goto out;
	for (i = 0; i < st.nr_ev; i++) {
		ev[i].evsel = perf_evsel__new(&ev[i].attr);
		if (!ev[i].evsel)
			goto out;
		perf_evlist__add(evlist, ev[i].evsel);
	}
	perf_evlist__set_leader(evlist);
	perf_evlist__set_maps(evlist, cpus, threads);
	mark = wult_refusal_mark();
	ret = perf_evlist__open(evlist);
	/* The recording's events hold wult.ko's probes now, if open. */
	rec_events_release(held);
	held = NULL;
	if (ret) {
		rec_events_explain(-ret, ev[0].name, -1, mark);
		ret = 1;
		goto out_delete;
	}
	if (rec_loop_init(&st, cpus)) {
		ret = 1;
		goto out_close;
	}
	ret = perf_evlist__mmap(evlist, o->pages);
	if (ret) {
		fprintf(stderr, "wult record: cannot map the ring buffers (%u pages per "
			"CPU): %s; try fewer with -m\n", o->pages, strerror(-ret));
		ret = 1;
		goto out_close;
	}
	ret = rec_signal_caught() ? stopped_early() : record_run(&st, o, evlist, cpus, argc, argv);
	if (rec_stop_hit(st.stop)) {
		rec_stop_say(st.stop, o->stop_on);
		if (cap && capture_save(cap, st.stop, o->output) && !ret)
			ret = 1;
	}
	perf_evlist__munmap(evlist);
out_close:
	rec_loop_free(&st);
	perf_evlist__close(evlist);
out_delete:
	perf_evlist__delete(evlist);	/* deletes the evsels too */
	evlist = NULL;
out:
	rec_events_release(held);
	if (evlist)
		perf_evlist__delete(evlist);
	rec_capture_end(cap);
	rec_stop_free(st.stop);
	rec_yield_free(st.yield);
	free(st.cpu_ids);
	perf_thread_map__put(threads);
	perf_cpu_map__put(cpus);
	if (rec_cstates_restore(cst, o->quiet) && !ret)
		ret = 1;
	return ret;
}

static int silent_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int wult_cmd_record(int argc, char **argv)
{
	struct rec_opts o;
	int ret;

	ret = rec_opts_parse(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	/* -H: the recordings are the other hosts' (record/record_remote.c). */
	if (o.hosts)
		return rec_remote_run(&o, argc, argv);
	/* A run killed with the states changed left them in a restore record. */
	if (rec_cstates_recover(o.states || o.deepest || o.governor))
		return 1;
	libperf_init(silent_print);
	return record(&o, argc, argv);
}
