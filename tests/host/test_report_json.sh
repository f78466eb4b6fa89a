#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report --json and --fail-if: the JSON document parsed by Python's
# json module (NaN and Infinity refused), checked against its schema
# (required keys, types, units) and against the text report and the CSV
# export of the same input, value by value; --fail-if's exit statuses and
# messages (holds, does not hold, malformed, unknown names); and wult
# record's progress rules (a unit test on a fake clock: wult record
# cannot run without wult.ko here). Runs the ASan/UBSan build.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
WREL=$build/rel/wult
DATA=$top/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

if ! command -v python3 >/dev/null; then
	t_skip "python3 is not installed: no JSON parser to check with"
	t_done
	exit
fi

# The checker: check.py JSON TEXT [CSV] validates the document and compares
# it with the text report (-u ns) of the same run, and with the CSV export.
cat > "$tmp/check.py" <<'EOF'
import csv, json, math, re, sys

errors = []
def fail(msg):
    errors.append(msg)

def no_const(name):
    raise ValueError("non-JSON constant " + name)

doc = json.load(open(sys.argv[1], "rb"), parse_constant=no_const)
text = open(sys.argv[2]).read() if len(sys.argv) > 2 and sys.argv[2] != "-" else None
csv_path = sys.argv[3] if len(sys.argv) > 3 else None
STATS = ["count", "min", "median", "p90", "p99", "p99.9", "p99.99", "p99.999",
         "max", "mean", "stddev"]
num = (int, float)
opt_str = (str, type(None))

def need(obj, key, types, where):
    if not isinstance(obj, dict) or key not in obj:
        fail("%s: no '%s'" % (where, key))
        return None
    if not isinstance(obj[key], types) or isinstance(obj[key], bool) and bool not in (
            types if isinstance(types, tuple) else (types,)):
        fail("%s.%s: %r is not %s" % (where, key, obj[key], types))
    return obj[key]

# ---- schema ----
need(doc, "schema_version", int, "doc") == 1 or fail("schema_version is not 1")
need(doc, "generator", str, "doc")
units = need(doc, "units", dict, "doc") or {}
units.get("time") == "ns" or fail("units.time is not ns")
need(doc, "statistics", list, "doc") == STATS or fail("statistics list differs")
inputs = need(doc, "inputs", list, "doc") or []
for i, f in enumerate(inputs):
    w = "inputs[%d]" % i
    need(f, "path", str, w)
    need(f, "kind", str, w) in ("perf.data", "intel wult") or fail(w + ": kind")
    need(f, "pipe_mode", (bool, type(None)), w)
    for k in ("host", "kernel", "command", "format", "format_warning", "tool",
              "tool_version", "device", "cpu", "method"):
        need(f, k, opt_str, w)
    for k in ("events", "description"):
        all(isinstance(x, str) for x in need(f, k, list, w) or []) or fail(w + "." + k)
    all(isinstance(x, int) for x in need(f, "cpus", list, w) or []) or fail(w + ".cpus")
    ld = need(f, "ldist_ns", (dict, type(None)), w)
    if ld is not None:
        need(ld, "min", num, w + ".ldist_ns"); need(ld, "max", num, w + ".ldist_ns")
    v = need(f, "validity", dict, w) or {}
    for k in ("read", "kept", "excluded", "lost_samples", "lost_records", "undecodable",
              "other_samples", "multiplexed", "out_of_range"):
        need(v, k, int, w + ".validity")
    groups = need(f, "groups", list, w) or []
    (groups and groups[-1].get("name") == "all") or fail(w + ": 'all' is not last")
    for g in groups:
        gw = "%s.groups[%s]" % (w, g.get("name"))
        need(g, "name", str, gw); need(g, "state", str, gw)
        need(g, "cpu", (int, type(None)), gw)
        for k in ("kept", "excluded", "multiplexed"):
            need(g, k, int, gw)
        for m, st in (need(g, "metrics", dict, gw) or {}).items():
            st.get("unit") == "ns" or fail(gw + "." + m + ": unit")
            need(st, "count", int, gw + "." + m)
            for s in STATS[1:]:
                need(st, s, (int, float, type(None)), gw + "." + m)
        for m, c in (need(g, "counter_means", dict, gw) or {}).items():
            need(c, "mean", num, gw + "." + m); need(c, "unit", str, gw + "." + m)
            need(c, "datapoints", int, gw + "." + m)
    r = need(f, "idle_residency", (dict, type(None)), w)
    if r is not None:
        need(r, "span_s", num, w + ".idle_residency"); need(r, "cpus", int, w)
        need(r, "irq", bool, w + ".idle_residency")
        for row in need(r, "rows", list, w + ".idle_residency") or []:
            need(row, "cpu", (int, type(None)), w + ".row")
            need(row, "state", str, w + ".row")
            for k in ("time_pct", "entries_per_s", "time_s", "entries"):
                need(row, k, num, w + ".row")
            for k in ("irq_time_pct", "irqs_per_s"):
                need(row, k, (int, float, type(None)), w + ".row")

# ---- the text report of the same input (one FILE, -u ns) ----
def close(txt, v, dec):
    """A text cell printed with @dec decimals against the JSON value."""
    if txt == "-":
        return v is None
    if v is None:
        return False
    return abs(float(txt) - v) <= 0.5 * 10 ** -dec + 1e-6

def ns_dec(cell):
    return len(cell.split(".")[1]) if "." in cell else 0

def check_text(f, text):
    lines = text.split("\n")
    desc = []
    for ln in lines[1:]:
        if ln.startswith("  method:") or ln.startswith("  datapoints:"):
            break
        desc.append(ln.strip())
    desc == f["description"] or fail("description %r != text %r" % (f["description"], desc))
    m = re.search(r"datapoints: (\d+) read, (\d+) kept, (\d+) excluded", text)
    v = f["validity"]
    (m and [int(x) for x in m.groups()] == [v["read"], v["kept"], v["excluded"]]) or \
        fail("validity counts differ from the text's")
    m = re.search(r"validity: (\d+) lost samples \((\d+) LOST records\), (\d+) undecodable, "
                  r"(\d+) other", text)
    (m and [int(x) for x in m.groups()] == [v["lost_samples"], v["lost_records"],
                                            v["undecodable"], v["other_samples"]]) or \
        fail("validity line differs from the text's")
    m = re.search(r"^  method: (.*)$", text, re.M)
    (m.group(1) if m else None) == f["method"] or fail("method differs")
    blocks = re.split(r"\n(?=\S[^\n]*: \d+ datapoints)", text)
    seen = 0
    for g in f["groups"]:
        blk = [b for b in blocks if b.startswith(g["name"] + ": ")]
        if len(blk) != 1:
            fail("group %s: %d text blocks" % (g["name"], len(blk)))
            continue
        b = blk[0].split("\n")
        int(re.match(r".*: (\d+) datapoints", b[0]).group(1)) == g["kept"] or \
            fail(g["name"] + ": kept")
        if not g["kept"]:
            continue
        cols = b[1].split()[1:]
        for row in b[2:13]:
            cells = row.split()
            stat, vals = cells[0], cells[1:]
            for col, cell in zip(cols, vals):
                jv = g["metrics"][col][stat]
                seen += 1
                close(cell, jv, ns_dec(cell)) or \
                    fail("%s %s %s: text %s, JSON %r" % (g["name"], col, stat, cell, jv))
        # the means line wraps: its continuation lines hold more items
        tail = b[13:]
        tail = tail[:tail.index("")] if "" in tail else tail   # the block's end
        means = ", ".join(x.strip() for x in tail if x.startswith("  "))
        means = means.replace("means:", "")
        for item in [x.strip() for x in means.split(",") if x.strip()]:
            parts = item.replace(" MHz", "").split()
            if len(parts) != 2 or parts[0] not in g["counter_means"]:
                if len(parts) == 2:
                    fail("%s: counter %s not in the JSON" % (g["name"], parts[0]))
                continue
            jv = g["counter_means"][parts[0]]["mean"]
            seen += 1
            close(parts[1], jv, ns_dec(parts[1])) or \
                fail("%s mean %s: text %s, JSON %r" % (g["name"], parts[0], parts[1], jv))
        len(g["counter_means"]) == len([x for x in means.split(",") if x.strip()]) or \
            fail("%s: counter means %s vs text '%s'" % (g["name"], list(g["counter_means"]),
                                                        means))
    r = f["idle_residency"]
    if r:
        rows = re.findall(r"^  (\d+|all) +(\S+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)"
                          r"(?: +([\d.]+) +([\d.]+))?$", text.split("idle residency")[1], re.M)
        len(rows) == len(r["rows"]) or fail("residency rows %d, text %d" % (len(r["rows"]),
                                                                             len(rows)))
        for t, j in zip(rows, r["rows"]):
            (t[0] == "all" and j["cpu"] is None or t[0] == str(j["cpu"])) or fail("row cpu")
            t[1] == j["state"] or fail("row state")
            for cell, k in zip(t[2:6], ("time_pct", "entries_per_s", "time_s", "entries")):
                seen += 1
                close(cell, j[k], ns_dec(cell)) or fail("residency %s %s %s: %s vs %r" % (
                    t[0], t[1], k, cell, j[k]))
    seen or fail("no value compared with the text")
    print("compared %d values with the text report" % seen)

# ---- the CSV export: each state's WakeLatency from its rows ----
def pct(a, q):
    h = (len(a) - 1) * q / 100.0
    lo = int(h)
    return a[lo] if lo >= len(a) - 1 else a[lo] + (h - lo) * (a[lo + 1] - a[lo])

def check_csv(f, path):
    by = {}
    for row in csv.DictReader(open(path)):
        by.setdefault(row["ReqCState"], []).append(round(float(row["WakeLatency"]) * 1000))
    by["all"] = sum(by.values(), [])
    for g in f["groups"]:
        a = sorted(by.get(g["state"], []))
        st = g["metrics"]["WakeLatency"]
        st["count"] == len(a) or fail("%s count %d, CSV %d" % (g["name"], st["count"], len(a)))
        for s, q in (("min", 0), ("median", 50), ("p99", 99), ("max", 100)):
            abs(st[s] - pct(a, q)) < 1e-6 or fail("%s %s: JSON %r, CSV %r" % (
                g["name"], s, st[s], pct(a, q)))
        mean = sum(a) / len(a)
        abs(st["mean"] - mean) < 0.01 or fail("%s mean: JSON %r, CSV %r" % (
            g["name"], st["mean"], mean))
    print("compared %d states with the CSV" % len(f["groups"]))

if text is not None and len(inputs) == 1:
    check_text(inputs[0], text)
if csv_path:
    check_csv(inputs[0], csv_path)
for e in errors[:20]:
    print("error:", e)
sys.exit(1 if errors else 0)
EOF

# check NAME ARGS...: the JSON of ARGS against the text report of ARGS.
check() {
	local name=$1
	shift
	"$W" report --json "$@" > "$tmp/j.json" 2>"$tmp/err" &&
		"$W" report -u ns "$@" > "$tmp/j.txt" 2>>"$tmp/err"
	t_eq "$name: exits 0" 0 $?
	if python3 "$tmp/check.py" "$tmp/j.json" "$tmp/j.txt" > "$tmp/py" 2>&1; then
		t_ok "$name: schema and values ($(grep -h compared "$tmp/py" | tr '\n' ' '))"
	else
		t_fail "$name: $(head -5 "$tmp/py" | tr '\n' ' ')"
	fi
}

# ---- inputs ----
$WREL synth -o "$tmp/a.data" -c 3000 -s 1 --cstates 3 >/dev/null
$WREL synth -o "$tmp/b.data" -c 2000 -s 2 --cstates 4 --wake 2us,30us >/dev/null
t_check "synthetic inputs written" test -s "$tmp/a.data" -a -s "$tmp/b.data"

# ---- JSON: schema, and the same values as the text report and CSV ----
check "synth" --cstates POLL,C1,C6 "$tmp/a.data"
check "synth, --raw and LDist" --raw -m WakeLatency,LDist "$tmp/a.data"
check "synth, filtered" -x 'WakeLatency > 20us' "$tmp/b.data"
check "idle residency (wult_resid.data)" "$DATA/wult_resid.data"
check "--per-cpu" --per-cpu "$DATA/wult_resid.data"
check "PMU group with counters" "$DATA/wult_pmu_group.data"
check "intel wult result" "$DATA/intel-wult/good"
$WREL synth -o - -c 500 -s 4 > "$tmp/pipe.data"
check "pipe mode" "$tmp/pipe.data"

"$W" report --json --csv "$tmp/a.csv" --cstates POLL,C1,C6 "$tmp/a.data" > "$tmp/a.json"
t_eq "--json with --csv exits 0" 0 $?
if python3 "$tmp/check.py" "$tmp/a.json" - "$tmp/a.csv" > "$tmp/py" 2>&1; then
	t_ok "WakeLatency per state as Python computes it from the CSV export"
else
	t_fail "JSON against the CSV: $(head -5 "$tmp/py" | tr '\n' ' ')"
fi

python3 - "$tmp/a.json" > "$tmp/py" 2>&1 <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))["inputs"][0]
assert f["kind"] == "perf.data" and f["pipe_mode"] is False, f["kind"]
assert f["host"] == "wult-synth" and f["kernel"] == "synthetic", f["host"]
assert f["command"] == "wult synth" and f["method"] == "hrt", f["command"]
assert f["format"] == "the file's TRACING_DATA", f["format"]
assert [g["name"] for g in f["groups"]] == ["POLL", "C1", "C6", "all"], f["groups"]
assert f["cpus"] and f["ldist_ns"]["min"] <= f["ldist_ns"]["max"]
assert f["groups"][-1]["kept"] == 3000 == f["validity"]["kept"]
assert "CC0%" in f["groups"][-1]["counter_means"]
assert f["groups"][-1]["counter_means"]["CC0%"]["unit"] == "%"
assert f["idle_residency"] is None
EOF
t_eq "metadata of a synthetic input: $(tail -1 "$tmp/py")" 0 $?

"$W" report --json --per-cpu "$DATA/wult_resid.data" | python3 -c '
import json, sys
f = json.load(sys.stdin)["inputs"][0]
for g in f["groups"][:-1]:
    assert g["name"] == "CPU%d %s" % (g["cpu"], g["state"]), g
assert f["groups"][-1]["cpu"] is None
r = f["idle_residency"]
assert r["cpus"] == 2 and r["rows"][-1]["cpu"] is None and r["rows"][-1]["state"] == "idle"
assert r["irq"] is False and r["rows"][0]["irq_time_pct"] is None
' 2>"$tmp/py"
t_eq "--per-cpu groups carry their CPU and state; residency nulls $(tail -1 "$tmp/py")" 0 $?

# --json=OUT: the file, and the text report still printed.
"$W" report --json="$tmp/o.json" --cstates POLL,C1,C6 "$tmp/a.data" > "$tmp/o.txt"
t_eq "--json=OUT exits 0" 0 $?
t_check "--json=OUT still prints the text report" grep -q "^POLL: 973 datapoints" "$tmp/o.txt"
"$W" report --json --cstates POLL,C1,C6 "$tmp/a.data" > "$tmp/s.json"
t_check "--json=OUT writes what --json prints" cmp -s "$tmp/o.json" "$tmp/s.json"
"$W" report --json="$tmp/nodir/o.json" "$tmp/a.data" >/dev/null 2>"$tmp/err"
t_eq "--json=OUT unwritable exits 1" 1 $?
t_check "--json=OUT unwritable says so" grep -q "cannot write $tmp/nodir/o.json" "$tmp/err"

# A diff: one entry per input, each as its own report.
"$W" report --json "$tmp/a.data" "$tmp/b.data" > "$tmp/d.json"
t_eq "--json of a diff exits 0" 0 $?
"$W" report --json "$tmp/b.data" > "$tmp/b.json"
python3 - "$tmp/d.json" "$tmp/b.json" <<'EOF' > "$tmp/py" 2>&1
import json, sys
d, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert len(d["inputs"]) == 2
assert d["inputs"][1]["groups"] == b["inputs"][0]["groups"]
EOF
t_eq "--json of a diff: the second input as its own report $(tail -1 "$tmp/py")" 0 $?

# Paths that are not UTF-8, with quotes and tabs: still a valid document.
odd="$tmp/we"$'\t'"i\"r\\d"$'\xff'".data"
cp "$tmp/a.data" "$odd"
"$W" report --json "$odd" | python3 -c '
import json, sys
p = json.loads(sys.stdin.buffer.read().decode("utf-8"))["inputs"][0]["path"]
assert p.endswith("we\ti\"r\\d\ufffd.data"), repr(p)' 2>"$tmp/py"
t_eq "a non-UTF-8 path is escaped and replaced $(tail -1 "$tmp/py")" 0 $?

# No NaN: a state of one datapoint has no stddev: null.
$WREL synth -o "$tmp/one.data" -c 1 -s 1 >/dev/null
"$W" report --json "$tmp/one.data" | python3 -c '
import json, sys
doc = json.load(sys.stdin, parse_constant=lambda c: sys.exit("constant " + c))
st = doc["inputs"][0]["groups"][-1]["metrics"]["WakeLatency"]
assert st["count"] == 1 and st["stddev"] is None and st["mean"] is not None, st' 2>"$tmp/py"
t_eq "stddev of one datapoint is null, not NaN $(tail -1 "$tmp/py")" 0 $?

# ---- --fail-if ----
# gate EXPECTED_STATUS NAME ARGS...: the status, stderr in $tmp/gerr.
gate() {
	local want=$1 name=$2
	shift 2
	"$W" report "$@" > "$tmp/gout" 2>"$tmp/gerr"
	t_eq "--fail-if $name: exits $want" "$want" $?
}
A="--cstates POLL,C1,C6 $tmp/a.data"
# POLL's p99.9 WakeLatency, from the JSON: the threshold around it.
p999=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([g for g in
	d["inputs"][0]["groups"] if g["name"] == "POLL"][0]["metrics"]["WakeLatency"]["p99.9"])' \
	"$tmp/a.json")
maxns=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
print(d["inputs"][0]["groups"][-1]["metrics"]["WakeLatency"]["max"])' "$tmp/a.json")
gate 3 "holds" --fail-if 'POLL.p99.9 WakeLatency > 150us' $A
t_check "--fail-if holding says so with the value" grep -q \
	"'POLL.p99.9 WakeLatency > 150us' HOLDS: POLL p99.9 WakeLatency is $(awk -v v="$p999" \
	'BEGIN { printf "%.3f", v / 1000 }') us in $tmp/a.data" "$tmp/gerr"
t_check "--fail-if holding still prints the report" grep -q "^POLL: 973 datapoints" "$tmp/gout"
gate 0 "does not hold" --fail-if "POLL.p99.9 WakeLatency > $(awk -v v="$p999" \
	'BEGIN { printf "%.0f", v + 1 }')ns" $A
t_check "--fail-if not holding says so" grep -q "does not hold: POLL p99.9" "$tmp/gerr"
gate 0 "at the value: > does not hold" --fail-if "all.max WakeLatency > ${maxns}ns" $A
gate 3 "at the value: >= holds" --fail-if "all.max WakeLatency >= ${maxns}ns" $A
gate 3 "one of several holds" --fail-if 'all.count WakeLatency < 10' \
	--fail-if 'all.count WakeLatency == 3000' $A
t_eq "--fail-if: each condition said" 2 "$(grep -c -- "--fail-if" "$tmp/gerr")"
gate 3 "a counter mean" --fail-if 'all.mean CC0% > 0' $A
gate 0 "a time metric not in --metrics is added" --fail-if 'C1.min LDist < 0' -m WakeLatency $A
t_check "--fail-if's metric is added to the tables" grep -q "LDist" "$tmp/gout"
gate 3 "with --json" --json --fail-if 'C6.max WakeLatency > 1us' $A
t_check "--fail-if with --json: stdout is still JSON" python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$tmp/gout"
gate 3 "on a diff, holding on [2]" --fail-if 'all.count WakeLatency == 2000' \
	"$tmp/a.data" "$tmp/b.data"
t_check "--fail-if on a diff names the input" grep -q "HOLDS: .* in \[2\] $tmp/b.data" \
	"$tmp/gerr"
gate 3 "a --per-cpu group (a state name with a space)" --per-cpu \
	--fail-if 'CPU0 C1.max WakeLatency > 1us' "$DATA/wult_resid.data"
t_check "--fail-if names the --per-cpu group" grep -q "HOLDS: CPU0 C1 max WakeLatency" \
	"$tmp/gerr"
gate 4 "no value: cannot be judged" --fail-if 'all.stddev WakeLatency > 0' "$tmp/one.data"
t_check "--fail-if without a value says so" grep -q "CANNOT BE JUDGED: all has no stddev" \
	"$tmp/gerr"
gate 0 "no value, --allow-empty: does not hold" --allow-empty \
	--fail-if 'all.stddev WakeLatency > 0' "$tmp/one.data"
# Usage errors: status 2, the bad part named, no report.
gate 2 "unknown state" --fail-if 'C9.p99 WakeLatency > 1us' $A
t_check "unknown state named, states listed" grep -q \
	"unknown state 'C9' ($tmp/a.data has POLL, C1, C6, all)" "$tmp/gerr"
t_eq "unknown state: no report printed" "" "$(cat "$tmp/gout")"
gate 2 "unknown statistic" --fail-if 'C1.p95 WakeLatency > 1us' $A
t_check "unknown statistic named" grep -q "unknown statistic 'p95'" "$tmp/gerr"
gate 2 "unknown metric" --fail-if 'C1.p99 WakeLat > 1us' $A
t_check "unknown metric named" grep -q "unknown metric 'WakeLat'" "$tmp/gerr"
gate 2 "malformed operator" --fail-if 'C1.p99 WakeLatency >> 1us' $A
t_check "malformed operator named" grep -q "'>>' is not an operator\|'> 1us' is not a number" \
	"$tmp/gerr"
gate 2 "missing value" --fail-if 'C1.p99 WakeLatency >' $A
gate 2 "unknown unit" --fail-if 'C1.p99 WakeLatency > 3 parsecs' $A
gate 2 "bad unit" --fail-if 'C1.p99 WakeLatency > 3kg' $A
t_check "bad unit named" grep -q "unknown unit 'kg'" "$tmp/gerr"
gate 2 "no STATE.STAT" --fail-if 'WakeLatency > 3us' $A
gate 2 "a counter's percentile" --fail-if 'all.p99 CC0% > 3' $A
t_check "a counter's percentile explained" grep -q "the report has no p99 of CC0%" \
	"$tmp/gerr"
gate 2 "a unit on a counter" --fail-if 'all.mean CPUFreq > 3MHz' $A
gate 2 "not a number" --fail-if 'all.max WakeLatency > nan' $A

# ---- wult record's progress: the rules, on a fake clock ----
# (wult record needs wult.ko: tests/unit/test_progress.c runs its progress
# module with a fake clock and a fake terminal; here it must pass, and
# record_loop.c must use it.)
"$build/san/tests/test_progress" > "$tmp/prog" 2>&1
t_eq "progress rules on a fake clock and terminal (test_progress)" 0 $?
t_check "wult record reports progress through lib/progress/progress.c" \
	grep -q "wult_progress_init(&prog, o->quiet, isatty(STDERR_FILENO)" \
	"$top/perf-plugin/wult/record/record_loop.c"
t_check "wult record --help: -q silences progress and summary" \
	sh -c "'$WREL' record --help | grep -q 'no progress reports and no summary'"

t_done
