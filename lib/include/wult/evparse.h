/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perf event strings to perf_event_attr, as perf's own syntax:
 *
 *   cycles, instructions, cpu-clock, ...        generic hardware/software
 *   pmu/event/                                  a sysfs event alias
 *   pmu/term=value,term,.../                    format terms, aliases mixed in
 *
 * Terms are resolved through sysfs: PMU type from <pmu>/type, each term's bit
 * ranges from <pmu>/format/<term> ("config:0-7,32-35", "config1:3"), and
 * aliases from <pmu>/events/<alias> (themselves term lists). A term with no
 * value means 1. "period=N" sets sample_period.
 */
#ifndef WULT_EVPARSE_H
#define WULT_EVPARSE_H

#include <stddef.h>
#include <linux/perf_event.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

/* Where PMUs live; tests point this at a fake tree. */
#define WULT_EV_SYSFS "/sys/bus/event_source/devices"

/*
 * Parses @str into @attr (zeroed first; size set). @sysfs is the PMU
 * directory root, NULL for WULT_EV_SYSFS. Returns 0, -ENOENT when the PMU
 * or an alias does not exist here, or -EINVAL for a malformed string or a
 * value that does not fit its format; @err says which.
 */
int wult_ev_parse(const char *str, const char *sysfs, struct perf_event_attr *attr,
		  char *err, size_t errlen);

#pragma GCC visibility pop

#endif
