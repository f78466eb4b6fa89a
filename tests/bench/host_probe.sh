#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions from the idle-exit probe's entry to the TAI read, and from
# the hrt timer callback's entry to the TIntr read, from each kernel's build
# of wult.ko. Goal: at most 12 each.
build=${WULT_BUILD:-$(dirname "$0")/../../build}
for k in 6.1 6.12 6.12-rt; do
	ko=$build/kernel/$k/wult.ko
	[ -f "$ko" ] || { echo "  $k: $ko missing (make modules)"; continue; }
	for fn in "wult_idle_probe exit probe entry -> TAI" "wult_hrt_fn hrt callback entry -> TIntr"; do
		n=$(python3 "$(dirname "$0")/probe_insns.py" "$ko" "${fn%% *}" ktime_get) ||
			{ echo "  $k: ${fn%% *} not measurable"; continue; }
		[ "$n" -le 12 ] && v=met || v="GOAL MISSED"
		printf '  %-8s %-30s read: %2d instructions (goal <= 12): %s\n' "$k" "${fn#* }" "$n" "$v"
	done
done
