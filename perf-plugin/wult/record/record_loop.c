// SPDX-License-Identifier: GPL-2.0
/*
 * wult record's recording loop: the rings drained into the file, each
 * sample counted and its ids learnt (a branch context precedes its
 * datapoint), the file synced, wult.ko's counters and the measured CPUs'
 * online state checked, until a limit, a signal or a failure.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include <wult/pdwrite.h>
#include <wult/progress.h>

#include "record_capture.h"
#include "record_events.h"
#include "record_fallback.h"
#include "record_loop.h"
#include "record_opts.h"
#include "record_output.h"
#include "record_sys.h"
#include "record_yield.h"

/* The ring is drained at least this often (ms)... */
#define POLL_MS		25
/* ...and the file synced (s): a killed wult record loses at most both. */
#define SYNC_EVERY_S	0.05
/*
 * wult.ko's counters are checked this often (s), for a low yield, the
 * first time sooner: a range that yields nothing is said within a quarter
 * of a second (200 ended datapoints, the check's minimum, take a few ms).
 */
#define YIELD_FIRST_S	0.25
#define YIELD_EVERY_S	1.0
/* The measured CPUs' online state is checked this often (s). */
#define HOTPLUG_EVERY_S	0.25

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The leader's count read with a sample is its datapoint number on that
 * CPU: a jump of more than one is datapoints counted without a sample,
 * which the kernel's lost count for the leader (if read) says it dropped.
 */
static void count_gap(struct rec_state *st, uint32_t cpu, uint64_t count, uint64_t klost)
{
	if (st->last_count[cpu] && count > st->last_count[cpu] + 1) {
		uint64_t gap = count - st->last_count[cpu] - 1;
		uint64_t dl = klost - st->last_klost[cpu];

		st->unsampled += gap;
		st->unsampled_klost += dl < gap ? dl : gap;
	}
	st->last_count[cpu] = count;
	st->last_klost[cpu] = klost;
}

/*
 * Registers the ids a leader sample carries: IDENTIFIER is the leader's id
 * on that CPU, and the group read lists every member's id in group order.
 */
static void learn_ids(struct rec_state *st, const struct wult_pd_sample *s)
{
	const struct wult_pd_read_value *v = s->read.values;
	uint64_t i;

	if (s->read.nr && (int)s->cpu <= st->max_cpu)
		count_gap(st, s->cpu, v[0].value, v[0].lost);
	for (i = 0; i < s->read.nr && i < st->nr_ev; i++)
		wult_pdw_add_id(st->pdw, st->ev[i].pdw_idx, v[i].id);
}

/*
 * Every event samples with the group read: the leader's samples are those
 * whose IDENTIFIER is the first id of the read (the leader's).
 */
static int is_leader_sample(const struct wult_pd_sample *s)
{
	return !s->read.nr || s->id == s->read.values[0].id;
}

/* One ring sample: counted, its ids learnt. A sample that does not decode
 * is written as it is (wult report then says what is wrong with it). */
static void take_sample(struct rec_state *st, const union perf_event *event)
{
	struct wult_pd_sample s;

	if (wult_pd_sample_parse(&st->layout, event, event->header.size, &s, st->vals,
				 NULL, 0)) {
		st->undecoded++;
		st->samples++;
		return;
	}
	/* A branch context precedes its datapoint. */
	if (!is_leader_sample(&s)) {
		st->br_samples++;
		return;
	}
	learn_ids(st, &s);
	rec_fallback_add(st->fallback, s.cpu, s.raw, s.raw_size);
	st->samples++;
	/* The first match is the file's last datapoint: the rest are dropped. */
	if (st->stop && rec_stop_check(st->stop, s.raw, s.raw_size))
		st->limit = st->samples;
}

static void drain_one(struct perf_evlist *evlist, struct rec_state *st)
{
	struct perf_mmap *map;
	union perf_event *event;

	perf_evlist__for_each_mmap(evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((event = perf_mmap__read_event(map)) != NULL) {
			int keep = 1;

			switch (event->header.type) {
			case PERF_RECORD_SAMPLE:
				if (st->limit && st->samples >= st->limit) {
					keep = 0;
					break;
				}
				take_sample(st, event);
				break;
			case PERF_RECORD_LOST:
				st->lost += event->lost.lost;
				break;
			case PERF_RECORD_LOST_SAMPLES:
				st->lost += event->lost_samples.lost;
				break;
			}
			if (keep && wult_pdw_write(st->pdw, event, event->header.size))
				st->failed = 1;
			perf_mmap__consume(map);
		}
		/*
		 * No perf_mmap__read_done(): it sets the read position to the
		 * head as it is now, skipping (without a LOST record) what the
		 * kernel wrote since the last perf_mmap__read_event() saw the
		 * ring empty. That read position is already where we are.
		 */
	}
}

/* The main group and those reopened after a CPU's return. */
static void drain(struct perf_evlist *evlist, struct rec_state *st)
{
	int i;

	drain_one(evlist, st);
	for (i = 0; i < st->nr_hp; i++)
		if (st->hp[i].evlist)
			drain_one(st->hp[i].evlist, st);
}

/* Like the groups, the keepers of a CPU that went offline are reopened. */
void rec_lbr_keep(struct rec_state *st)
{
	int i;

	if (access("/sys/bus/event_source/devices/cpu/caps/branches", F_OK))
		return;
	st->keep_lbr = 1;
	for (i = 0; i < st->nr_hp; i++)
		st->hp[i].lbr_fd = rec_lbr_open(st->hp[i].cpu);
}

static void close_evlist(struct perf_evlist *el)
{
	perf_evlist__disable(el);
	perf_evlist__munmap(el);
	perf_evlist__close(el);
	perf_evlist__delete(el);
}

/* The group of st->ev opened, mapped and enabled on @cpu alone. */
static struct perf_evlist *open_cpu(struct rec_state *st, int cpu, unsigned int pages)
{
	struct perf_thread_map *threads = perf_thread_map__new_dummy();
	struct perf_evlist *el = perf_evlist__new();
	struct perf_cpu_map *cpus;
	char list[16];
	unsigned int i;
	int ret = -ENOMEM;

	snprintf(list, sizeof(list), "%d", cpu);
	cpus = perf_cpu_map__new(list);
	for (i = 0; el && cpus && threads && i < st->nr_ev; i++) {
		struct perf_evsel *e = perf_evsel__new(&st->ev[i].attr);

		if (!e)
			break;
		perf_evlist__add(el, e);
	}
	if (el && i == st->nr_ev) {
		perf_evlist__set_leader(el);
		perf_evlist__set_maps(el, cpus, threads);
		ret = perf_evlist__open(el);
		if (!ret && (ret = perf_evlist__mmap(el, pages)))
			perf_evlist__close(el);
	}
	perf_cpu_map__put(cpus);
	perf_thread_map__put(threads);
	if (ret) {
		if (el)
			perf_evlist__delete(el);
		errno = ret < 0 ? -ret : ret;
		return NULL;
	}
	perf_evlist__enable(el);
	return el;
}

/* A measured CPU that went offline or came back: say so, and measure it
 * again on its return (a pipe cannot announce the new events: stop). */
static void check_hotplug(struct rec_state *st, const struct rec_opts *o, double t)
{
	int i;

	for (i = 0; i < st->nr_hp && !st->hp_stop; i++) {
		struct rec_hp *h = &st->hp[i];
		int on = rec_cpu_online(h->cpu) == 1;

		if (on == h->online)
			continue;
		h->online = on;
		if (!on) {
			fprintf(stderr, "wult record: CPU %d went offline: no datapoints from it "
				"until it returns\n", h->cpu);
			h->since = t;
			if (h->lbr_fd >= 0)
				close(h->lbr_fd);
			h->lbr_fd = -1;
			if (h->evlist) {
				drain_one(h->evlist, st);
				close_evlist(h->evlist);
				h->evlist = NULL;
			}
			continue;
		}
		h->offline_s += t - h->since;
		if (!strcmp(o->output, "-")) {
			fprintf(stderr, "wult record: CPU %d is back online, but a pipe (-o -) "
				"cannot announce its new events: stopping\n", h->cpu);
			st->hp_stop = 1;
			return;
		}
		h->evlist = open_cpu(st, h->cpu, o->pages);
		if (!h->evlist) {
			fprintf(stderr, "wult record: CPU %d is back online but cannot be "
				"measured again (%s): stopping\n", h->cpu, strerror(errno));
			st->hp_stop = 1;
			return;
		}
		if (st->keep_lbr)
			h->lbr_fd = rec_lbr_open(h->cpu);
		rec_output_add_ids(st);
		st->last_count[h->cpu] = 0;	/* the new leader counts from 0 */
		st->last_klost[h->cpu] = 0;
		fprintf(stderr, "wult record: CPU %d is back online (after %.1f s): measuring "
			"it again\n", h->cpu, t - h->since);
	}
}

static int init_hotplug(struct rec_state *st, struct perf_cpu_map *cpus)
{
	int i;

	st->hp = calloc(perf_cpu_map__nr(cpus), sizeof(*st->hp));
	if (!st->hp)
		return -ENOMEM;
	st->nr_hp = perf_cpu_map__nr(cpus);
	for (i = 0; i < st->nr_hp; i++) {
		st->hp[i].cpu = perf_cpu_map__cpu(cpus, i).cpu;
		st->hp[i].online = 1;
		st->hp[i].lbr_fd = -1;
	}
	return 0;
}

static void free_hotplug(struct rec_state *st)
{
	int i;

	for (i = 0; i < st->nr_hp; i++) {
		if (st->hp[i].evlist)
			close_evlist(st->hp[i].evlist);
		if (st->hp[i].lbr_fd >= 0)
			close(st->hp[i].lbr_fd);
	}
	free(st->hp);
}

int rec_loop_init(struct rec_state *st, struct perf_cpu_map *cpus)
{
	st->max_cpu = perf_cpu_map__max(cpus).cpu;
	st->last_count = calloc(st->max_cpu + 1, sizeof(*st->last_count));
	st->last_klost = calloc(st->max_cpu + 1, sizeof(*st->last_klost));
	st->vals = calloc(WULT_PD_MAX_GROUP, sizeof(*st->vals));
	st->fallback = rec_fallback_new(st->max_cpu);
	st->layout.attr = st->ev[0].attr;
	if (!st->last_count || !st->last_klost || !st->vals || init_hotplug(st, cpus))
		return -1;
	return 0;
}

void rec_loop_free(struct rec_state *st)
{
	free_hotplug(st);
	free(st->last_count);
	free(st->last_klost);
	free(st->vals);
	rec_fallback_free(st->fallback);
}

/* Records until a limit, a signal or a failure; returns the time taken (s). */
double rec_loop_run(struct rec_state *st, const struct rec_opts *o, struct perf_evlist *evlist)
{
	double t0 = now_s(), last_sync = 0, last_hp = 0, t;
	double next_yield = YIELD_FIRST_S;
	struct wult_progress prog;
	char line[160];
	int ret;

	/* A log or a CI pipe gets plain lines, not carriage returns. */
	wult_progress_init(&prog, o->quiet, isatty(STDERR_FILENO) && !o->progress_lines);

	perf_evlist__enable(evlist);
	for (;;) {
		perf_evlist__poll(evlist, POLL_MS);
		drain(evlist, st);
		t = now_s() - t0;
		if (t - last_hp >= HOTPLUG_EVERY_S) {
			check_hotplug(st, o, t);
			last_hp = t;
		}
		if (t >= next_yield) {
			rec_yield_poll(st->yield, prog.midline);
			next_yield = t + YIELD_EVERY_S;
		}
		if (stop_signal || st->failed || st->hp_stop || rec_stop_hit(st->stop) ||
		    (o->count && st->samples >= o->count) ||
		    (o->time_limit && t >= o->time_limit))
			break;
		if (t - last_sync >= SYNC_EVERY_S) {
			ret = wult_pdw_sync(st->pdw);
			if (ret) {
				fprintf(stderr, "wult record: writing %s failed: %s\n",
					o->output, strerror(-ret));
				st->failed = 1;
			}
			last_sync = t;
		}
		if (wult_progress_line(&prog, t, st->samples, st->lost, line, sizeof(line)))
			fputs(line, stderr);
	}
	perf_evlist__disable(evlist);
	drain(evlist, st);
	fputs(wult_progress_break(&prog), stderr);
	return now_s() - t0;
}

/* A dropped ssh session (SIGHUP) or SIGQUIT stops as SIGINT does. */
void rec_signals_catch(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGQUIT, on_signal);
	/* A reader of -o - that goes away: EPIPE, and a clean stop. */
	signal(SIGPIPE, SIG_IGN);
}

int rec_signal_caught(void)
{
	return stop_signal;
}
