#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# measure.sh CPU DATAPOINTS LDIST_MIN,LDIST_MAX: load wult.ko if needed,
# record DATAPOINTS datapoints of CPU with perf and print the per-state
# report. LDist is in microseconds. Runs in the vm-run guest (make run) or
# on real hardware (wult-run --host). Leaves wult.data (and the report as
# report.txt, datapoints as datapoints.csv) in $OUT.
set -euo pipefail
cpu=${1:-1} count=${2:-10000} ldist=${3:-0,4000}
pmu=/sys/bus/event_source/devices/wult
stats=/sys/kernel/debug/wult/stats

die() { echo "measure: $*" >&2; exit 1; }

[[ "$count" =~ ^[1-9][0-9]*$ ]] || die "DATAPOINTS must be a positive integer"
[[ "$ldist" =~ ^([0-9]+),([0-9]+)$ ]] || die "LDIST must be MIN,MAX in microseconds"
lmin=${BASH_REMATCH[1]} lmax=${BASH_REMATCH[2]}
[ -d "/sys/devices/system/cpu/cpu$cpu" ] || die "CPU $cpu does not exist"
[ "$(cat "/sys/devices/system/cpu/cpu$cpu/online" 2>/dev/null || echo 1)" = 1 ] ||
	die "CPU $cpu is offline"
if [ ! -d $pmu ]; then
	insmod "$WULT_KO" || die "cannot load $WULT_KO"
fi
[ -r $stats ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true

# The emitted count of this CPU, from the module's validity counters.
emitted() {
	sed -n "s/^cpu$cpu .*emitted=\([0-9]*\).*/\1/p" $stats 2>/dev/null || echo 0
}

ev="wult/datapoints,ldist_min=$lmin,ldist_max=$lmax/"
echo "wult: measuring CPU $cpu, $count datapoints, LDist ${lmin}-${lmax} us"
start=$(emitted)
perf record -q -R -e "$ev" -C "$cpu" -o "$OUT/wult.data" 2> "$OUT/perf-record.err" &
rec=$!
last=$start stall=0
while :; do
	sleep 1
	kill -0 $rec 2>/dev/null || { cat "$OUT/perf-record.err" >&2; die "perf record ended early"; }
	now=$(emitted)
	[ $((now - start)) -ge "$count" ] && break
	if [ "$now" = "$last" ]; then
		stall=$((stall + 1))
		[ $stall -lt 30 ] || { kill -INT $rec; die "no datapoint for 30 s: is CPU $cpu idle at all?"; }
	else
		stall=0
	fi
	last=$now
done
kill -INT $rec
wait $rec || true
echo "wult: counters: $(grep "^cpu$cpu " $stats)"
perf script -i "$OUT/wult.data" -s "$WULT_SRC/scripts/perf/wult-report.py" \
	-- --count "$count" --csv "$OUT/datapoints.csv" | tee "$OUT/report.txt"
