#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The system description and what wult report makes of it, on wult synth's
# files (which carry a synthetic description: POLL 0/0, C1 2/2, C6 170/600
# us declared): --info; the settings two results differ in; declared
# against measured in the text, --json and HTML, value by value against the
# per-state statistics of the same run (ratio, flags and their 0.5
# threshold); --suggest's latencies (the percentile, rounded up), its
# intel_idle.table= string and PM QoS values, --suggest-pct; inputs without
# a description (a fixture recorded before them), and one whose description
# is corrupt. Runs the ASan/UBSan build.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
DATA=$top/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

if ! command -v python3 >/dev/null; then
	t_skip "python3 is not installed: no JSON parser to check with"
	t_done
	exit
fi
cd "$tmp" || exit 1
# No tail: every wake 1-20 us, so C1 (2 us) exceeds and C6 (170 us) lies
# far below what it declares.
"$W" synth -o s3.data -c 3000 -s 1 --nr-cstates 3 --tail 0,1us >/dev/null 2>&1 ||
	"$W" synth -o s3.data -c 3000 -s 1 --cstates 3 --tail 0,1000 >/dev/null 2>&1
"$W" synth -o s4.data -c 2000 -s 2 --cstates 4 >/dev/null 2>&1
t_check "wult synth wrote the inputs" test -s s3.data -a -s s4.data

# --info: the description, marked synthetic.
"$W" report --info s3.data > info.out 2> info.err
rc=$?
t_eq "--info exit status" 0 "$rc"
t_check "--info says synthetic" grep -q '^s3.data: system description (synthetic' info.out
t_check "--info lists state 2's declared latency" grep -Eq '^  state2\.latency_us +170$' info.out
t_check "--info lists the governor" grep -Eq '^  cpuidle\.governor +menu$' info.out
t_check "--info prints no statistics" bash -c '! grep -q "WakeLatency" info.out'

# A recording from before the descriptions: said, and no declared block.
"$W" report --info "$DATA/wult_record.data" > old.out 2>&1
t_check "--info of an old recording: no description" \
	grep -q 'wult_record.data: no system description' old.out
"$W" report "$DATA/wult_record.data" > old-text.out 2>&1
t_check "no declared block for an input without a description" \
	bash -c '! grep -q "^Declared against measured" old-text.out'
"$W" report --suggest "$DATA/wult_record.data" > old-sug.out 2>&1
t_check "--suggest on it says the declared values are unknown" \
	grep -q 'declared latencies: unknown: the input carries no system description' old-sug.out

# --declared-sysfs: this machine's sysfs, on request only, and said so.
"$W" report --declared-sysfs "$DATA/wult_record.data" > sysfs.out 2>&1
t_check "--declared-sysfs names its source and its caveat" \
	grep -q "^  declared: this machine's cpuidle sysfs (--declared-sysfs: right only if" sysfs.out

# The settings that differ: s3 has 3 states, s4 4.
"$W" report s3.data s4.data > diff.out 2>&1
t_check "the diff lists the differing state count" grep -Eq '^  cpuidle\.states +3 \| 4$' diff.out
t_check "the diff lists s4's extra state" grep -Eq '^  state3\.name +- \| C8$' diff.out
t_check "the diff leaves equal settings out" bash -c '! grep -Eq "^  cpuidle\.governor " diff.out'
"$W" report --json s3.data s4.data > diff.json 2>/dev/null
t_check "--json: the settings that differ" python3 -c '
import json, sys
d = json.load(open("diff.json"))["system_differences"]
v = {r["key"]: r["values"] for r in d}
sys.exit(not (v.get("cpuidle.states") == ["3", "4"] and v.get("state3.name") == [None, "C8"]
              and "cpuidle.governor" not in v))'
"$W" report s3.data s3.data > same.out 2>&1
t_check "two equal descriptions: no differing settings" \
	bash -c '! grep -q "System settings that differ" same.out'

# Declared against measured, text and JSON of the same run, and --suggest.
"$W" report --unit ns --suggest s3.data > text.out 2>&1
"$W" report --json --suggest s3.data > doc.json 2>/dev/null
"$W" report --json --suggest --suggest-pct 99 s3.data > doc99.json 2>/dev/null
cat > check.py <<'EOF'
import json, math, sys

doc = json.load(open(sys.argv[1]))
doc99 = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
errors = []
f = doc["inputs"][0]
d = f["declared"]
groups = {g["name"]: g for g in f["groups"]}
if d["source"] != "the recording's system description" or not d["synthetic"]:
    errors.append("source %r synthetic %r" % (d["source"], d["synthetic"]))
if d["far_below_fraction"] != 0.5:
    errors.append("threshold %r" % d["far_below_fraction"])
declared = {"POLL": (0, 0), "C1": (2, 2), "C6": (170, 600)}
flags = {}
table = []
for s in d["states"]:
    wl = groups[s["state"]]["metrics"]["WakeLatency"]
    lat, res = declared[s["name"]]
    if (s["exit_latency_us"], s["target_residency_us"]) != (lat, res):
        errors.append("%s declared %r/%r" % (s["name"], s["exit_latency_us"],
                                              s["target_residency_us"]))
    for k in ("median", "p99", "p99.99", "max"):
        if s[k] != wl[k]:
            errors.append("%s %s %r != the table's %r" % (s["name"], k, s[k], wl[k]))
    p = wl["p99.99"]
    if lat:
        ratio = round(p / (lat * 1e3), 4)
        flag = "exceeds" if p > lat * 1e3 else "far-below" if p < 0.5 * lat * 1e3 else None
    else:
        ratio = flag = None
    if s["ratio"] != ratio or s["flag"] != flag:
        errors.append("%s ratio %r flag %r, expected %r %r" % (s["name"], s["ratio"],
                                                              s["flag"], ratio, flag))
    flags[s["name"]] = s["flag"]
    # --suggest at p99.99: that percentile, rounded up to us.
    if s["suggest_measured"] != p or s["suggest_exit_latency_us"] != math.ceil(p / 1e3):
        errors.append("%s suggested %r from %r" % (s["name"], s["suggest_exit_latency_us"],
                                                   s["suggest_measured"]))
    if s["name"] != "POLL":
        sug = math.ceil(p / 1e3)
        table.append((lat, "%s:%d:%s" % (s["name"], sug, sug if res < sug else "")))
    # The text report's row: the same ratio and flag.
    label = s["state"] if s["state"] == s["name"] else s["state"] + "=" + s["name"]
    row = [l for l in text.splitlines() if l.split()[:1] == [label] and
           len(l.split()) >= 8 and l.split()[1] == str(lat)]
    if not row or (ratio is not None and "%.2f" % ratio not in row[0]) or \
       (flag and not row[0].rstrip().endswith(flag)):
        errors.append("text row of %s: %r" % (s["name"], row))
if flags != {"POLL": None, "C1": "exceeds", "C6": "far-below"}:
    errors.append("flags %r" % flags)
want = ",".join(t for _, t in sorted(table))
if d["intel_idle_table"] != want or ("intel_idle.table=" + want) not in text:
    errors.append("table %r, expected %r" % (d["intel_idle_table"], want))
# --suggest-pct 99: the p99 instead.
for s in doc99["inputs"][0]["declared"]["states"]:
    p99 = groups[s["state"]]["metrics"]["WakeLatency"]["p99"]
    if s["suggest_measured"] != p99 or s["suggest_exit_latency_us"] != math.ceil(p99 / 1e3):
        errors.append("pct 99: %s %r" % (s["name"], s["suggest_measured"]))
if doc99["inputs"][0]["declared"]["suggest_percentile"] != 99:
    errors.append("suggest_percentile")
# The description itself in the JSON.
if f["system"].get("state2.name") != "C6" or not f["system"]["synthetic"].startswith("yes"):
    errors.append("system %r" % f["system"].get("state2.name"))
for e in errors:
    print("mismatch:", e)
sys.exit(1 if errors else 0)
EOF
t_check "declared against measured and --suggest: JSON = the tables = the text" \
	python3 check.py doc.json doc99.json text.out
t_check "the text names where the declared values come from" \
	sh -c "grep -A1 '^Declared against measured: s3.data\$' text.out |
		grep -q '^  declared: the recording.s system description\$'"
t_check "the text states the flag threshold" grep -q 'under 0.50 x the' text.out
t_check "PM QoS: C6 allowed at 170 us, its cost shown" \
	grep -Eq '^  state2=C6 +170 us +[0-9]+ us +[0-9.]+$' text.out

"$W" report --suggest-pct 0 s3.data > bad.out 2>&1
t_eq "--suggest-pct 0 is a usage error" 2 "$?"
t_check "... that says why" grep -q -- '--suggest-pct 0: a percentile above 0' bad.out
"$W" report --suggest-pct 99.9x s3.data > /dev/null 2>&1
t_eq "--suggest-pct 99.9x is a usage error" 2 "$?"

# HTML: the description and the block on the page.
"$W" report --html page.html s3.data s4.data > /dev/null 2>&1
t_check "HTML: the description" grep -q '<summary>System description</summary>' page.html
t_check "HTML: declared against measured" grep -q 'Declared against measured: s3.data' page.html
t_check "HTML: the settings that differ" grep -q 'System settings that differ' page.html

# Pipe mode (as wult record -o -): the description travels under
# HEADER_STAT's id; wult reads it, stock perf ignores it.
"$W" synth -o - -c 300 -s 1 > pipe.data 2>/dev/null
"$W" report --info - < pipe.data > pipe-info.out 2>&1
t_check "pipe mode: the description read back" grep -Eq '^  state2\.latency_us +170$' pipe-info.out
if command -v perf >/dev/null; then
	n=$(perf script -i - < pipe.data 2>/dev/null | grep -c 'wult:datapoint')
	t_eq "pipe mode: stock perf script reads every sample" 300 "$n"
else
	t_skip "no perf: stock perf on the pipe not checked"
fi

# A corrupt description: said, the report still made.
python3 - s3.data bad.data <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
i = b.index(b"wult-sysdesc 1\n")
open(sys.argv[2], "wb").write(b[:i] + b"wult-sysdesc 9\n" + b[i + 15:])
EOF
"$W" report --info bad.data > corrupt.out 2>&1
t_eq "--info of a corrupt description: exit 0" 0 "$?"
t_check "... says it is unreadable, and why" \
	grep -q 'the system description is unreadable: system description: line 1 is not' corrupt.out
"$W" report bad.data > corrupt-text.out 2>&1
t_eq "the report of it still made" 0 "$?"
t_check "... its declared values unknown" bash -c '! grep -q "^Declared" corrupt-text.out'
t_done
