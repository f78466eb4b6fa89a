/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the wult:datapoint tracepoint.
 *
 * Its fields are struct wult_dp's, made from the same list (WULT_DP_FIELDS),
 * so a tracepoint record is byte for byte a PMU raw sample and the
 * tracepoint's format file decodes both (checked at build time in
 * wult_trace.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wult

#if !defined(_WULT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WULT_TRACE_H

#include <linux/tracepoint.h>

#include "../uapi/linux/wult.h"

/*
 * The entries and assignments come from the payload's field list
 * (WULT_DP_FIELDS): __field() takes the kernel's type name, which the
 * format file prints ("u64 ltime"). They expand anew at each stage of
 * define_trace.h, inside its own __field().
 */
#ifndef WULT_TP_ENTRY
#define WULT_TP_ENTRY(type, name, version)	__field(type, name)
#define WULT_TP_ASSIGN(type, name, version)	__entry->name = dp->name;
#endif

TRACE_EVENT(datapoint,
	    TP_PROTO(const struct wult_dp *dp),
	    TP_ARGS(dp),
	    TP_STRUCT__entry(WULT_DP_FIELDS(WULT_TP_ENTRY)),
	    TP_fast_assign(WULT_DP_FIELDS(WULT_TP_ASSIGN)),
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
