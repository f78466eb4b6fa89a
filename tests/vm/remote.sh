#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 12
# Wakes by something else just before LTime are not timer wakes
# (Documentation/kernel.md, rule C and other_wake). CPU 1 sleeps in
# wult_refidle's C3, left with interrupts off (irqs_off=4, exit 80 us) and
# advertising polling as mwait states do; CPU 0 queues a cross-CPU call to
# it every 500 us (wult_refidle/kick), which sets its need_resched and
# sends no interrupt, as a remote task wakeup does. A kick inside
# [LTime - 80 us, LTime] ends the wait, TAI comes 80 us later, past LTime,
# with our timer pending: taken for our wake it would give a WakeLatency
# below the 80 us every real C3 wake carries. None may be kept.
# The verdict does not hang on when the vCPUs run: whatever the kicks'
# phase, no datapoint below 80 us may pass, and with a kick period of 500
# us about a sixth of the datapoints have one in their window (another
# sixth just after LTime, during the exit, dropped too: ambiguous), so
# over >= 150 of them other_wake is never 0 but by a 10^-10 chance.
# The histograms follow the cpuidle driver: a first measurement without
# one names CPU 1's states POLL and default_idle; the one with
# wult_refidle must find C3 among them, its datapoints there.
# After our interrupt inside idle (IntrOff=0: C2, hlt then 20 us with
# interrupts off) the next event is dated from our handler, where
# irq_exit restarts the governor's idle clock: SilentTime (LTime - TBI)
# then lacks C2's 20 us exit: its mean is below LDist's (150 us) by that
# and the exit path. Measured: 122-125 us on the three kernels, and 144 us
# on 6.12 with the arm dated at the exit (both pulled down a few us by
# ticks that retake TBI). The bound, 134 us, is 5 standard errors of the
# mean (1.7 us over 300 datapoints) from either.
# Cost: the IRQs-off C3 spins while it waits (~15 s of host CPU per guest
# second): C3 is enabled only while measuring, ~0.1 guest s.
. "$WULT_SRC/tests/lib.sh"

taskset -pc 0 $$ > /dev/null	# this shell and its children stay off CPU 1
K=/sys/kernel/debug/wult_refidle/kick
M=/sys/kernel/debug/wult/measure
H=/sys/kernel/debug/wult/hist/wake_latency/CPU1

# states CPU LIST: enable exactly the states in LIST on CPU.
states() {
	local d
	for d in /sys/devices/system/cpu/cpu$1/cpuidle/state*; do
		case " $2 " in
		*" ${d##*state} "*) echo 0 > "$d/disable" ;;
		*) echo 1 > "$d/disable" ;;
		esac
	done
}

t_check "insmod wult.ko hist_bins=10240" insmod "$WULT_KO" hist_bins=10240 || { t_done; exit 1; }
t_check "measure CPU 1 without a cpuidle driver" sh -c "echo 1 > $M"
wult_wait_change 1 emitted 50
echo none > $M
t_check "its histograms name default_idle" grep -q '^#State: default_idle' $H
t_check "insmod wult_refidle exit_us=0,20,80 irqs_off=4" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 irqs_off=4 || { t_done; exit 1; }
# C1 (hlt) everywhere but while measuring: POLL and C3 spin.
states 0 1
states 1 1
a0=$(wult_cnt 1 armed) e0=$(wult_cnt 1 emitted)
t_check "kick CPU 1 from CPU 0 every 500 us" sh -c "echo '1 500000' > $K"

states 1 3
t_check "measure CPU 1, LDist 150-300 us" sh -c "echo '1 ldist=150,300' > $M"
for i in $(seq 200); do
	[ "$(wult_cnt 1 armed)" -ge $((a0 + 150)) ] && break
	sleep 0.05
done
echo none > $M
states 1 1
kick=$(cat $K)
echo off > $K

echo "# kicks: $kick"
grep '^cpu1 ' /sys/kernel/debug/wult/stats | sed 's/^/# /'
a=$(($(wult_cnt 1 armed) - a0)) e=$(($(wult_cnt 1 emitted) - e0))
o=$(wult_cnt 1 other_wake)
t_check "armed >= 150 ($a)" test "$a" -ge 150
t_check "emitted >= 50 ($e)" test "$e" -ge 50
t_check "kicks inside a wake window counted other_wake (${o:-absent})" \
	test "${o:-0}" -gt 0
# The C3 section of the WakeLatency histogram: the datapoints kept.
read -r n min low <<< "$(awk '/^#State:/ { s = $2 } s != "C3" { next }
	/^#Exact:/ { n = $3; min = $7 } /^ *[0-9]/ && $1 < 80 { low += $2 }
	END { print n + 0, min + 0, low + 0 }' $H)"
t_eq "histograms of wult_refidle's states" "POLL C1 C2 C3" \
	"$(sed -n 's/^#State: //p' $H | tr '\n' ' ' | sed 's/ $//')"
t_eq "every kept datapoint is in C3's" "$e" "$n"
t_eq "no kept C3 datapoint with WakeLatency below its 80 us exit (min $min ns)" 0 "$low"
t_check "C3 WakeLatency min >= 80 us ($min ns)" test "$min" -ge 80000

e0=$(wult_cnt 1 emitted)
states 1 2
echo '1 ldist=100,200' > $M
for i in $(seq 100); do
	[ "$(wult_cnt 1 emitted)" -ge $((e0 + 300)) ] && break
	sleep 0.05
done
echo none > $M
states 1 1
read -r n sum max <<< "$(awk '/^#State:/ { s = $2 } s == "C2" && /^#Exact:/ { print $3, $5, $9 }' \
	/sys/kernel/debug/wult/hist/silent_time/CPU1)"
t_check "C2: 300 datapoints (${n:-0})" test "${n:-0}" -ge 300
avg=$((${sum:-0} / ${n:-1}))
t_check "C2: mean SilentTime <= 134 us, LDist's 150 us less the exit ($avg ns, max ${max:-none} ns)" \
	test "$avg" -le 134000
t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle

# Unloading waits for CPUs still inside an enter() callback, where RCU
# does not see them: CPU 1 in C3, woken by the unload into a 20 ms exit
# wait (expedited grace periods make the unload itself far shorter). A
# liveness check: the old unload, which did not wait, passed it too (the
# guests did not show the race); kernel.md says why the wait is needed.
rcu_expedite
t_check "insmod wult_refidle exit_us=0,20,20000 irqs_off=4" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,20000 irqs_off=4
states 0 1
states 1 3
sleep 0.01
t_check "rmmod wult_refidle with CPU 1 in C3" rmmod wult_refidle
sleep 0.05
t_done
