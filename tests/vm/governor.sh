#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 7
# vm-kernels: 6.1 6.12
# (6.12-rt builds the same governors as 6.12.)
# wult report's governor block on a real governor: wult_refidle's states
# (exit_us 1,20,80, target residencies 2,100,400 us), one CPU, each governor
# the guest kernel has (available_governors: ladder and menu on 6.1 and 6.12
# in these guests; teo where built, skipped and said where not) at three LDist bands, each of which one state fits:
# 20-60 us (C1: every idle period below C2's 100 us), 200-350 us (C2: above
# 100, below C3's 400) and 1-2 ms (C3). The block's counts must add up, the
# band's row must be the only one, and the figures held:
# - menu sees wult's armed hrtimer as the next timer event, and on an idle
#   one-CPU guest nothing else wakes the CPU between the wakes, so it must
#   pick the right state for at least 90% of the wakes in every band (the
#   rest: the tick and the guest's own timers shortening its prediction,
#   and its first wakes before its correction factor settles);
# - ladder ignores the next timer and promotes one state at a time after a
#   few residencies above the next state's, so at 1-2 ms (every residency
#   far above C3's 400 us) it must reach C3 for most wakes (>= 50%). Its
#   other figures are printed, not held: on 6.1 and 6.12 (2026-11-28) it was
#   too deep for 34-37% of 20-60 us wakes and 93-97.5% of 200-350 us ones (C3 kept after
#   the residencies of the band above), and at 1-2 ms 5.5% too deep, as
#   menu's 0-1.5% there: idle periods cut below 400 us by another wake (the
#   tick, a guest timer) before the armed one, re-entered with the state
#   the history chose.
# cpuidle's own counts (usage, above, below of each state from its sysfs,
# stored in the description at the recording's start and end): C3's usage
# over a 1-2 ms recording is at least the report's C3 datapoints; a pipe
# recording (its description sent at the start) says it has none.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
t_cpu0_only	# sets C and CPUIDLE
GOV=/sys/devices/system/cpu/cpuidle

t_check "insmod wult_refidle" insmod "$WULT_REFIDLE_KO" exit_us=1,20,80 || { t_done; exit 1; }
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }
avail=$(cat "$GOV/available_governors")
echo "available governors: $avail"

# row FILE BAND: the governor block's row of BAND.
row() {
	awk -v b="$2" '/^Governor judged/ { on = 1 } on && $1 == b { print; exit }' "$1"
}
# pct FIELD ROW: a percentage column of a row, in hundredths.
pct() {
	echo "$2" | awk -v f="$1" '{ v = $f; sub(/%/, "", v); printf "%d", v * 100 }'
}

for g in menu ladder teo; do
	case " $avail " in
	*" $g "*) ;;
	*) t_skip "governor $g: not built in this kernel ($avail)"; continue ;;
	esac
	if ! echo "$g" > "$GOV/current_governor" 2>/dev/null; then
		t_fail "governor $g: current_governor not writable"
		continue
	fi
	for band in "20,60 10-100us" "200,350 100us-1ms" "1000,2000 1-10ms"; do
		ld=${band% *}
		name=${band#* }
		f=$g-${ld/,/-}
		wult record -q -C $C -c 200 --ldist "$ld" --no-counters -o "$f.data" 2> "$f.err"
		t_eq "$g LDist $ld: wult record exit 0" 0 $?
		wult report "$f.data" > "$f.out" 2>&1
		t_eq "$g LDist $ld: wult report exit 0" 0 $?
		sed -n '/^Governor judged/,$p' "$f.out"
		r=$(row "$f.out" "$name")
		all=$(row "$f.out" all)
		t_eq "$g LDist $ld: governor recorded" "$g" \
			"$(awk '/^Governor judged/ { on = 1 } on && $1 == "governor" { sub(/;/, "", $2); print $2; exit }' "$f.out")"
		t_eq "$g LDist $ld: one band ($name), its row is the total" \
			"$(echo "$r" | awk '{ $1 = ""; print }')" \
			"$(echo "$all" | awk '{ $1 = ""; print }')"
		sum=$(echo "$r" | awk '{ a = $3; b = $4; c = $5; sub(/%/, "", a); sub(/%/, "", b); sub(/%/, "", c); printf "%.0f", (a + b + c) * 100 }')
		t_within "$g LDist $ld: shallow + right + deep = 100% (hundredths)" "$sum" 9998 10002
		right=$(pct 4 "$r")
		deep=$(pct 5 "$r")
		case $g in
		menu|teo)
			t_within "$g LDist $ld: right (hundredths of %)" "$right" 9000 10000 ;;
		ladder)
			if [ "$name" = 1-10ms ]; then
				t_within "ladder LDist $ld: right, reaches C3 (hundredths of %)" "$right" 5000 10000
			fi
			echo "ladder LDist $ld: right $right, deep $deep (hundredths of %)" ;;
		esac
		# cpuidle's own counts over the recording: every datapoint picked
		# its state through an idle entry cpuidle counted.
		if [ "$name" = 1-10ms ]; then
			n3=$(awk '$1 == "C3:" && $3 == "datapoints" { print $2 }' "$f.out")
			u3=$(awk '/^  cpuidle.s own counts/ { on = 1 } on && $1 == "'"$C"'" && $2 == "C3" { print $3; exit }' "$f.out")
			t_within "$g LDist $ld: cpuidle's C3 usage over the recording >= the C3 datapoints ($n3)" \
				"${u3:-0}" "${n3:-1}" 100000000
		fi
	done
done
# Pipe mode: the description went out at the start, the end counts cannot.
wult record -q -C $C -c 20 --ldist 1000,2000 --no-counters -o - 2> p.err | wult report - > p.out 2>&1
t_check "pipe mode: the block says cpuidle's counts are not in the description" \
	grep -q "above/below counts: not in the description" p.out
echo menu > "$GOV/current_governor" 2>/dev/null
rmmod wult
rmmod wult_refidle
t_done
