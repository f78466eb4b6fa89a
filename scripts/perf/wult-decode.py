# SPDX-License-Identifier: GPL-2.0
#
# wult-decode.py: print wult datapoints from a perf.data file.
#
#   perf script -i perf.data -s scripts/perf/wult-decode.py
#
# Decodes both channels of wult.ko (see kernel/uapi/linux/wult.h and
# Documentation/kernel.md):
#   - samples of the "wult" PMU recorded with -R: the PERF_SAMPLE_RAW payload
#     (raw_buf) is an 8-byte struct trace_entry + struct wult_dp, unpacked here
#     with struct.unpack per the uapi header;
#   - wult:datapoint tracepoint records, decoded by field name from the
#     tracepoint's format.
# One line per datapoint, columns (times in ns):
#   src ev cpu seq ltime tbi tai tintr ldist req_cstate intr_off
#   WakeLatency IntrLatency WakeLatencyC IntrLatencyC count
# src is "raw" or "tp"; ev the perf event name; WakeLatency = tai - ltime,
# IntrLatency = tintr - ltime; the C columns subtract the probe overhead that
# delayed the later of the two (see Documentation/kernel.md); count is the
# event's count read with the sample (PERF_SAMPLE_READ, e.g. with the :S
# group modifier) or "-". A final "# samples" line gives per-source totals.

import struct
import sys

HDR = struct.Struct("<HBBi")            # struct trace_entry
DP = struct.Struct("<11Q2i6I")          # struct wult_dp, version 1
DP_FIELDS = ("ltime", "tbi", "tai", "tintr", "ldist", "ai_ts1", "ai_ts2",
             "intr_ts1", "intr_ts2", "tsc_delta", "mperf_delta", "cpu",
             "req_cstate", "intr_off", "flags", "smi_cnt", "nmi_cnt",
             "tsc_khz", "seq")
REC_SIZE = HDR.size + DP.size

counts = {}


def cyc2ns(cycles, tsc_khz):
    return cycles * 1000000 // tsc_khz if tsc_khz else 0


def emit(src, ev, dp, count):
    wake = dp["tai"] - dp["ltime"]
    intr = dp["tintr"] - dp["ltime"]
    khz = dp["tsc_khz"]
    # The later of TAI/TIntr was delayed by the earlier one's code.
    if dp["intr_off"]:
        wake_c = wake
        intr_c = intr - cyc2ns(dp["ai_ts2"] - dp["ai_ts1"], khz)
    else:
        wake_c = wake - cyc2ns(dp["intr_ts2"] - dp["intr_ts1"], khz)
        intr_c = intr
    print("%s %s %d %d %d %d %d %d %d %d %d %d %d %d %d %s" %
          (src, ev, dp["cpu"], dp["seq"], dp["ltime"], dp["tbi"], dp["tai"],
           dp["tintr"], dp["ldist"], dp["req_cstate"], dp["intr_off"],
           wake, intr, wake_c, intr_c, count))
    counts[src] = counts.get(src, 0) + 1


def trace_begin():
    print("# src ev cpu seq ltime tbi tai tintr ldist req_cstate intr_off "
          "WakeLatency IntrLatency WakeLatencyC IntrLatencyC count")


PERF_SAMPLE_READ = 1 << 4


def sample_count(param_dict):
    # perf fills "values" even without PERF_SAMPLE_READ: check sample_type
    # (struct perf_event_attr offset 24) first.
    attr = param_dict.get("attr")
    vals = param_dict["sample"].get("values")
    if not attr or len(attr) < 32 or not vals:
        return "-"
    if not struct.unpack_from("<Q", attr, 24)[0] & PERF_SAMPLE_READ:
        return "-"
    return str(vals[0][1])


# Samples of non-tracepoint events: the wult PMU's raw payload.
def process_event(param_dict):
    raw = param_dict.get("raw_buf")
    ev = param_dict.get("ev_name", "?")
    if not raw or len(raw) < REC_SIZE or not ev.startswith("wult"):
        return
    dp = dict(zip(DP_FIELDS, DP.unpack_from(raw, HDR.size)))
    emit("raw", ev.replace(" ", ""), dp, sample_count(param_dict))


# Tracepoint records: no wult__datapoint handler, so perf passes the fields
# by name here.
def trace_unhandled(event_name, context, fields, perf_sample_dict):
    if event_name != "wult__datapoint":
        return
    dp = {f: int(fields[f]) for f in DP_FIELDS}
    emit("tp", "wult:datapoint", dp, "-")


def trace_end():
    print("# samples " + " ".join("%s=%d" % kv for kv in sorted(counts.items())))
    sys.stdout.flush()
