# SPDX-License-Identifier: GPL-2.0
#
# wult-report.py: per-state wake latency statistics from a perf.data file.
#
#   perf script -i perf.data -s scripts/perf/wult-report.py [-- OPTIONS]
#
# OPTIONS:
#   --csv FILE   also write every datapoint as CSV with intel wult's column
#                names (times in microseconds, as intel wult writes them)
#   --ns         print statistics in nanoseconds instead of microseconds
#   --count N    use only the first N datapoints (by CPU and sequence)
#
# Reads wult PMU samples (perf record -R -e wult/datapoints/) and
# wult:datapoint tracepoint records. When a file has both, the PMU samples
# are used; a datapoint seen by several events counts once. With group
# reads (e.g. {wult/datapoints/,msr/tsc/}:S) the mean per-datapoint delta of
# each group member is reported too.

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
import wult_perf  # noqa: E402

STATS = ("count", "min", "median", "p99", "p99.9", "max")
METRICS = ("WakeLatency", "IntrLatency")
CSV_COLS = ("WakeLatency", "IntrLatency", "SilentTime", "LDist", "ReqCState",
            "IntrOff", "WakeLatencyRaw", "IntrLatencyRaw", "SMICnt",
            "NMICnt", "CPU")
# libwult's time metrics (tests/host/test_dp_fields.sh holds them to its
# table); RunLatency (ipi --wake-task only) is not a CSV column here.
TIME_COLS = {"WakeLatency", "IntrLatency", "SilentTime", "LDist",
             "WakeLatencyRaw", "IntrLatencyRaw", "RunLatency"}

opts = None
points = {"raw": {}, "tp": {}}         # source -> (cpu, seq) -> metrics
group_deltas = {}                      # (cpu, seq) -> [member deltas]
last_values = {}                       # cpu -> {id: value}


def trace_begin():
    global opts
    ap = argparse.ArgumentParser(prog="wult-report.py")
    ap.add_argument("--csv", metavar="FILE")
    ap.add_argument("--ns", action="store_true")
    ap.add_argument("--count", type=int, metavar="N")
    opts = ap.parse_args(sys.argv[1:])


def add_point(src, dp):
    key = (dp["cpu"], dp["seq"])
    if key not in points[src]:
        points[src][key] = wult_perf.metrics(dp)
    return key


def process_event(param_dict):
    if not param_dict.get("ev_name", "").startswith("wult"):
        return
    dp = wult_perf.from_raw(param_dict.get("raw_buf"))
    if dp is None or not wult_perf.is_sampler(param_dict):
        return
    key = add_point("raw", dp)
    vals = wult_perf.read_values(param_dict)
    if vals and len(vals) > 1:
        # Group read at this datapoint: the members' counts since the last
        # datapoint of this CPU are their deltas over this wake cycle.
        cur = dict(vals)
        prev = last_values.get(dp["cpu"])
        if prev is not None:
            group_deltas[key] = [cur[i] - prev.get(i, 0) for i, _ in vals[1:]]
        last_values[dp["cpu"]] = cur


def trace_unhandled(event_name, context, fields, perf_sample_dict):
    if event_name == wult_perf.TP_NAME:
        add_point("tp", wult_perf.from_fields(fields))


def fmt(val, stat):
    if stat == "count":
        return "%d" % val
    if opts.ns:
        return "%.0f" % val
    return "%.3f" % (val / 1000.0)


def print_report(dps):
    unit = "ns" if opts.ns else "us"
    by_state = {}
    for key, m in sorted(dps.items()):
        by_state.setdefault(m["ReqCState"], []).append((key, m))
    cpus = sorted({m["CPU"] for m in dps.values()})
    print("wult: %d datapoints, CPUs %s, latencies in %s" %
          (len(dps), ",".join(map(str, cpus)), unit))
    print("%-10s %-12s" % ("ReqCState", "Metric") +
          "".join("%11s" % s for s in STATS))
    groups = sorted(by_state.items()) + [("all", sorted(dps.items()))]
    for state, items in groups:
        for metric in METRICS:
            s = wult_perf.summary([m[metric] for _, m in items
                                   if m[metric] is not None])
            print("%-10s %-12s" % (state, metric) +
                  "".join("%11s" % fmt(s[st], st) for st in STATS))
        deltas = [group_deltas[k] for k, _ in items if k in group_deltas]
        for i in range(len(deltas[0]) if deltas else 0):
            mean = sum(d[i] for d in deltas) / len(deltas)
            print("%-10s group member %d: mean delta per datapoint %.1f" %
                  (state, i + 1, mean))


def write_csv(dps, path):
    with open(path, "w") as f:
        f.write(",".join(CSV_COLS) + "\n")
        for _, m in sorted(dps.items()):
            row = []
            for c in CSV_COLS:
                v = m[c]
                if v is None:
                    row.append("")     # no value, as wult report --csv
                else:
                    row.append("%.3f" % (v / 1000.0) if c in TIME_COLS else str(v))
            f.write(",".join(row) + "\n")


def trace_end():
    src = "raw" if points["raw"] else "tp"
    dps = points[src]
    if opts.count is not None:
        dps = dict(sorted(dps.items())[:opts.count])
    if not dps:
        print("wult-report.py: no wult datapoints in this file (record with "
              "'perf record -R -e wult/datapoints/' or '-e wult:datapoint')",
              file=sys.stderr)
        sys.stdout.flush()
        return
    print_report(dps)
    if opts.csv:
        write_csv(dps, opts.csv)
        print("wrote %d datapoints to %s" % (len(dps), opts.csv))
    sys.stdout.flush()
