// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the PMU's event_init, where everything is checked.
 *
 * In this order, each step with its errno: the CPU and the known terms;
 * the kind's terms (wult_kinds[]); what the system supports; then what
 * the event takes (the source, the accounting). add/del/start/stop/read
 * (wult_pmu.c) check nothing. Each refusal says why, for its opener
 * (wult_refusal.c).
 */
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>

#include "../accounting/wult_hist.h"
#include "../accounting/wult_mstate.h"
#include "../trace/wult_refusal.h"
#include "wult_engine.h"
#include "wult_pmu_int.h"
#include "wult_rules.h"

/* The config terms of datapoint kinds only: an idle accounting event refuses them. */
static u64 wult_cfg_dp_terms(void)
{
	return wult_cfg_ldist_min_put(~0ULL) | wult_cfg_ldist_max_put(~0ULL) |
	       wult_cfg_source_put(~0ULL);
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
	u64 lo = wult_cfg_lo_ns(cfg), hi = wult_cfg_hi_ns(cfg);
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
	if (wult_cfg1_band_lo_ns(cfg1) >= wult_cfg1_band_hi_ns(cfg1))
		return wult_refuse_quiet(-EINVAL, "band_lo %llu us is not below band_hi %llu us",
					 div_u64(wult_cfg1_band_lo_ns(cfg1), NSEC_PER_USEC),
					 div_u64(wult_cfg1_band_hi_ns(cfg1), NSEC_PER_USEC));
	if (kd->flags & WULT_KF_IDLE) {
		if ((cfg & wult_cfg_dp_terms()) || event->attr.config2)
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
						 wult_source_name(wult_ev_source(event)->id),
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
					 wult_source_name(src->id));
	/* Only a source that takes a device term gets one (its get()). */
	if (event->attr.config2 && !src->get)
		return wult_refuse_quiet(-EINVAL, "%s takes no config2 term (launcher, device...)",
					 wult_source_name(src->id));
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
	if (cfg & ~wult_cfg_known(WULT_CFG_WORD_config))
		return wult_refuse_quiet(-EINVAL, "unknown config bits 0x%llx",
					 cfg & ~wult_cfg_known(WULT_CFG_WORD_config));
	if (kind >= WULT_KIND_MAX)
		return wult_refuse_quiet(-EINVAL, "unknown kind %u", kind);
	if (!src)
		return wult_refuse_quiet(-EINVAL, "unknown source %llu",
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
int wult_event_init(struct perf_event *event)
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

