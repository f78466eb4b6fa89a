#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's host benchmarks run to their end on small inputs, so that a
# change to the tools cannot leave them failing unseen (since issue 40, wult
# report keeps an existing --csv or --html output: bench_csv's timed runs
# failed, and host_report_html.sh timed the refusal, for weeks). Figures and
# goals are not judged here (make bench does, on full sizes); each run must
# exit 0, print no FAILED line, and print the lines its figures are read
# from. Their ratios go to a results file of this test's
# (WULT_BENCH_RESULTS), not to build/bench/results.txt, the real runs'
# history.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export WULT=$build/rel/wult WULT_BENCH_DIR=$tmp WULT_BENCH_CSV_DIR=$tmp
export WULT_BENCH_RESULTS=$tmp/results.txt

# bench NAME CMD...: CMD's output in $tmp/NAME.out; exit 0 and no FAILED
# line.
bench() {
	local name=$1 rc
	shift
	"$@" > "$tmp/$name.out" 2>&1
	rc=$?
	t_eq "$name: exit 0" 0 $rc
	if grep -q FAILED "$tmp/$name.out"; then
		t_fail "$name: a command failed: $(grep -m 1 FAILED "$tmp/$name.out")"
	else
		t_ok "$name: no command failed"
	fi
	[ $rc = 0 ] || tail -n 5 "$tmp/$name.out"
}
# has NAME ERE WHAT: NAME's output has a line matching ERE.
has() {
	t_check "$1: $3" grep -Eq "$2" "$tmp/$1.out"
}

WULT_BENCH_N=20000 WULT_BENCH_BASE_N=20000 WULT_BENCH_PREV=$tmp/csv.prev \
	bench csv "$build/rel/bench/bench_csv"
has csv '^ +wult report --csv DIR FILE +[0-9.]+ s: +[0-9]+ rows/s' "the CSV write timed"
has csv '^ +wult report DIR +[0-9.]+ s: +[0-9]+ rows/s' "the CSV read timed"
has csv 'read back and written again: byte for byte the same with threads, byte for byte the same without' \
	"the CSV written again byte for byte, with and without threads"

WULT_BENCH_N=20000 WULT_BENCH_PY_N=0 WULT_BENCH_PD_N=0 WULT_BENCH_DUCKDB=$tmp/none \
	WULT_BENCH_PREV=$tmp/datapath.prev bench datapath "$build/rel/bench/bench_datapath"
has datapath '^ +wult report FILE +[0-9.]+ s \([0-9.]+-[0-9.]+, 5 runs\): +[0-9]+ dp/s' \
	"wult report timed in five rounds"
has datapath '^ +feed P \| report - +[0-9.]+ s' "pipe mode timed"
has datapath '^ +4 time metrics +[0-9.]+ s, peak RSS [0-9.]+ MB' "the four-metric run's peak RSS"
has datapath '^bench_datapath: (GOAL MISSED|all goals met), 3 skipped' \
	"the three baselines turned off are counted as skipped"

# The comparison with the previous run: a ratio 1000 times the one just
# measured stands for a run before a change that made it 1000x worse;
# every round of the next run falls short of it, which fails the run
# (exit 1).
awk '$1 == "report_vs_cat" { $2 *= 1000 } { print }' "$tmp/datapath.prev" > "$tmp/doctored.prev"
WULT_BENCH_N=20000 WULT_BENCH_PY_N=0 WULT_BENCH_PD_N=0 WULT_BENCH_DUCKDB=$tmp/none \
	WULT_BENCH_PREV=$tmp/doctored.prev "$build/rel/bench/bench_datapath" > "$tmp/regress.out" 2>&1
t_eq "datapath: a ratio 1000x worse than the previous run's: exit 1" 1 $?
has regress 'report_vs_cat .*: REGRESSION \(every round more than 20% worse\)' \
	"datapath: that ratio is named a regression in every round"

# Each run's ratios kept, one line a run, with its machine.
t_eq "results: a line for each of bench_csv's and bench_datapath's three runs" 3 \
	"$(grep -Ec '^[0-9-]+ [0-9:]+ UTC bench_(csv|datapath) \[.*\] .*skipped=[0-9]+$' "$tmp/results.txt")"

WULT_BENCH_N=100000 bench mstate "$build/rel/bench/bench_mstate"
has mstate '^ +accounting on +[0-9.]+ ns' "accounting on timed"

bench tsc "$build/rel/bench/bench_tsc"
has tsc 'differs from perf.s formula on 0 of [0-9]+' "the conversion agrees with perf's on every tick"

WULT_BENCH_N=20000 WULT_BUILD=$build bench html bash "$top/tests/bench/host_report_html.sh"
for n in 10k 2k 20k; do
	has html "^ +$n: [0-9]+ datapoints: text report [0-9.]+ s, with --html [0-9.]+ s" \
		"$n: the text and HTML reports timed"
done
has html '^ +diff of 3 x 2k: page size +[0-9.]+ MB' "the diff's page measured"

WULT_BUILD=$build bench probe bash "$top/tests/bench/host_probe.sh"
WULT_BUILD=$build bench mstate_ko bash "$top/tests/bench/host_mstate.sh"
for k in 6.1 6.12 6.12-rt; do
	has probe "^ +${k//./\\.} +exit probe entry -> TAI +read: +[0-9]+ instructions" \
		"$k: the exit probe counted"
	has mstate_ko "^ +${k//./\\.} +cpu_idle probe per idle transition, accounting on: <= [0-9]+ instructions" \
		"$k: the idle probe's path counted"
done
t_done
