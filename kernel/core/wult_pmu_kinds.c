// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the PMU's event kinds and what sysfs shows of it.
 *
 * Each kind is one row of wult_kinds[], as each event is in
 * arch/x86/events/msr.c: its name, unit and flags, and the functions
 * that count it. The events/ aliases are made from the table, and the
 * format/ attributes from the uapi header's list of config terms
 * (WULT_CFG_TERMS), when the module loads; no kind or term is named
 * anywhere else in the PMU's files.
 */
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include "../accounting/wult_lbr.h"
#include "../accounting/wult_mstate.h"
#include "wult_pmu_int.h"

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

	return lat >= wult_cfg1_band_lo_ns(cfg1) && lat < wult_cfg1_band_hi_ns(cfg1);
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

const struct wult_event_kind wult_kinds[WULT_KIND_MAX] = {
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
 * The format/ attributes, one per term of the uapi header's list:
 * "<word>:<lo>-<hi>", or "<word>:<lo>" for a one-bit term, as
 * PMU_FORMAT_ATTR() would show it.
 */
struct wult_term_attr {
	struct perf_pmu_events_attr attr;
	char str[sizeof("config2:63-63")];
};

static const struct {
	const char *name, *word;
	unsigned int lo, hi;
} wult_terms[] = {
#define WULT_TERM_ROW(n, w, l, h) { .name = #n, .word = #w, .lo = l, .hi = h },
	WULT_CFG_TERMS(WULT_TERM_ROW)
#undef WULT_TERM_ROW
};

static struct wult_term_attr wult_term_attrs[ARRAY_SIZE(wult_terms)];
static struct attribute *wult_format_attrs[ARRAY_SIZE(wult_terms) + 1];

static const struct attribute_group wult_format_group = {
	.name = "format",
	.attrs = wult_format_attrs,
};

static void wult_sysfs_attr(struct perf_pmu_events_attr *pa, const char *name,
			    const char *str)
{
	sysfs_attr_init(&pa->attr.attr);
	pa->attr.attr.name = name;
	pa->attr.attr.mode = 0444;
	pa->attr.show = perf_event_sysfs_show;
	pa->event_str = str;
}

static void wult_format_attrs_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wult_terms); i++) {
		struct wult_term_attr *ta = &wult_term_attrs[i];

		if (wult_terms[i].lo == wult_terms[i].hi)
			snprintf(ta->str, sizeof(ta->str), "%s:%u",
				 wult_terms[i].word, wult_terms[i].lo);
		else
			snprintf(ta->str, sizeof(ta->str), "%s:%u-%u",
				 wult_terms[i].word, wult_terms[i].lo,
				 wult_terms[i].hi);
		wult_sysfs_attr(&ta->attr, wult_terms[i].name, ta->str);
		wult_format_attrs[i] = &ta->attr.attr.attr;
	}
	wult_format_attrs[i] = NULL;
}

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
const struct attribute_group *wult_pmu_attr_groups[] = {
	&wult_format_group,
	&wult_event_group,
	NULL,
};

int wult_pmu_attrs_init(void)
{
	wult_format_attrs_init();
	return wult_event_attrs_init();
}
