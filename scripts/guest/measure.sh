#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# measure.sh CPU DATAPOINTS LDIST_MIN,LDIST_MAX: load wult.ko if needed,
# record DATAPOINTS datapoints of CPU with `wult record` and print the
# per-state report of `wult report`. LDist is in microseconds. Runs in the
# vm-run guest (make run) or on real hardware (wult-run --host). Leaves
# wult.data, report.txt and datapoints.csv (intel wult's columns) in $OUT.
# Where no cpuidle driver is registered and $WULT_REFIDLE_KO is given (the
# guest), the reference driver wult_refidle is loaded first, so the report
# shows its four states (POLL, C1, C2, C3) as a real machine would.
set -euo pipefail
cpu=${1:-1} count=${2:-10000} ldist=${3:-0,4000}
stats=/sys/kernel/debug/wult/stats

die() { echo "measure: $*" >&2; exit 1; }

[[ "$count" =~ ^[1-9][0-9]*$ ]] || die "DATAPOINTS must be a positive integer"
drv=/sys/devices/system/cpu/cpuidle/current_driver
if [ -n "${WULT_REFIDLE_KO:-}" ] && [ "$(cat $drv 2>/dev/null)" = none ]; then
	# Its exit latencies given, not left to its defaults: an array
	# parameter left unset reads back empty from sysfs.
	insmod "$WULT_REFIDLE_KO" exit_us=1,20,80 || die "cannot load $WULT_REFIDLE_KO"
	echo "wult: no cpuidle driver here: loaded the reference driver wult_refidle" \
		"(states $(cat /sys/devices/system/cpu/cpu"$cpu"/cpuidle/state*/name | tr '\n' ' ' | sed 's/ $//'))," \
		"injected exit latencies of C1,C2,C3: $(cat /sys/module/wult_refidle/parameters/exit_us) us"
fi
if [ ! -d /sys/bus/event_source/devices/wult ]; then
	insmod "$WULT_KO" || die "cannot load $WULT_KO"
fi

echo "wult: measuring CPU $cpu, $count datapoints, LDist $ldist us"
# What a guest's figures are (Documentation/vm-run.md, "The clock").
case "${WULT_CLOCK:-}" in
icount) echo "wult: QEMU guest on the instruction-counted clock: 1 ns = 1 instruction of an ideal 1 GHz CPU; the figures are the code paths' instruction counts plus wult_refidle's injected exit latencies, not any real machine's latency" ;;
host) echo "wult: QEMU guest on the host's clock: the figures follow the host's load, not the code measured" ;;
esac
wult record -C "$cpu" -c "$count" --ldist "$ldist" -o "$OUT/wult.data"
if [ -r $stats ]; then
	echo "wult: module counters: $(grep "^cpu$cpu " $stats)"
fi
wult report -m WakeLatency,IntrLatency --csv "$OUT/datapoints.csv" "$OUT/wult.data" |
	tee "$OUT/report.txt"
