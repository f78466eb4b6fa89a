// SPDX-License-Identifier: GPL-2.0
/*
 * libwult TSC evaluation: can TSC stamps taken on different CPUs be compared?
 *
 * CAS-ordered probes: one thread per CPU repeatedly reads the shared
 * sequence index, reads its TSC (rdtscp; lfence) and claims the index with a
 * compare-and-swap. A claim succeeds only if no other claim happened since
 * the index was read, so the claimed order is the real order of the TSC
 * reads. If CPU c's TSC is ahead of the base CPU's by d ticks, a base read
 * followed by a c read gives d <= tsc_c - tsc_base, and a c read followed by
 * a base read gives d >= tsc_c - tsc_base. Intersecting over all probes
 * bounds d; consecutive reads that go backwards are monotonicity violations.
 *
 * A thread that won a claim waits (briefly) for another thread's claim
 * before it tries again: the winner holds the cache line, so without this
 * it wins long runs and the CPUs rarely alternate, which is where the
 * bounds come from.
 *
 * Preemption of a vCPU only delays its claims (a stalled thread's CAS fails
 * and it retries), so it can loosen the bounds but never falsify them:
 * every window's bounds count. A window where a thread ran on a CPU other
 * than its own (TSC_AUX disagrees) is thrown away; one where some CPU got
 * too few tight base-cpu-base triples counts as disturbed, and collection
 * goes on until enough windows were not, or the time budget is spent.
 *
 * The CPU-switching variant does the same with one thread hopping between
 * CPUs with sched_setaffinity(): program order is real order, but a hop
 * costs microseconds, so its bounds are loose. It cross-checks the first,
 * and bounds the shift when the CPUs never ran together.
 *
 * This file measures; tsc_verdict.c judges what it measured.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <wult/tsc.h>
#include "internal/err.h"
#include "internal/tsc.h"

#define DEF_PROBES		8192
#define DEF_MIN_TRIPLES		32
#define DEF_MAX_TRIPLE_TICKS	20000
#define DEF_GOOD_WINDOWS	4
#define DEF_MAX_WINDOWS		1000
#define DEF_SWITCH_ROUNDS	64
#define DEF_MAX_PACE_PPM	100
#define DEF_MAX_SHIFT_NS	1000
#define DEF_MAX_MS		2000
#define TURN_TICKS		20000	/* a winner waits this long for another claim */
#define START_SPIN_TICKS	500000	/* then the start line is polled asleep */
#define START_POLL_NS		20000
#define LONE_TURNS		32	/* waits in a row in vain: the others are not running */
#define MAX_PROBES		(1u << 24)
#define CACHELINE		64

struct probe {
	uint64_t tsc;
	uint32_t aux_cpu;	/* CPU the read was taken on (TSC_AUX) */
	uint32_t idx;		/* index of the thread's CPU in ev->cpus */
};

/* Bounds and counts from one probe sequence. */
struct analysis {
	int64_t *lo, *hi;
	unsigned long *triples;
	unsigned long violations;
	int migrated;
};

struct window {
	uint64_t seq __attribute__((aligned(CACHELINE)));
	unsigned int ready __attribute__((aligned(CACHELINE)));
	int aborted;
	unsigned int nthreads;
	unsigned int nprobes;
	int rdtscp;
	struct probe *probes;
};

struct worker {
	struct window *w;
	struct wult_tsc_eval *ev;
	unsigned int idx;
	int first;
	pthread_t tid;
};

void wult_tsc_eval_opts_init(struct wult_tsc_eval_opts *o)
{
	if (!o)
		return;
	o->probes = DEF_PROBES;
	o->min_triples = DEF_MIN_TRIPLES;
	o->max_triple_ticks = DEF_MAX_TRIPLE_TICKS;
	o->good_windows = DEF_GOOD_WINDOWS;
	o->max_windows = DEF_MAX_WINDOWS;
	o->switch_rounds = DEF_SWITCH_ROUNDS;
	o->max_pace_ppm = DEF_MAX_PACE_PPM;
	o->max_shift_ns = DEF_MAX_SHIFT_NS;
	o->max_ms = DEF_MAX_MS;
}

static inline uint64_t probe_read(int rdtscp, unsigned int *cpu, unsigned int expect)
{
	/* Without rdtscp there is no migration check; lfence;rdtsc still orders the read. */
	if (!rdtscp) {
		uint64_t t = wult_tsc_read_ordered();

		__asm__ volatile("lfence" ::: "memory");
		*cpu = expect;
		return t;
	}
	return wult_tsc_read_fenced(cpu);
}

static void take_pair(struct worker *wk)
{
	struct wult_tsc_eval *ev = wk->ev;
	unsigned int i = wk->idx;

	if (wk->first)
		tsc_clock_pair(&ev->t0[i], &ev->n0[i]);
	else
		tsc_clock_pair(&ev->t1[i], &ev->n1[i]);
}

/* Wait until another thread claims after ours (idx), or TURN_TICKS pass: 0 then. */
static int wait_turn(struct window *w, uint64_t idx)
{
	uint64_t t0 = wult_tsc_read();

	while (__atomic_load_n(&w->seq, __ATOMIC_RELAXED) == idx + 1) {
		if (wult_tsc_read() - t0 > TURN_TICKS)
			return 0;
		__asm__ volatile("pause");
	}
	return 1;
}

/*
 * Start together, or the first thread claims the whole window alone. Spin
 * briefly, then sleep: a SCHED_FIFO thread spinning on the CPU of the
 * thread still creating the others would keep it from ever doing so.
 */
static void start_line(struct window *w)
{
	struct timespec nap = { .tv_nsec = START_POLL_NS };
	uint64_t t0 = wult_tsc_read();

	__atomic_add_fetch(&w->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&w->ready, __ATOMIC_ACQUIRE) < __atomic_load_n(&w->nthreads, __ATOMIC_ACQUIRE)) {
		if (wult_tsc_read() - t0 < START_SPIN_TICKS)
			__asm__ volatile("pause");
		else
			nanosleep(&nap, NULL);
	}
}

static void *cas_worker(void *arg)
{
	struct worker *wk = arg;
	struct window *w = wk->w;
	unsigned int cpu = (unsigned int)wk->ev->cpus[wk->idx].cpu;
	unsigned int aux, lone = 0;
	uint64_t idx, tsc;

	take_pair(wk);
	start_line(w);

	for (;;) {
		idx = __atomic_load_n(&w->seq, __ATOMIC_ACQUIRE);
		if (idx >= w->nprobes || __atomic_load_n(&w->aborted, __ATOMIC_RELAXED))
			break;
		/* The read is ordered after the load above and before the CAS below. */
		tsc = probe_read(w->rdtscp, &aux, cpu) + (uint64_t)wk->ev->skew[wk->idx];
		if (!__atomic_compare_exchange_n(&w->seq, &idx, idx + 1, 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			continue;
		w->probes[idx].tsc = tsc;
		w->probes[idx].aux_cpu = aux;
		w->probes[idx].idx = wk->idx;
		if (w->nthreads < 2 || wait_turn(w, idx)) {
			lone = 0;
		} else if (++lone > LONE_TURNS) {
			/* The others are not running (preempted vCPU, busy CPU): end the window. */
			__atomic_store_n(&w->aborted, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/*
 * Bound every CPU's shift against CPU index 0 from a real-time-ordered
 * sequence, count its tight triples and its backward steps.
 */
static void analyse(const struct wult_tsc_eval *ev, const struct probe *p, size_t n,
		    struct analysis *a, uint64_t max_width, unsigned long *first, unsigned long *last,
		    size_t *seg)
{
	unsigned int nc = ev->sum.ncpus, c;
	size_t i, prev_base = SIZE_MAX, segno = 0;
	int64_t d;

	for (c = 0; c < nc; c++)
		seg[c] = SIZE_MAX;
	for (i = 0; i < n; i++) {
		c = p[i].idx;
		if ((int)p[i].aux_cpu != ev->cpus[c].cpu)
			a->migrated = 1;
		if (i && p[i].tsc < p[i - 1].tsc)
			a->violations++;
		if (c) {
			/* Base read before this one: upper bound. */
			if (prev_base != SIZE_MAX) {
				d = (int64_t)(p[i].tsc - p[prev_base].tsc);
				if (d < a->hi[c])
					a->hi[c] = d;
			}
			if (seg[c] != segno) {
				seg[c] = segno;
				first[c] = i;
			}
			last[c] = i;
			continue;
		}
		/* A base read closes a segment: one triple per CPU seen in it. */
		if (prev_base != SIZE_MAX) {
			for (c = 1; c < nc; c++) {
				uint64_t width;

				if (seg[c] != segno)
					continue;
				width = (p[i].tsc - p[prev_base].tsc) -
					(p[last[c]].tsc - p[first[c]].tsc);
				if (width <= max_width)
					a->triples[c]++;
			}
		}
		segno++;
		prev_base = i;
	}
	/* Base read after: lower bound, from a backward pass. */
	prev_base = SIZE_MAX;
	for (i = n; i-- > 0;) {
		c = p[i].idx;
		if (!c) {
			prev_base = i;
		} else if (prev_base != SIZE_MAX) {
			d = (int64_t)(p[i].tsc - p[prev_base].tsc);
			if (d > a->lo[c])
				a->lo[c] = d;
		}
	}
}

static int analysis_alloc(struct analysis *a, unsigned int nc)
{
	unsigned int c;

	memset(a, 0, sizeof(*a));
	a->lo = calloc(nc, sizeof(*a->lo));
	a->hi = calloc(nc, sizeof(*a->hi));
	a->triples = calloc(nc, sizeof(*a->triples));
	if (!a->lo || !a->hi || !a->triples)
		return -ENOMEM;
	for (c = 0; c < nc; c++) {
		a->lo[c] = INT64_MIN;
		a->hi[c] = INT64_MAX;
	}
	return 0;
}

static void analysis_free(struct analysis *a)
{
	free(a->lo);
	free(a->hi);
	free(a->triples);
}

struct scratch {
	unsigned long *first, *last;
	size_t *seg;
};

/*
 * A thread pinned to cpu (any CPU when negative) running fn; SCHED_FIFO when
 * ev->sum.realtime, so that on a loaded machine the probe threads run
 * together as soon as they exist and a switching hop is not a wait for a
 * time slice. They run a millisecond or so at a time, and a lone CAS thread
 * ends its window early. Falls back to plain threads for good when SCHED_FIFO
 * is not permitted (no CAP_SYS_NICE, RT-throttled group).
 */
static int start_thread(struct wult_tsc_eval *ev, pthread_t *tid, int cpu,
			void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_attr_t attr;
	cpu_set_t set;
	int err = 0, rt = ev->sum.realtime;

	pthread_attr_init(&attr);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	if (!err && rt) {
		err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		if (!err)
			err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		if (!err)
			err = pthread_attr_setschedparam(&attr, &sp);
	}
	if (!err)
		err = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (err == EPERM && rt) {
		ev->sum.realtime = 0;
		return start_thread(ev, tid, cpu, fn, arg);
	}
	return err;
}

static int run_window(struct wult_tsc_eval *ev, struct window *w, struct worker *wk,
		      int first, char *msg, size_t len)
{
	unsigned int nc = ev->sum.ncpus, c, started;
	int err = 0;

	w->seq = 0;
	w->ready = 0;
	w->aborted = 0;
	w->nthreads = nc;
	for (started = 0; started < nc; started++) {
		c = started;
		wk[c] = (struct worker){ .w = w, .ev = ev, .idx = c, .first = first };
		err = start_thread(ev, &wk[c].tid, ev->cpus[c].cpu, cas_worker, &wk[c]);
		if (err)
			break;
	}
	if (err) {
		/* Let the started ones finish: the rest will never join the start line. */
		__atomic_store_n(&w->seq, w->nprobes, __ATOMIC_RELEASE);
		__atomic_store_n(&w->nthreads, 0, __ATOMIC_RELEASE);
	}
	for (c = 0; c < started; c++)
		pthread_join(wk[c].tid, NULL);
	if (err)
		return wult_err_set(msg, len, -err, "thread on CPU %d: %s",
				     ev->cpus[started].cpu, strerror(err));
	return 0;
}

/* Pace pairs for the end of the evaluation, on every CPU. */
static void *pair_worker(void *arg)
{
	take_pair(arg);
	return NULL;
}

static int run_pairs(struct wult_tsc_eval *ev, struct worker *wk, char *msg, size_t len)
{
	unsigned int c;
	int err;

	for (c = 0; c < ev->sum.ncpus; c++) {
		wk[c] = (struct worker){ .ev = ev, .idx = c, .first = 0 };
		err = start_thread(ev, &wk[c].tid, ev->cpus[c].cpu, pair_worker, &wk[c]);
		if (err)
			return wult_err_set(msg, len, -err, "thread on CPU %d: %s",
					     ev->cpus[c].cpu, strerror(err));
		pthread_join(wk[c].tid, NULL);
	}
	return 0;
}

struct switcher {
	struct wult_tsc_eval *ev;
	struct probe *probes;
	size_t n;
	int err;
};

static void *switch_worker(void *arg)
{
	struct switcher *sw = arg;
	struct wult_tsc_eval *ev = sw->ev;
	unsigned int nc = ev->sum.ncpus, r, c, aux;
	int rdtscp = ev->sum.info.rdtscp;
	cpu_set_t set;

	for (r = 0; r < ev->opts.switch_rounds; r++) {
		for (c = 0; c < nc; c++) {
			CPU_ZERO(&set);
			CPU_SET(ev->cpus[c].cpu, &set);
			/* Returns once the thread runs on that CPU. */
			if (sched_setaffinity(0, sizeof(set), &set)) {
				sw->err = errno;
				return NULL;
			}
			sw->probes[sw->n].tsc = probe_read(rdtscp, &aux, (unsigned int)ev->cpus[c].cpu) +
						(uint64_t)ev->skew[c];
			sw->probes[sw->n].aux_cpu = aux;
			sw->probes[sw->n].idx = c;
			sw->n++;
		}
	}
	return NULL;
}

static int run_switching(struct wult_tsc_eval *ev, struct scratch *sc, char *msg, size_t len)
{
	unsigned int nc = ev->sum.ncpus, c;
	struct switcher sw = { .ev = ev };
	struct analysis a;
	pthread_t tid;
	int err;

	if (!ev->opts.switch_rounds || nc < 2)
		return 0;
	sw.probes = calloc((size_t)ev->opts.switch_rounds * nc, sizeof(*sw.probes));
	err = analysis_alloc(&a, nc);
	if (!sw.probes || err) {
		free(sw.probes);
		analysis_free(&a);
		return wult_err_set(msg, len, -ENOMEM, "out of memory");
	}
	err = start_thread(ev, &tid, -1, switch_worker, &sw);
	if (!err) {
		pthread_join(tid, NULL);
		err = sw.err;
	}
	if (!err) {
		analyse(ev, sw.probes, sw.n, &a, UINT64_MAX, sc->first, sc->last, sc->seg);
		for (c = 1; c < nc; c++) {
			ev->cpus[c].switch_lo = a.lo[c];
			ev->cpus[c].switch_hi = a.hi[c];
		}
		ev->sum.switch_violations = a.violations;
	}
	free(sw.probes);
	analysis_free(&a);
	if (err)
		return wult_err_set(msg, len, -err, "CPU switching: %s", strerror(err));
	return 0;
}

/*
 * Merge a window's bounds into the running intersection: every window's
 * bounds hold, only their tightness differs. kept says the window had
 * enough tight triples on every CPU.
 */
static void merge(struct wult_tsc_eval *ev, const struct analysis *a, int kept)
{
	unsigned int c;

	for (c = 1; c < ev->sum.ncpus; c++) {
		struct wult_tsc_eval_cpu *e = &ev->cpus[c];

		if (a->lo[c] > e->shift_lo)
			e->shift_lo = a->lo[c];
		if (a->hi[c] < e->shift_hi)
			e->shift_hi = a->hi[c];
		e->triples += a->triples[c];
	}
	ev->sum.violations += a->violations;
	if (a->violations)
		ev->sum.windows_violating++;
	if (kept)
		ev->sum.windows_kept++;
	else
		ev->sum.windows_disturbed++;
}

static int enough_triples(const struct wult_tsc_eval *ev, const struct analysis *a)
{
	unsigned int c;

	for (c = 1; c < ev->sum.ncpus; c++)
		if (a->triples[c] < ev->opts.min_triples)
			return 0;
	return 1;
}

static uint64_t abs64(int64_t x)
{
	return x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
}

static uint64_t bound_of(int64_t lo, int64_t hi)
{
	return abs64(lo) > abs64(hi) ? abs64(lo) : abs64(hi);
}

/* Per CPU, the tighter of the two methods' bounds; the worst CPU's is the summary's. */
static void finish_bounds(struct wult_tsc_eval *ev)
{
	struct wult_tsc_eval_summary *s = &ev->sum;
	unsigned int c;

	s->method = s->ncpus > 1 ? WULT_TSC_BY_CAS : WULT_TSC_BY_NONE;
	for (c = 1; c < s->ncpus; c++) {
		struct wult_tsc_eval_cpu *e = &ev->cpus[c];
		uint64_t cas = bound_of(e->shift_lo, e->shift_hi);
		uint64_t sw = bound_of(e->switch_lo, e->switch_hi);

		/* Both variants bound the same shift: their intervals must meet. */
		if (e->shift_lo > e->shift_hi || e->switch_lo > e->switch_hi ||
		    e->switch_lo > e->shift_hi || e->switch_hi < e->shift_lo)
			ev->inconsistent = 1;
		e->method = sw < cas ? WULT_TSC_BY_SWITCHING : WULT_TSC_BY_CAS;
		e->shift_bound = sw < cas ? sw : cas;
		if (e->shift_bound >= s->shift_bound) {
			s->shift_bound = e->shift_bound;
			s->method = e->method;
		}
	}
}

static void finish(struct wult_tsc_eval *ev)
{
	struct wult_tsc_eval_summary *s = &ev->sum;
	unsigned int c;

	s->advancing = 1;
	for (c = 0; c < s->ncpus; c++) {
		struct wult_tsc_eval_cpu *e = &ev->cpus[c];
		uint64_t dt = ev->t1[c] - ev->t0[c], dn = ev->n1[c] - ev->n0[c];

		if (ev->t1[c] <= ev->t0[c] || !dn)
			s->advancing = 0;
		else
			e->hz = (uint64_t)((unsigned __int128)dt * 1000000000u / dn);
	}
	finish_bounds(ev);
	for (c = 0; c < s->ncpus; c++) {
		struct wult_tsc_eval_cpu *e = &ev->cpus[c];
		double p;

		if (!e->hz || !ev->cpus[0].hz)
			continue;
		p = ((double)e->hz - (double)ev->cpus[0].hz) / (double)ev->cpus[0].hz * 1e6;
		e->pace_ppm = p;
		if (p < 0)
			p = -p;
		if (p > s->max_pace_ppm)
			s->max_pace_ppm = p;
	}
	if (ev->cpus[0].hz)
		s->shift_bound_ns = (uint64_t)((unsigned __int128)s->shift_bound * 1000000000u /
					       ev->cpus[0].hz);
	else if (s->shift_bound)
		s->shift_bound_ns = UINT64_MAX;
}

/* One window: run it, and merge its bounds unless a thread left its CPU. */
static int one_window(struct wult_tsc_eval *ev, struct window *w, struct worker *wk,
		      struct scratch *sc, int first, char *msg, size_t len)
{
	struct analysis a;
	size_t n;
	int ret = run_window(ev, w, wk, first, msg, len);

	if (ret)
		return ret;
	ret = analysis_alloc(&a, ev->sum.ncpus);
	if (ret) {
		analysis_free(&a);
		return wult_err_set(msg, len, ret, "out of memory");
	}
	n = w->seq < w->nprobes ? (size_t)w->seq : w->nprobes;
	analyse(ev, w->probes, n, &a, ev->opts.max_triple_ticks, sc->first, sc->last, sc->seg);
	if (a.migrated)
		ev->sum.windows_disturbed++;
	else
		merge(ev, &a, !w->aborted && enough_triples(ev, &a));
	analysis_free(&a);
	return 0;
}

static int collect(struct wult_tsc_eval *ev, char *msg, size_t len)
{
	unsigned int nc = ev->sum.ncpus, tried;
	struct window w = {
		.nprobes = ev->opts.probes,
		.rdtscp = ev->sum.info.rdtscp,
	};
	uint64_t deadline = tsc_raw_ns() + (uint64_t)ev->opts.max_ms * 1000000;
	struct worker *wk = calloc(nc, sizeof(*wk));
	struct scratch sc = {
		.first = calloc(nc, sizeof(unsigned long)),
		.last = calloc(nc, sizeof(unsigned long)),
		.seg = calloc(nc, sizeof(size_t)),
	};
	int ret = 0;

	w.probes = calloc(w.nprobes, sizeof(*w.probes));
	if (!wk || !w.probes || !sc.first || !sc.last || !sc.seg) {
		ret = wult_err_set(msg, len, -ENOMEM, "out of memory");
		goto out;
	}
	/* A busy machine gets more windows within the budget, not a slow answer. */
	for (tried = 0; tried < ev->opts.max_windows &&
	     ev->sum.windows_kept < ev->opts.good_windows; tried++) {
		if (tried && ev->opts.max_ms && tsc_raw_ns() > deadline)
			break;
		ret = one_window(ev, &w, wk, &sc, tried == 0, msg, len);
		if (ret)
			goto out;
	}
	ret = run_pairs(ev, wk, msg, len);
	if (!ret)
		ret = run_switching(ev, &sc, msg, len);
out:
	free(w.probes);
	free(wk);
	free(sc.first);
	free(sc.last);
	free(sc.seg);
	return ret;
}

int wult_tsc_eval_run(const cpu_set_t *cpus, const struct wult_tsc_eval_opts *opts,
		      struct wult_tsc_eval **out, char *msg, size_t len)
{
	return tsc_eval_run_skewed(cpus, opts, NULL, out, msg, len);
}

int tsc_eval_run_skewed(const cpu_set_t *cpus, const struct wult_tsc_eval_opts *opts,
			      const int64_t *skew, struct wult_tsc_eval **out, char *msg, size_t len)
{
	struct wult_tsc_eval_opts o;
	struct wult_tsc_eval *ev;
	cpu_set_t mine;
	unsigned int nc, c;
	uint64_t start;
	int cpu, ret;

	if (!out)
		return wult_err_set(msg, len, -EINVAL, "NULL result pointer");
	*out = NULL;
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return wult_err_set(msg, len, -errno, "sched_getaffinity: %s", strerror(errno));
	if (!cpus)
		cpus = &mine;
	nc = (unsigned int)CPU_COUNT(cpus);
	if (!nc)
		return wult_err_set(msg, len, -EINVAL, "empty CPU mask");
	/* Checked here so a bad mask is a clear error, not a failed thread. */
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, cpus) && !CPU_ISSET(cpu, &mine))
			return wult_err_set(msg, len, -EINVAL,
					     "CPU %d is not in this thread's affinity mask", cpu);
	if (opts)
		o = *opts;
	else
		wult_tsc_eval_opts_init(&o);
	if (o.probes < 2 || o.probes > MAX_PROBES || !o.good_windows ||
	    o.max_windows < o.good_windows)
		return wult_err_set(msg, len, -EINVAL,
				     "bad options: probes %u (2..%u), good_windows %u, max_windows %u",
				     o.probes, MAX_PROBES, o.good_windows, o.max_windows);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return wult_err_set(msg, len, -ENOMEM, "out of memory");
	ev->opts = o;
	ev->sum.ncpus = nc;
	ev->cpus = calloc(nc, sizeof(*ev->cpus));
	ev->t0 = calloc(nc, sizeof(uint64_t));
	ev->n0 = calloc(nc, sizeof(uint64_t));
	ev->t1 = calloc(nc, sizeof(uint64_t));
	ev->n1 = calloc(nc, sizeof(uint64_t));
	ev->skew = calloc(nc, sizeof(int64_t));
	if (!ev->cpus || !ev->t0 || !ev->n0 || !ev->t1 || !ev->n1 || !ev->skew) {
		wult_tsc_eval_free(ev);
		return wult_err_set(msg, len, -ENOMEM, "out of memory");
	}
	for (cpu = 0, c = 0; cpu < CPU_SETSIZE && c < nc; cpu++) {
		if (!CPU_ISSET(cpu, cpus))
			continue;
		ev->cpus[c] = (struct wult_tsc_eval_cpu){
			.cpu = cpu,
			.shift_lo = c ? INT64_MIN : 0, .shift_hi = c ? INT64_MAX : 0,
			.switch_lo = c ? INT64_MIN : 0, .switch_hi = c ? INT64_MAX : 0,
		};
		c++;
	}
	ev->sum.base_cpu = ev->cpus[0].cpu;
	ev->sum.realtime = 1;	/* tried first, dropped when not permitted */
	if (skew)
		memcpy(ev->skew, skew, nc * sizeof(*skew));

	ret = wult_tsc_info_get(&ev->sum.info, msg, len);
	if (ret) {
		wult_tsc_eval_free(ev);
		return ret;
	}
	start = tsc_raw_ns();
	ret = collect(ev, msg, len);
	if (ret) {
		wult_tsc_eval_free(ev);
		return ret;
	}
	finish(ev);
	ev->sum.duration_ns = tsc_raw_ns() - start;
	*out = ev;
	return 0;
}

void wult_tsc_eval_summary(const struct wult_tsc_eval *ev, struct wult_tsc_eval_summary *s)
{
	if (ev && s)
		*s = ev->sum;
}

int wult_tsc_eval_cpu(const struct wult_tsc_eval *ev, unsigned int idx,
		      struct wult_tsc_eval_cpu *out)
{
	if (!ev || !out || idx >= ev->sum.ncpus)
		return -EINVAL;
	*out = ev->cpus[idx];
	return 0;
}

void wult_tsc_eval_free(struct wult_tsc_eval *ev)
{
	if (!ev)
		return;
	free(ev->cpus);
	free(ev->t0);
	free(ev->n0);
	free(ev->t1);
	free(ev->n1);
	free(ev->skew);
	free(ev);
}
