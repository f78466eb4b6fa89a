/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the wult:datapoint tracepoint.
 *
 * Its fields are struct wult_dp's, in the same order and with the same
 * types, so a tracepoint record is byte for byte a PMU raw sample and the
 * tracepoint's format file decodes both (checked at build time in
 * wult_trace.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wult

#if !defined(_WULT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WULT_TRACE_H

#include <linux/tracepoint.h>

#include "uapi/linux/wult.h"

TRACE_EVENT(datapoint,
	    TP_PROTO(const struct wult_dp *dp),
	    TP_ARGS(dp),
	    TP_STRUCT__entry(__field(u64, ltime)
			 __field(u64, tbi)
			 __field(u64, tai)
			 __field(u64, tintr)
			 __field(u64, ldist)
			 __field(u64, ai_ts1)
			 __field(u64, ai_ts2)
			 __field(u64, intr_ts1)
			 __field(u64, intr_ts2)
			 __field(u64, tsc_delta)
			 __field(u64, mperf_delta)
			 __field(u32, cpu)
			 __field(s32, req_cstate)
			 __field(u32, intr_off)
			 __field(u32, flags)
			 __field(u32, smi_cnt)
			 __field(u32, nmi_cnt)
			 __field(u32, tsc_khz)
			 __field(u32, seq)
			 __field(u64, wake_latency)
			 __field(u64, intr_latency)
			 __field(u32, source)
			 __field(u32, ltime_err)
			 __field(u64, ttask)),
	    TP_fast_assign(__entry->ltime = dp->ltime;
		       __entry->tbi = dp->tbi;
		       __entry->tai = dp->tai;
		       __entry->tintr = dp->tintr;
		       __entry->ldist = dp->ldist;
		       __entry->ai_ts1 = dp->ai_ts1;
		       __entry->ai_ts2 = dp->ai_ts2;
		       __entry->intr_ts1 = dp->intr_ts1;
		       __entry->intr_ts2 = dp->intr_ts2;
		       __entry->tsc_delta = dp->tsc_delta;
		       __entry->mperf_delta = dp->mperf_delta;
		       __entry->cpu = dp->cpu;
		       __entry->req_cstate = dp->req_cstate;
		       __entry->intr_off = dp->intr_off;
		       __entry->flags = dp->flags;
		       __entry->smi_cnt = dp->smi_cnt;
		       __entry->nmi_cnt = dp->nmi_cnt;
		       __entry->source = dp->source;
		       __entry->ltime_err = dp->ltime_err;
		       __entry->ttask = dp->ttask;
		       __entry->tsc_khz = dp->tsc_khz;
		       __entry->seq = dp->seq;
		       __entry->wake_latency = dp->wake_latency;
		       __entry->intr_latency = dp->intr_latency;),
	    TP_printk("cpu=%u req_cstate=%d intr_off=%u ltime=%llu tbi=%llu tai=%llu tintr=%llu ldist=%llu seq=%u source=%u ltime_err=%u ttask=%llu",
		      __entry->cpu, __entry->req_cstate, __entry->intr_off,
		      __entry->ltime, __entry->tbi, __entry->tai, __entry->tintr,
		      __entry->ldist, __entry->seq, __entry->source,
		      __entry->ltime_err, __entry->ttask)
);

/*
 * The branch context of the datapoint with the same cpu and seq, emitted
 * just before it. Same layout as struct wult_branches.
 */
TRACE_EVENT(wake_branches,
	    TP_PROTO(const struct wult_branches *br),
	    TP_ARGS(br),
	    TP_STRUCT__entry(__field(u64, ltime)
			 __field(u32, cpu)
			 __field(u32, seq)
			 __field(u32, nr)
			 __field(u32, flags)
			 __array(u64, from, WULT_BR_MAX)
			 __array(u64, to, WULT_BR_MAX)),
	    TP_fast_assign(__entry->ltime = br->ltime;
		       __entry->cpu = br->cpu;
		       __entry->seq = br->seq;
		       __entry->nr = br->nr;
		       __entry->flags = br->flags;
		       memcpy(__entry->from, br->from, sizeof(__entry->from));
		       memcpy(__entry->to, br->to, sizeof(__entry->to));),
	    TP_printk("cpu=%u seq=%u nr=%u flags=0x%x",
		      __entry->cpu, __entry->seq, __entry->nr, __entry->flags)
);

#endif /* _WULT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wult_trace
#include <trace/define_trace.h>
