#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Timer-stop states in a guest (issue 11 d): a local APIC timer without ARAT
# stops in C3, so cpuidle hands the next expiry to the broadcast device
# (the HPET) around it. Run as
#   scripts/vm-run --kernel 6.12 --cpus 1 --cpu max,-arat scripts/repro/timer-stop.sh
# It loads wult_refidle with timer_stop=1 and exit_us=0,20,80, enables one
# state at a time, records 300 datapoints of LDist 2-4 ms each, and prints
# per requested state: count, WakeLatency - IntrLatency (the injected
# latency lies between TIntr and TAI in these interrupts-on states: C3's
# must be >= 80 us each) and IntrLatency, with wult.ko's counters.
# The CPU used to stop entering C3 after a few entries (stuck in the
# broadcast force mask); wult_refidle now leaves the broadcast at the
# wake (Documentation/kernel.md, "Timer-stop states"), and
# tests/vm/timerstop.sh is the test.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
DEC=$WULT_SRC/scripts/perf/wult-decode.py
CPUIDLE=/sys/devices/system/cpu/cpu0/cpuidle
grep -A3 'Broadcast device' /proc/timer_list
insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 timer_stop=1 || exit 1
insmod "$WULT_KO" || exit 1

only() {
	local d
	for d in $CPUIDLE/state*; do
		case "$1" in
		"${d##*state}") echo 0 > "$d/disable" ;;
		*) echo 1 > "$d/disable" ;;
		esac
	done
}

# dist: min, lower quartile, median, p90, max of the numbers on stdin
dist() {
	sort -n | awk '{ a[NR] = $1 } END {
		if (NR) print NR ": " a[1], a[int(NR / 4) + 1], a[int(NR / 2) + 1],
			a[int(NR * 9 / 10) + 1], a[NR]; else print 0 }'
}

for s in 3 1 3; do
	k=$((k + 1))
	only $s
	u0=$(cat $CPUIDLE/state3/usage)
	wult record -q -C 0 -c 300 --ldist 2000,4000 -o "s$s.$k.data" 2> /dev/null
	perf script -i "s$s.$k.data" -s "$DEC" 2>/dev/null | awk '$1 == "raw"' > "s$s.$k.txt"
	echo "only state $s enabled: C3 entries $(($(cat $CPUIDLE/state3/usage) - u0))"
	for r in 0 1 3; do
		echo "  req $r: W-I (ns) $(awk -v r=$r '$10 == r { print $12 - $13 }' "s$s.$k.txt" | dist)"
		echo "         I (ns)   $(awk -v r=$r '$10 == r { print $13 }' "s$s.$k.txt" | dist)"
	done
done
cat /sys/kernel/debug/wult/stats
grep -A14 'Broadcast device' /proc/timer_list | grep -E 'retries|min_delta|mask'
rmmod wult wult_refidle
