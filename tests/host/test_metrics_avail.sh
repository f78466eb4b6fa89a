#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Consumers ask only for metrics the decoder fills: wult report and the perf
# dlfilter refuse a metric the input does not provide (a filter on it would
# drop every datapoint without a word), naming the ones it has; a filter on
# provided metrics keeps the same datapoints in both.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
DLF=$build/plugins/dlfilter/wult-filter.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

"$build/rel/wult" synth -o "$tmp/s.data" -c 2000 -s 5 >/dev/null
"$W" report --include 'CPUFreq > 1000' "$tmp/s.data" >/dev/null 2>"$tmp/err"
t_eq "report: a counter metric of a file without counters exits 1" 1 $?
t_check "report: the error names the option, the metric and what is available" grep -q \
	"\-\-include uses CPUFreq, which this input does not provide (available: WakeLatency," \
	"$tmp/err"
t_check "report: the available list leaves out what is missing" \
	bash -c "! grep -q 'available:.*CPUFreq' '$tmp/err'"
"$W" report -x 'Scaled == 1' "$tmp/s.data" >/dev/null 2>"$tmp/err"
t_eq "report: --exclude on Scaled without counters exits 1" 1 $?
t_check "report: --exclude named" grep -q "\-\-exclude uses Scaled" "$tmp/err"
"$W" report --include 'WakeLatency > 10us && CC0% >= 0' "$tmp/s.data" >"$tmp/rep" 2>&1
t_eq "report: provided metrics are fine" 0 $?
kept=$(sed -n 's/^  datapoints: [0-9]* read, \([0-9]*\) kept.*/\1/p' "$tmp/rep")

# An intel wult CSV provides its columns.
"$W" report --csv "$tmp/csv/" "$tmp/s.data" >/dev/null 2>&1
"$W" report --include 'CPUFreq > 1000' "$tmp/csv" >/dev/null 2>"$tmp/err"
t_eq "report: CSV input without a CPUFreq column exits 1" 1 $?
t_check "report: CSV input names its columns" grep -q \
	"\-\-include uses CPUFreq, which this input does not provide (available: WakeLatency," \
	"$tmp/err"
"$W" report --include 'WakeLatency > 10us && CC0% >= 0' "$tmp/csv" >"$tmp/rep2" 2>&1
t_eq "report: CSV input, a filter on its columns is fine" 0 $?
t_check "report: CSV input keeps what the perf.data input keeps ($kept)" grep -q \
	"datapoints: 2000 read, $kept kept" "$tmp/rep2"

if command -v perf >/dev/null && [ -f "$DLF" ]; then
	perf script -i "$tmp/s.data" --dlfilter "$DLF" --dlarg 'CC6% > 10' \
		>/dev/null 2>"$tmp/err"
	t_check "dlfilter: CC6% (a group-read metric perf never gives a dlfilter) refused" \
		grep -q "does not provide metric 'CC6%' (available: WakeLatency," "$tmp/err"
	perf script -i "$tmp/s.data" --dlfilter "$DLF" --dlarg 'Bogus > 1' \
		>/dev/null 2>"$tmp/err"
	t_check "dlfilter: an unknown metric lists the available ones" \
		grep -q "unknown metric 'Bogus' (available: WakeLatency," "$tmp/err"
	perf script -i "$tmp/s.data" --dlfilter "$DLF" \
		--dlarg 'WakeLatency > 10us && CC0% >= 0' >/dev/null 2>"$tmp/err"
	t_check "dlfilter keeps what wult report keeps ($kept)" \
		grep -q "wult-filter: kept $kept, dropped $((2000 - kept)) datapoints" "$tmp/err"
else
	echo "SKIP: no perf or no $DLF: dlfilter checks not run"
	t_fail "dlfilter checks skipped (perf or the dlfilter missing)"
fi
t_done
