#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every output of the wult command on the repository's fixtures, held
# byte for byte against tests/data/outputs.sha256: wult report's text
# (default, per-CPU, histograms, raw, diffs, filters, every input kind),
# CSV, HTML and JSON, wult hist's table, CSV and HTML, and wult script
# through the traceevent plugin, the dlfilter and wult-report.py. A change
# meant to keep behaviour (a move, a split, a shared helper) must leave
# every one alone. Of wult script's outputs only what we write is held
# (see ours_out below), not what stock perf prints around it.
#   test_outputs.sh            compare with tests/data/outputs.sha256
#   test_outputs.sh --dump DIR write the outputs to DIR (diff -r two dumps),
#                              stock perf's own of wult script in DIR/perf/
#   test_outputs.sh --update   write tests/data/outputs.sha256 anew
# The rel build: the one shipped.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/rel/wult
SUMS=$top/tests/data/outputs.sha256
mode=check out=
case ${1:-} in
--dump) mode=dump out=$(realpath -m "$2") ;;
--update) mode=update ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The fixtures under short relative names, so that the paths the outputs
# name are the same from any checkout.
mkdir -p "$tmp/in" "$tmp/out"
cp "$top"/tests/data/*.data "$top"/tests/data/*.format "$top"/tests/data/*.capture "$tmp/in/"
cp -r "$top/tests/data/intel-wult/good" "$tmp/in/intel"
cd "$tmp" || exit 1
"$W" synth -o in/s3.data -c 3000 -s 1 --cstates 3 >/dev/null 2>&1
"$W" synth -o in/s4.data -c 2000 -s 2 --cstates 4 --wake 2us,30us >/dev/null 2>&1
"$W" synth -o in/sc.data -c 2000 -s 3 --cpus 3 >/dev/null 2>&1

# run NAME CMD...: stdout, stderr and exit status of one command.
run() {
	local n=$1
	shift
	"$@" > "out/$n.out" 2> "out/$n.err"
	echo $? > "out/$n.rc"
}

# Files without wult datapoints: the error.
for b in cpuclock group pipe raw sched_pipe zstd; do
	run "report-$b" "$W" report "in/$b.data"
	rm "in/$b.data"
done
for f in in/*.data in/intel; do
	b=$(basename "$f" .data)
	run "report-$b" "$W" report "$f"
	run "report-ns-$b" "$W" report --unit ns "$f"
	run "report-percpu-$b" "$W" report --per-cpu "$f"
	run "report-hist-$b" "$W" report --hist "$f"
	run "report-raw-$b" "$W" report --raw --unit ns "$f"
	run "report-json-$b" "$W" report --json "$f"
	run "report-csv-$b" "$W" report --csv "out/csv-$b/" "$f"
	run "report-html-$b" "$W" report --html "out/$b.html" "$f"
done
run diff "$W" report in/s3.data in/s4.data in/wult_record.data
run diff-json "$W" report --json in/s3.data in/s4.data
run diff-html "$W" report --html out/diff.html in/s3.data in/s4.data in/wult_record.data
run diff-csv "$W" report --csv out/diffcsv/ in/s3.data in/s4.data
run diff-hist "$W" report --hist in/s3.data in/s4.data
run diff-intel "$W" report in/intel in/wult_record.data
run cstates "$W" report --json --cstates POLL,C1,C6 in/s3.data
run include "$W" report --include 'ReqCState == "C1"' in/s3.data
run exclude "$W" report -x 'WakeLatency > 20000' --unit ns in/s4.data
run metrics "$W" report -m WakeLatencyRaw,LDist -u ms in/s3.data
run hist-lin "$W" report --hist IntrLatency --hist-linear --hist-buckets 5 in/s3.data
run plots "$W" report --html out/plots.html --plots WakeLatency,IntrLatency,CC0% in/s4.data
run failif "$W" report --fail-if 'all.p99 WakeLatency > 1us' in/s3.data
run failif-holds "$W" report --json --fail-if 'all.count WakeLatency < 10' in/s3.data
run format "$W" report --raw --unit ns --format in/wult_datapoint.v1.format in/wult_tp.data
run pipe "$W" report --unit ns - < in/wult_tp.data
cp in/wult_record.data in/cap.data && cp in/stop.capture in/cap.data.capture
run capture "$W" report in/cap.data
run capture-json "$W" report --json in/cap.data
run bogus "$W" report --bogus in/s3.data
run nope "$W" report in/nope.data
# The commands' usage, made from their option tables (perf-plugin/wult/opts.c):
# a change of a table's text or of its layout shows here.
for c in report record synth tsc hist script; do
	run "help-$c" "$W" "$c" --help
done
run resid-json "$W" report --json --per-cpu in/wult_resid.data

# wult hist on a directory laid out as wult.ko's debugfs one.
mkdir -p kh/wake_latency kh/intr_latency
for m in wake_latency intr_latency; do
	{
		printf '#CPU: 1\n#Metric: %s\n#Bin width: 1 microseconds\n' "$m"
		printf '#Datapoints of other states: 0\n#State: C1\n#Minimum latency: 10 microseconds\n'
		printf '#Average latency: 0 microseconds\n#Maximum latency: 12000 microseconds\n'
		printf '#Total samples: 100\n#There are 0 samples lower than 0 microseconds.\n'
		printf '#There are 1 samples greater or equal than 10240 microseconds.\n'
		printf '#Exact: count 100 sum 1500000 min 10100 max 12000000 nanoseconds\n'
		printf '#usecs\t%16s\n' samples
		printf '%5d\t%16d\n' 10 50 11 40 20 9
	} > "kh/$m/CPU1"
done
run hist "$W" hist --dir kh -m all --no-bars
run hist-bars "$W" hist --dir kh -C 1 -m wake_latency
run hist-csv "$W" hist --dir kh -C 1 -m wake_latency --no-bars --csv out/hist.csv
run hist-html "$W" hist --dir kh -m all --no-bars --html out/hist.html

# wult script runs stock perf script around our pieces, and stock perf's
# own text (its columns, their widths and order, symbol lookups, warnings)
# changes with Debian's point releases of linux-perf. What we write is held
# byte for byte: each wult:datapoint record as the traceevent plugin
# prints it (from its leading "cpu=N seq=" through its NAME=VALUE fields),
# so also which records the dlfilter keeps; wult-report.py's whole output;
# and our lines on stderr (wult-filter:, wult-report.py:, wult script:).
# Of stock perf's lines only the count of wult/datapoints samples it
# printed is held, which the data decides. Its exit status is held too.
ours_out() {
	awk '
	match($0, /(^|[ \t])cpu=[0-9]+ seq=[0-9]+ /) {
		s = substr($0, RSTART)
		sub(/^[ \t]+/, "", s)
		match(s, /^[A-Za-z][A-Za-z0-9_%]*=[^ \t]*( [A-Za-z][A-Za-z0-9_%]*=[^ \t]*)*/)
		print substr(s, 1, RLENGTH)
		next
	}
	/wult\/datapoints/ { pmu++ }
	END { printf "stock perf: %d wult/datapoints samples\n", pmu }'
}
ours_err() { grep '^wult' || true; }

# The plugin, the dlfilter and wult-report.py name idle states after this
# machine's cpuidle (sysfs), where it has one; the fixture was recorded in
# a guest without. Where this machine has one, its state names are hidden
# from the commands (a mount namespace, an empty directory over each CPU's
# cpuidle/), or, where that cannot be done (not root), the script outputs
# are not checked.
idle=$(echo /sys/devices/system/cpu/cpu[0-9]*/cpuidle)
[ -e "${idle%% *}" ] || idle=
hide_idle() {
	if [ -z "$idle" ]; then
		"$@"
		return
	fi
	unshare -m sh -c 'for d in $0; do mount -t tmpfs none "$d" || exit 99; done
		exec "$@"' "$idle" "$@"
}
# script NAME NORMALISE WULT-SCRIPT-ARGS...: wult script's outputs, stock
# perf's own kept in perf/ (for --dump), ours in out/ (NORMALISE: ours_out,
# or cat where all of stdout is ours). Its own HOME: no plugin installed
# under ~/.local is loaded beside the build's.
script() {
	local n=$1 norm=$2
	shift 2
	mkdir -p perf "$tmp/home"
	HOME=$tmp/home hide_idle "$W" script "$@" > "perf/$n.out" 2> "perf/$n.err"
	echo $? > "out/$n.rc"
	"$norm" < "perf/$n.out" > "out/$n.out"
	ours_err < "perf/$n.err" > "out/$n.err"
}
unset WULT_CSTATES
skip_script=
if ! command -v perf >/dev/null; then
	skip_script="no perf"	# scripts/deps installs it: a failure below
elif ! hide_idle true 2>/dev/null; then
	skip_script="this machine's cpuidle state names cannot be hidden (unshare -m, mount)"
else
	script script ours_out -i in/wult_tp.data
	script script-dlf ours_out -i in/wult_tp.data --dlfilter wult --dlarg 'WakeLatency > 50'
	script script-py cat -i in/wult_tp.data -s wult-report.py
fi

cd out || exit 1
# The CSV's info.yml says when it was written.
sed -i 's/^date: .*/date: -/' csv-*/info.yml
case $mode in
dump)
	rm -rf "$out" && mkdir -p "$out" && cp -r . "$out/"
	[ -d ../perf ] && cp -r ../perf "$out/"
	echo "outputs in $out"
	exit 0 ;;
update)
	if [ -n "$skip_script" ]; then
		echo "not updated: wult script's outputs not made ($skip_script)" >&2
		exit 1
	fi
	find . -type f | LC_ALL=C sort | xargs sha256sum > "$SUMS"
	echo "$(wc -l < "$SUMS") outputs in $SUMS"
	exit 0 ;;
esac

n=$(find . -type f | wc -l)
want=$(wc -l < "$SUMS")
if [ "$skip_script" = "no perf" ]; then
	t_fail "wult script's outputs not made: no perf"
	want=$((want - $(grep -c ' \./script' "$SUMS")))
elif [ -n "$skip_script" ]; then
	t_skip "wult script's outputs: $skip_script"
	want=$((want - $(grep -c ' \./script' "$SUMS")))
fi
t_eq "as many outputs as tests/data/outputs.sha256 holds" "$want" "$n"
while read -r sum f; do
	if [ -n "$skip_script" ] && [[ $f == ./script* ]]; then
		continue
	elif [ ! -f "$f" ]; then
		t_fail "$f: not written"
	elif [ "$(sha256sum < "$f" | cut -d' ' -f1)" = "$sum" ]; then
		T_PASS=$((T_PASS + 1))
	else
		t_fail "$f: differs from tests/data/outputs.sha256"
	fi
done < "$SUMS"
echo "ok - outputs checked byte for byte"
t_done
