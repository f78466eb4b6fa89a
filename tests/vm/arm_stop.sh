#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 4
#
# What the engine does around an arm (issue 36, round-2 items 5 and 10),
# CPU 1 measured through debugfs "measure" (hrt, no perf process), on the
# instruction-counted clock (guest seconds are instruction counts, not the
# host's wall clock):
# - a stop stops arming: once the event is released ("none": perf's del and
#   stop), CPU 1's armed counter does not move for a guest second and its
#   local timer interrupts fall from the measuring rate (LDist 100-200 us:
#   thousands a second) to under a tenth of it and under 300 a second (HZ
#   is 250; an idle CPU's tick is mostly stopped);
# - a failed arm is retried: with the fault injection "fail_arms" set to 5
#   the next 5 arms fail (arm_failed moves by exactly 5, the knob reads 0
#   after), and datapoints come again after them, each retry made at an
#   idle exit (Documentation/kernel.md, "Counters").
. "$WULT_SRC/tests/lib.sh"

D=/sys/kernel/debug/wult
taskset -pc 0 $$ > /dev/null	# this shell and its children stay off CPU 1
t_need_icount
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }

# loc: CPU 1's local timer interrupts so far.
loc() { awk '$1 == "LOC:" { print $3 }' /proc/interrupts; }

# ---- a failed arm is retried ------------------------------------------------
echo "1 ldist=100,200" > $D/measure
t_check "measuring CPU 1" wult_wait_change 1 emitted 100
f0=$(wult_cnt 1 arm_failed)
echo 5 > $D/fail_arms
for i in $(seq 50); do [ "$(cat $D/fail_arms)" = 0 ] && break; sleep 0.1; done
t_eq "fail_arms: the 5 injected failures were taken" 0 "$(cat $D/fail_arms)"
t_eq "arm_failed moved by exactly 5" 5 $(($(wult_cnt 1 arm_failed) - f0))
t_check "datapoints again after the failed arms" wult_wait_change 1 emitted 100
t_eq "and no more failures" 5 $(($(wult_cnt 1 arm_failed) - f0))

# ---- a stop stops arming ----------------------------------------------------
a0=$(wult_cnt 1 armed) l0=$(loc)
sleep 1
a1=$(wult_cnt 1 armed) l1=$(loc)
echo none > $D/measure
a2=$(wult_cnt 1 armed) l2=$(loc)
sleep 1
a3=$(wult_cnt 1 armed) l3=$(loc)
echo "# measuring: $((a1 - a0)) armed, $((l1 - l0)) local timer interrupts in 1 s; stopped: $((a3 - a2)) armed, $((l3 - l2)) interrupts in 1 s"
t_check "measuring: >= 1000 arms a second ($((a1 - a0)))" test $((a1 - a0)) -ge 1000
t_eq "stopped: armed does not move" "$a2" "$a3"
t_check "stopped: local timer interrupts under a tenth of the measuring rate and 300/s ($((l3 - l2)))" \
	test $(((l3 - l2) * 10)) -lt $((l1 - l0)) -a $((l3 - l2)) -lt 300
t_eq "no wult event left" 0 "$(cat $D/events)"
t_done
