#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions from the idle-exit probe's entry to the TAI read, and from
# each source's first hook in its interrupt to the TIntr read (hrt: the
# hrtimer callback, then ktime_get(); tdt: the local_timer_entry probe,
# then the TSC), from each kernel's build of wult.ko. Goal: at most 12 each.
# A static count; tests/bench/vm_insns.sh measures the same paths in a guest
# on the instruction-counted clock (Documentation/bench.md). A kernel
# without its wult.ko is a SKIP line (run-bench counts them); a path the
# script cannot count fails the run.
build=${WULT_BUILD:-$(dirname "$0")/../../build}
rc=0
for k in 6.1 6.12 6.12-rt; do
	ko=$build/kernel/$k/wult.ko
	[ -f "$ko" ] || { echo "  SKIP $k: $ko missing (make modules)"; continue; }
	for fn in "wult_idle_probe ktime_get exit probe entry -> TAI" \
		  "wult_hrt_fn ktime_get hrt: callback entry -> TIntr" \
		  "wult_tdt_timer_entry rdtsc tdt: timer IRQ entry -> TIntr"; do
		# shellcheck disable=SC2086	# its words: function, read, label
		set -- $fn
		n=$(python3 "$(dirname "$0")/probe_insns.py" "$ko" "$1" "$2") ||
			{ echo "  FAILED: $k: ${fn%% *} not measurable"; rc=1; continue; }
		[ "$n" -le 12 ] && v=met || v="GOAL MISSED"
		shift 2
		printf '  %-8s %-34s read: %2d instructions (goal <= 12): %s\n' "$k" "$*" "$n" "$v"
	done
done
exit $rc
