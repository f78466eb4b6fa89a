#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions from the idle-exit probe's entry to the TAI read, from each
# kernel's build of wult.ko. Goal: at most 12.
build=${WULT_BUILD:-$(dirname "$0")/../../build}
for k in 6.1 6.12 6.12-rt; do
	ko=$build/kernel/$k/wult.ko
	[ -f "$ko" ] || { echo "  $k: $ko missing (make modules)"; continue; }
	n=$(python3 "$(dirname "$0")/probe_insns.py" "$ko") || { echo "  $k: not measurable"; continue; }
	[ "$n" -le 12 ] && v=met || v="GOAL MISSED"
	printf '  %-8s exit probe entry -> TAI read: %2d instructions (goal <= 12): %s\n' "$k" "$n" "$v"
done
