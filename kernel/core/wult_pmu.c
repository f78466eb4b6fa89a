// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the "wult" perf PMU.
 *
 * A wult event is bound to one CPU; while it is scheduled in, the engine
 * measures that CPU and each datapoint whose LDist is in the event's range
 * counts once (perf stat) and, for sampling events, becomes one sample
 * whose PERF_SAMPLE_RAW payload is struct wult_rec (perf record -R).
 * Counting events of the latency-sum kinds add the datapoint's latency in
 * ns instead of one, so perf stat gives means without recording samples.
 * Events of the branches kind get, per datapoint, its branch context
 * (struct wult_br_rec, the wult:wake_branches record) instead, delivered before
 * the datapoint; they exist only where the CPU's LBR can be read.
 * Events of the latency-band kinds take only the datapoints
 * whose raw latency lies in their band [band_lo, band_hi).
 *
 * Events of the idle accounting kinds (idle_time, idle_entries,
 * idle_irq_time, idle_irqs) arm no timer and get no datapoints: while
 * scheduled in they turn on the micro-state accounting of their CPU
 * (wult_mstate.c, wult_mstate_irq.c) and count the time spent in, or the
 * entries of, one requested idle state, or the interrupts taken in it.
 * Events of the exit kinds (exit_intr_time, exit_intrs) take only the
 * datapoints of one requested state whose interrupt ran after the idle
 * exit (intr_off), and add TIntr - TAI, or one.
 *
 * Each kind is one row of wult_kinds[], as each event is in
 * arch/x86/events/msr.c: its name, unit and flags, and the functions
 * that count it. The sysfs events/ aliases and event_init's checks are
 * made from the table; no kind is named anywhere else in this file.
 *
 * Perf does not export perf_event_overflow() to modules; perf_tp_event()
 * is, and does the counting, period and sample output of a software
 * event for every event on the hlist it is given.
 */
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sysfs.h>

#include "../accounting/wult_hist.h"
#include "../accounting/wult_lbr.h"
#include "../accounting/wult_mstate.h"
#include "../sources/wult_source.h"
#include "../trace/wult_refusal.h"
#include "wult_deliver.h"
#include "wult_engine.h"
#include "wult_pmu.h"
#include "wult_rules.h"

#define WULT_CFG_KNOWN	((WULT_CFG_LDIST_MASK << WULT_CFG_LDIST_MIN_SHIFT) | \
			 (WULT_CFG_LDIST_MASK << WULT_CFG_LDIST_MAX_SHIFT) | \
			 (WULT_CFG_KIND_MASK << WULT_CFG_KIND_SHIFT) | \
			 (WULT_CFG_SOURCE_MASK << WULT_CFG_SOURCE_SHIFT) | \
			 (WULT_CFG_STATE_MASK << WULT_CFG_STATE_SHIFT))
/* Terms of datapoint kinds only: an idle accounting event refuses them. */
#define WULT_CFG_DP_TERMS ((WULT_CFG_LDIST_MASK << WULT_CFG_LDIST_MIN_SHIFT) | \
			   (WULT_CFG_LDIST_MASK << WULT_CFG_LDIST_MAX_SHIFT) | \
			   (WULT_CFG_SOURCE_MASK << WULT_CFG_SOURCE_SHIFT))

/* Events scheduled in on this CPU, linked through event->active_entry. */
static DEFINE_PER_CPU(struct list_head, wult_pmu_events);
/*
 * perf_tp_event() delivers to the events of an hlist: each event is put
 * on this CPU's list for its own call only, so that no node of it ever
 * points at a stack frame or at a list it has left.
 */
static DEFINE_PER_CPU(struct hlist_head, wult_pmu_tp_head);

static u16 wult_rec_type;
static u16 wult_br_type;

/* The config terms (format/ below): event_init checks, the rest reads. */
static u64 wult_cfg_ldist_min(u64 config)
{
	return ((config >> WULT_CFG_LDIST_MIN_SHIFT) & WULT_CFG_LDIST_MASK) *
	       NSEC_PER_USEC;
}

static u64 wult_cfg_ldist_max(u64 config)
{
	u64 us = (config >> WULT_CFG_LDIST_MAX_SHIFT) & WULT_CFG_LDIST_MASK;

	return (us ? us : WULT_LDIST_DEF_MAX_US) * NSEC_PER_USEC;
}

static unsigned int wult_cfg_kind(u64 config)
{
	return (config >> WULT_CFG_KIND_SHIFT) & WULT_CFG_KIND_MASK;
}

static unsigned int wult_cfg_source(u64 config)
{
	return (config >> WULT_CFG_SOURCE_SHIFT) & WULT_CFG_SOURCE_MASK;
}

static unsigned int wult_cfg_state(u64 config)
{
	return (config >> WULT_CFG_STATE_SHIFT) & WULT_CFG_STATE_MASK;
}

static u64 wult_cfg1_band_lo(u64 config1)
{
	return ((config1 >> WULT_CFG1_BAND_LO_SHIFT) & WULT_CFG1_BAND_MASK) *
	       NSEC_PER_USEC;
}

/* Exclusive; 0 means no upper bound. */
static u64 wult_cfg1_band_hi(u64 config1)
{
	u64 us = (config1 >> WULT_CFG1_BAND_HI_SHIFT) & WULT_CFG1_BAND_MASK;

	return us ? us * NSEC_PER_USEC : U64_MAX;
}

/* What a kind is (struct wult_event_kind's flags). */
#define WULT_KF_SAMPLE		BIT(0)	/* its alias samples each datapoint */
#define WULT_KF_COUNTING	BIT(1)	/* counting only: refuses to sample */
#define WULT_KF_STATE		BIT(2)	/* takes the state term */
#define WULT_KF_BAND		BIT(3)	/* takes a latency band (config1) */
#define WULT_KF_IDLE		BIT(4)	/* idle accounting: no timer, no datapoint */
#define WULT_KF_IRQ		BIT(5)	/* ... of interrupts (wult_mstate_irq.c) */
#define WULT_KF_BRANCHES	BIT(6)	/* branch contexts instead of datapoints */

/*
 * One event kind, a row of wult_kinds[] indexed by its enum wult_kind
 * (the "kind" term).
 */
struct wult_event_kind {
	const char *name;	/* the events/ alias */
	const char *unit;	/* its events/<name>.unit, or NULL */
	unsigned int flags;	/* WULT_KF_* */
	/*
	 * Optional: 0 if this system has the kind, else the errno its events
	 * are refused with; its alias is then not in events/ either.
	 */
	int (*avail)(void);
	/* Datapoint kinds, optional: is @dp one of @event's (default: all)? */
	bool (*match)(const struct perf_event *event, const struct wult_dp *dp);
	/* Datapoint kinds, optional: what @dp adds to the count (default: 1). */
	u64 (*count)(const struct wult_dp *dp);
	/* Idle accounting kinds: the value of @state on this CPU, IRQs off. */
	u64 (*value)(unsigned int state);
};

static int wult_kind_lbr(void)
{
	return wult_lbr_available() ? 0 : -EOPNOTSUPP;
}

static u64 wult_count_wake(const struct wult_dp *dp)
{
	return dp->tai - dp->ltime;
}

static u64 wult_count_intr(const struct wult_dp *dp)
{
	return dp->tintr - dp->ltime;
}

static u64 wult_count_exit(const struct wult_dp *dp)
{
	return dp->tintr - dp->tai;
}

/* The band of the latency-band kinds, ns: [lo, hi). */
static bool wult_in_band(const struct perf_event *event, u64 lat)
{
	u64 cfg1 = event->attr.config1;

	return lat >= wult_cfg1_band_lo(cfg1) && lat < wult_cfg1_band_hi(cfg1);
}

static bool wult_match_wake_band(const struct perf_event *event,
				 const struct wult_dp *dp)
{
	return wult_in_band(event, dp->wake_latency);
}

static bool wult_match_intr_band(const struct perf_event *event,
				 const struct wult_dp *dp)
{
	return wult_in_band(event, dp->intr_latency);
}

/* The exit kinds: the requested state's datapoints whose interrupt ran after the exit. */
static bool wult_match_exit(const struct perf_event *event,
			    const struct wult_dp *dp)
{
	return dp->intr_off && dp->tintr >= dp->tai &&
	       dp->req_cstate == (s32)wult_cfg_state(event->attr.config);
}

#define WULT_KF_IDLE_KIND	(WULT_KF_IDLE | WULT_KF_COUNTING | WULT_KF_STATE)

static const struct wult_event_kind wult_kinds[] = {
	[WULT_KIND_DATAPOINTS] = { .name = "datapoints", .flags = WULT_KF_SAMPLE },
	[WULT_KIND_WAKE_SUM] = { .name = "wake_latency_sum", .unit = "ns",
		.flags = WULT_KF_COUNTING, .count = wult_count_wake },
	[WULT_KIND_INTR_SUM] = { .name = "intr_latency_sum", .unit = "ns",
		.flags = WULT_KF_COUNTING, .count = wult_count_intr },
	[WULT_KIND_BRANCHES] = { .name = "branches",
		.flags = WULT_KF_SAMPLE | WULT_KF_BRANCHES, .avail = wult_kind_lbr },
	[WULT_KIND_IDLE_TIME] = { .name = "idle_time", .unit = "ns",
		.flags = WULT_KF_IDLE_KIND, .value = wult_mstate_time_ns },
	[WULT_KIND_IDLE_ENTRIES] = { .name = "idle_entries",
		.flags = WULT_KF_IDLE_KIND, .value = wult_mstate_entries },
	[WULT_KIND_WAKE_BAND] = { .name = "wake_band",
		.flags = WULT_KF_BAND, .match = wult_match_wake_band },
	[WULT_KIND_INTR_BAND] = { .name = "intr_band",
		.flags = WULT_KF_BAND, .match = wult_match_intr_band },
	[WULT_KIND_IDLE_IRQ_TIME] = { .name = "idle_irq_time", .unit = "ns",
		.flags = WULT_KF_IDLE_KIND | WULT_KF_IRQ,
		.value = wult_mstate_irq_time_ns },
	[WULT_KIND_IDLE_IRQS] = { .name = "idle_irqs",
		.flags = WULT_KF_IDLE_KIND | WULT_KF_IRQ, .value = wult_mstate_irqs },
	[WULT_KIND_EXIT_SUM] = { .name = "exit_intr_time", .unit = "ns",
		.flags = WULT_KF_COUNTING | WULT_KF_STATE,
		.match = wult_match_exit, .count = wult_count_exit },
	[WULT_KIND_EXIT_N] = { .name = "exit_intrs",
		.flags = WULT_KF_COUNTING | WULT_KF_STATE, .match = wult_match_exit },
};

static_assert(ARRAY_SIZE(wult_kinds) == WULT_KIND_MAX);

/*
 * An event's config, read through these: event_init checked it and stored
 * the kind, a valid index of wult_kinds[], in hw.config.
 */
static inline const struct wult_event_kind *wult_ev_kind(const struct perf_event *event)
{
	return &wult_kinds[event->hw.config];
}

static inline bool wult_ev_is(const struct perf_event *event, unsigned int flag)
{
	return wult_ev_kind(event)->flags & flag;
}

/* The LDist range of a datapoint kind, ns. */
static inline u64 wult_ev_lo(const struct perf_event *event)
{
	return wult_cfg_ldist_min(event->attr.config);
}

static inline u64 wult_ev_hi(const struct perf_event *event)
{
	return wult_cfg_ldist_max(event->attr.config);
}

/* The requested state of an idle accounting kind, an index of its arrays. */
static inline unsigned int wult_ev_state(const struct perf_event *event)
{
	return array_index_nospec(wult_cfg_state(event->attr.config),
				  WULT_IDLE_STATES);
}

static inline const struct wult_source *wult_ev_source(const struct perf_event *event)
{
	return wult_source_by_id(wult_cfg_source(event->attr.config));
}

/* Is this datapoint one of the event's (its band or state, if it has one)? */
static bool wult_ev_match(const struct perf_event *event,
			  const struct wult_dp *dp)
{
	const struct wult_event_kind *kd = wult_ev_kind(event);

	return !kd->match || kd->match(event, dp);
}

/* What one datapoint adds to the event. */
static u64 wult_ev_count(const struct perf_event *event,
			 const struct wult_dp *dp)
{
	const struct wult_event_kind *kd = wult_ev_kind(event);

	return kd->count ? kd->count(dp) : 1;
}

static void wult_event_destroy(struct perf_event *event)
{
	const struct wult_source *src = wult_ev_source(event);

	if (src->put)
		src->put(event->cpu);
	wult_engine_put();
	wult_source_release(event->cpu, src);
}

/*
 * Datapoints are taken in the kernel, in the idle task, on the host: an
 * event that excludes any of these would never count.
 */
static bool wult_excludes_what_it_counts(const struct perf_event_attr *attr)
{
	return attr->exclude_kernel || attr->exclude_idle || attr->exclude_host;
}

/*
 * Hard hrtimers expire from the tick without high resolution mode (highres=off,
 * no oneshot clock event device): every datapoint would be up to a tick late.
 */
static bool wult_timers_precise(void)
{
	return hrtimer_resolution == 1;
}

/*
 * The idle accounting kinds: counting only, one valid state, no LDist,
 * no timer. Their count starts at 0 when the event is added.
 */
static void wult_idle_event_destroy(struct perf_event *event)
{
	if (wult_ev_is(event, WULT_KF_IRQ))
		wult_mstate_irq_put();
	wult_engine_put();
}

static int wult_idle_event_init(struct perf_event *event,
				const struct wult_event_kind *kd)
{
	/* The cpu_idle probe feeds the accounting: it exists while we do. */
	int ret = wult_engine_get();

	if (ret)
		return ret;
	if (kd->flags & WULT_KF_IRQ) {
		ret = wult_mstate_irq_get();
		if (ret) {
			wult_engine_put();
			return ret;
		}
	}
	event->destroy = wult_idle_event_destroy;
	return 0;
}

/*
 * An LDist range wholly below the CPU's floor (wult_rules.h) would only
 * make the event fire before the CPU is idle: refused once the floor is
 * known. Until then (no measurement on that CPU since the module was
 * loaded) user space checks the yield (wult record).
 */
static int wult_check_floor(int cpu, u64 ldist_max)
{
	u64 n, floor = wult_engine_floor(cpu, &n);

	if (!wult_rule_ldist_unreachable(ldist_max, floor, n))
		return 0;
	return wult_refuse(-EINVAL,
			   "CPU%d: LDist max %llu us is below the CPU's floor of %llu ns (its shortest arm-to-idle time, of %llu): the minimum LDist max is %llu us",
			   cpu, div_u64(ldist_max, NSEC_PER_USEC), floor, n,
			   DIV_ROUND_UP_ULL(floor, NSEC_PER_USEC));
}

/*
 * The terms the kind takes, in range (EINVAL). A datapoint kind's LDist
 * range is checked against the CPU's floor last, so that only a config
 * otherwise valid gets the floor's log line.
 */
static int wult_check_terms(struct perf_event *event, const struct wult_event_kind *kd)
{
	u64 cfg = event->attr.config, cfg1 = event->attr.config1;
	u64 lo = wult_cfg_ldist_min(cfg), hi = wult_cfg_ldist_max(cfg);
	unsigned int state = wult_cfg_state(cfg);

	if (state && !(kd->flags & WULT_KF_STATE))
		return wult_refuse_quiet(-EINVAL, "%s takes no state term",
					 kd->name);
	if (state >= WULT_IDLE_STATES)
		return wult_refuse_quiet(-EINVAL, "state %u: the states are 0-%d",
					 state, WULT_IDLE_STATES - 1);
	if (cfg1 && !(kd->flags & WULT_KF_BAND))
		return wult_refuse_quiet(-EINVAL, "%s takes no band (config1)",
					 kd->name);
	if (wult_cfg1_band_lo(cfg1) >= wult_cfg1_band_hi(cfg1))
		return wult_refuse_quiet(-EINVAL, "band_lo %llu us is not below band_hi %llu us",
					 div_u64(wult_cfg1_band_lo(cfg1), NSEC_PER_USEC),
					 div_u64(wult_cfg1_band_hi(cfg1), NSEC_PER_USEC));
	if (kd->flags & WULT_KF_IDLE) {
		if ((cfg & WULT_CFG_DP_TERMS) || event->attr.config2)
			return wult_refuse_quiet(-EINVAL,
						 "%s takes no LDist, source or config2 term",
						 kd->name);
	} else {
		if (lo > hi)
			return wult_refuse_quiet(-EINVAL,
						 "ldist_min %llu us is above ldist_max %llu us",
						 div_u64(lo, NSEC_PER_USEC),
						 div_u64(hi, NSEC_PER_USEC));
		if (hi > WULT_LDIST_LIMIT_US * NSEC_PER_USEC)
			return wult_refuse_quiet(-EINVAL,
						 "ldist_max %llu us is above the limit, %d us",
						 div_u64(hi, NSEC_PER_USEC),
						 WULT_LDIST_LIMIT_US);
		/* Every LDist would be clamped above the range. */
		if (hi < wult_ev_source(event)->min_ldist)
			return wult_refuse_quiet(-EINVAL,
						 "ldist_max %llu us is below the %s source's shortest launch distance, %llu ns",
						 div_u64(hi, NSEC_PER_USEC),
						 wult_ev_source(event)->name,
						 wult_ev_source(event)->min_ldist);
		if (wult_check_floor(event->cpu, hi))
			return -EINVAL;
	}
	if ((kd->flags & WULT_KF_COUNTING) && is_sampling_event(event))
		return wult_refuse_quiet(-EINVAL,
					 "%s counts only: it cannot sample (perf stat, not perf record)",
					 kd->name);
	return 0;
}

/* Can this system count the kind as asked (EOPNOTSUPP)? */
static int wult_check_support(struct perf_event *event,
			      const struct wult_event_kind *kd)
{
	int ret;

	if (kd->avail) {
		ret = kd->avail();
		if (ret)
			return wult_refuse_quiet(ret, "%s is not available on this system",
						 kd->name);
	}
	if (wult_excludes_what_it_counts(&event->attr))
		return wult_refuse_quiet(-EOPNOTSUPP,
					 "datapoints are taken in the kernel, in idle, on the host: an event cannot exclude any of these");
	if (has_branch_stack(event))
		return wult_refuse_quiet(-EOPNOTSUPP,
					 "no branch stack: the branch context is the branches event's (kind 3)");
	if (!(kd->flags & WULT_KF_IDLE) && !wult_timers_precise())
		return wult_refuse(-EOPNOTSUPP,
				   "no high resolution timers (highres=off or no oneshot clock event device): refusing to measure");
	return 0;
}

/* A datapoint kind's source: present, usable, and the CPU's only one. */
static int wult_dp_event_init(struct perf_event *event,
			      const struct wult_source *src)
{
	int ret;

	if (!wult_source_present(src))
		return wult_refuse_quiet(-ENODEV,
					 "%s: not available (its init failed when wult.ko loaded: see the kernel log)",
					 src->name);
	/* Only a source that takes a device term gets one (its get()). */
	if (event->attr.config2 && !src->get)
		return wult_refuse_quiet(-EINVAL, "%s takes no config2 term (launcher, device...)",
					 src->name);
	if (src->usable) {
		ret = src->usable();
		if (ret)
			return ret;
	}

	ret = wult_source_claim(event->cpu, src);
	if (ret)
		return ret;
	ret = wult_engine_get();
	if (ret)
		goto err_release;
	if (src->get) {
		ret = src->get(event->cpu, event->attr.config2);
		if (ret)
			goto err_put;
	}
	ret = wult_hist_get(event->cpu);
	if (ret)
		goto err_src;
	event->destroy = wult_event_destroy;
	return 0;

err_src:
	if (src->put)
		src->put(event->cpu);
err_put:
	wult_engine_put();
err_release:
	wult_source_release(event->cpu, src);
	return ret;
}

/*
 * Everything is checked here, in this order, each step with its errno:
 * the CPU and the known terms; the kind's terms (wult_kinds[]); what the
 * system supports; then what the event takes (the source, the
 * accounting). add/del/start/stop/read check nothing.
 */
static int wult_event_check(struct perf_event *event)
{
	u64 cfg = event->attr.config;
	unsigned int kind = wult_cfg_kind(cfg);
	const struct wult_source *src = wult_source_by_id(wult_cfg_source(cfg));
	const struct wult_event_kind *kd;
	int ret;

	/* The engine measures a CPU, not a task. */
	if (event->cpu < 0)
		return wult_refuse_quiet(-EINVAL,
					 "wult events are per CPU (perf -C or -a), not per task");
	if (cfg & ~WULT_CFG_KNOWN)
		return wult_refuse_quiet(-EINVAL, "unknown config bits 0x%llx",
					 cfg & ~WULT_CFG_KNOWN);
	if (kind >= WULT_KIND_MAX)
		return wult_refuse_quiet(-EINVAL, "unknown kind %u", kind);
	if (!src)
		return wult_refuse_quiet(-EINVAL, "unknown source %u",
					 wult_cfg_source(cfg));
	kind = array_index_nospec(kind, WULT_KIND_MAX);
	kd = &wult_kinds[kind];
	ret = wult_check_terms(event, kd);
	if (ret)
		return ret;
	ret = wult_check_support(event, kd);
	if (ret)
		return ret;
	if (kd->flags & WULT_KF_IDLE)
		ret = wult_idle_event_init(event, kd);
	else
		ret = wult_dp_event_init(event, src);
	if (ret)
		return ret;
	event->hw.config = kind;
	return 0;
}

/*
 * perf tries every PMU on an event of a type none registered (ENOENT: not
 * ours, nothing to say); an event of ours that is refused is its opener's
 * news, through wult_refusal.c, once per open.
 */
static int wult_event_init(struct perf_event *event)
{
	u64 since;
	int ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	since = wult_refusal_begin();
	ret = wult_event_check(event);
	if (ret)
		wult_refusal_done(event->cpu, ret, since);
	return ret;
}

static bool wult_ev_started(const struct perf_event *event)
{
	return !(event->hw.state & PERF_HES_STOPPED);
}

/*
 * The span of the LDist ranges of this CPU's started events drives the
 * engine; with every event stopped it arms nothing more.
 */
static void wult_pmu_update(struct list_head *events)
{
	u64 lo = U64_MAX, hi = 0;
	struct perf_event *event;
	bool branches = false, started = false;

	if (list_empty(events)) {
		wult_engine_stop();
		return;
	}
	list_for_each_entry(event, events, active_entry) {
		if (!wult_ev_started(event))
			continue;
		started = true;
		lo = min(lo, wult_ev_lo(event));
		hi = max(hi, wult_ev_hi(event));
		branches |= wult_ev_is(event, WULT_KF_BRANCHES);
	}
	event = list_first_entry(events, struct perf_event, active_entry);
	if (!started) {
		/* A range for the record; nothing is armed with it. */
		lo = wult_ev_lo(event);
		hi = wult_ev_hi(event);
	}
	wult_engine_start(wult_ev_source(event), lo, hi, branches, started);
}

/* The accounting value an idle event counts, on its CPU, IRQs off. */
static u64 wult_idle_value(struct perf_event *event)
{
	return wult_ev_kind(event)->value(wult_ev_state(event));
}

/*
 * As the msr PMU: add what the accounting grew by since the last look.
 * A value below the last one (a read between the exit probe's two
 * stores) is skipped: the accounting catches up.
 */
static void wult_idle_update(struct perf_event *event)
{
	u64 now = wult_idle_value(event);
	u64 prev = local64_read(&event->hw.prev_count);

	if ((s64)(now - prev) <= 0)
		return;
	local64_set(&event->hw.prev_count, now);
	local64_add(now - prev, &event->count);
}

/*
 * perf stops an added event without removing it to change its period, to
 * adjust a frequency (each tick) and, where the core does it, to throttle
 * it, then restarts it with ->start: meanwhile a datapoint event does not
 * drive the engine of its CPU. (perf_tp_event() never asks to throttle on
 * the first overflow of a call, so wult events are not throttled on 6.1
 * or 6.12; the engine's hold-offs bound their rate.) Events not, or no
 * longer, on the CPU's list are wult_event_add()'s and wult_event_del()'s.
 */
static void wult_event_start(struct perf_event *event, int flags)
{
	bool was_stopped = !wult_ev_started(event);

	if (wult_ev_is(event, WULT_KF_IDLE))
		local64_set(&event->hw.prev_count, wult_idle_value(event));
	event->hw.state = 0;
	if (was_stopped && !wult_ev_is(event, WULT_KF_IDLE) &&
	    !list_empty(&event->active_entry))
		wult_pmu_update(this_cpu_ptr(&wult_pmu_events));
}

static void wult_event_stop(struct perf_event *event, int flags)
{
	bool was_started = wult_ev_started(event);

	if (wult_ev_is(event, WULT_KF_IDLE) && was_started)
		wult_idle_update(event);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (was_started && !wult_ev_is(event, WULT_KF_IDLE) &&
	    !list_empty(&event->active_entry))
		wult_pmu_update(this_cpu_ptr(&wult_pmu_events));
}

static int wult_idle_event_add(struct perf_event *event, int flags)
{
	wult_mstate_get();
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		wult_event_start(event, PERF_EF_RELOAD);
	return 0;
}

static int wult_event_add(struct perf_event *event, int flags)
{
	struct list_head *events = this_cpu_ptr(&wult_pmu_events);
	struct hw_perf_event *hwc = &event->hw;

	if (wult_ev_is(event, WULT_KF_IDLE))
		return wult_idle_event_add(event, flags);
	/* All events here share one source: wult_source_claim() at event_init. */

	/*
	 * As perf_swevent_add(): start a full period ahead, or the first
	 * datapoint would overflow twice.
	 */
	if (is_sampling_event(event)) {
		hwc->last_period = hwc->sample_period;
		if (local64_read(&hwc->period_left) >= 0)
			local64_set(&hwc->period_left, -(s64)hwc->sample_period);
	}
	hwc->state = (flags & PERF_EF_START) ? 0 : PERF_HES_STOPPED;

	list_add_tail(&event->active_entry, events);
	wult_pmu_update(events);
	return 0;
}

static void wult_event_del(struct perf_event *event, int flags)
{
	wult_event_stop(event, flags);
	if (wult_ev_is(event, WULT_KF_IDLE)) {
		wult_mstate_put();
		return;
	}
	list_del_init(&event->active_entry);
	wult_pmu_update(this_cpu_ptr(&wult_pmu_events));
}

/* Datapoint counts are kept by perf_tp_event() itself. */
static void wult_event_read(struct perf_event *event)
{
	if (wult_ev_is(event, WULT_KF_IDLE) &&
	    !(event->hw.state & PERF_HES_STOPPED))
		wult_idle_update(event);
}

/*
 * Does @event take this datapoint: in its LDist range and its band or
 * state, and for a branches event with a branch context?
 */
static bool wult_ev_takes(const struct perf_event *event,
			  const struct wult_rec *rec,
			  const struct wult_br_rec *brrec)
{
	if (rec->dp.ldist < wult_ev_lo(event) || rec->dp.ldist > wult_ev_hi(event))
		return false;
	if (wult_ev_is(event, WULT_KF_BRANCHES) && !brrec)
		return false;
	return wult_ev_match(event, &rec->dp);
}

/*
 * A counting event's datapoint, added as perf_tp_event() adds it
 * (perf_swevent_event() after perf_tp_event_match(): not while stopped;
 * exclude_kernel is refused at event_init, and a PMU's event has no
 * tracepoint filter), without the sample's setup that a count does not
 * use: the recursion context, the caller's registers and the record's
 * trace_entry (Documentation/bench.md, one wake counting).
 */
static void wult_pmu_count(struct perf_event *event, const struct wult_rec *rec)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	local64_add(wult_ev_is(event, WULT_KF_BRANCHES) ? 1 :
		    wult_ev_count(event, &rec->dp), &event->count);
}

/*
 * A sampling event's datapoint, or its branch context for a branches
 * event: perf_tp_event() writes the sample (modules cannot call
 * perf_event_overflow()).
 */
static unsigned int wult_pmu_sample(struct perf_event *event,
				    struct wult_rec *rec,
				    struct wult_br_rec *brrec,
				    struct pt_regs *regs)
{
	struct hlist_head *head = this_cpu_ptr(&wult_pmu_tp_head);
	int rctx;

	rctx = perf_swevent_get_recursion_context();
	if (rctx < 0)
		return 1;
	/*
	 * A one-event list, each event its own count: perf_tp_event()
	 * delivers to it and puts rctx. IRQs are off and only this CPU
	 * uses its head, so the node can go as soon as the call returns.
	 */
	hlist_add_head(&event->hlist_entry, head);
	if (wult_ev_is(event, WULT_KF_BRANCHES))
		perf_tp_event(wult_br_type, 1, brrec, sizeof(*brrec), regs,
			      head, rctx, NULL);
	else
		perf_tp_event(wult_rec_type, wult_ev_count(event, &rec->dp), rec,
			      sizeof(*rec), regs, head, rctx, NULL);
	hlist_del_init(&event->hlist_entry);
	return 0;
}

/* Samples @rec (@branches: its branch context) to the events that take it. */
static unsigned int wult_pmu_sample_set(struct list_head *events,
					bool branches, struct wult_rec *rec,
					struct wult_br_rec *brrec,
					struct pt_regs *regs)
{
	struct perf_event *event;
	unsigned int failed = 0;

	list_for_each_entry(event, events, active_entry)
		if (is_sampling_event(event) &&
		    wult_ev_is(event, WULT_KF_BRANCHES) == branches &&
		    wult_ev_takes(event, rec, brrec))
			failed += wult_pmu_sample(event, rec, brrec, regs);
	return failed;
}

/*
 * The caller's registers of a sample, per CPU: perf_fetch_caller_regs()
 * sets ip, sp, cs and flags, and the rest stays zero from here on (no
 * stack garbage in --intr-regs) without clearing 168 bytes per datapoint.
 * Only the measured CPU's engine writes them, IRQs off.
 */
static DEFINE_PER_CPU(struct pt_regs, wult_pmu_regs);

/*
 * The engine's delivery callback (wult_deliver_set()), IRQs off on
 * the measured CPU: @rec, and @brrec (its branch context, may be NULL) to
 * branches events, to every active event of this CPU that takes it.
 * Returns the number of failed deliveries.
 */
static unsigned int wult_pmu_deliver(struct wult_rec *rec,
				     struct wult_br_rec *brrec)
{
	struct list_head *events = this_cpu_ptr(&wult_pmu_events);
	struct pt_regs *regs = this_cpu_ptr(&wult_pmu_regs);
	struct perf_event *event;
	unsigned int failed = 0;
	bool sampling = false;

	/*
	 * Counting events first: a sample's group read (e.g. a latency sum
	 * in a group led by a sampling event) then includes this datapoint.
	 */
	list_for_each_entry(event, events, active_entry) {
		if (is_sampling_event(event))
			sampling = true;
		else if (wult_ev_takes(event, rec, brrec))
			wult_pmu_count(event, rec);
	}
	if (!sampling)
		return 0;
	perf_fetch_caller_regs(regs);
	/* Branch contexts before datapoints, as on the tracepoints. */
	failed += wult_pmu_sample_set(events, true, rec, brrec, regs);
	failed += wult_pmu_sample_set(events, false, rec, brrec, regs);
	return failed;
}

PMU_FORMAT_ATTR(ldist_min, "config:0-15");
PMU_FORMAT_ATTR(ldist_max, "config:16-31");
PMU_FORMAT_ATTR(kind, "config:32-39");
PMU_FORMAT_ATTR(source, "config:40-43");
PMU_FORMAT_ATTR(state, "config:48-55");
PMU_FORMAT_ATTR(band_lo, "config1:0-31");
PMU_FORMAT_ATTR(band_hi, "config1:32-63");
/* config2 is the source's own: the terms of different sources overlap. */
PMU_FORMAT_ATTR(launcher, "config2:0-15");
PMU_FORMAT_ATTR(noshadow, "config2:16");
PMU_FORMAT_ATTR(waketask, "config2:17");
PMU_FORMAT_ATTR(device, "config2:0-31");

static struct attribute *wult_format_attrs[] = {
	&format_attr_ldist_min.attr,
	&format_attr_ldist_max.attr,
	&format_attr_kind.attr,
	&format_attr_source.attr,
	&format_attr_state.attr,
	&format_attr_band_lo.attr,
	&format_attr_band_hi.attr,
	&format_attr_launcher.attr,
	&format_attr_noshadow.attr,
	&format_attr_waketask.attr,
	&format_attr_device.attr,
	NULL,
};

static const struct attribute_group wult_format_group = {
	.name = "format",
	.attrs = wult_format_attrs,
};

/*
 * The events/ aliases, made from wult_kinds[] at init: per kind
 * "<name>" ("kind=N", with ",period=1" where every datapoint is a sample)
 * and, for a kind with a unit, "<name>.unit", which perf stat prints.
 * "state=N" is the user's to add; without it, state 0.
 */
struct wult_kind_attrs {
	struct perf_pmu_events_attr alias;
	struct perf_pmu_events_attr unit;
	char alias_str[sizeof("kind=255,period=1")];
	char unit_name[32];
};

static struct wult_kind_attrs wult_kind_attrs[WULT_KIND_MAX];
static struct attribute *wult_event_attrs[2 * WULT_KIND_MAX + 1];
/* The kind of each wult_event_attrs[] entry, for wult_event_visible(). */
static u8 wult_event_attr_kind[2 * WULT_KIND_MAX];

static void wult_sysfs_attr(struct perf_pmu_events_attr *pa, const char *name,
			    const char *str)
{
	sysfs_attr_init(&pa->attr.attr);
	pa->attr.attr.name = name;
	pa->attr.attr.mode = 0444;
	pa->attr.show = perf_event_sysfs_show;
	pa->event_str = str;
}

static int wult_event_attrs_init(void)
{
	unsigned int kind, n = 0;

	for (kind = 0; kind < WULT_KIND_MAX; kind++) {
		const struct wult_event_kind *kd = &wult_kinds[kind];
		struct wult_kind_attrs *ka = &wult_kind_attrs[kind];

		if (!kd->name)
			return -EINVAL;	/* a hole in wult_kinds[] */
		snprintf(ka->alias_str, sizeof(ka->alias_str), "kind=%u%s", kind,
			 kd->flags & WULT_KF_SAMPLE ? ",period=1" : "");
		wult_sysfs_attr(&ka->alias, kd->name, ka->alias_str);
		wult_event_attr_kind[n] = kind;
		wult_event_attrs[n++] = &ka->alias.attr.attr;
		if (!kd->unit)
			continue;
		if (snprintf(ka->unit_name, sizeof(ka->unit_name), "%s.unit",
			     kd->name) >= sizeof(ka->unit_name))
			return -EINVAL;
		wult_sysfs_attr(&ka->unit, ka->unit_name, kd->unit);
		wult_event_attr_kind[n] = kind;
		wult_event_attrs[n++] = &ka->unit.attr.attr;
	}
	wult_event_attrs[n] = NULL;
	return 0;
}

/* Only the kinds this system has are listed: perf list shows truth. */
static umode_t wult_event_visible(struct kobject *kobj, struct attribute *attr,
				  int i)
{
	const struct wult_event_kind *kd = &wult_kinds[wult_event_attr_kind[i]];

	if (kd->avail && kd->avail())
		return 0;
	return attr->mode;
}

static const struct attribute_group wult_event_group = {
	.name = "events",
	.attrs = wult_event_attrs,
	.is_visible = wult_event_visible,
};

/*
 * No cpumask attribute: with one, perf treats the PMU as system-wide and
 * turns per-task use (perf stat -e wult/datapoints/ -- cmd) into counting
 * on every CPU of the mask. Without it perf opens per-task events, which
 * perf_invalid_context refuses (EINVAL), and -C/-a work as for core PMUs.
 */
static const struct attribute_group *wult_attr_groups[] = {
	&wult_format_group,
	&wult_event_group,
	NULL,
};

static struct pmu wult_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_invalid_context,
	.attr_groups	= wult_attr_groups,
	.event_init	= wult_event_init,
	.add		= wult_event_add,
	.del		= wult_event_del,
	.start		= wult_event_start,
	.stop		= wult_event_stop,
	.read		= wult_event_read,
};

int wult_pmu_init(void)
{
	int cpu, ret;

	ret = wult_event_attrs_init();
	if (ret) {
		pr_err("wult: the table of event kinds is incomplete\n");
		return ret;
	}
	for_each_possible_cpu(cpu) {
		INIT_LIST_HEAD(per_cpu_ptr(&wult_pmu_events, cpu));
		INIT_HLIST_HEAD(per_cpu_ptr(&wult_pmu_tp_head, cpu));
	}
	wult_rec_type = wult_trace_type();
	wult_br_type = wult_trace_br_type();
	wult_deliver_set(wult_pmu_deliver);
	ret = perf_pmu_register(&wult_pmu, "wult", -1);
	if (ret)
		wult_deliver_set(NULL);
	return ret;
}

int wult_pmu_type(void)
{
	return wult_pmu.type;
}

void wult_pmu_exit(void)
{
	perf_pmu_unregister(&wult_pmu);
	/* No event is left, so no CPU is measured: nothing is emitted now. */
	wult_deliver_set(NULL);
}
