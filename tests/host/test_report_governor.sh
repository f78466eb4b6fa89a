#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report's governor block and methods comparison on wult synth's files
# (a synthetic description: POLL 0/0, C1 2/2, C6 170/600 us declared, PM QoS
# no limit; ReqCState drawn at random, so the governor is judged on known
# idle periods). The expected figures are computed here, datapoint by
# datapoint, from the --csv export of the same file (LDist to 3 ms, and to
# 200 ms for idle periods past the direct counters): the right state is
# the deepest whose target residency <= SilentTime (whole us, as the
# report counts), too shallow / right / too deep, the idle time lost and
# the exit latency added, per LDist band; the text and --json must give
# them. One band is known by hand: LDist 1300 us - 4 ms keeps every idle
# period above C6's 600 us, so every POLL or C1 pick is too shallow and
# none is too deep. An input without a description (a CSV round trip) has
# no governor block. Methods: a hrt file and a nic file of the same seed,
# C1 1 us and C6 56 us longer by nic (--state-offset): saved 0, 1 and 56 us
# exactly; two hrt files get no methods block. Runs the ASan/UBSan build.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

if ! command -v python3 >/dev/null; then
	t_skip "python3 is not installed: no JSON parser to check with"
	t_done
	exit
fi
cd "$tmp" || exit 1
"$W" synth -o far.data -c 1000 --cstate-names POLL,C1,C6 --ldist 1300us,4ms 2>/dev/null &&
"$W" synth -o mix.data -c 3000 --cstate-names POLL,C1,C6 --ldist 1us,3ms 2>/dev/null &&
"$W" synth -o wide.data -c 3000 --cstate-names POLL,C1,C6 --ldist 1us,200ms 2>/dev/null ||
	t_fail "wult synth failed"

# By hand: every idle period >= 650 us, so the right state is always C6.
"$W" report far.data >far.txt || t_fail "report far.data failed"
npoll=$(awk '$1 == "POLL:" && $3 == "datapoints" {print $2}' far.txt)
nc1=$(awk '$1 == "C1:" && $3 == "datapoints" {print $2}' far.txt)
row=$(awk '/^Governor judged/ {g = 1} g && $1 == "1-10ms"' far.txt)
read -r _ cnt sh ri de _ <<<"$row"
exp_sh=$(awk -v a="$npoll" -v b="$nc1" 'BEGIN {printf "%.2f%%", (a + b) / 10}')
if [ "$cnt" = 1000 ] && [ "$sh" = "$exp_sh" ] && [ "$de" = "0.00%" ]; then
	t_ok "LDist 1.3-4 ms: all 1000 in 1-10ms, too shallow = POLL + C1 picks ($sh), none too deep"
else
	t_fail "LDist 1.3-4 ms: got '$row', want 1000 $exp_sh ... 0.00% (POLL $npoll, C1 $nc1)"
fi

# Datapoint by datapoint from the CSV export, against the text and --json:
# mix (LDist 1 us - 3 ms) and wide (to 200 ms: SilentTimes from 65.5 ms on
# are counted apart from the shorter ones, report_governor.c).
for f in mix wide; do
"$W" report $f.data --csv $f.csv >/dev/null 2>&1 &&
"$W" report $f.data >$f.txt && "$W" report --json $f.data >$f.json ||
	t_fail "report $f.data failed"
out=$(python3 - $f.csv $f.txt $f.json <<'PY'
import csv, json, sys
res = {"POLL": 0, "C1": 2, "C6": 600}
lat = {"POLL": 0, "C1": 2, "C6": 170}
order = ["POLL", "C1", "C6"]
edges = [0, 10, 100, 1000, 10000]
names = ["<10us", "10-100us", "100us-1ms", "1-10ms", ">=10ms", "all"]
cells = {n: [0, 0, 0, 0, 0.0, 0.0, 0.0] for n in names}
for r in csv.DictReader(open(sys.argv[1])):
    silent = round(float(r["SilentTime"]) * 1000)
    ldist = float(r["LDist"])
    v = silent // 1000
    right = max(i for i, s in enumerate(order) if res[s] <= v)
    pick = order.index(r["ReqCState"])
    b = max(i for i, e in enumerate(edges) if ldist >= e)
    for n in (names[b], "all"):
        c = cells[n]
        c[0] += 1
        c[4] += v * 1000
        if pick < right:
            c[1] += 1
            c[5] += v * 1000
        elif pick == right:
            c[2] += 1
        else:
            c[3] += 1
            c[6] += lat[order[pick]] - lat[order[right]]
bad = 0
txt = {}
g = False
for line in open(sys.argv[2]):
    if line.startswith("Governor judged"):
        g = True
    f = line.split()
    if g and f and f[0] in names:
        txt[f[0]] = f[1:]
js = json.load(open(sys.argv[3]))["inputs"][0]["governor"]["ldist_bands"]
js = {b["band"]: b for b in js}
for n, c in cells.items():
    if not c[0]:
        continue
    pct = lambda a: "%.2f%%" % (100.0 * a / c[0])
    want = [str(c[0]), pct(c[1]), pct(c[2]), pct(c[3]),
            "%.2f%%" % (100 * c[5] / c[4]) if c[4] else "-",
            "%.1f" % (c[5] / 1e3 / c[1]) if c[1] else "-",
            "%.1f" % (c[6] / c[3]) if c[3] else "-"]
    if txt.get(n) != want:
        print("text %s: got %s, want %s" % (n, txt.get(n), want))
        bad = 1
    j = js.get(n, {})
    if [j.get("count"), j.get("too_shallow"), j.get("right"), j.get("too_deep")] != c[:4] or \
       abs(j.get("residency_lost_ns", -1) - c[5]) > 1e-6 * (c[5] + 1) or \
       abs(j.get("latency_added_us", -1) - c[6]) > 1e-9:
        print("json %s: got %s, want %s" % (n, j, c))
        bad = 1
print("ok %d bands" % len([c for c in cells.values() if c[0]]) if not bad else "")
print("all", cells["all"][:4])
sys.exit(bad)
PY
)
if [ $? = 0 ]; then
	t_ok "$f: text and --json equal the CSV's own judgement: ${out//$'\n'/; }"
else
	t_fail "$f: $out"
fi
done

# No description, no block: the CSV round trip carries none.
if "$W" report mix.csv >rt.txt 2>&1 && ! grep -q "Governor judged" rt.txt; then
	t_ok "an input without a description has no governor block"
else
	t_fail "governor block on an input without a description (or report failed)"
fi

# Methods compared.
"$W" synth -o t.data -c 2000 --cstate-names POLL,C1,C6 2>/dev/null &&
"$W" synth -o n.data -c 2000 --cstate-names POLL,C1,C6 --source nic \
	--state-offset 0,1us,56us 2>/dev/null || t_fail "wult synth --source failed"
"$W" report t.data n.data >m.txt || t_fail "report t.data n.data failed"
got=$(awk '/^Methods compared/ {m = 1} m && $2 == "median" {print $1, $5}' m.txt | tr '\n' ' ')
if [ "$got" = "POLL 0.000 C1 1.000 C6 56.000 " ] &&
   grep -q "^Methods compared (pre-wake): t.data (hrt) against n.data (nic)" m.txt; then
	t_ok "hrt against nic: median saved POLL 0, C1 1, C6 56 us (the offsets given)"
else
	t_fail "hrt against nic: got '$got'"
fi
"$W" report --json t.data n.data >m.json || t_fail "report --json t.data n.data failed"
got=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["methods_compared"]
print(len(m), m[0]["timer_input"], m[0]["other_input"],
      " ".join("%s:%g:%g" % (s["state"], s["saved_median"], s["saved_p99"]) for s in m[0]["states"]))' m.json)
t_eq "--json methods_compared: saved median and p99 (ns) per state" \
	"1 0 1 POLL:0:0 C1:1000:1000 C6:56000:56000" "$got"
"$W" report t.data t.data >tt.txt || t_fail "report t.data t.data failed"
if ! grep -q "Methods compared" tt.txt; then
	t_ok "two hrt inputs: no methods block"
else
	t_fail "methods block for two inputs of one method"
fi
"$W" report --html m.html t.data n.data >/dev/null 2>&1
if grep -A1 '<pre class="methods">' m.html | grep -q "^Methods compared (pre-wake)"; then
	t_ok "HTML page carries the methods block"
else
	t_fail "HTML page lacks the methods block"
fi
"$W" report --html g.html far.data >/dev/null 2>&1
if grep -A1 '<pre class="governor">' g.html | grep -q "^Governor judged: far.data"; then
	t_ok "HTML page carries the governor block"
else
	t_fail "HTML page lacks the governor block"
fi
if "$W" synth -o x.data --source pigeon >/dev/null 2>err.txt; then
	t_fail "wult synth --source pigeon accepted"
else
	grep -q "hrt, tdt, ipi, nic" err.txt && t_ok "wult synth --source pigeon refused: $(cat err.txt)" ||
		t_fail "wult synth --source pigeon: $(cat err.txt)"
fi
t_done
