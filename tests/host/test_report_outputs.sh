#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report's outputs and exit statuses where the answer would otherwise
# be wrong or empty (issue 40): --csv, --html and --json never replace an
# existing file without --force nor ever touch an input, and say what they
# wrote; a report whose filters kept nothing, an input without a requested
# metric, a --fail-if statistic without a value and an empty --csv export
# exit 4 and say so (--allow-empty: 0).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
WREL=$build/rel/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

$WREL synth -o "$tmp/s.data" -c 500 -s 5 >/dev/null
cp -r "$top/tests/data/intel-wult/good" "$tmp/res"
sums() { md5sum "$tmp"/res/* | sed "s|$tmp/||"; }
before=$(sums)

# ---- item 1: nothing overwritten, inputs never touched ----
"$W" report --csv "$tmp/res" "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "--csv over an intel wult result: exit 2" 2 $?
t_check "--csv over an intel wult result: says it exists" \
	grep -q "res/datapoints.csv exists: .*--force" "$tmp/err"
t_eq "--csv over an intel wult result: its files untouched" "$before" "$(sums)"
"$W" report --force --csv "$tmp/res/" "$tmp/res" > /dev/null 2> "$tmp/err"
t_eq "--csv into the input, even with --force: exit 2" 2 $?
t_check "--csv into the input: named" grep -q "is the input" "$tmp/err"
t_eq "--csv into the input: its files untouched" "$before" "$(sums)"
echo keep > "$tmp/out.csv"
"$W" report --csv "$tmp/out.csv" "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "--csv FILE over an existing file: exit 2" 2 $?
t_eq "--csv FILE over an existing file: kept" keep "$(head -c 20 "$tmp/out.csv")"
"$W" report --force --csv "$tmp/out.csv" "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "--csv --force: exit 0" 0 $?
t_check "--csv --force: says what it wrote" \
	grep -q "wrote $tmp/out.csv (500 datapoints)" "$tmp/err"
"$W" report --csv "$tmp/new/" "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_check "--csv DIR/: says what it wrote" \
	grep -q "wrote $tmp/new/datapoints.csv (500 datapoints) and info.yml" "$tmp/err"
for opt in html json; do
	echo keep > "$tmp/out.$opt"
	"$W" report --$opt="$tmp/out.$opt" "$tmp/s.data" > /dev/null 2> "$tmp/err"
	t_eq "--$opt over an existing file: exit 2" 2 $?
	t_check "--$opt over an existing file: said" grep -q "out.$opt exists" "$tmp/err"
	t_eq "--$opt over an existing file: kept" keep "$(head -c 20 "$tmp/out.$opt")"
	"$W" report --force --$opt="$tmp/out.$opt" "$tmp/s.data" > /dev/null 2> "$tmp/err"
	t_eq "--$opt --force: exit 0" 0 $?
	t_check "--$opt --force: says what it wrote" grep -q "wrote $tmp/out.$opt" "$tmp/err"
	"$W" report --force --$opt="$tmp/s.data" "$tmp/s.data" > /dev/null 2> "$tmp/err"
	t_eq "--$opt onto the input, even with --force: exit 2" 2 $?
done
"$W" report --json "$tmp/sep.json" "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "--json OUT.json as a separate word: exit 0" 0 $?
t_check "--json OUT.json as a separate word: OUT written" \
	python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$tmp/sep.json"
t_check "the input survived every attempt" "$W" report "$tmp/s.data" > /dev/null 2>&1

# ---- item 2: nothing to report is not a pass ----
c6='ReqCState == "C6"'
gate='all.p99 WakeLatency > 1us'
"$W" report --include "$c6" --fail-if "$gate" "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "filters keep nothing: exit 4" 4 $?
t_check "filters keep nothing: said" grep -q "no datapoint kept (500 read, 500 excluded" \
	"$tmp/err"
"$W" report --include "$c6" --allow-empty "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "filters keep nothing, --allow-empty: exit 0" 0 $?
"$W" report --include "$c6" --allow-empty --fail-if "$gate" "$tmp/s.data" > /dev/null \
	2> "$tmp/err"
t_eq "--fail-if on nothing, --allow-empty: exit 0" 0 $?
t_check "--fail-if on nothing: says it cannot be judged" grep -q "CANNOT BE JUDGED" "$tmp/err"
"$W" report --fail-if 'all.mean CPUFreq > 1' "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "--fail-if on a statistic without a value: exit 4" 4 $?
t_check "--fail-if on a statistic without a value: said" \
	grep -q "CANNOT BE JUDGED: all has no mean of CPUFreq" "$tmp/err"
"$W" report --fail-if 'all.p99 WakeLatency > 1us' --fail-if 'all.mean CPUFreq > 1' \
	"$tmp/s.data" > /dev/null 2>&1
t_eq "a condition that held wins over one not judged: exit 3" 3 $?
cut -d, -f2- "$tmp/res/datapoints.csv" > "$tmp/nowake.csv"
"$W" report "$tmp/nowake.csv" > /dev/null 2> "$tmp/err"
t_eq "a CSV without WakeLatency: exit 4" 4 $?
t_check "a CSV without WakeLatency: said" \
	grep -q "none of its 9 kept datapoints has WakeLatency" "$tmp/err"
"$W" report -m IntrLatency "$tmp/nowake.csv" > /dev/null 2> "$tmp/err"
t_eq "a CSV without WakeLatency, -m IntrLatency: exit 0" 0 $?
"$W" report --fail-if "$gate" "$tmp/nowake.csv" > /dev/null 2>&1
t_eq "--fail-if on a metric the CSV lacks: exit 4" 4 $?
"$W" report --include "$c6" --csv "$tmp/empty/" "$tmp/s.data" > /dev/null 2> "$tmp/err"
t_eq "an empty --csv export: exit 4" 4 $?
t_check "an empty --csv export: said" grep -q "nothing exported" "$tmp/err"
t_check "an empty --csv export: nothing left behind" test ! -e "$tmp/empty"
"$W" report --include "$c6" --csv "$tmp/empty.csv" "$tmp/s.data" > /dev/null 2>&1
t_check "an empty --csv FILE export: not written" test ! -e "$tmp/empty.csv"
t_done
