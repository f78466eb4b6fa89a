#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 4
# The module loads, registers the wult PMU (sysfs and perf list), and
# unloads cleanly. vm-run checks the kernel log afterwards.
. "$WULT_SRC/tests/lib.sh"

pmu=/sys/bus/event_source/devices/wult

t_check "wult PMU absent before insmod" test ! -e $pmu
t_check "insmod wult.ko" insmod "$WULT_KO"
t_check "PMU in sysfs" test -d $pmu
# format/ is made from the uapi header's term list at load: the strings
# are the ones wult.ko showed when they were typed by hand.
t_eq "format/ as tests/vm/wult_format.txt" \
	"$(sort "$WULT_SRC/tests/vm/wult_format.txt")" \
	"$(cd $pmu/format && for f in *; do echo "$f: $(cat "$f")"; done | sort)"
type=$(cat $pmu/type 2>/dev/null)
t_check "PMU has a dynamic type (got '$type')" test "${type:-0}" -ge 6
# No cpumask: perf would then count per-task use on every CPU of it.
t_check "no PMU cpumask file" test ! -e $pmu/cpumask
t_check "perf list shows wult events" sh -c 'perf list pmu 2>/dev/null | grep -q "wult/"'
t_check "lsmod shows wult" sh -c 'grep -q "^wult " /proc/modules'
# The cpu_idle probe exists exactly while wult events do.
ev=/sys/kernel/debug/wult/events
t_eq "no event, no probe" 0 "$(cat $ev)"
perf stat -e wult/datapoints/ -C 1 -- sleep 4 > /dev/null 2>&1 &
wult_wait_change 1 armed 50
t_eq "one event while perf stat runs" 1 "$(cat $ev)"
wait
t_eq "probe unregistered when the event is gone" 0 "$(cat $ev)"
a=$(wult_cnt 1 armed)
sleep 1
t_eq "nothing armed after the event is gone" "$a" "$(wult_cnt 1 armed)"
t_check "rmmod wult" rmmod wult
t_check "PMU gone after rmmod" test ! -e $pmu
t_check "module gone after rmmod" sh -c '! grep -q "^wult " /proc/modules'
t_check "insmod again after rmmod" insmod "$WULT_KO"
t_check "rmmod again" rmmod wult
t_done
