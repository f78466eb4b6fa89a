#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report: its numbers against values computed here independently (stock
# perf script's decoding of the same file, awk over the exported CSV, the
# synthetic distributions' bounds), filters, diffs, histograms, every input
# kind (file and pipe mode, tracepoint and PMU samples, intel wult results)
# and the errors. Runs the ASan/UBSan build, so leaks and memory errors fail.
. "$(dirname "$0")/../lib.sh"
# body REPORT: what follows the header's validity line (the statistics).
# (the statistics: not the recorded system's declared latencies, which a
# file rewritten without its features lacks)
body() { sed -n '/^  validity:/,$p' "$1" | sed 1d | sed '/^Declared against measured/,$d'; }
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
WREL=$build/rel/wult
FIX=${WULT_INTEL_FIXTURES:-$top/tests/data/intel-wult}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

# val REPORT STATE ROW COL: a table cell of a single-file report (COL 1 is
# the first metric column).
val() {
	awk -v s="$2" -v r="$3" -v c="$4" '
		index($0, s ": ") == 1 { on = 1; next }
		/^[^ ]/ { on = 0 }
		on && $1 == r { print $(c + 1); exit }' "$1"
}

# count REPORT STATE: the datapoints of a state (or "all").
count() {
	sed -n "s/^$2: \([0-9]*\) datapoints.*/\1/p" "$1"
}

# ref: count min median p90 p99 p99.9 p99.99 p99.999 max mean stddev of the
# integers on stdin, as wult report --unit ns prints them. Percentiles are
# numpy's linear interpolation, computed on the sorted values.
ref() {
	sort -n | awk '
	function f(x) { return x == int(x) ? sprintf("%.0f", x) : sprintf("%.1f", x) }
	function p(q,  h, lo, fr) {
		h = (n - 1) * q / 100; lo = int(h)
		if (lo >= n - 1) return a[n]
		fr = h - lo
		return fr == 0 ? a[lo + 1] : a[lo + 1] + fr * (a[lo + 2] - a[lo + 1])
	}
	{ a[++n] = $1 + 0; s += $1 }
	END {
		m = s / n
		for (i = 1; i <= n; i++) v += (a[i] - m) ^ 2
		printf "%d %s %s %s %s %s %s %s %s %.1f %.1f\n", n, f(a[1]), f(p(50)),
			f(p(90)), f(p(99)), f(p(99.9)), f(p(99.99)), f(p(99.999)), f(a[n]),
			m, sqrt(v / (n - 1))
	}'
}

# got REPORT STATE COL: the same eleven numbers from a report.
got() {
	local r out=
	for r in count min median p90 p99 p99.9 p99.99 p99.999 max mean stddev; do
		out="$out $(val "$1" "$2" "$r" "$3")"
	done
	echo "${out# }"
}

# same_stats NAME EXPECTED GOT: the nine order statistics exactly, mean and
# stddev within 0.2 ns (their sums are exact in wult, in doubles here).
same_stats() {
	if awk -v e="$2" -v g="$3" 'BEGIN {
		ne = split(e, a, " "); ng = split(g, b, " ")
		if (ne != 11 || ng != 11) exit 1
		for (i = 1; i <= 9; i++) if (a[i] != b[i]) exit 1
		for (i = 10; i <= 11; i++) if ((a[i] - b[i]) ^ 2 > 0.04) exit 1
	}'; then t_ok "$1"; else t_fail "$1: expected '$2', got '$3'"; fi
}

# ---- inputs ----
$WREL synth -o "$tmp/a.data" -c 3000 -s 1 --cstates 3 >/dev/null
$WREL synth -o "$tmp/b.data" -c 2000 -s 2 --cstates 4 --wake 2us,30us >/dev/null
# No tail: every raw wake latency within the bounds given.
$WREL synth -o "$tmp/c.data" -c 2000 -s 3 --wake 5us,8us --tail 0,0 \
	--ldist 100us,200us >/dev/null
t_check "synthetic inputs written" test -s "$tmp/a.data" -a -s "$tmp/b.data" -a -s "$tmp/c.data"

# ---- help and usage errors ----
"$W" report --help > "$tmp/help"
t_eq "--help exits 0" 0 $?
missing=
for o in $(sed -n 's/^\t\t{ "\([a-z-]*\)", .*/\1/p' "$top/perf-plugin/wult/cmd_report.c"); do
	grep -q -- "--$o" "$tmp/help" || missing="$missing $o"
done
t_eq "--help documents every option" "" "$missing"
"$W" report --bogus "$tmp/a.data" >/dev/null 2>"$tmp/err"
t_eq "unknown option exits 2" 2 $?
t_check "unknown option named" grep -q "unrecognized option '--bogus'" "$tmp/err"
mkdir "$tmp/empty"
(cd "$tmp/empty" && "$W" report) >/dev/null 2>"$tmp/err"
t_eq "no FILE and no ./wult.data or ./perf.data exits 1" 1 $?
t_check "no input explained" grep -q "no input: neither ./wult.data nor ./perf.data" "$tmp/err"
"$W" report --unit s "$tmp/a.data" >/dev/null 2>&1
t_eq "bad --unit exits 2" 2 $?
"$W" report --hist-buckets 0 "$tmp/a.data" >/dev/null 2>&1
t_eq "bad --hist-buckets exits 2" 2 $?
"$W" report --metrics WakeLatency,Bogus "$tmp/a.data" >/dev/null 2>&1
t_eq "bad --metrics exits 2" 2 $?
"$W" report --csv "$tmp/x.csv" "$tmp/a.data" "$tmp/b.data" >/dev/null 2>&1
t_eq "--csv with two FILEs exits 2" 2 $?
"$W" report --include 'WakeLatency > && 3' "$tmp/a.data" >/dev/null 2>"$tmp/err"
t_eq "filter syntax error exits 2" 2 $?
t_check "filter syntax error names its column" grep -q "col 15" "$tmp/err"
t_check "filter syntax error shows a caret" grep -qx '                ^' "$tmp/err"
"$W" report -x 'Bogus > 3' "$tmp/a.data" >/dev/null 2>"$tmp/err"
t_eq "unknown metric in a filter exits 2" 2 $?

# ---- data errors ----
"$W" report "$tmp/nope.data" >/dev/null 2>"$tmp/err"
t_eq "missing file exits 1" 1 $?
t_check "missing file named" grep -q "nope.data: No such file" "$tmp/err"
echo hello > "$tmp/t.txt"
"$W" report "$tmp/t.txt" >/dev/null 2>"$tmp/err"
t_eq "text file exits 1" 1 $?
t_check "text file: not a perf.data" grep -q "t.txt: not a perf.data file" "$tmp/err"
head -c 3000 "$tmp/a.data" > "$tmp/trunc.data"
"$W" report "$tmp/trunc.data" >/dev/null 2>"$tmp/err"
t_eq "truncated perf.data exits 1" 1 $?
t_check "truncation explained" grep -q "trunc.data: .*past the end of the file" "$tmp/err"
"$W" report "$top/tests/data/cpuclock.data" >/dev/null 2>"$tmp/err"
t_eq "perf.data without wult samples exits 1" 1 $?
t_check "says how to record" grep -q "no wult datapoints.*perf record -R -e wult/datapoints/" \
	"$tmp/err"
"$W" report "$tmp/a.data" "$tmp/nope.data" >/dev/null 2>&1
t_eq "a missing file in a diff exits 1" 1 $?

# ---- one file: counts and numbers ----
# The decoder's default names: index 0 polls, 1 is the default idle (C1).
sn() { case $1 in 0) echo POLL ;; 1) echo C1 ;; *) echo "state$1" ;; esac; }
"$W" report --raw --unit ns "$tmp/a.data" > "$tmp/a.rep" 2>"$tmp/err"
t_eq "report exits 0" 0 $?
t_eq "all datapoints counted" 3000 "$(count "$tmp/a.rep" all)"
t_eq "three states" "POLL C1 state2" \
	"$(sed -n 's/^\(POLL\|C1\|state[0-9]\): [0-9]* datapoints.*/\1/p' "$tmp/a.rep" |
	   tr '\n' ' ' | sed 's/ $//')"
t_eq "state counts add up" 3000 \
	$(($(count "$tmp/a.rep" POLL) + $(count "$tmp/a.rep" C1) + $(count "$tmp/a.rep" state2)))
t_check "validity line" grep -q "validity: 0 lost samples (0 LOST records), 0 undecodable" \
	"$tmp/a.rep"

# Stock perf decodes the same samples through the format: raw latencies are
# tai - ltime and tintr - ltime, SilentTime ltime - tbi.
# Fields by name, so a print format with more or other fields still works.
if command -v perf >/dev/null && perf script -F trace -i "$tmp/a.data" 2>/dev/null | awk '{
		delete f
		for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) f[kv[1]] = kv[2]
		if (!("ltime" in f) || !("req_cstate" in f)) exit 1
		print f["cpu"], f["req_cstate"], f["intr_off"], f["ltime"], f["tbi"], f["tai"],
			f["tintr"], f["ldist"]
	}' > "$tmp/ps" && [ -s "$tmp/ps" ]; then
	# fields: cpu req_cstate intr_off ltime tbi tai tintr ldist
	t_eq "perf script sees the same count" 3000 "$(wc -l < "$tmp/ps")"
	for s in 0 1 2; do
		e=$(awk -v s=$s '$2 == s { print $6 - $4 }' "$tmp/ps" | ref)
		same_stats "$(sn $s) WakeLatencyRaw = perf script's tai - ltime" "$e" \
			"$(got "$tmp/a.rep" "$(sn $s)" 4)"
		e=$(awk -v s=$s '$2 == s { print $7 - $4 }' "$tmp/ps" | ref)
		same_stats "$(sn $s) IntrLatencyRaw = perf script's tintr - ltime" "$e" \
			"$(got "$tmp/a.rep" "$(sn $s)" 5)"
		e=$(awk -v s=$s '$2 == s { print $4 - $5 }' "$tmp/ps" | ref)
		same_stats "$(sn $s) SilentTime = perf script's ltime - tbi" "$e" \
			"$(got "$tmp/a.rep" "$(sn $s)" 3)"
	done
	e=$(awk '{ print $6 - $4 }' "$tmp/ps" | ref)
	same_stats "all WakeLatencyRaw = perf script's" "$e" "$(got "$tmp/a.rep" all 4)"
else
	t_skip "perf script unavailable: perf cross-checks"
fi

# The CSV export holds every datapoint; statistics of its columns (us with
# 3 decimals: whole ns) must be the report's.
"$W" report --csv "$tmp/res/" "$tmp/a.data" >/dev/null
t_eq "--csv DIR/ exits 0" 0 $?
t_check "--csv DIR/ writes info.yml" grep -q "^format_version: '1.2'" "$tmp/res/info.yml"
t_eq "--csv has a row per datapoint" 3001 "$(wc -l < "$tmp/res/datapoints.csv")"
col() { head -1 "$tmp/res/datapoints.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
cw=$(col WakeLatency) ci=$(col IntrLatency) cs=$(col ReqCState) cr=$(col WakeLatencyRaw)
for s in POLL state2 all; do
	e=$(awk -F, -v c=$cw -v cs=$cs -v s=$s 'NR > 1 && (s == "all" || $cs == s) {
		printf "%.0f\n", $c * 1000 }' "$tmp/res/datapoints.csv" | ref)
	same_stats "$s WakeLatency = awk over the CSV" "$e" "$(got "$tmp/a.rep" "$s" 1)"
	e=$(awk -F, -v c=$ci -v cs=$cs -v s=$s 'NR > 1 && (s == "all" || $cs == s) {
		printf "%.0f\n", $c * 1000 }' "$tmp/res/datapoints.csv" | ref)
	same_stats "$s IntrLatency = awk over the CSV" "$e" "$(got "$tmp/a.rep" "$s" 2)"
done
# Beyond 2^22 ns (4.2 ms) the statistics stay exact while an object holds
# at most WULT_STATS_KEEP values there: tails to 30 ms, LDist to 50 ms.
$WREL synth -o "$tmp/d.data" -c 3000 -s 4 --tail 0.05,30ms --ldist 1us,50ms >/dev/null
"$W" report --unit ns -m WakeLatency,SilentTime --csv "$tmp/d.csv" "$tmp/d.data" \
	> "$tmp/d.rep"
t_eq "tails beyond 4.2 ms: report exits 0" 0 $?
dcol() { head -1 "$tmp/d.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
for m in WakeLatency:1 SilentTime:2; do
	c=$(dcol "${m%:*}")
	e=$(awk -F, -v c="$c" 'NR > 1 { printf "%.0f\n", $c * 1000 }' "$tmp/d.csv" | ref)
	t_check "${m%:*} has values beyond 4.2 ms" \
		awk -v x="$(echo "$e" | cut -d' ' -f9)" 'BEGIN { exit !(x > 4194304) }'
	same_stats "${m%:*} beyond 4.2 ms = awk over the CSV, to the ns" "$e" \
		"$(got "$tmp/d.rep" all "${m#*:}")"
done
t_eq "compensation never adds latency" 0 "$(awk -F, -v w=$cw -v r=$cr \
	'NR > 1 && $w > $r' "$tmp/res/datapoints.csv" | wc -l)"
# Our CSV reads back as an intel wult result with the same numbers.
"$W" report --unit ns "$tmp/res" > "$tmp/res.rep"
t_eq "CSV round trip: same WakeLatency" "$(got "$tmp/a.rep" all 1)" "$(got "$tmp/res.rep" all 1)"
"$W" report --csv "$tmp/one.csv" "$tmp/a.data" >/dev/null
t_check "--csv FILE writes a bare CSV" \
	test "$(wc -l < "$tmp/one.csv")" = 3001 -a ! -d "$tmp/one.csv"
"$W" report "$tmp/one.csv" > "$tmp/one.rep"
t_eq "a bare datapoints CSV reads" 3000 "$(count "$tmp/one.rep" all)"

# Known bounds: raw wake latency uniform in [5, 8] us, LDist in [100, 200] us.
"$W" report --unit ns -m WakeLatencyRaw,LDist "$tmp/c.data" > "$tmp/c.rep"
t_check "WakeLatencyRaw within the synth bounds" awk -v lo="$(val "$tmp/c.rep" all min 1)" \
	-v hi="$(val "$tmp/c.rep" all max 1)" 'BEGIN { exit !(lo >= 5000 && hi <= 8000) }'
t_check "LDist within the synth bounds" awk -v lo="$(val "$tmp/c.rep" all min 2)" \
	-v hi="$(val "$tmp/c.rep" all max 2)" 'BEGIN { exit !(lo >= 100000 && hi <= 200000) }'
"$W" report -m WakeLatencyRaw "$tmp/c.data" > "$tmp/c.us"
"$W" report -u ms -m WakeLatencyRaw "$tmp/c.data" > "$tmp/c.ms"
t_eq "us: 3 decimals of the ns value" \
	"$(awk -v v="$(val "$tmp/c.rep" all max 1)" 'BEGIN { printf "%.3f", v / 1000 }')" \
	"$(val "$tmp/c.us" all max 1)"
t_eq "ms: 6 decimals of the ns value" \
	"$(awk -v v="$(val "$tmp/c.rep" all max 1)" 'BEGIN { printf "%.6f", v / 1e6 }')" \
	"$(val "$tmp/c.ms" all max 1)"

# ---- filters ----
"$W" report --include 'ReqCState == "C1"' "$tmp/a.data" > "$tmp/f1"
t_eq "--include C1 keeps C1's datapoints" "$(count "$tmp/a.rep" C1)" \
	"$(count "$tmp/f1" all)"
t_check "--include counts the excluded" grep -q \
	"3000 read, $(count "$tmp/a.rep" C1) kept, $((3000 - $(count "$tmp/a.rep" C1))) excluded" \
	"$tmp/f1"
n=$(awk -F, -v c=$cw 'NR > 1 && $c + 0 <= 15' "$tmp/res/datapoints.csv" | wc -l)
"$W" report -x 'WakeLatency > 15us' "$tmp/a.data" > "$tmp/f2"
t_eq "--exclude 'WakeLatency > 15us' count matches awk" "$n" "$(count "$tmp/f2" all)"
n=$(awk -F, -v c=$cw -v cs=$cs 'NR > 1 && $cs != "POLL" && $c + 0 >= 3 && $c + 0 <= 15' \
	"$tmp/res/datapoints.csv" | wc -l)
"$W" report -x 'WakeLatency > 15us' --include 'ReqCState != "POLL"' --include 'WakeLatency >= 3' \
	"$tmp/a.data" > "$tmp/f3"
t_eq "repeated --include and --exclude combine" "$n" "$(count "$tmp/f3" all)"
"$W" report --include 'WakeLatency > 1s' "$tmp/a.data" > "$tmp/f4" 2> /dev/null
t_eq "everything excluded: exit 4 (nothing to report)" 4 $?
"$W" report --allow-empty --include 'WakeLatency > 1s' "$tmp/a.data" > "$tmp/f4"
t_eq "everything excluded, --allow-empty: exit 0" 0 $?
t_eq "everything excluded: 0 kept" 0 "$(count "$tmp/f4" all)"

# ---- histograms ----
"$W" report --hist "$tmp/a.data" > "$tmp/h1"
t_eq "a histogram per state and all" 4 \
	"$(grep -c 'WakeLatency histogram (us, log buckets)' "$tmp/h1")"
t_eq "histogram buckets hold every datapoint" 3000 "$(awk '
	/^all: / { on = 1 } on && / - .* \|/ { n += $4 } END { print n }' "$tmp/h1")"
t_eq "report with histograms fits 80 columns" 0 "$(awk 'length > 80' "$tmp/h1" | wc -l)"
"$W" report --hist IntrLatency --hist-linear --hist-buckets 5 "$tmp/a.data" > "$tmp/h2"
t_eq "--hist METRIC --hist-linear --hist-buckets 5" 20 \
	"$(grep -A5 'IntrLatency histogram (us, linear buckets)' "$tmp/h2" | grep -c ' |')"

# Edge cases from a hand-written CSV: state order, a negative value, one
# value (one bucket, no stddev), a metric without values (no column).
printf 'WakeLatency,ReqCState\n1.000,C10\n1.000,C1E\n1.000,POLL\n1.000,C6\n1.000,C1\n%s\n' \
	'-0.002,C1' > "$tmp/e.csv"
"$W" report --hist --hist-buckets 4 "$tmp/e.csv" > "$tmp/e.rep"
t_eq "states ordered POLL, C1, C1E, C6, C10, all" "POLL C1 C1E C6 C10 all" \
	"$(sed -n 's/^\([A-Za-z0-9]*\): [0-9]* datapoints.*/\1/p' "$tmp/e.rep" | tr '\n' ' ' |
	sed 's/ $//')"
t_eq "negative values count" "-0.002 0.499" \
	"$(val "$tmp/e.rep" C1 min 1) $(val "$tmp/e.rep" C1 median 1)"
t_eq "one value: no stddev" "-" "$(val "$tmp/e.rep" C6 stddev 1)"
t_check "one value: one bucket" grep -q "^  1.000 - 1.000          1 |#" "$tmp/e.rep"
t_check "a metric without values has no column" grep -qx "  us          WakeLatency" "$tmp/e.rep"
t_eq "negative values: log histogram holds them" 6 "$(awk '
	/^all: / { on = 1 } on && / - .* \|/ { n += $4 } END { print n }' "$tmp/e.rep")"

# ---- several files: a diff ----
"$W" report "$tmp/a.data" "$tmp/b.data" > "$tmp/d"
t_eq "diff exits 0" 0 $?
t_check "diff names both files" grep -q "^\[2\] $tmp/b.data" "$tmp/d"
t_check "diff has a state only the second file has" grep -q "^== state3 ==" "$tmp/d"
t_eq "diff count row: both counts and the change" "3000 2000 -1000 -33.33%" "$(awk '
	/^== all ==/ { on = 1 } on && /^WakeLatency/ { w = 1 }
	on && w && $1 == "count" { print $2, $3, $4, $5; exit }' "$tmp/d")"
t_eq "diff max: [2] - [1]" "$(awk '/^== all ==/ { on = 1 } on && /^WakeLatency/ { w = 1 }
	on && w && $1 == "max" { printf "%+.3f", $3 - $2; exit }' "$tmp/d")" \
	"$(awk '/^== all ==/ { on = 1 } on && /^WakeLatency/ { w = 1 }
	on && w && $1 == "max" { print $4; exit }' "$tmp/d")"

# ---- intel wult raw results ----
if [ -d "$FIX/good" ]; then
	"$W" report "$FIX/good" > "$tmp/i" 2>&1
	t_eq "intel wult result reads" 0 $?
	t_eq "intel wult: 9 datapoints" 9 "$(count "$tmp/i" all)"
	t_eq "intel wult: per-state counts" "2 7" "$(count "$tmp/i" C1E) $(count "$tmp/i" C6)"
	t_eq "intel wult: WakeLatency max" 37.551 "$(val "$tmp/i" all max 1)"
	for b in empty random too_long_line too_short_line; do
		"$W" report "$FIX/bad/corrupt_csv/$b" > /dev/null 2> "$tmp/e"
		t_eq "intel wult bad/$b exits 1" 1 $?
		t_check "intel wult bad/$b names the file" grep -q "$b/datapoints.csv" "$tmp/e"
	done
	t_check "too_short_line names the line" grep -q "datapoints.csv:2: 1 fields" "$tmp/e"
	"$W" report "$FIX/good" "$tmp/a.data" > /dev/null
	t_eq "diff of an intel result and a perf.data" 0 $?
else
	t_skip "intel wult fixtures not found in $FIX"
fi

# ---- pipe mode, lost samples, PMU samples, format fallbacks ----
# The synthetic file rewritten in pipe mode (attrs, features and tracing
# data as records), optionally with LOST records, without TRACING_DATA, or
# as samples of a "wult/datapoint" PMU event instead of the tracepoint.
if command -v python3 >/dev/null; then
	cat > "$tmp/topipe.py" <<'PY'
import struct, sys
src, dst, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
d = open(src, 'rb').read()
attr_size, = struct.unpack_from('<Q', d, 16)
a_off, a_sz, d_off, d_sz = struct.unpack_from('<4Q', d, 24)
feat = struct.unpack_from('<4Q', d, 72)
pad = lambda b: b + b'\0' * ((8 - len(b) % 8) % 8)
rec = lambda t, body: struct.pack('<IHH', t, 0, 8 + len(body)) + body
out = bytearray(b'PERFILE2' + struct.pack('<Q', 16))
hstr = lambda t: struct.pack('<I', len(pad(t.encode() + b'\0'))) + pad(t.encode() + b'\0')
# counters: the wult event leads a group of msr and cstate counters (ids 11
# to 14) read with each sample; every 10th sample ran half its enabled time.
ctrs = [('msr/tsc/', 0, 10000), ('msr/aperf/', 1, 3000), ('msr/mperf/', 2, 2000),
        ('cstate_core/c6-residency/', 3, 8000)]
descs = []
for i in range(a_sz // attr_size):
    base = a_off + i * attr_size
    attr = bytearray(d[base:base + attr_size - 16])
    if 'pmu' in opts:
        struct.pack_into('<I', attr, 0, 42)
    if 'counters' in opts:
        st, = struct.unpack_from('<Q', attr, 24)
        struct.pack_into('<QQ', attr, 24, st | 1 << 4, 0xf)
    ids_off, ids_sz = struct.unpack_from('<QQ', d, base + attr_size - 16)
    out += rec(64, bytes(attr) + d[ids_off:ids_off + ids_sz])
    descs.append((bytes(attr), 'wult:datapoint', d[ids_off:ids_off + ids_sz]))
    if 'counters' in opts:
        for k, (name, cfg, step) in enumerate(ctrs):
            c = bytearray(attr)
            struct.pack_into('<IIQ', c, 0, 43, len(c), cfg)
            out += rec(64, bytes(c) + struct.pack('<Q', 11 + k))
            descs.append((bytes(c), name, struct.pack('<Q', 11 + k)))
bits = [b for b in range(256) if feat[b // 64] >> (b % 64) & 1]
for i, b in enumerate(bits):
    off, sz = struct.unpack_from('<QQ', d, d_off + d_sz + 16 * i)
    body = d[off:off + sz]
    if b == 1:
        if 'notracing' not in opts:
            out += struct.pack('<IHHI4x', 66, 0, 16, len(pad(body))) + pad(body)
        continue
    if b == 12 and 'counters' in opts:
        body = struct.pack('<II', len(descs), len(descs[0][0]))
        for a, name, ids in descs:
            body += a + struct.pack('<I', len(ids) // 8) + hstr(name) + ids
    if b == 12 and 'pmu' in opts:
        body = body.replace(b'wult:datapoint', b'wult/datapoint')
    out += rec(80, struct.pack('<Q', b) + pad(body))
for o in opts:
    if o.startswith('lost='):
        out += rec(2, struct.pack('<QQQ', 1, int(o[5:]), 1))
    if o.startswith('lostsamples='):
        out += rec(13, struct.pack('<QQ', int(o[12:]), 1))
data = d[d_off:d_off + d_sz]
if 'counters' in opts:
    new, off, n = bytearray(), 0, 0
    enabled = running = 0       # running totals, as perf reads them
    while off < len(data):
        t, m, sz = struct.unpack_from('<IHH', data, off)
        r = data[off:off + sz]
        if t == 9:
            n += 1
            enabled += 1000
            running += 500 if n % 10 == 0 else 1000
            blk = struct.pack('<QQQ', len(ctrs), enabled, running)
            blk += b''.join(struct.pack('<QQ', n * step, 11 + k)
                            for k, (_, _, step) in enumerate(ctrs))
            r = struct.pack('<IHH', t, m, sz + len(blk)) + r[8:48] + blk + r[48:]
        new += r
        off += sz
    data = bytes(new)
out += data
open(dst, 'wb').write(out)
PY
	python3 "$tmp/topipe.py" "$tmp/a.data" "$tmp/p.data" lost=7 lostsamples=3
	python3 "$tmp/topipe.py" "$tmp/a.data" "$tmp/np.data" notracing
	python3 "$tmp/topipe.py" "$tmp/a.data" "$tmp/pmu.data" notracing pmu
	"$W" report --raw --unit ns "$tmp/p.data" > "$tmp/p.rep"
	t_eq "pipe mode: same report" "$(body "$tmp/a.rep")" "$(body "$tmp/p.rep")"
	t_check "pipe mode: said so" grep -q "perf.data (pipe mode)" "$tmp/p.rep"
	t_check "lost samples counted" grep -q "validity: 10 lost samples (2 LOST records)" \
		"$tmp/p.rep"
	"$W" report --raw --unit ns - < "$tmp/p.data" > "$tmp/stdin.rep"
	t_eq "stdin: same report" "$(body "$tmp/a.rep")" "$(body "$tmp/stdin.rep")"
	"$W" report --raw --unit ns "$tmp/np.data" > "$tmp/np.rep" 2>&1
	t_eq "no TRACING_DATA: built-in format, same numbers" "$(body "$tmp/a.rep")" \
		"$(body "$tmp/np.rep")"
	t_check "no TRACING_DATA: the fallback is reported" grep -q \
		"warning: no wult:datapoint format in the file" "$tmp/np.rep"
	"$W" report --raw --unit ns --format "$top/tests/data/wult_datapoint.v1.format" \
		"$tmp/pmu.data" > "$tmp/pmu.rep"
	t_eq "PMU samples with --format: same numbers" "$(body "$tmp/a.rep")" \
		"$(body "$tmp/pmu.rep")"
	t_check "--format is named" grep -q "wult_datapoint.v1.format (--format)" "$tmp/pmu.rep"
	python3 "$tmp/topipe.py" "$tmp/a.data" "$tmp/cnt.data" counters
	"$W" report "$tmp/cnt.data" > "$tmp/cnt.rep"
	t_check "group reads: CC6% and CPUFreq from the counter deltas" grep -q \
		"^  means: CC0% [0-9.]*, CC6% 80.00, CPUFreq 3000.0 MHz" "$tmp/cnt.rep"
	t_check "group reads: multiplexed datapoints counted" grep -q \
		"^all: 3000 datapoints, 300 with multiplexed counters" "$tmp/cnt.rep"
	t_eq "group reads: multiplexed per state add up" 300 "$(awk -F', ' '
		/^(POLL|C1|state[0-9]+): .* with multiplexed/ { n += $2 } END { print n }' "$tmp/cnt.rep")"
	# The first datapoint has no counter delta: a column every row fills
	# (intel wult refuses empty cells) needs the rows that have one.
	"$W" report --csv "$tmp/cnt.csv" "$tmp/cnt.data" > /dev/null
	t_check "group reads: CSV without CPUFreq when a row lacks it" \
		bash -c "! head -1 '$tmp/cnt.csv' | grep -q CPUFreq"
	"$W" report --include 'CPUFreq > 0' --force --csv "$tmp/cnt.csv" "$tmp/cnt.data" \
		> /dev/null
	t_eq "group reads: CSV CPUFreq after the first datapoint" 2999 "$(awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "CPUFreq") c = i; next }
		c && $c == "3000.0"' "$tmp/cnt.csv" | wc -l)"
	"$W" report --format "$tmp/nope.format" "$tmp/pmu.data" > /dev/null 2> "$tmp/err"
	t_eq "missing --format file exits 1" 1 $?
	t_check "missing --format file named" grep -q "nope.format" "$tmp/err"
else
	t_skip "python3 unavailable: pipe-mode checks"
fi

# ---- idle residency: wult.ko's idle accounting in the group reads ----
# tests/data/wult_resid.data: wult record of CPUs 0 and 1 with wult_refidle
# (4 states). The reference is stock perf's decoding of the same group
# reads (perf script -D): per CPU, the members' growth between consecutive
# datapoints and the group's running time between them. perf's dump is
# read by its words (the value after "running", "nr", "value"), not by
# column: its lines grow fields (", lost N" since 6.0).
RES=$top/tests/data/wult_resid.data
"$W" report "$RES" > "$tmp/res.rep" 2> "$tmp/res.err"
t_eq "residency fixture reports, exit 0" 0 $?
t_check "residency table present" grep -q '^idle residency (wult.ko' "$tmp/res.rep"
if command -v perf > /dev/null; then
	perf script -D -i "$RES" 2> /dev/null | awk '
		function hex(s,  i, v) {
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		function after(w,  i, x) {
			for (i = 1; i < NF; i++)
				if ($i == w) {
					x = $(i + 1)
					sub(/,$/, "", x)
					return x
				}
			return ""
		}
		/PERF_RECORD_SAMPLE/ { cpu = $1; p = -1; next }
		/time running/ { tr = hex(after("running")); next }
		/group nr/ { n = after("nr"); next }
		/^\.\.\.\.\. id / {
			v[++p] = hex(after("value"))
			if (p < n - 1) next
			if (seen[cpu]) {
				span[cpu] += tr - last[cpu]
				for (k = 1; k <= 8; k++) sum[cpu, k] += v[k] - lv[cpu, k]
			}
			seen[cpu] = 1; last[cpu] = tr
			for (k = 1; k <= 8; k++) lv[cpu, k] = v[k]
		}
		END {
			split("POLL C1 C2 C3", nm, " ")
			for (c = 0; c <= 1; c++) for (s = 0; s < 4; s++)
				printf "%d %s %.2f %.6f %d\n", c, nm[s + 1],
					100 * sum[c, 1 + 2 * s] / span[c],
					sum[c, 1 + 2 * s] / 1e9, sum[c, 2 + 2 * s]
		}' > "$tmp/res.ref"
	awk '$1 ~ /^[01]$/ && $2 != "idle" { print $1, $2, $3, $5, $6 }' \
		"$tmp/res.rep" > "$tmp/res.got"
	t_eq "residency rows: 8 (2 CPUs x 4 states)" 8 "$(wc -l < "$tmp/res.got")"
	t_eq "residency = perf script -D's group reads (time %, s, entries)" \
		"$(cat "$tmp/res.ref")" "$(cat "$tmp/res.got")"
else
	t_skip "perf unavailable: residency against perf script -D"
fi
# Each CPU's and the sum's: states add up to the idle row, and to at most
# 100% plus the rounding of its rows.
t_check "per CPU and summed, state % add up to <= 100% (+ rounding)" awk '
	$1 ~ /^([01]|all)$/ && $2 != "idle" { t[$1] += $3; n[$1]++ }
	$1 ~ /^([01]|all)$/ && $2 == "idle" { i[$1] = $3 }
	END {
		# each row rounds by up to 0.005
		for (c in t) if (t[c] > 100 + 0.005 * n[c] + 1e-9 ||
				  t[c] - i[c] > 0.005 * (n[c] + 1) + 1e-9 ||
				  i[c] - t[c] > 0.005 * (n[c] + 1) + 1e-9) exit 1
		exit length(t) != 3
	}' "$tmp/res.rep"
t_check "summed: entries/s of the CPUs added" awk '
	$2 == "C3" && $1 ~ /^[01]$/ { r += $4 } $2 == "C3" && $1 == "all" { a = $4 }
	END { exit !(a > 0 && (a - r < 0.11 && r - a < 0.11)) }' "$tmp/res.rep"
# HTML: the same table.
"$W" report --html "$tmp/res.html" "$RES" > /dev/null
t_check "HTML report carries the residency table" grep -A1 -q '<pre class="resid">' \
	"$tmp/res.html"
t_check "HTML residency rows" grep -q '^  all   C3 ' "$tmp/res.html"
# A recording without the idle accounting reports as before.
"$W" report "$top/tests/data/wult_record.data" > "$tmp/old.rep" 2> "$tmp/old.err"
t_eq "recording without idle counters: exit 0" 0 $?
t_check "recording without idle counters: no residency table" \
	bash -c "! grep -q 'idle residency' '$tmp/old.rep'"
t_check "recording without idle counters: nothing on stderr" test ! -s "$tmp/old.err"
# A diff names each file's residency.
"$W" report "$RES" "$top/tests/data/wult_record.data" > "$tmp/diff.rep"
t_check "diff: the residency of the file that has it" grep -q \
	"^\[1\] $RES$" "$tmp/diff.rep"

# ---- two threads and one: the same report, byte for byte ----
# A reading thread hands datapoints over in batches of 4096
# (perf-plugin/wult/report/report_pipe.c); 8192 datapoints end on a batch's edge.
$WREL synth -o "$tmp/th.data" -c 20000 -s 5 --cpus 2 --cstates 4 --ldist 1us,50ms >/dev/null
$WREL synth -o "$tmp/th2.data" -c 8192 -s 6 >/dev/null
head -c 2000000 "$tmp/th.data" > "$tmp/thtrunc.data"
# same_threads NAME ARGS...: the report and exit status both ways (stdin
# from $th_in).
th_in=/dev/null
same_threads() {
	local one two
	WULT_REPORT_THREADS=0 "$W" report "${@:2}" < "$th_in" > "$tmp/th1.rep" 2>&1
	one=$?
	"$W" report "${@:2}" < "$th_in" > "$tmp/th2.rep" 2>&1
	two=$?
	t_eq "$1: same exit status in one thread and two" "$one" "$two"
	t_check "$1: same report in one thread and two" cmp -s "$tmp/th1.rep" "$tmp/th2.rep"
}
same_threads "default" "$tmp/th.data"
same_threads "batch edge" "$tmp/th2.data"
same_threads "4 metrics, ns" --raw --unit ns -m WakeLatency,IntrLatency,SilentTime,LDist \
	"$tmp/th.data"
same_threads "per CPU, histogram" --per-cpu --hist "$tmp/th.data"
same_threads "filters" --include 'WakeLatency > 5us' -x 'ReqCState == "C1"' "$tmp/th.data"
same_threads "diff" "$tmp/th.data" "$tmp/th2.data"
th_in=$tmp/th.data same_threads "stdin" -
same_threads "truncated" "$tmp/thtrunc.data"
t_check "truncated: an error in two threads too" grep -q "thtrunc.data: " "$tmp/th2.rep"
[ -f "$tmp/cnt.data" ] && same_threads "pipe mode, group reads" "$tmp/cnt.data"
# --html: the plots from the batches (no filter) and from whole datapoints
# (a filter), the page the same either way.
for f in "" "WakeLatency > 5us"; do
	WULT_REPORT_THREADS=0 "$W" report ${f:+--include "$f"} --html "$tmp/th1.html" \
		"$tmp/th.data" > /dev/null 2>&1
	"$W" report ${f:+--include "$f"} --html "$tmp/th2.html" "$tmp/th.data" > /dev/null 2>&1
	t_check "--html${f:+ --include '$f'}: a page, the same in one thread and two" \
		cmp "$tmp/th1.html" "$tmp/th2.html"
	rm -f "$tmp/th1.html" "$tmp/th2.html"
done
# Without a filter, --per-cpu, --csv or --branches, the counting
# thread takes whole batches (cmd_report.c's count_rows()): 8 CPUs, 64
# states (the group cache's size), wake latencies past the exact 4.2 ms,
# recordings lacking CC0%, and states the cache does not hold (index 64
# and up, or no name: -1), written into a synthetic file's payloads.
$WREL synth -o "$tmp/th3.data" -c 30000 -s 7 --cpus 8 --cstates 64 --tail 0.02,10ms \
	--ldist 1us,50ms >/dev/null
same_threads "8 CPUs, 64 states, tails past 4.2 ms" "$tmp/th3.data"
same_threads "histogram, LDist, ns" --hist -m WakeLatency,LDist --unit ns "$tmp/th3.data"
for rec in wult_record wult_pmu_group wult_resid wult_tp; do
	same_threads "recording $rec" "$top/tests/data/$rec.data"
done
# patch_dp IN OUT CODE: IN's wult:datapoint payloads (a sample's raw part:
# its u32 size, then the record, common_type 1500, to the record's end)
# changed by CODE, python run for each with d (the file's bytes), o (the
# record's offset; struct wult_dp starts 8 bytes on) and n (its number,
# from 1); written to OUT.
patch_dp() {
	python3 - "$@" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
d_off, d_sz = struct.unpack_from('<QQ', d, 40)
off, n = d_off, 0
while off < d_off + d_sz:
    t, m, sz = struct.unpack_from('<IHH', d, off)
    for p in range(8, sz - 104) if t == 9 else ():
        if struct.unpack_from('<IH', d, off + p - 4) == (sz - p, 1500):
            n += 1
            o = off + p
            exec(sys.argv[3])
            break
    off += sz
open(sys.argv[2], 'wb').write(d)
PY
}
if command -v python3 >/dev/null; then
	# req_cstate at the record's byte 100: some past the 64 cached, some -1
	patch_dp "$tmp/th2.data" "$tmp/th5.data" '
v, = struct.unpack_from("<i", d, o + 100)
v = 64 + v if n % 7 == 0 else -1 if n % 11 == 0 else v
struct.pack_into("<i", d, o + 100, v)'
	same_threads "states past the group cache" "$tmp/th5.data"
	t_check "states past the group cache: reported without a name" grep -q "^-: " \
		"$tmp/th2.rep"
	# Values a double rounds (beyond 2^53 ns): the batch path must count
	# them as one thread does (the same rounding, the same clamping). TAI
	# (struct wult_dp's byte 16) and LDist (32).
	patch_dp "$tmp/th2.data" "$tmp/th6.data" '
ltime, = struct.unpack_from("<Q", d, o + 8)
if n % 5 == 0: struct.pack_into("<Q", d, o + 8 + 16, ltime + (1 << 54) + 12345)
if n % 9 == 0: struct.pack_into("<Q", d, o + 8 + 32, (1 << 54) + 3)'
	same_threads "values beyond 2^53 ns" "$tmp/th6.data"
	same_threads "values beyond 2^53 ns, LDist, ns" -m WakeLatency,LDist --unit ns \
		"$tmp/th6.data"
	t_check "values beyond 2^53 ns: counted, no error" grep -q \
		"values beyond +-275 s, clamped" "$tmp/th2.rep"
	t_check "values beyond 2^53 ns: max as a double rounds it" grep -q \
		"max *18014398509494328" "$tmp/th2.rep"
	# A value wider than its column (17 digits in 15) still has a space
	# before it: every row has as many fields as the header.
	t_check "values beyond 2^53 ns: the columns stay apart" awk '
		$1 == "ns" && NF == 3 { h = 1 } h && $1 == "max" { n++; if (NF != 3) bad++ }
		END { exit !(n && !bad) }' "$tmp/th2.rep"
else
	t_skip "python3 unavailable: states past the group cache"
fi

# ---- memory does not grow with the datapoint count ----
if [ -x /usr/bin/time ]; then
	$WREL synth -o "$tmp/m1.data" -c 300000 -s 4 --tail 0,0 >/dev/null
	$WREL synth -o "$tmp/m2.data" -c 1200000 -s 4 --tail 0,0 >/dev/null
	r1=$(/usr/bin/time -f %M "$WREL" report "$tmp/m1.data" 2>&1 >/dev/null | tail -1)
	r2=$(/usr/bin/time -f %M "$WREL" report "$tmp/m2.data" 2>&1 >/dev/null | tail -1)
	echo "# peak RSS: $r1 KB at 300k datapoints, $r2 KB at 1.2M"
	t_check "4x the datapoints, under 8 MB more memory" test $((r2 - r1)) -lt 8192
	rm -f "$tmp/m1.data" "$tmp/m2.data"
fi

t_done
