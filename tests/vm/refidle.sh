#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ground truth: wult measured against wult_refidle, a cpuidle driver whose
# exit latencies are known (exit_us=0,20,80 for C1..C3). The governor must
# see the armed event (LDist decides the state), per-state latencies must
# differ by the injected amounts, a state left with IRQs off (irqs_off=4)
# must give IntrOff=1 datapoints whose IntrLatency carries the latency too,
# compensation must act as documented, and both modules must unload.
# One vCPU: with two, single-threaded TCG makes a wake wait for the other
# vCPU's time slice, which blurs medians by tens of microseconds.
# vm-args: --cpus 1
# vm-exclusive
. "$WULT_SRC/tests/lib.sh"

DEC=$WULT_SRC/scripts/perf/wult-decode.py
W=$OUT/refidle
mkdir -p "$W"
C=$(($(nproc) - 1))	# the measured CPU: the last one
CPUIDLE=/sys/devices/system/cpu/cpu$C/cpuidle
[ "$C" -gt 0 ] && { taskset -p 1 $$ > /dev/null || echo "# taskset failed: CPU $C is shared"; }

# record NAME LDIST COUNT: datapoints of CPU 1 decoded to NAME.txt
# (columns: src ev cpu seq ltime tbi tai tintr ldist req_cstate intr_off
# WakeLatency IntrLatency WakeLatencyC IntrLatencyC count).
record() {
	wult record -q -C $C -c "$3" --ldist "$2" -o "$W/$1.data" 2> "$W/$1.err"
	perf script -i "$W/$1.data" -s "$DEC" 2>/dev/null |
		awk '$1 == "raw"' >> "$W/$1.txt"
}

only() {
	local d
	for d in $CPUIDLE/state*; do
		case "$1" in
		all|"${d##*state}") echo 0 > "$d/disable" ;;
		*) echo 1 > "$d/disable" ;;
		esac
	done
}

# interleave LDIST COUNT NAME:STATE...: record each state (alone enabled)
# in turn, three rounds, so that they share the host's conditions: under
# TCG the guest's timing follows the host's load.
interleave() {
	local ldist=$1 count=$2 r x
	shift 2
	for r in 1 2 3; do
		for x in "$@"; do
			only "${x#*:}"
			record "${x%:*}" "$ldist" "$count"
		done
	done
	only all
}

# share FILE STATES: percentage of datapoints whose req_cstate is in STATES.
share() {
	awk -v s=" $2 " 'index(s, " " $10 " ") { k++ } END { print NR ? int(k * 100 / NR) : 0 }' "$1"
}

# The first quartile is the statistic: under TCG the host preempts the vCPU
# at random, which only ever adds time, and a wall-clock wait (the injected
# latency) absorbs what falls inside it, so upper quantiles of a state with
# a long injected wait grow less than those of one without. The lower
# quartile is the part of each distribution the host left alone.
Q=0.25

# quant FILE STATE EXPR: the Q-quantile (ns) of an awk expression over the
# datapoints of one state (IntrOff=1 ones only for the masked states).
quant() {
	awk -v s="$2" "\$10 == s { print $3 }" "$1" | sort -n |
		awk -v q=$Q '{ v[NR] = $1 } END { print NR ? v[int(NR * q) + 1] : -1 }'
}

# within NAME VALUE LO HI
within() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then
		t_ok "$1 ($2 in [$3, $4])"
	else
		t_fail "$1 ($2 not in [$3, $4])"
	fi
}

usage_sum() {
	cat $CPUIDLE/state*/usage | awk '{ s += $1 } END { print s }'
}

# ---- the driver itself -----------------------------------------------------
# timer_stop=1: C3 is a timer-stop state. In these guests the local APIC
# timer has ARAT and never stops, so cpuidle's broadcast hand-over is a
# no-op: this shows the flag changes nothing else.
t_check "insmod wult_refidle exit_us=0,20,80 timer_stop=1" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 timer_stop=1 || { t_done; exit 1; }
t_eq "cpuidle driver" wult_refidle "$(cat /sys/devices/system/cpu/cpuidle/current_driver)"
t_eq "state names" "POLL C1 C2 C3" "$(cat $CPUIDLE/state*/name | tr '\n' ' ' | sed 's/ $//')"
t_eq "C3 residency (us)" 400 "$(cat $CPUIDLE/state3/residency)"
c2lat=$(cat $CPUIDLE/state2/latency)
t_check "C2 exit latency = 20 us + detection ($c2lat)" test "$c2lat" -ge 20 -a "$c2lat" -le 30
out=$(insmod "$WULT_REFIDLE_KO" 2>&1)
t_check "a second cpuidle driver is refused ($out)" test $? -ne 0

t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }
u0=$(usage_sum)

# ---- the governor sees LTime ------------------------------------------------
record short 0,50 300
record long 2000,4000 200
n=$(wc -l < "$W/short.txt")
t_eq "LDist 0-50 us: 300 datapoints" 300 "$n"
p=$(share "$W/short.txt" "0 1")
t_check "LDist 0-50 us: mostly POLL/C1 ($p%)" test "$p" -ge 70
p=$(share "$W/long.txt" "3")
t_check "LDist 2000-4000 us: >= 80% C3 ($p%)" test "$p" -ge 80

# ---- known exit latencies ----------------------------------------------------
# One state enabled at a time, one LDist range for all: under TCG the wake
# path itself depends on how long the CPU slept, so only the state changes.
# In an interrupts-on state the handler runs as soon as hlt wakes, and the
# driver then waits exit_us before the idle exit: the injected latency lies
# between TIntr and TAI. How fast a halted vCPU wakes varies from one
# recording to the next with the host's load, and that part is in both
# TIntr and TAI: WakeLatency - IntrLatency of each datapoint leaves it out.
# The host's load can still spoil a whole attempt: up to three are made,
# each printed, and the last one is checked.
irqs_on_attempt() {
	rm -f "$W"/s[123].txt
	interleave 1000,2000 100 s1:1 s2:2 s3:3
	g1=$(quant "$W/s1.txt" 1 '$14 - $15') g2=$(quant "$W/s2.txt" 2 '$14 - $15')
	g3=$(quant "$W/s3.txt" 3 '$14 - $15')
	echo "# attempt $1: WakeLatency - IntrLatency, lower quartile (ns): C1 $g1, C2 $g2, C3 $g3"
	d2=$((g2 - g1)) d3=$((g3 - g1))
	[ $d2 -ge 13000 ] && [ $d2 -le 27000 ] && [ $d3 -ge 68000 ] && [ $d3 -le 92000 ]
}
for a in 1 2 3; do irqs_on_attempt $a && break; done
for s in 1 2 3; do
	n=$(wc -l < "$W/s$s.txt") k=$(awk -v s=$s '$10 == s' "$W/s$s.txt" | wc -l)
	t_check "only C$s enabled: its datapoints ($k of $n)" test "$k" -ge $((n * 9 / 10)) -a "$n" -gt 0
done
within "WakeLatency carries C2's latency: C2 - C1 = 20 us +- 7" $d2 13000 27000
within "WakeLatency carries C3's latency: C3 - C1 = 80 us +- 12" $d3 68000 92000
t_eq "IRQs-on states: every datapoint IntrOff=0" 0 \
	"$(cat "$W"/s[123].txt "$W"/long.txt | awk '$11 != 0' | wc -l)"
# Compensation, IntrOff=0: the handler's overhead comes off WakeLatency only.
bad=$(awk '$11 == 0 && !($14 < $12 && $15 == $13)' "$W/s1.txt" | wc -l)
t_eq "IntrOff=0: WakeLatency < WakeLatencyRaw, IntrLatency = raw" 0 "$bad"

u1=$(usage_sum)
t_check "cpuidle usage counters moved ($u0 -> $u1)" test "$u1" -gt "$u0"
t_check "C3 residency time counted" test "$(cat $CPUIDLE/state3/time)" -gt 0
t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle
t_eq "no cpuidle driver after rmmod" none "$(cat /sys/devices/system/cpu/cpuidle/current_driver)"

# ---- C3 left with interrupts off: the IntrOff=1 path ---------------------------
# C1 is masked too (irqs_off=5): both then detect the wake the same way, and
# under TCG a halted vCPU wakes up more slowly than a spinning one.
t_check "insmod wult_refidle irqs_off=5" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 irqs_off=5
insmod "$WULT_KO"
irqs_off_attempt() {
	rm -f "$W"/off[13].txt
	interleave 1000,2000 100 off1:1 off3:3
	c1w=$(quant "$W/off1.txt" 1 '$11 == 1 ? $14 : 1e12') c1i=$(quant "$W/off1.txt" 1 '$11 == 1 ? $15 : 1e12')
	c3w=$(quant "$W/off3.txt" 3 '$11 == 1 ? $14 : 1e12') c3i=$(quant "$W/off3.txt" 3 '$11 == 1 ? $15 : 1e12')
	echo "# attempt $1: lower quartiles (ns): C1 wake $c1w intr $c1i, C3 (IRQs off) wake $c3w intr $c3i"
	dw=$((c3w - c1w)) di=$((c3i - c1i))
	[ $dw -ge 65000 ] && [ $dw -le 95000 ] && [ $di -ge 65000 ] && [ $di -le 95000 ]
}
for a in 1 2 3; do irqs_off_attempt $a && break; done
n3=$(awk '$10 == 3' "$W/off3.txt" | wc -l)
o3=$(awk '$10 == 3 && $11 == 1' "$W/off3.txt" | wc -l)
t_check "C3 datapoints have IntrOff=1 ($o3 of $n3)" test "$n3" -gt 0 -a $((o3 * 100)) -ge $((n3 * 95))
within "IRQs-off C3: WakeLatency - C1's = 80 us +- 15" $dw 65000 95000
within "IRQs-off C3: IntrLatency - C1's = 80 us +- 15" $di 65000 95000
# Compensation, IntrOff=1: the exit probe's overhead comes off IntrLatency.
bad=$(awk '$11 == 1 && !($15 < $13 && $14 == $12)' "$W/off3.txt" | wc -l)
t_eq "IntrOff=1: IntrLatency < IntrLatencyRaw, WakeLatency = raw" 0 "$bad"
bad=$(awk '$11 == 1 && !($7 < $8)' "$W/off3.txt" | wc -l)
t_eq "IntrOff=1: TAI before TIntr" 0 "$bad"
# The exit counters against the samples of the same group: C3's
# datapoints taken after the idle exit (IntrOff=1), and their TIntr - TAI.
# An IRQs-off state takes no interrupt inside its idle periods.
L=ldist_min=1000,ldist_max=2000
perf record -q -R -C $C -o "$W/exit.data" -e "{wult/datapoints,$L/,wult/exit_intr_time,state=3,$L/,wult/exit_intrs,state=3,$L/,wult/idle_irqs,state=3/,wult/idle_entries,state=3/}:S" -- sleep 2 2> "$W/exit.err"
perf script -i "$W/exit.data" -s "$DEC" 2>/dev/null | awk '$1 == "raw"' > "$W/exit.txt"
# The group's values read with the last sample, leader first.
read -r gn gsum gcnt girq gent <<< "$(perf script -i "$W/exit.data" -D 2>/dev/null |
	awk '/group nr/ { k = 0 } /\.\.\.\.\. id .* value/ { v[++k] = $5 }
	     END { print v[1], v[2], v[3], v[4], v[5] }' FS='[ ,]+' |
	while read -r a b c d e; do echo $((16#$a)) $((16#$b)) $((16#$c)) $((16#$d)) $((16#$e)); done)"
read -r ssum scnt <<< "$(awk '$10 == 3 && $11 == 1 && $8 >= $7 { s += $8 - $7; n++ }
	END { print s + 0, n + 0 }' "$W/exit.txt")"
echo "# exit counters: $gcnt datapoints, $gsum ns; samples: $scnt, $ssum ns; C3 entries $gent, interrupts in C3 $girq"
t_eq "samples = the group leader's count" "$(wc -l < "$W/exit.txt")" "$gn"
t_check "C3 IntrOff=1 datapoints recorded ($scnt)" test "${scnt:-0}" -ge 20
t_eq "exit_intrs,state=3 = C3 IntrOff=1 samples" "$scnt" "$gcnt"
t_eq "exit_intr_time,state=3 = their TIntr - TAI sum (ns)" "$ssum" "$gsum"
t_check "C3 entered ($gent)" test "${gent:-0}" -ge "${scnt:-1}"
t_eq "idle_irqs,state=3: no interrupt inside an IRQs-off state" 0 "$girq"
grep "^cpu$C " /sys/kernel/debug/wult/stats | sed 's/^/# /'
t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle
t_check "bad irqs_off refused" sh -c "! insmod $WULT_REFIDLE_KO irqs_off=8 2>/dev/null"
t_done
