#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hrt and tdt side by side on the same idle CPU of one guest (tdt=emulated:
# QEMU's TCG APIC has no TSC-deadline mode, see Documentation/kernel.md),
# LDist 100-1000 us, 5 s each, alternated twice: median IntrLatency and
# WakeLatency, and the overhead stamps (the handler's time between its two
# TSC reads, taken off WakeLatency for IntrOff=0). The instruction counts
# from each source's first hook to its TIntr read are in host_probe.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
insmod "$WULT_KO" tdt=emulated || exit 1
taskset -p 1 $$ > /dev/null
for r in 1 2; do
	for src in 0 1; do
		perf record -q -R -e "wult/datapoints,source=$src,ldist_min=100,ldist_max=1000/" -C 1 \
			-o s.data -- sleep 5 2>/dev/null
		perf script -i s.data -s "$WULT_SRC/scripts/perf/wult-decode.py" 2>/dev/null |
			awk '$1 == "raw"' >> "s$src.txt"
	done
done
med() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'; }
for src in 0 1; do
	name=$([ $src = 0 ] && echo hrt || echo tdt)
	n=$(wc -l < "s$src.txt")
	il=$(awk '{ print $15 }' "s$src.txt" | med)
	wl=$(awk '{ print $14 }' "s$src.txt" | med)
	ovh=$(awk '$11 == 0 { print $12 - $14 }' "s$src.txt" | med)
	printf '  %s: %6d datapoints, median IntrLatency %7.3f us, WakeLatency %7.3f us, handler overhead %6.3f us\n' \
		"$name" "$n" "$(echo "$il" | awk '{ print $1 / 1000 }')" \
		"$(echo "$wl" | awk '{ print $1 / 1000 }')" "$(echo "$ovh" | awk '{ print $1 / 1000 }')"
	eval "il_$name=$il"
done
awk -v h="$il_hrt" -v t="$il_tdt" 'BEGIN {
	printf "  tdt / hrt median IntrLatency: %.3f (tdt stamps TIntr at the interrupt entry, before the hrtimer core)\n", t / h }'
rmmod wult
