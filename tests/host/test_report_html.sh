#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report --html: the page in a real browser (Debian's chromium,
# headless, from file://): no console error, no network request, every
# plot drew (the page writes what it drew into #wult-selftest, read back
# through --dump-dom), a screenshot kept in build/test-artifacts/; and the
# page's numbers against the text report's and the CSV export's; and the
# same page written by wult hist --html.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
WREL=$build/rel/wult
art=$build/test-artifacts
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1
mkdir -p "$art"

# chromium with its own background services quiet (they still ask Google
# for updates and accounts: see net_urls), a throwaway profile, root-safe.
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --hide-scrollbars \
		--user-data-dir="$tmp/profile" --virtual-time-budget=15000 "$@"
}

# selftest DOM: the JSON the page wrote into #wult-selftest.
selftest() { sed -n 's/.*<pre id="wult-selftest"[^>]*>\([^<]*\)<.*/\1/p' "$1" | sed 's/&quot;/"/g'; }

# net_urls NETLOG: every URL the browser's network stack saw, except those
# of Chromium's own services (updates, time, accounts), which it contacts
# whatever the page: hosts under google.com, googleapis.com, gvt1.com.
net_urls() {
	grep -o '"url":"[^"]*"' "$1" | sed 's/"url":"//; s/"$//' | sort -u |
		grep -Ev '^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com)(/|$)'
}

# check_page NAME HTML NCHARTS: the browser checks of one page.
check_page() {
	local name=$1 html=$2 n=$3 st
	chrome --log-net-log="$tmp/$name.net" --enable-logging=stderr --v=0 \
		--window-size=1280,1000 --dump-dom "file://$html" > "$tmp/$name.dom" \
		2> "$tmp/$name.err"
	t_eq "$name: chromium ran" 0 $?
	st=$(selftest "$tmp/$name.dom")
	printf '%s\n' "$st" > "$tmp/$name.st"
	t_check "$name: the page wrote its self-test" test -n "$st"
	t_check "$name: no script error" grep -q '"errors":\[\]' <<< "$st"
	t_check "$name: no fetch blocked by the CSP" grep -q '"blocked":\[\]' <<< "$st"
	t_check "$name: no console error" bash -c "! grep -Eq 'CONSOLE.*(Uncaught|rror)' '$tmp/$name.err'"
	t_eq "$name: no network request" "" "$(net_urls "$tmp/$name.net")"
	t_eq "$name: $n charts" "$n" "$(grep -o '"title"' <<< "$st" | wc -l)"
	t_eq "$name: every chart has points" 0 "$(grep -o '"points":0,' <<< "$st" | wc -l)"
	t_eq "$name: every chart painted its data" 0 "$(grep -o '"coloured":0,' <<< "$st" | wc -l)"
	chrome --window-size=1280,1000 --screenshot="$art/report-html-$name.png" \
		"file://$html" > /dev/null 2>&1
	t_check "$name: screenshot kept ($art/report-html-$name.png)" \
		test "$(stat -c %s "$art/report-html-$name.png" 2>/dev/null || echo 0)" -gt 20000
}

if ! command -v chromium > /dev/null; then
	echo "SKIP: chromium not installed (scripts/deps installs it)"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi

$WREL synth -o "$tmp/a.data" -c 3000 -s 1 --cstates 3 > /dev/null
$WREL synth -o "$tmp/b.data" -c 2000 -s 2 --cstates 4 --wake 2us,30us > /dev/null

# ---- one file ----
"$W" report --html "$tmp/a.html" "$tmp/a.data" > "$tmp/a.rep"
t_eq "--html exits 0" 0 $?
t_check "the text report is still printed" grep -q "^all: 3000 datapoints" "$tmp/a.rep"
t_check "one self-contained file: Chart.js inside" grep -q "Chart.js v3" "$tmp/a.html"
t_check "a CSP forbids every fetch" grep -q "default-src 'none'" "$tmp/a.html"
t_eq "no external src or href" "" "$(grep -Eo '(src|href)="[a-z]+:[^"]*"' "$tmp/a.html")"
# The tables carry the text report's numbers: all's WakeLatency max, C1's p99.
max=$(awk '/^all: / { on = 1 } on && $1 == "max" { print $2; exit }' "$tmp/a.rep")
t_check "the page's tables show the text's numbers ($max)" grep -q "<td>$max</td>" "$tmp/a.html"
# 2 metrics x (scatter vs SilentTime, histogram, cumulative histogram).
check_page one "$tmp/a.html" 6

# ---- a diff, more metrics, two x axes ----
"$W" report --html "$tmp/d.html" --plots WakeLatency,IntrLatency,CC0% \
	--plot-x SilentTime,LDist "$tmp/a.data" "$tmp/b.data" > /dev/null
t_eq "--html of a diff exits 0" 0 $?
t_check "the diff has change columns" grep -q '<th class="d">\[2\]-\[1\]</th>' "$tmp/d.html"
check_page diff "$tmp/d.html" 12

# chart_check NAME WHAT PYTHON-EXPR: EXPR true of every chart c of page
# NAME's self-test (c: title, datasets, colours, ytype, ...).
chart_check() {
	python3 -c '
import json, sys
charts = json.load(open(sys.argv[1]))["charts"]
sys.exit(0 if charts and all(eval(sys.argv[2], {"c": c}) for c in charts) else 1)' \
		"$tmp/$1.st" "$3" 2> /dev/null
	t_eq "$1: $2" 0 $?
}
# Scatters on a log y axis (the few outliers would squash the rest), the
# histograms left linear; every series its own colour: a diff's files too.
chart_check one "scatters have a log y axis" \
	"' vs ' not in c['title'] or c['ytype'] == 'logarithmic'"
chart_check one "histograms keep a linear y axis" "' vs ' in c['title'] or c['ytype'] == 'linear'"
chart_check diff "a colour per series, the two files' apart" \
	"len(set(c['colours'])) == c['datasets']"

# ---- --per-cpu past the palette's ten colours ----
$WREL synth -o "$tmp/pc.data" -c 3000 -s 4 --nr-cpus 4 --nr-cstates 4 > /dev/null 2>&1
"$W" report --per-cpu --html "$tmp/pc.html" "$tmp/pc.data" > /dev/null
t_eq "--per-cpu --html exits 0" 0 $?
check_page percpu "$tmp/pc.html" 6
chart_check percpu "16 CPU x state series (and all's), a colour each" \
	"c['datasets'] >= 16 and len(set(c['colours'])) == c['datasets']"

# ---- the checks can fail: a page that fetches is seen ----
printf '<!DOCTYPE html><img src="http://192.0.2.1/x.png">\n' > "$tmp/bad.html"
chrome --log-net-log="$tmp/bad.net" --dump-dom "file://$tmp/bad.html" > /dev/null 2>&1
t_check "a page's request shows in the net log" grep -q "192.0.2.1" <(net_urls "$tmp/bad.net")

# ---- the scatter keeps the tail: each state's 500 highest WakeLatency ----
$WREL synth -o "$tmp/big.data" -c 200000 -s 3 --cstates 2 > /dev/null
"$W" report --html "$tmp/big.html" --csv "$tmp/big/" "$tmp/big.data" > /dev/null
t_eq "--html with --csv exits 0" 0 $?
for s in POLL C1; do
	want=$(awk -F, -v s=$s 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["ReqCState"] == s { print $c["WakeLatency"] }' "$tmp/big/datapoints.csv" |
		sort -rn | head -500 | sort)
	got=$(grep "\"s\":\"$s\",\"m\":0,\"x\":0," "$tmp/big.html" |
		sed 's/.*"xy":\[\([^]]*\)\].*/\1/' | tr ',' '\n' | awk 'NR % 2 == 0' | sort -rn |
		head -500 | sort)
	t_check "$s: the 500 highest WakeLatency are all drawn" test "$want" = "$got" -a -n "$want"
	n=$(grep -o "\"s\":\"$s\",\"m\":0,\"x\":0,\"n\":[0-9]*" "$tmp/big.html" | sed 's/.*://')
	t_eq "$s: the series counts every datapoint" \
		"$(grep -c ",$s," "$tmp/big/datapoints.csv")" "$n"
	k=$(grep "\"s\":\"$s\",\"m\":0,\"x\":0," "$tmp/big.html" | grep -o ',' | wc -l)
	t_check "$s: dense regions thinned ($(( (k + 1) / 2 )) of $n points drawn)" \
		test $(( (k + 1) / 2 )) -lt $(( n / 2 ))
done

# ---- the header: what was measured (a real recording: CPU 1, LDist 20-40 ms) ----
"$W" report --html "$tmp/r.html" "$top/tests/data/wult_record.data" > /dev/null
t_check "header: CPUs and LDist range of a real recording" \
	grep -q '<p class="meas">CPUs: 1; LDist 20906.424 - 39648.124 us; 30 datapoints kept' \
	"$tmp/r.html"
t_check "header: kernel and command" grep -q "kernel 6.1.0-56-amd64" "$tmp/r.html"

# ---- wult hist --html: the same page from in-kernel histograms ----
# Two CPUs' wake_latency files in the module's layout (tests/host/test_hist.sh
# checks the numbers): the page's plots must draw in the browser too.
mkdir -p "$tmp/kh/wake_latency"
for c in 1 2; do
	{
		printf '#CPU: %d\n#Metric: wake_latency\n#Bin width: 1 microseconds\n' $c
		printf '#State: C1\n#Minimum latency: 10 microseconds\n#Average latency: 0 microseconds\n'
		printf '#Maximum latency: 40 microseconds\n#Total samples: 100\n'
		printf '#There are 0 samples lower than 0 microseconds.\n'
		printf '#There are 0 samples greater or equal than 10240 microseconds.\n'
		printf '#Exact: count 100 sum %d min %d max 40100 nanoseconds\n#usecs\t%16s\n' \
			$((2000000 * c)) $((10000 * c)) samples
		printf '%5d\t%16d\n' $((10 * c)) 60 $((20 * c)) 40
	} > "$tmp/kh/wake_latency/CPU$c"
done
"$W" hist --dir "$tmp/kh" --no-bars --html "$tmp/kh.html" > /dev/null
t_eq "wult hist --html: exit 0" 0 $?
# Histogram and cumulative histogram of WakeLatency; no scatters.
check_page hist "$tmp/kh.html" 2

# ---- errors ----
"$W" report --html /nonexistent/x.html "$tmp/a.data" > /dev/null 2> "$tmp/e"
t_eq "unwritable --html exits 1" 1 $?
t_check "unwritable --html named" grep -q "/nonexistent/x.html" "$tmp/e"
"$W" report --html "$tmp/x.html" --plots ReqCState "$tmp/a.data" > /dev/null 2> "$tmp/e"
t_eq "--plots of a non-numeric metric exits 2" 2 $?
t_check "--plots error says why" grep -q "not a numeric metric" "$tmp/e"
"$W" report --html "$tmp/x.html" --plots CPUFreq "$tmp/a.data" > /dev/null 2> "$tmp/e"
t_eq "--plots of a metric the input lacks exits 1" 1 $?
t_check "--plots: the input does not provide it" grep -q "does not provide" "$tmp/e"
"$W" report --html "$tmp/x.html" --plot-x A,B,C "$tmp/a.data" > /dev/null 2> "$tmp/e"
t_eq "--plot-x of unknown metrics exits 2" 2 $?
t_done
