#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# wult_refidle's pre-wake model (issue 38 item 4): prewake_us=0,0,30 with
# exit_us=0,20,80, so a wake of C3 by the local timer (hrt: wult's hrtimer
# on the local APIC timer) costs 80 - 30 = 50 us, and one by an IPI (the
# ipi method, CPU 0 the launcher) the full 80 us. The driver tells the
# local timer's wake by its vector pending at the wake or, for a wait that
# took its interrupt in hlt, by the local timer interrupt count.
# On the default machine: CPU 1 measured, CPU 0 the launcher idle in
# every state as on hardware, its exit waits halting (wult_refidle's
# halt_exit, as ipi.sh's: a spinning launcher would hold CPU 1's turn),
# instruction-counted clock, LDist 1-2 ms, 60 datapoints each,
# one state of CPU 1 enabled at a time, medians in ns:
#   - C3 left with interrupts on (hlt): WakeLatency (the injected wait
#     follows the handler, so TAI carries it) C3 - C1 = 50 us by hrt and
#     80 us by ipi;
#     wult report's methods comparison of the same hlt recordings (was
#     methods.sh): C3's saving less C1's is the 30 us pre-wake;
#   - C3 left with interrupts off, which polls (LDist 500-1000 us): the
#     same WakeLatency differences against C2, the same path with no exit
#     (section below). A polling state is enabled only for a window
#     inside the recording (recw): enabled around wult record's start and
#     end, CPU 1's spin made the test cost 35 s of host CPU, 12 s now.
# Tolerance +- 0.5 us on a difference of medians, as refidle.sh's (see
# diff_is).
# Measured, 6.12 / 6.1 / 6.12-rt: 49.983 / 49.985 / 49.984, 79.985 /
# 79.980 / 79.985, 49.990-50.002 / 49.992-49.997 / 49.985-49.999,
# 79.978-80.000 / 79.980-79.993 / 79.980-79.990 us (the IRQs-off ipi
# one with the launcher kept in C1 before: 79.504 to 80.427).
# On 6.12 only: the pre-wake is the driver's code, the same on every
# kernel, and ipi.sh covers the ipi path on all three; 6.1 and 6.12-rt
# passed it as well, twice each (11-12 s of host CPU each, restored).
# vm-kernels: 6.12
# vm-cost: 13
. "$WULT_SRC/tests/lib.sh"

W=$OUT/refidle_prewake
mkdir -p "$W"
t_need_icount
CPU0=/sys/devices/system/cpu/cpu0/cpuidle
CPUIDLE=/sys/devices/system/cpu/cpu1/cpuidle
taskset -pc 0 $$ > /dev/null	# this shell and its children stay off CPU 1

# rec NAME STATE METHOD: 60 datapoints of CPU 1 with only STATE enabled;
# REC_RC: wult record's exit status.
rec() {
	local m=
	[ "$3" = ipi ] && m="--method ipi --launcher 0"
	cstate_only $CPUIDLE "$2"
	# shellcheck disable=SC2086
	wult record -q -C 1 -c 60 --ldist "$LDIST" $m --no-counters \
		-o "$W/$1.data" 2> "$W/$1.err"
	REC_RC=$?
	cstate_only $CPUIDLE 1
	wult report --csv "$W/$1.csv" "$W/$1.data" > "$W/$1.rep" 2>&1
}

# recw NAME STATE METHOD: as rec, but STATE (one that spins: IRQs off)
# enabled only for a window inside the recording, C1 before and after it:
# a spinning CPU 1 costs host CPU for every guest ns (tests/README.md), and
# wult record's start and end take far longer than its 60 datapoints
# (~50 guest ms at LDist 500-1000 us). The window opens once the
# recording measures and closes after 70 more datapoints; NAME.csv keeps
# the window's first 60 of STATE, NAME.all.csv every datapoint.
recw() {
	local m= pid e0 i
	[ "$3" = ipi ] && m="--method ipi --launcher 0"
	cstate_only $CPUIDLE 1
	# shellcheck disable=SC2086
	wult record -q -C 1 -t 60 --ldist "$LDIST" $m --no-counters \
		-o "$W/$1.data" 2> "$W/$1.err" &
	pid=$!
	wult_wait_change 1 emitted 300 || echo "# $1: no datapoint before the window"
	e0=$(wult_cnt 1 emitted)
	cstate_only $CPUIDLE "$2"
	for i in $(seq 500); do
		[ $(($(wult_cnt 1 emitted) - e0)) -ge 70 ] && break
		sleep 0.02
	done
	cstate_only $CPUIDLE 1
	kill -INT $pid
	wait $pid
	wult report --csv "$W/$1.all.csv" "$W/$1.data" > "$W/$1.rep" 2>&1
	awk -F, -v s="C$2" 'NR == 1 { for (f = 1; f <= NF; f++) if ($f == "ReqCState") c = f; print; next }
		$c == s && k < 60 { print; k++ }' "$W/$1.all.csv" > "$W/$1.csv"
}

# others NAME STATE: datapoints of NAME.all.csv neither of C1 nor of STATE.
others() {
	awk -F, -v s="C$2" 'NR == 1 { for (f = 1; f <= NF; f++) if ($f == "ReqCState") c = f; next }
		$c != s && $c != "C1" { k++ } END { print k + 0 }' "$W/$1.all.csv"
}

# median NAME COLUMN: in ns (the CSV's us have 3 decimals), -1 if none.
median() {
	awk -F, -v col="$2" 'NR == 1 { for (f = 1; f <= NF; f++) if ($f == col) c = f; next }
		c { print $c }' "$W/$1.csv" | sort -g |
		awk '{ v[NR] = $1 } END { print NR ? sprintf("%.0f", v[int((NR + 1) / 2)] * 1000) : -1 }'
}

# count NAME STATE: datapoints of NAME, and those of state STATE.
count() {
	awk -F, -v s="C$2" 'NR == 1 { for (f = 1; f <= NF; f++) c[$f] = f; next }
		{ n++; k += ($c["ReqCState"] == s) } END { print n + 0, k + 0 }' "$W/$1.csv"
}

# diff NAME A B COLUMN WANT_US [TOL_NS]: B's median of COLUMN less A's is
# WANT_US, +- TOL_NS (500): the difference of two medians of the same
# path, one with the injected wait; what is left is where in its loop the
# wait was when the wake came. The IRQs-off section's ipi difference took
# 2500 while its launcher was kept in C1 (its median then lay in one of
# the modes the launcher's turn made, up to 2 us apart: 80.427 and 79.486
# us for 80); with the launcher idling under halt_exit in every state
# (below) 79.978-80.000 us in ten runs on the three kernels.
diff_is() {
	local a b
	a=$(median "$2" "$4") b=$(median "$3" "$4")
	echo "# $1: $4 medians (ns) $2 $a, $3 $b"
	t_within "$1: $4 $3 - $2 = $5 us +- ${6:-500} ns" $((b - a)) \
		$(($5 * 1000 - ${6:-500})) $(($5 * 1000 + ${6:-500}))
}

t_check "insmod wult_refidle exit_us=0,20,80 prewake_us=0,0,30" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 prewake_us=0,0,30 || { t_done; exit 1; }
t_eq "debugfs states: C3's pre-wake" 30 \
	"$(awk '$1 == "C3" { for (i = 2; i <= NF; i++) if ($i ~ /^prewake_us=/) print substr($i, 12) }' \
		/sys/kernel/debug/wult_refidle/states)"
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }
t_check "the launcher's exit waits halt (halt_exit 0)" \
	sh -c "echo 0 > /sys/kernel/debug/wult_refidle/halt_exit"
LDIST=1000,2000
for m in hrt ipi; do
	for s in 1 3; do
		rec $m$s $s $m
		t_eq "$m C$s: wult record exit 0" 0 "$REC_RC"
		read -r n k <<< "$(count $m$s $s)"
		t_check "$m C$s: 60 datapoints, all C$s ($k of $n)" test "$n" -eq 60 -a "$k" -eq 60
	done
done
diff_is "hlt C3, local timer wake" hrt1 hrt3 WakeLatency 50
diff_is "hlt C3, IPI wake" ipi1 ipi3 WakeLatency 80
# wult report's methods comparison (issue 38 item 4; was tests/vm/methods.sh,
# a guest of its own) on these recordings: `wult report HRT IPI` prints the
# methods block naming both methods, and C3's median saving less C1's (the
# two methods' own paths differ the same way in both states) is the 30 us
# pre-wake, +- 0.5 us (a difference of medians, as tests/vm/ipi.sh checks
# its own); --json's saved_median equals the text's (the guest has no
# python: read with grep). With the launcher idling under halt_exit, C3's
# saving less C1's measured 29.997 and 30.003 us in two runs (kept in C1,
# a spinning launcher's turn put an ipi median in one of two modes up to
# 2 us apart: 29.932 and 29.492 us seen).
cd "$W" || exit 1
for s in 1 3; do
	wult report hrt$s.data ipi$s.data > m$s.out 2>&1
	t_eq "C$s: wult report exit 0" 0 $?
	sed -n '/^Methods compared/,$p' m$s.out
	t_check "C$s: the methods block names hrt against ipi" \
		grep -q "^Methods compared (pre-wake): hrt$s.data (hrt) against ipi$s.data (ipi)" m$s.out
	saved[s]=$(awk '/^Methods compared/ { on = 1 } on && $1 == "C'$s'" && $2 == "median" { printf "%.0f", $5 * 1000 }' m$s.out)
	wult report --json hrt$s.data ipi$s.data > m$s.json 2>&1
	# The text rounds to the ns; the JSON keeps the value (ns): within
	# 0.5 ns (rounding it again disagreed on a half: 32028.5 ns).
	js=$(tr -d ' \n' < m$s.json | grep -o '"methods_compared".*' |
	     grep -o '"state":"C'$s'"[^}]*' | grep -o '"saved_median":[^,]*' | cut -d: -f2)
	t_check "C$s: --json's saved median is the text's ($js ns, text ${saved[s]} ns)" \
		awk -v j="${js:-x}" -v t="${saved[s]:-y}" 'BEGIN { d = j - t
			exit !(j ~ /^-?[0-9.]+$/ && t ~ /^-?[0-9]+$/ && d <= 0.5001 && d >= -0.5001) }'
done
echo "# saved medians (ns): C1 ${saved[1]}, C3 ${saved[3]}"
t_within "C3's saving less C1's is the 30 us pre-wake +- 0.5 (ns)" \
	$((${saved[3]:-0} - ${saved[1]:-0})) 29500 30500
cd "$OUT" || exit 1
t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle

# IRQs off (irqs_off=6, exit_us=0,0,80: C2 with no exit, the same path
# as C3's with none, and C3; the launcher idle in every state, listed in
# halt_exit: its masked C2 and C3 sleep in hlt as its hlt states do, and
# CPU 1's polling wait hands it the turns around its wakes, ipi.sh's
# masked C3 section says how): the wait polls with the idle task
# advertising polling, so the ipi method's wake is a need_resched write,
# not an interrupt (ipi.sh's POLL), and both methods' datapoints are
# IntrOff=1: WakeLatency (TAI) carries the injected wait, C2's is the
# same path with none. The spin costs host CPU for its guest time: LDist
# 500-1000 us, no idle accounting counters
# (refidle.sh), expedited grace periods for wult record's opens and
# closes (rcu_expedite) and the state enabled only in a window (recw).
rcu_expedite
t_check "insmod wult_refidle exit_us=0,0,80 prewake_us=0,0,30 irqs_off=6" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,0,80 prewake_us=0,0,30 irqs_off=6 ||
	{ t_done; exit 1; }
insmod "$WULT_KO"
t_check "the launcher's exit waits halt again (halt_exit 0)" \
	sh -c "echo 0 > /sys/kernel/debug/wult_refidle/halt_exit"
c0=$(cat $CPU0/state2/usage) c3=$(cat $CPU0/state3/usage)
LDIST=500,1000
for m in hrt ipi; do
	for s in 2 3; do
		recw ${m}m$s $s $m
		read -r n k <<< "$(count ${m}m$s $s)"
		t_check "$m IRQs-off C$s: 60 datapoints of C$s in the window ($k)" test "$k" -eq 60
		t_eq "$m IRQs-off C$s: the others all C1" 0 "$(others ${m}m$s $s)"
	done
done
diff_is "IRQs-off C3, local timer wake" hrtm2 hrtm3 WakeLatency 50
diff_is "IRQs-off C3, IPI (need_resched) wake" ipim2 ipim3 WakeLatency 80
c0=$(($(cat $CPU0/state2/usage) - c0 + $(cat $CPU0/state3/usage) - c3))
t_check "IRQs off: the launcher idled in C2 or C3 ($c0 entries)" test "$c0" -gt 0
t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle
t_done
