#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace_parts.py KSYMS TRACE [--flat] [--against BASE]: the instructions
of each wake traced by trace_wake.sh, per part, a part being the innermost
of the functions below on the call stack (followed by the stack pointer:
a function left returns above its entry's RSP), "kernel" outside them.
--flat: per function instead. --against: per function, the difference
from the shortest wake of BASE's trace (e.g. the baseline timer's)."""
import bisect
import collections
import sys

PARTS = {
    "wult_idle_probe": "cpu_idle probe (dispatch)",
    "wult_idle_enter_acct": "idle entry probe",
    "wult_idle_exit_acct": "idle exit probe",
    "wult_irqs_pending": "idle exit: pending vectors",
    "wult_hrt_fn": "our interrupt", "wult_tdt_fn": "our interrupt",
    "wult_tdt_timer_entry": "our interrupt",
    "wult_emit": "checks and fields", "wult_hist_add": "histograms",
    "wult_deliver": "rest of output", "wult_pmu_deliver": "delivery: ours",
    "wult_deliver_count": "rest of output",
    "wult_pmu_count_plain": "delivery: ours",
    "perf_swevent_get_recursion_context": "delivery: ours",
    "wult_arm": "arming", "ktime_get": "ktime_get_ns()",
    "__traceiter_cpu_idle": "cpu_idle iterator (two probes)",
    # perf_tp_event() and what it calls for one sample
    "perf_tp_event": "perf: perf_tp_event()",
    "perf_trace_buf_update": "perf: trace_entry",
    "perf_swevent_event": "perf: swevent_event",
    "__perf_event_overflow": "perf: __perf_event_overflow",
    "perf_event_output_forward": "perf: event_output_forward",
    "perf_prepare_sample": "perf: prepare_sample",
    "__perf_event_header__init_id": "perf: sample_id (TID, TIME, ID, CPU)",
    "perf_output_begin_forward": "perf: output_begin",
    "perf_output_sample": "perf: output_sample",
    "perf_output_copy": "perf: output copies", "__output_copy": "perf: output copies",
    "perf_output_end": "perf: output_end",
}


def symbols(ksyms, trace):
    ents = []
    for line in open(ksyms):
        p = line.split()
        ents.append((int(p[0], 16), p[2]))
    for line in open(trace + ".syms"):
        p = line.split()
        ents.append((int(p[0], 16), p[1]))
    ents.sort()
    return [a for a, _ in ents], [n for _, n in ents]


def wakes(trace):
    out = []
    for line in open(trace):
        if line.startswith("WAKE"):
            out.append([])
        else:
            pc, sp = line.split()
            out[-1].append((int(pc, 16), int(sp, 16)))
    return out


def parts(w, addrs, names):
    count, stack = collections.Counter(), []
    for pc, sp in w:
        while stack and sp > stack[-1][1]:
            stack.pop()
        i = bisect.bisect_right(addrs, pc) - 1
        if names[i] in PARTS and pc == addrs[i]:
            stack.append((PARTS[names[i]], sp))
        part = stack[-1][0] if stack else "kernel"
        if part == "ktime_get_ns()" and len(stack) > 1:
            part += " in " + stack[-2][0]
        count[part] += 1
    return count


def flat(w, addrs, names):
    return collections.Counter(names[bisect.bisect_right(addrs, pc) - 1] for pc, _ in w)


def main():
    ksyms, trace = sys.argv[1], sys.argv[2]
    addrs, names = symbols(ksyms, trace)
    ws = wakes(trace)
    if "--against" in sys.argv:
        base = sys.argv[sys.argv.index("--against") + 1]
        baddrs, bnames = symbols(ksyms, base)
        bw, tw = min(wakes(base), key=len), min(ws, key=len)
        cb, ct = flat(bw, baddrs, bnames), flat(tw, addrs, names)
        print("%d instructions against %d: %+d" % (len(tw), len(bw), len(tw) - len(bw)))
        diff = {k: ct[k] - cb[k] for k in set(cb) | set(ct)}
        for k, v in sorted(diff.items(), key=lambda x: (-abs(x[1]), x[0])):
            if v:
                print("  %+6d %6d %s" % (v, ct[k], k))
        return
    for i, w in enumerate(ws):
        c = flat(w, addrs, names) if "--flat" in sys.argv else parts(w, addrs, names)
        print("wake %d: %d instructions" % (i, len(w)))
        for k, v in sorted(c.items(), key=lambda x: (-x[1], x[0])):
            print("  %6d %s" % (v, k))


main()
