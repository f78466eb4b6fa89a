#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of trace_wake.sh: vm_insns.sh's setup (one CPU, wult_refidle's
# masked C1, LDist and the baseline timer's period 100 us), then one of
#   base     the baseline timer, no wult event
#   cnt_hrt  a counting hrt event (debugfs measure), cnt_tdt the same, tdt
#   rec_hrt  perf record -R of an hrt event, rec_tdt the same, tdt
# with refidle's idle_last stamp probe as in vm_insns.sh, then "READY" and
# the module sections' addresses on stdout, and waits for the host's gdb
# (which ends the guest). ksyms: the kernel's own symbols into $OUT.
MODE=${1:?mode}
PERIOD_US=100
B=/sys/kernel/debug/wult_refidle/bench
if [ "$MODE" = ksyms ]; then
	umount /proc/kallsyms	# the real one (scripts/guest/init)
	awk '$2 ~ /^[tTwW]$/ && NF == 3' /proc/kallsyms > "$OUT/ksyms.txt"
	exit
fi
for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
	[ -f "$c" ] && echo 0 > "$c"
done
insmod "$WULT_REFIDLE_KO" exit_us=0,0,0 irqs_off=7 masked_max_us=$((3 * PERIOD_US)) || exit 1
insmod "$WULT_KO" tdt=emulated || exit 1
for d in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
	case "$d" in */state1) echo 0 > "$d/disable" ;; *) echo 1 > "$d/disable" ;; esac
done
sleep 0.5
ev="wult/datapoints,ldist_min=$PERIOD_US,ldist_max=$PERIOD_US,source"
case $MODE in
base) echo "timer=$((PERIOD_US * 1000)) idle_last" > $B ;;
cnt_hrt|cnt_tdt)
	echo idle_last > $B
	echo "0 ldist=$PERIOD_US,$PERIOD_US source=${MODE#cnt_}" > /sys/kernel/debug/wult/measure ;;
rec_hrt) echo idle_last > $B
	perf record -q -R -C 0 -o /tmp/x.data -e "$ev=0/" -- sleep 100000 & ;;
rec_tdt) echo idle_last > $B
	perf record -q -R -C 0 -o /tmp/x.data -e "$ev=1/" -- sleep 100000 & ;;
*) echo "unknown mode '$MODE'"; exit 1 ;;
esac
sleep 0.3
for m in wult wult_refidle; do
	for s in "/sys/module/$m/sections/".*text*; do
		echo "SEC $m ${s##*/} $(cat "$s")"
	done
done
echo READY
sleep 100000
