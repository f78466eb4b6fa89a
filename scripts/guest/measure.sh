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
	insmod "$WULT_REFIDLE_KO" exit_us=1,20,80 echo=1 || die "cannot load $WULT_REFIDLE_KO"
	echo "wult: no cpuidle driver here: loaded the reference driver wult_refidle" \
		"(states $(cat /sys/devices/system/cpu/cpu"$cpu"/cpuidle/state*/name | tr '\n' ' ' | sed 's/ $//'))," \
		"injected exit latencies of C1,C2,C3: $(cat /sys/module/wult_refidle/parameters/exit_us) us"
fi
if [ ! -d /sys/bus/event_source/devices/wult ]; then
	insmod "$WULT_KO" || die "cannot load $WULT_KO"
fi

echo "wult: measuring CPU $cpu, $count datapoints, LDist $ldist us"
# In the guest, wult record and this script stay off the measured CPU:
# its vCPU idles as a measured CPU should, and the other vCPU's work
# (reading and writing the datapoints) overlaps the wakes as it would on
# hardware, in the turns QEMU gives it (Documentation/vm-run.md, "Slices").
if [ -n "${WULT_CLOCK:-}" ]; then
	others=$(awk -v c="$cpu" 'BEGIN { RS = ","; ORS = "" }
		{ n = split($0, r, "-"); lo = r[1] + 0; hi = (n > 1 ? r[2] : r[1]) + 0
		  for (i = lo; i <= hi; i++) if (i != c) { printf "%s%d", sep, i; sep = "," } }' \
		/sys/devices/system/cpu/online)
	[ -z "$others" ] || taskset -pc "$others" $$ > /dev/null ||
		die "cannot keep wult record off CPU $cpu"
	# Their exit waits halt, and then wait (pausing) while the measured
	# CPU is in its own, and one that runs when that wait starts takes
	# an NMI and pauses in it; each also takes a timer interrupt just
	# before each of the measured CPU's timer wakes and pauses in it
	# through the wake (wult_refidle's halt_exit and its echo): with
	# both vCPUs running QEMU alternates their turns at each deadline,
	# and the other CPU's work stretched the measured CPU's exit by up
	# to a tick (C3 +700-880 us), its wake interrupt by up to +804 us
	# (Documentation/vm-run.md, "Slices").
	halt=/sys/kernel/debug/wult_refidle/halt_exit
	if [ -n "$others" ] && [ -w $halt ]; then
		echo "$others" > $halt || die "cannot write $halt"
	fi
fi
# What a guest's figures are (Documentation/vm-run.md, "The clock").
case "${WULT_CLOCK:-}" in
icount) echo "wult: QEMU guest on the instruction-counted clock: 1 ns = 1 instruction of an ideal 1 GHz CPU; the figures are the code paths' instruction counts plus wult_refidle's injected exit latencies, not any real machine's latency" ;;
host) echo "wult: QEMU guest on the host's clock: the figures follow the host's load, not the code measured" ;;
esac
# What the vCPUs' turns can still distort, as measured in make run's
# default (6.1, 2 vCPUs, CPU 0 measured, 10,000 datapoints, fifteen runs,
# five of them first runs after a boot; Documentation/vm-run.md, "Slices").
if [ "${WULT_CLOCK:-}" = icount ] && [ -n "${others:-}" ]; then
	n=$(($(echo "$others" | tr ',' '\n' | wc -l) + 1))
	if [ -n "${WULT_SLICE_US:-}" ] && [ -n "$(cat "$halt" 2>/dev/null)" ]; then
		echo "wult: $n vCPUs taking turns, ${WULT_SLICE_US} us slices, the others yielding to the measured CPU's wakes (a timer interrupt just before each, an NMI at each exit wait): QEMU alternates running vCPUs' turns at its deadlines, and the others hand theirs back while the measured CPU wakes; measured in fifteen runs of 10,000 (five the first after a boot): WakeLatency p99.99 within 3.6 us of each state's median in 14, within 5.01 us in the other (C3, a first run), no datapoint more than 5.4 us above it; in seven runs set against the tick (six on 6.1), 20 of the 22 datapoints more than 1 us above their median (+1.4 to +3.8 us) came with the measured CPU's own scheduler tick, due less than 0.9 us after their LTime, whose handler and softirqs run in the wake interrupt before the exit, as on hardware and with one vCPU, the other two +1.85 and +2.05 us; IntrLatency p99.99 within 0.5 us; the medians the same to a few ns run to run"
	elif [ -n "${WULT_SLICE_US:-}" ]; then
		echo "wult: $n vCPUs taking turns, ${WULT_SLICE_US} us slices: a wake that overlaps the other vCPU's own wake is stretched by the other's run (its injected exit spins included); measured: C1, C2 WakeLatency and IntrLatency within 0.02 us of their medians at p99.99, C3 WakeLatency +30 to +880 us in 0.2% of its datapoints (15-25 of ~7,850 a run), IntrLatency +134 us once in 30,000"
	else
		echo "wult: several vCPUs taking turns without slices (vm-run --slice): any wake can wait for the other vCPU's turn, measured up to +830 us in every state (IntrLatency up to +84 us)"
	fi
fi
wult record -C "$cpu" -c "$count" --ldist "$ldist" -o "$OUT/wult.data"
if [ -r $stats ]; then
	echo "wult: module counters: $(grep "^cpu$cpu " $stats)"
fi
wult report -m WakeLatency,IntrLatency --csv "$OUT/datapoints.csv" "$OUT/wult.data" |
	tee "$OUT/report.txt"
