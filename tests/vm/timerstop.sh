#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Timer-stop states measured (issue 23): QEMU's CPU without ARAT, so the
# local APIC timer counts as stopping in wult_refidle's C3 (timer_stop=1)
# and cpuidle hands each expiry to the broadcast device (the HPET) around
# it. On the instruction-counted clock, one CPU measured (the others taken
# offline: an offline CPU never uses the broadcast), exit_us=0,20,80, only
# C3 enabled, LDist 2-4 ms, 300 datapoints: at least 90% must be C3 with
# WakeLatency - IntrLatency = 80 us +- 1 (the driver waits its exit latency
# after the interrupt) and IntrLatency < 5 us (the broadcast device fired
# the armed event itself), and C3's usage counter must grow by at least as
# many. Then C1 only, then C3 again, the same way; tdt (emulated) the same
# on C3; C3 left with interrupts off (irqs_off=4) carries the 80 us in its
# IntrLatency. Both modules unload; vm-run checks the kernel log.
#
# Before the fix in wult_refidle (the broadcast left at the wake, before
# the injected latency) the CPU got stuck in the broadcast force mask after
# a few C3 entries and every later datapoint was POLL
# (Documentation/kernel.md, "Timer-stop states").
# vm-args: --cpus 3 --cpu max,-arat
# (Three CPUs: the machine tdt.sh needs, booted once for both.)
# vm-cost: 10
. "$WULT_SRC/tests/lib.sh"

W=$OUT/timerstop
mkdir -p "$W"
t_cpu0_only	# sets C and CPUIDLE

t_need_icount
if grep -qw arat /proc/cpuinfo; then
	t_fail "the CPU has ARAT: run with vm-run --cpu max,-arat"
	t_done
	exit 1
fi
bc=$(awk '/^Broadcast device/ { getline; print $NF; exit }' /proc/timer_list)
t_eq "broadcast device" hpet "$bc"

only() {
	cstate_only "$CPUIDLE" "$1"
}

# median NAME COLUMN: the median of a CSV column of NAME's datapoints.
median() {
	awk -F, -v col="$2" 'NR == 1 { for (f = 1; f <= NF; f++) if ($f == col) c = f; next }
		{ print $c }' "$W/$1.csv" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : -1 }'
}

# stage NAME STATE LDIST COUNT CHECK [ARGS]: record COUNT datapoints with
# only STATE enabled and check that >= 90% are STATE and pass CHECK, an
# awk condition on w (WakeLatency), i (IntrLatency, both us), o (IntrOff)
# and b (the variable B); ARGS go to wult record. STATE's usage must grow
# by at least the count of its datapoints.
stage() {
	local name=$1 state=$2 ldist=$3 count=$4 check=$5 u0 du n k
	shift 5
	only "$state"
	u0=$(cat "$CPUIDLE/state$state/usage")
	wult record -q -C "$C" -c "$count" --ldist "$ldist" "$@" \
		-o "$W/$name.data" 2> "$W/$name.err"
	du=$(($(cat "$CPUIDLE/state$state/usage") - u0))
	only 1	# hlt while reporting: a masked C3 spins through all idle time
	wult report --csv "$W/$name.csv" "$W/$name.data" > "$W/$name.rep" 2>&1
	read -r n k <<< "$(awk -F, -v s="C$state" -v b="${B:-0}" '
		NR == 1 { for (f = 1; f <= NF; f++) c[$f] = f; next }
		{ n++; w = $c["WakeLatency"]; i = $c["IntrLatency"]; o = $c["IntrOff"]
		  if ($c["ReqCState"] == s && ('"$check"')) k++ }
		END { print n + 0, k + 0 }' "$W/$name.csv")"
	echo "# $name: $n datapoints, $k C$state passing, C$state entries $du;" \
		"W-I and I (us) min/median/max: $(awk -F, 'NR > 1 {
			print $1 - $2, $2 }' "$W/$name.csv" | sort -n | awk '
			{ d[NR] = $1 } END { if (NR) print d[1], d[int((NR + 1) / 2)], d[NR] }') /" \
		"$(awk -F, 'NR > 1 { print $2 }' "$W/$name.csv" | sort -n | awk '
			{ d[NR] = $1 } END { if (NR) print d[1], d[int((NR + 1) / 2)], d[NR] }')"
	t_check "$name: $count datapoints ($n)" test "$n" -eq "$count"
	t_check "$name: C$state usage grew by >= $k ($du)" test "$du" -ge "$k"
	# wult record names datapoints of a disabled state (POLL here, when
	# the CPU is stuck polling in the force mask).
	t_eq "$name: no datapoint of a disabled state" "" \
		"$(grep 'which is disabled' "$W/$name.err")"
	t_check "$name: >= 90% C$state with $check ($k of $n)" \
		test $((k * 10)) -ge $((count * 9))
}

# A CPU stuck in the broadcast force mask stays there, polling (costly on
# this clock): after a failed stage the others would only repeat it.
stop_if_failed() {
	[ "$T_FAIL" -eq 0 ] && return
	t_done
	exit 1
}

ON_C3='w - i >= 79 && w - i <= 81 && i < 5'
t_check "insmod wult_refidle exit_us=0,20,80 timer_stop=1" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 timer_stop=1 ||
	{ t_done; exit 1; }
t_check "insmod wult.ko tdt=emulated" insmod "$WULT_KO" tdt=emulated ||
	{ t_done; exit 1; }
stage c3 3 2000,4000 300 "$ON_C3"
stop_if_failed
stage c1 1 2000,4000 300 'w - i < 5 && i < 5'
stop_if_failed
stage c3again 3 2000,4000 300 "$ON_C3"
stop_if_failed
stage tdt 3 2000,4000 300 "$ON_C3" --method tdt
stop_if_failed
cat /sys/kernel/debug/wult/stats > "$W/stats"
t_check "rmmod wult_refidle" rmmod wult_refidle

# IRQs off: the exit probe runs before the interrupt, which then carries
# the injected latency: IntrLatency = 80 us +- 1 over the IRQs-on C3's of
# the same source (B), whose IntrLatency is the broadcast device's path to
# our callback alone. The spin stands in for the sleep (about 15 s of
# host CPU per guest second), hence a shorter LDist and fewer datapoints,
# and no idle accounting counters (their opening spins 0.75 s, see
# refidle.sh).
ON_MASKED='o == 1 && i - b >= 79 && i - b <= 81'
# wult record's opens and closes of its event wait for RCU grace periods
# while CPU 1 spins: expedited ones (rcu_expedite) end at once. None is
# waited for while datapoints are taken.
rcu_expedite
t_check "insmod wult_refidle timer_stop=1 irqs_off=4" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 timer_stop=1 irqs_off=4 ||
	{ t_done; exit 1; }
B=$(median c3 IntrLatency) stage masked 3 500,1000 50 "$ON_MASKED" --no-counters
stop_if_failed
B=$(median tdt IntrLatency) stage masked_tdt 3 500,1000 50 "$ON_MASKED" \
	--no-counters --method tdt
t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle
t_done
