#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions from the idle-exit probe's entry to the TAI read, and from
# each source's first hook in its interrupt to the TIntr read (hrt: the
# hrtimer callback, then ktime_get(); tdt: the local_timer_entry probe,
# then the TSC), from each kernel's build of wult.ko. Goal: at most 12 each.
# A static count; tests/bench/vm_insns.sh measures the same paths in a guest
# on the instruction-counted clock (Documentation/bench.md).
build=${WULT_BUILD:-$(dirname "$0")/../../build}
for k in 6.1 6.12 6.12-rt; do
	ko=$build/kernel/$k/wult.ko
	[ -f "$ko" ] || { echo "  $k: $ko missing (make modules)"; continue; }
	for fn in "wult_idle_probe ktime_get exit probe entry -> TAI" \
		  "wult_hrt_fn ktime_get hrt: callback entry -> TIntr" \
		  "wult_tdt_timer_entry rdtsc tdt: timer IRQ entry -> TIntr"; do
		set -- $fn
		n=$(python3 "$(dirname "$0")/probe_insns.py" "$ko" "$1" "$2") ||
			{ echo "  $k: ${fn%% *} not measurable"; continue; }
		[ "$n" -le 12 ] && v=met || v="GOAL MISSED"
		shift 2
		printf '  %-8s %-34s read: %2d instructions (goal <= 12): %s\n' "$k" "$*" "$n" "$v"
	done
done
