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

#include "wult_engine.h"

#define WULT_TP_OFF(f)	offsetof(struct trace_event_raw_datapoint, f)
#define WULT_DP_OFF(f)	offsetof(struct wult_rec, dp.f)

/* The common type of PMU samples: raw samples then match the format file. */
u16 wult_trace_type(void)
{
	BUILD_BUG_ON(sizeof(struct trace_event_raw_datapoint) !=
		     sizeof(struct wult_rec));
	BUILD_BUG_ON(sizeof(struct trace_entry) != WULT_DP_HDR_SIZE);
	BUILD_BUG_ON(WULT_TP_OFF(ltime) != WULT_DP_OFF(ltime));
	BUILD_BUG_ON(WULT_TP_OFF(tbi) != WULT_DP_OFF(tbi));
	BUILD_BUG_ON(WULT_TP_OFF(tai) != WULT_DP_OFF(tai));
	BUILD_BUG_ON(WULT_TP_OFF(tintr) != WULT_DP_OFF(tintr));
	BUILD_BUG_ON(WULT_TP_OFF(ldist) != WULT_DP_OFF(ldist));
	BUILD_BUG_ON(WULT_TP_OFF(ai_ts1) != WULT_DP_OFF(ai_ts1));
	BUILD_BUG_ON(WULT_TP_OFF(ai_ts2) != WULT_DP_OFF(ai_ts2));
	BUILD_BUG_ON(WULT_TP_OFF(intr_ts1) != WULT_DP_OFF(intr_ts1));
	BUILD_BUG_ON(WULT_TP_OFF(intr_ts2) != WULT_DP_OFF(intr_ts2));
	BUILD_BUG_ON(WULT_TP_OFF(tsc_delta) != WULT_DP_OFF(tsc_delta));
	BUILD_BUG_ON(WULT_TP_OFF(mperf_delta) != WULT_DP_OFF(mperf_delta));
	BUILD_BUG_ON(WULT_TP_OFF(cpu) != WULT_DP_OFF(cpu));
	BUILD_BUG_ON(WULT_TP_OFF(req_cstate) != WULT_DP_OFF(req_cstate));
	BUILD_BUG_ON(WULT_TP_OFF(intr_off) != WULT_DP_OFF(intr_off));
	BUILD_BUG_ON(WULT_TP_OFF(flags) != WULT_DP_OFF(flags));
	BUILD_BUG_ON(WULT_TP_OFF(smi_cnt) != WULT_DP_OFF(smi_cnt));
	BUILD_BUG_ON(WULT_TP_OFF(nmi_cnt) != WULT_DP_OFF(nmi_cnt));
	BUILD_BUG_ON(WULT_TP_OFF(tsc_khz) != WULT_DP_OFF(tsc_khz));
	BUILD_BUG_ON(WULT_TP_OFF(seq) != WULT_DP_OFF(seq));
	BUILD_BUG_ON(WULT_TP_OFF(wake_latency) != WULT_DP_OFF(wake_latency));
	BUILD_BUG_ON(WULT_TP_OFF(intr_latency) != WULT_DP_OFF(intr_latency));
	BUILD_BUG_ON(WULT_TP_OFF(source) != WULT_DP_OFF(source));
	BUILD_BUG_ON(WULT_TP_OFF(ltime_err) != WULT_DP_OFF(ltime_err));
	BUILD_BUG_ON(WULT_TP_OFF(ttask) != WULT_DP_OFF(ttask));

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
