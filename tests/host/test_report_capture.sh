#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report and a --stop-on capture beside its input (FILE.capture):
# the datapoint, what overlapped its idle period (counts and durations),
# the earlier wakes, the listing with its marks in time order; a capture
# that is not one is an error naming it; --json leaves it out of the
# document; wult record's --stop-on/--capture usage errors (the recording
# itself needs wult.ko: tests/vm/capture.sh). Runs the ASan/UBSan build.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
DATA=$top/tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

cp "$DATA/wult_record.data" "$tmp/r.data"
cp "$DATA/stop.capture" "$tmp/r.data.capture"
"$W" report "$tmp/r.data" > "$tmp/out" 2> "$tmp/err"
t_eq "wult report with a capture: exit 0" 0 $?
t_check "the capture section" grep -q "^capture ($tmp/r.data.capture: the 10 ms before" "$tmp/out"
t_check "the datapoint" grep -q \
	"datapoint: CPU 1, C3, WakeLatency 300.400 us, IntrLatency 0.900 us, LDist 1500.000 us, idle period TBI..TAI 1780.500 us" \
	"$tmp/out"
t_check "what overlapped the idle period" grep -q \
	"in the idle period: 1 irq (12.000 us), 1 vector (3.000 us), 1 softirq (7.000 us), 1 hrtimer (1.000 us), 0 timer (0.000 us), 1 nmi (2.500 us)" \
	"$tmp/out"
t_check "the device interrupt listed, with its duration, in the idle period" grep -Eq \
	"^ +480\.000 +12\.000  idle +irq_handler irq=24 name=virtio0-input\.0$" "$tmp/out"
t_check "the NMI from its delta_ns" grep -Eq "^ +977\.500 +2\.500  idle +nmi perf_event_nmi_handler$" \
	"$tmp/out"
t_check "an exit whose entry is before the window: not on the measured CPU's list" \
	sh -c "! grep -q 'exit only' '$tmp/out'"
# The marks in time order: armed, LTime, TIntr, TAI.
t_eq "the marks in time order" "armed LTime: TIntr: TAI:" \
	"$(grep -o -- '-- [A-Za-z]*:\?' "$tmp/out" | awk '{ printf "%s%s", n++ ? " " : "", $2 }')"

"$W" report --json "$tmp/r.data" > "$tmp/json" 2> "$tmp/err"
t_eq "--json with a capture: exit 0" 0 $?
t_check "--json: a document alone (no capture text)" sh -c "! grep -q '^capture' '$tmp/json'"

echo "hello" > "$tmp/r.data.capture"
"$W" report "$tmp/r.data" > "$tmp/out" 2> "$tmp/err"
t_check "a capture that is not one: non-zero exit ($?)" test $? -ne 0
t_check "a capture that is not one is said" grep -q "not a wult capture" "$tmp/err"

"$W" record --capture -o "$tmp/x.data" > /dev/null 2> "$tmp/err"
t_eq "record --capture without --stop-on: exit 2" 2 $?
t_check "...explained" grep -q "capture needs --stop-on" "$tmp/err"
"$W" record --stop-on 'WakeLatency > 1ms' --capture -o - > /dev/null 2> "$tmp/err"
t_eq "record --capture with -o -: exit 2" 2 $?
"$W" record --stop-on 'WakeLatency > 1ms' --capture=0 > /dev/null 2> "$tmp/err"
t_eq "record --capture=0: exit 2" 2 $?
t_check "...explained" grep -q "a window of 1-1000 ms" "$tmp/err"
t_done
