#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ipi method's two wake kinds through the C decoder, on a real
# recording (tests/data/wult_ipi.data: 20 C1 datapoints, interrupt wakes,
# then 20 POLL ones, need_resched writes with no interrupt): the report
# names the method and counts both kinds on its two counting paths (the
# batch path, and --per-cpu's point path), the statistics leave IntrLatency
# out of the flag-write wakes (absent, not 0), the CSV, which cannot hold
# an empty cell, leaves the column out of a file with both kinds, and
# --include 'IntrLatency >= 0' keeps the interrupt wakes with it. The
# python decoder agrees.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
D=$top/tests/data/wult_ipi.data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

wakes="  wakes: 20 by interrupt, 20 by a need_resched write to a polling CPU (no interrupt, no IntrLatency)"
"$W" report "$D" > "$tmp/rep" 2>&1
t_eq "report exits 0" 0 $?
t_check "the method is ipi" grep -qx '  method: ipi' "$tmp/rep"
t_check "both wake kinds counted" grep -qxF "$wakes" "$tmp/rep"
"$W" report --per-cpu "$D" > "$tmp/cpu" 2>&1
t_check "--per-cpu counts the same" grep -qxF "$wakes" "$tmp/cpu"
# count row of a group: WakeLatency and IntrLatency counts.
counts() {
	awk -v g="$1:" '$1 == g { f = 1; next } f && $1 == "count" { print $2, $3; exit }' "$tmp/rep"
}
t_eq "C1: 20 WakeLatency, 20 IntrLatency" "20 20" "$(counts C1)"
t_eq "POLL: 20 WakeLatency, no IntrLatency" "20 0" "$(counts POLL)"
t_eq "all: 40 WakeLatency, 20 IntrLatency" "40 20" "$(counts all)"

"$W" report --csv "$tmp/all.csv" "$D" > /dev/null 2>&1
t_eq "CSV of both kinds: 40 rows" 40 $(($(wc -l < "$tmp/all.csv") - 1))
t_check "and no IntrLatency column" \
	bash -c "! head -n 1 '$tmp/all.csv' | tr ',' '\n' | grep -qx IntrLatency"
"$W" report --include 'IntrLatency >= 0' --csv "$tmp/intr.csv" "$D" > /dev/null 2>&1
t_eq "--include 'IntrLatency >= 0': the 20 interrupt wakes" 20 $(($(wc -l < "$tmp/intr.csv") - 1))
t_check "with their IntrLatency" \
	bash -c "head -n 1 '$tmp/intr.csv' | tr ',' '\n' | grep -qx IntrLatency"

if command -v perf > /dev/null; then
	perf script -i "$D" -s "$top/scripts/perf/wult-decode.py" 2> /dev/null |
		awk '$1 == "raw"' > "$tmp/py"
	t_eq "wult-decode.py: 40 datapoints, 20 without IntrLatency" "40 20" \
		"$(wc -l < "$tmp/py") $(awk '$13 == "-" && $15 == "-"' "$tmp/py" | wc -l)"
else
	t_skip "wult-decode.py: no perf on this host"
fi
t_done
