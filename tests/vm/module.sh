#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module loads, registers the wult PMU (sysfs and perf list), and
# unloads cleanly. vm-run checks the kernel log afterwards.
. "$WULT_SRC/tests/lib.sh"

pmu=/sys/bus/event_source/devices/wult

t_check "wult PMU absent before insmod" test ! -e $pmu
t_check "insmod wult.ko" insmod "$WULT_KO"
t_check "PMU in sysfs" test -d $pmu
type=$(cat $pmu/type 2>/dev/null)
t_check "PMU has a dynamic type (got '$type')" test "${type:-0}" -ge 6
t_check "PMU cpumask file" test -r $pmu/cpumask
t_check "perf list shows wult events" sh -c 'perf list pmu 2>/dev/null | grep -q "wult/"'
t_check "lsmod shows wult" sh -c 'grep -q "^wult " /proc/modules'
t_check "rmmod wult" rmmod wult
t_check "PMU gone after rmmod" test ! -e $pmu
t_check "module gone after rmmod" sh -c '! grep -q "^wult " /proc/modules'
t_check "insmod again after rmmod" insmod "$WULT_KO"
t_check "rmmod again" rmmod wult
t_done
