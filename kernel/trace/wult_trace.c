// SPDX-License-Identifier: GPL-2.0
/*
 * wult: instantiates the wult:datapoint and wult:wake_branches tracepoints and
 * proves, at build time, that their record layouts are the PMU raw sample
 * layouts.
 */
#include <linux/build_bug.h>
#include <linux/stddef.h>

#define CREATE_TRACE_POINTS
#include "wult_trace.h"

#include "../core/wult_engine.h"

#define WULT_TP_OFF(f)	offsetof(struct trace_event_raw_datapoint, f)
#define WULT_DP_OFF(f)	offsetof(struct wult_rec, dp.f)

/* The common type of PMU samples: raw samples then match the format file. */
u16 wult_trace_type(void)
{
	BUILD_BUG_ON(sizeof(struct trace_event_raw_datapoint) !=
		     sizeof(struct wult_rec));
	BUILD_BUG_ON(sizeof(struct trace_entry) != WULT_DP_HDR_SIZE);
#define WULT_TP_CHECK(type, name, version)			\
	BUILD_BUG_ON(WULT_TP_OFF(name) != WULT_DP_OFF(name) ||	\
		     sizeof_field(struct trace_event_raw_datapoint, name) != \
		     sizeof_field(struct wult_rec, dp.name));
	WULT_DP_FIELDS(WULT_TP_CHECK)
#undef WULT_TP_CHECK
	return event_datapoint.event.type;
}

#define WULT_TB_OFF(f)	offsetof(struct trace_event_raw_wake_branches, f)
#define WULT_BR_OFF(f)	offsetof(struct wult_br_rec, br.f)

/* The same for wult:wake_branches and struct wult_br_rec. */
u16 wult_trace_br_type(void)
{
	BUILD_BUG_ON(sizeof(struct trace_event_raw_wake_branches) !=
		     sizeof(struct wult_br_rec));
	BUILD_BUG_ON(WULT_TB_OFF(ltime) != WULT_BR_OFF(ltime));
	BUILD_BUG_ON(WULT_TB_OFF(cpu) != WULT_BR_OFF(cpu));
	BUILD_BUG_ON(WULT_TB_OFF(seq) != WULT_BR_OFF(seq));
	BUILD_BUG_ON(WULT_TB_OFF(nr) != WULT_BR_OFF(nr));
	BUILD_BUG_ON(WULT_TB_OFF(flags) != WULT_BR_OFF(flags));
	BUILD_BUG_ON(WULT_TB_OFF(from) != WULT_BR_OFF(from));
	BUILD_BUG_ON(WULT_TB_OFF(to) != WULT_BR_OFF(to));

	return event_wake_branches.event.type;
}
