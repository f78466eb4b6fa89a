# SPDX-License-Identifier: GPL-2.0
#
# wult-decode.py: print wult datapoints from a perf.data file.
#
#   perf script -i perf.data -s scripts/perf/wult-decode.py
#
# Decodes both channels of wult.ko (see kernel/uapi/linux/wult.h and
# Documentation/kernel.md):
#   - samples of the "wult" PMU recorded with -R: the PERF_SAMPLE_RAW payload
#     (raw_buf) is an 8-byte struct trace_entry + struct wult_dp, unpacked
#     per the uapi header by wult_perf.py (shared with wult-report.py);
#   - wult:datapoint tracepoint records, decoded by field name from the
#     tracepoint's format.
# One line per datapoint, columns (times in ns):
#   src ev cpu seq ltime tbi tai tintr ldist req_cstate intr_off
#   WakeLatency IntrLatency WakeLatencyC IntrLatencyC count method
# src is "raw" or "tp"; ev the perf event name; WakeLatency = tai - ltime,
# IntrLatency = tintr - ltime ("-" for an ipi flag-write wake, which has
# no interrupt); the C columns subtract the probe overhead that
# delayed the later of the two (see Documentation/kernel.md); count is the
# event's count read with the sample (PERF_SAMPLE_READ, e.g. with the :S
# group modifier) or "-". A final "# samples" line gives per-source totals.
# Branch contexts (wult/branches/ samples, wult:wake_branches records) are
# lines "br src cpu seq ltime nr flags from->to..." (addresses in hex,
# youngest first).

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
import wult_perf  # noqa: E402

counts = {}


def num(v):
    # An integer, or "-" where there is no value (an ipi flag-write
    # wake's IntrLatency).
    return "-" if v is None else "%d" % v


def emit(src, ev, dp, count):
    m = wult_perf.metrics(dp)
    print("%s %s %d %d %d %d %d %d %d %d %d %d %s %d %s %s %s" %
          (src, ev, dp["cpu"], dp["seq"], dp["ltime"], dp["tbi"], dp["tai"],
           dp["tintr"], dp["ldist"], dp["req_cstate"], dp["intr_off"],
           m["WakeLatencyRaw"], num(m["IntrLatencyRaw"]), m["WakeLatency"],
           num(m["IntrLatency"]), count,
           wult_perf.SOURCES.get(dp["source"], dp["source"])))
    counts[src] = counts.get(src, 0) + 1


def emit_br(src, br):
    n = min(br["nr"], wult_perf.BR_MAX)
    print("br %s %d %d %d %d %#x %s" %
          (src, br["cpu"], br["seq"], br["ltime"], br["nr"], br["flags"],
           " ".join("%x->%x" % (br["frm"][i], br["to"][i]) for i in range(n))))
    counts["br-" + src] = counts.get("br-" + src, 0) + 1


def trace_begin():
    # One name per column of emit()'s lines, in their order.
    print("# src ev cpu seq ltime tbi tai tintr ldist req_cstate intr_off "
          "WakeLatencyRaw IntrLatencyRaw WakeLatency IntrLatency count source")


def sample_count(param_dict):
    vals = wult_perf.read_values(param_dict)
    return str(vals[0][1]) if vals else "-"


# Samples of non-tracepoint events: the wult PMU's raw payload.
def process_event(param_dict):
    ev = param_dict.get("ev_name", "?")
    br = wult_perf.branches_from_raw(param_dict)
    if br is not None:
        emit_br("raw", br)
        return
    dp = wult_perf.from_raw(param_dict.get("raw_buf"))
    if dp is None or not ev.startswith("wult") or not wult_perf.is_sampler(param_dict):
        return
    emit("raw", ev.replace(" ", ""), dp, sample_count(param_dict))


# Tracepoint records: no wult__datapoint handler, so perf passes the fields
# by name here.
def trace_unhandled(event_name, context, fields, perf_sample_dict):
    if event_name == wult_perf.TP_NAME:
        emit("tp", "wult:datapoint", wult_perf.from_fields(fields), "-")
    elif event_name == wult_perf.BR_TP_NAME:
        emit_br("tp", wult_perf.branches_from_fields(fields))


def trace_end():
    print("# samples " + " ".join("%s=%d" % kv for kv in sorted(counts.items())))
    sys.stdout.flush()
