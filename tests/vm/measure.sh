#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 5
# Measuring without perf: /sys/kernel/debug/wult/measure starts and stops
# the measurement of chosen CPUs, so trace-cmd (or plain ftrace) records
# wult:datapoint with no perf event of the user's.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
M=/sys/kernel/debug/wult/measure
T=/sys/kernel/tracing

t_check "insmod" insmod "$WULT_KO" || { t_done; exit 1; }
t_eq "nothing measured at load" none "$(cat $M)"
t_check "bad CPU list refused" sh -c "! echo bogus > $M 2>/dev/null"
t_check "offline/absent CPU refused" sh -c "! echo 64 > $M 2>/dev/null"
t_check "bad option refused" sh -c "! echo '1 ldist=5,1' > $M 2>/dev/null"
t_check "unknown source refused" sh -c "! echo '1 source=nic' > $M 2>/dev/null"
t_eq "still nothing measured" none "$(cat $M)"

t_check "start CPU 1, LDist 100-1000 us" sh -c "echo '1 ldist=100,1000' > $M"
t_eq "measure shows it" "cpus=1 ldist=100,1000 source=hrt" "$(cat $M)"
t_check "measuring: armed moves" wult_wait_change 1 armed 100
t_check "rmmod refused while measuring" sh -c '! rmmod wult 2>/dev/null'
trace-cmd record -q -e wult:datapoint -o tc.dat sleep 2 > tc.out 2>&1
t_eq "trace-cmd record exits 0" 0 $?
trace-cmd report -i tc.dat 2> /dev/null | grep 'datapoint:' > tc.txt
n=$(wc -l < tc.txt)
t_check "trace-cmd recorded datapoints ($n)" test "$n" -gt 50
bad=$(grep -v ' cpu=1 ' tc.txt | wc -l)
t_eq "all of CPU 1" 0 "$bad"
# Plain ftrace, no tool at all.
echo 1 > $T/events/wult/datapoint/enable
sleep 1
echo 0 > $T/events/wult/datapoint/enable
n=$(grep -c 'datapoint:' $T/trace)
t_check "ftrace buffer has datapoints ($n)" test "$n" -gt 20
echo > $T/trace
t_check "stop" sh -c "echo none > $M"
t_eq "measure shows none" none "$(cat $M)"
a=$(wult_cnt 1 armed)
sleep 0.5
t_eq "nothing armed after stop" "$a" "$(wult_cnt 1 armed)"
t_eq "no wult event left" 0 "$(cat /sys/kernel/debug/wult/events)"

# A measured CPU going offline leaves the set: perf drops its event for
# good, so listing it (and holding the dead event) would be a lie.
on=/sys/devices/system/cpu/cpu1/online
if [ -w $on ]; then
	t_check "measure CPUs 0-1" sh -c "echo 0-1 > $M"
	t_check "CPU 1 measuring" wult_wait_change 1 armed 100
	echo 0 > $on
	for _ in $(seq 50); do
		[ "$(cat /sys/kernel/debug/wult/events)" = 1 ] && break
		sleep 0.1
	done
	t_eq "CPU 1 offline: measure lists CPU 0 only" \
		"cpus=0 ldist=0,4000 source=hrt" "$(cat $M)"
	t_eq "CPU 1's event is released" 1 "$(cat /sys/kernel/debug/wult/events)"
	echo 1 > $on
	t_eq "back online: not measured until written again" \
		"cpus=0 ldist=0,4000 source=hrt" "$(cat $M)"
	t_check "measure CPU 1 after its return" sh -c "echo 1 > $M"
	t_check "CPU 1 measuring again" wult_wait_change 1 armed 100
	t_check "stop" sh -c "echo none > $M"
	t_eq "no wult event left after the hotplug" 0 \
		"$(cat /sys/kernel/debug/wult/events)"
else
	t_skip "CPU 1 cannot go offline"
fi
t_check "rmmod" rmmod wult
t_done
