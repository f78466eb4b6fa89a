/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the PMU's own header, for its files only (wult_pmu.c: add/del and
 * delivery; wult_pmu_check.c: event_init; wult_pmu_kinds.c: the kinds
 * table and sysfs). The config terms come from the uapi header's list
 * (WULT_CFG_TERMS); these read an event's through it.
 */
#ifndef _WULT_PMU_INT_H
#define _WULT_PMU_INT_H

#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/time64.h>

#include "../sources/wult_source.h"
#include "../uapi/linux/wult.h"

/* A term in us, in ns. */
static inline u64 wult_us(u64 us)
{
	return us * NSEC_PER_USEC;
}

/* The LDist range of a datapoint kind's config, ns; max 0 means the default. */
static inline u64 wult_cfg_lo_ns(u64 config)
{
	return wult_us(wult_cfg_ldist_min(config));
}

static inline u64 wult_cfg_hi_ns(u64 config)
{
	u64 us = wult_cfg_ldist_max(config);

	return wult_us(us ? us : WULT_LDIST_DEF_MAX_US);
}

/* A band kind's band, ns: [lo, hi); hi 0 means no upper bound. */
static inline u64 wult_cfg1_band_lo_ns(u64 config1)
{
	return wult_us(wult_cfg_band_lo(config1));
}

static inline u64 wult_cfg1_band_hi_ns(u64 config1)
{
	u64 us = wult_cfg_band_hi(config1);

	return us ? wult_us(us) : U64_MAX;
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

extern const struct wult_event_kind wult_kinds[WULT_KIND_MAX];

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
	return wult_cfg_lo_ns(event->attr.config);
}

static inline u64 wult_ev_hi(const struct perf_event *event)
{
	return wult_cfg_hi_ns(event->attr.config);
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
static inline bool wult_ev_match(const struct perf_event *event,
				 const struct wult_dp *dp)
{
	const struct wult_event_kind *kd = wult_ev_kind(event);

	return !kd->match || kd->match(event, dp);
}

/* What one datapoint adds to the event. */
static inline u64 wult_ev_count(const struct perf_event *event,
				const struct wult_dp *dp)
{
	const struct wult_event_kind *kd = wult_ev_kind(event);

	return kd->count ? kd->count(dp) : 1;
}

/**
 * wult_event_init() - the PMU's event_init: every check, each with its errno
 * @event: the event perf creates
 *
 * Return: 0, -ENOENT for another PMU's event, or why it is refused.
 */
int wult_event_init(struct perf_event *event);

/**
 * wult_pmu_attr_groups - sysfs format/ and events/, made by wult_pmu_attrs_init()
 */
extern const struct attribute_group *wult_pmu_attr_groups[];

/**
 * wult_pmu_attrs_init() - make the format/ and events/ attributes
 *
 * Module load, before the PMU is registered.
 *
 * Return: 0, or -EINVAL if a table has a hole.
 */
int wult_pmu_attrs_init(void);

#endif /* _WULT_PMU_INT_H */
