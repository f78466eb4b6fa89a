# SPDX-License-Identifier: GPL-2.0
#
# wult_perf.py: decoding shared by the perf script -s scripts in this folder.
#
# A wult datapoint reaches perf script either as the raw payload of a "wult"
# PMU sample (raw_buf: an 8-byte struct trace_entry + struct wult_dp, see
# kernel/uapi/linux/wult.h) or as a wult:datapoint tracepoint record whose
# fields perf hands over by name. Both become the same dict here.

import math
import os
import struct

# struct wult_dp's layout, as kernel/uapi/linux/wult.h's field list
# (WULT_DP_FIELDS) makes it: tests/host/test_dp_fields.sh checks these
# against the C side's offsets, sizes and signedness.
HDR = struct.Struct("<HBBi")            # struct trace_entry
DP = struct.Struct("<11QIi6I2Q")        # struct wult_dp, version 1
DP_FIELDS = ("ltime", "tbi", "tai", "tintr", "ldist", "ai_ts1", "ai_ts2",
             "intr_ts1", "intr_ts2", "tsc_delta", "mperf_delta", "cpu",
             "req_cstate", "intr_off", "flags", "smi_cnt", "nmi_cnt",
             "tsc_khz", "seq", "wake_latency", "intr_latency")
DP2 = struct.Struct("<2I")              # appended by versions 2 and 3
DP2_FIELDS = ("source", "ltime_err")
DP4 = struct.Struct("<Q")               # appended by version 4
DP4_FIELDS = ("ttask",)
REC_SIZE = HDR.size + DP.size
# The uapi header's lists: the sources (WULT_SOURCES, enum wult_source_id)
# and the PMU's config terms (WULT_CFG_TERMS: name -> (word, lo bit, hi
# bit)); tests/host/test_cfg_terms.sh checks both against the C side.
SOURCES = {0: "hrt", 1: "tdt", 2: "ipi", 3: "nic"}
CFG_TERMS = {
    "ldist_min": ("config", 0, 15),
    "ldist_max": ("config", 16, 31),
    "kind": ("config", 32, 39),
    "source": ("config", 40, 43),
    "state": ("config", 48, 55),
    "band_lo": ("config1", 0, 31),
    "band_hi": ("config1", 32, 63),
    "launcher": ("config2", 0, 15),
    "noshadow": ("config2", 16, 16),
    "waketask": ("config2", 17, 17),
    "device": ("config2", 0, 31),
}
TP_NAME = "wult__datapoint"             # how perf names wult:datapoint
# A branch context (struct wult_branches, WULT_BR_MAX = 32 entries): the
# payload of wult/branches/ samples, which perf script may hand over with
# the attr of another group member.
BR_MAX = 32
BR = struct.Struct("<Q4I%dQ%dQ" % (BR_MAX, BR_MAX))  # struct wult_branches
BR_REC_SIZE = HDR.size + BR.size
BR_TP_NAME = "wult__wake_branches"
# struct wult_dp's flags: which optional fields hold a value.
DPF_MPERF = 0x1
DPF_SMI = 0x2
DPF_NMI = 0x4
# ipi: a need_resched write woke the CPU, no interrupt: no IntrLatency.
DPF_FLAG_WAKE = 0x20
# ipi waketask: the wake woke a kernel thread; ttask is when it ran.
DPF_TASK = 0x80
KIND_DATAPOINTS = 0
KIND_BRANCHES = 3
# Latency-band events sample the datapoints in their band.
KIND_WAKE_BAND = 6
KIND_INTR_BAND = 7
DATAPOINT_KINDS = (None, KIND_DATAPOINTS, KIND_WAKE_BAND, KIND_INTR_BAND)
PERF_TYPE_MAX = 6                       # dynamic PMUs (wult) are above


def cfg_term(name, words):
    """A config term's value; words: {"config": ..., "config1": ..., "config2": ...}."""
    word, lo, hi = CFG_TERMS[name]
    return (words.get(word, 0) >> lo) & ((1 << (hi - lo + 1)) - 1)


def is_branches_raw(raw):
    """Is this raw payload a branch context? perf pads raw data to 8 bytes
    with its 4-byte size, and raw_buf keeps the padding."""
    return raw is not None and BR_REC_SIZE <= len(raw) < BR_REC_SIZE + 8


def from_raw(raw):
    """struct wult_dp fields of a PMU raw payload, or None if it is none."""
    if not raw or len(raw) < REC_SIZE or is_branches_raw(raw):
        return None
    dp = dict(zip(DP_FIELDS, DP.unpack_from(raw, HDR.size)))
    # Version 1 records end here (perf's padding may follow): hrt.
    dp.update(dict.fromkeys(DP2_FIELDS, 0))
    if len(raw) >= REC_SIZE + DP2.size and len(raw) != REC_SIZE + 4:
        dp.update(zip(DP2_FIELDS, DP2.unpack_from(raw, REC_SIZE)))
    # Version 3 records are 156 bytes with perf's padding, version 4's 164.
    dp.update(dict.fromkeys(DP4_FIELDS, 0))
    if len(raw) >= REC_SIZE + DP2.size + DP4.size:
        dp.update(zip(DP4_FIELDS, DP4.unpack_from(raw, REC_SIZE + DP2.size)))
    return dp


def attr_kind(param_dict):
    """The wult kind of the sample's attr, or None for other PMUs."""
    attr = param_dict.get("attr")
    if not attr or len(attr) < 16:
        return None
    ptype, config = struct.unpack_from("<I4xQ", attr, 0)
    return cfg_term("kind", {"config": config}) if ptype >= PERF_TYPE_MAX else None


def branches_from_raw(param_dict):
    """A branch context (dict: ltime, cpu, seq, nr, flags, frm, to) of a
    wult/branches/ sample, or None. perf script hands group-read copies of
    other samples over with this attr too: only branch payloads count."""
    raw = param_dict.get("raw_buf")
    if attr_kind(param_dict) != KIND_BRANCHES or not is_branches_raw(raw):
        return None
    v = BR.unpack_from(raw, HDR.size)
    return {"ltime": v[0], "cpu": v[1], "seq": v[2], "nr": v[3], "flags": v[4],
            "frm": list(v[5:5 + BR_MAX]), "to": list(v[5 + BR_MAX:])}


def branches_from_fields(fields):
    """The same from a wult:wake_branches tracepoint record."""
    def arr(v):
        if isinstance(v, (bytes, bytearray)):
            return list(struct.unpack_from("<%dQ" % BR_MAX, v))
        return [int(x) for x in v]
    br = {f: int(fields[f]) for f in ("ltime", "cpu", "seq", "nr", "flags")}
    br["frm"] = arr(fields["from"])
    br["to"] = arr(fields["to"])
    return br


def from_fields(fields):
    """struct wult_dp fields of a wult:datapoint tracepoint record."""
    dp = {f: int(fields[f]) for f in DP_FIELDS}
    dp.update({f: int(fields.get(f, 0)) for f in DP2_FIELDS})
    dp.update({f: int(fields.get(f, 0)) for f in DP4_FIELDS})
    return dp


PERF_SAMPLE_READ = 1 << 4


def read_values(param_dict):
    """[(id, value)] of a sample's PERF_SAMPLE_READ, or None without one.

    perf fills "values" even when the event has no PERF_SAMPLE_READ, so
    the attr's sample_type (offset 24) decides; perf 6.1 gives each value
    as (id, value, lost)."""
    attr = param_dict.get("attr")
    vals = param_dict["sample"].get("values")
    if not attr or len(attr) < 32 or not vals:
        return None
    if not struct.unpack_from("<Q", attr, 24)[0] & PERF_SAMPLE_READ:
        return None
    return [(v[0], v[1]) for v in vals]


def is_sampler(param_dict):
    """Is this sample delivered for the event that sampled?

    perf script hands a group-read sample to the script once per group
    member, each copy with the member's attr and the same raw payload;
    only the sampling event (period or frequency set) is the datapoint."""
    attr = param_dict.get("attr")
    if not attr or len(attr) < 48:
        return True
    # A wult event of another kind (e.g. a branches member) is not it.
    if attr_kind(param_dict) not in DATAPOINT_KINDS:
        return False
    period = struct.unpack_from("<Q", attr, 16)[0]
    freq = struct.unpack_from("<Q", attr, 40)[0] & (1 << 10)
    return period != 0 or freq != 0


def cyc2ns(cycles, tsc_khz):
    return cycles * 1000000 // tsc_khz if tsc_khz else 0


def metrics(dp):
    """intel wult's metrics of one datapoint, times in ns.

    *Raw are the plain differences; WakeLatency and IntrLatency subtract
    the cost of the probe that ran first from the stamp taken after it:
    with IntrOff the after-idle probe delayed the interrupt handler,
    otherwise the interrupt handler delayed the after-idle probe."""
    wake_raw = dp["tai"] - dp["ltime"]
    intr_raw = dp["tintr"] - dp["ltime"]
    khz = dp["tsc_khz"]
    if dp["intr_off"]:
        wake = wake_raw
        intr = intr_raw - cyc2ns(dp["ai_ts2"] - dp["ai_ts1"], khz)
    else:
        wake = wake_raw - cyc2ns(dp["intr_ts2"] - dp["intr_ts1"], khz)
        intr = intr_raw
    flags = dp["flags"]
    if flags & DPF_FLAG_WAKE:
        intr = intr_raw = None
    cc0 = None
    if flags & DPF_MPERF and dp["tsc_delta"] > 0:
        cc0 = min(100.0, dp["mperf_delta"] / dp["tsc_delta"] * 100)
    # As libwult's decoder: a counter without its validity flag is no
    # value (None), not a zero.
    return {
        "CPU": dp["cpu"],
        "WakeLatency": wake,
        "IntrLatency": intr,
        "WakeLatencyRaw": wake_raw,
        "IntrLatencyRaw": intr_raw,
        "SilentTime": dp["ltime"] - dp["tbi"],
        "LDist": dp["ldist"],
        "ReqCState": state_name(dp["cpu"], dp["req_cstate"]),
        "IntrOff": dp["intr_off"],
        "CC0%": cc0,
        "SMICnt": dp["smi_cnt"] if flags & DPF_SMI else None,
        "NMICnt": dp["nmi_cnt"] if flags & DPF_NMI else None,
        # ipi waketask: when the woken thread ran; none without a task.
        "RunLatency": (dp["ttask"] - dp["ltime"]
                       if flags & DPF_TASK and dp.get("ttask") else None),
    }


_names = {}


def state_name(cpu, idx):
    """The requested idle state's name: from $WULT_CSTATES (comma-separated
    names by index, as wult report --cstates), else from cpuidle sysfs on
    this machine.

    Without a cpuidle driver the kernel's default idle reports index 0 for
    polling (idle=poll) and 1 for the architecture's default idle, which
    is HLT, i.e. C1, on x86."""
    key = (cpu, idx)
    given = os.environ.get("WULT_CSTATES")
    if given:
        # Names given (as wult report --cstates): by index, for every CPU.
        names = given.split(",")
        return names[idx] if 0 <= idx < len(names) else "state%d" % idx
    if key not in _names:
        path = "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name" % (cpu, idx)
        try:
            with open(path) as f:
                _names[key] = f.read().strip()
        except OSError:
            _names[key] = {0: "POLL", 1: "C1"}.get(idx, "state%d" % idx)
    return _names[key]


def percentile(sorted_vals, pct):
    """numpy's default (linear) percentile of sorted values, as libwult."""
    n = len(sorted_vals)
    if not n:
        return float("nan")
    pos = (n - 1) * pct / 100.0
    lo = int(math.floor(pos))
    if lo >= n - 1:
        return float(sorted_vals[-1])
    frac = pos - lo
    return sorted_vals[lo] + (sorted_vals[lo + 1] - sorted_vals[lo]) * frac


def summary(vals):
    """count, min, max, mean, stddev (n - 1), median and tail percentiles."""
    v = sorted(vals)
    n = len(v)
    mean = sum(v) / n if n else float("nan")
    var = sum((x - mean) ** 2 for x in v) / (n - 1) if n > 1 else 0.0
    return {
        "count": n,
        "min": v[0] if n else float("nan"),
        "max": v[-1] if n else float("nan"),
        "mean": mean,
        "stddev": math.sqrt(var),
        "median": percentile(v, 50),
        "p90": percentile(v, 90),
        "p99": percentile(v, 99),
        "p99.9": percentile(v, 99.9),
        "p99.99": percentile(v, 99.99),
        "p99.999": percentile(v, 99.999),
    }

