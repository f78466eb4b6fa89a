#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Engine yield and rate on an idle guest, LDist 100-200 us, 10 s, with perf
# record's default buffer. Baseline: the ideal rate 1 / (mean LDist + mean
# WakeLatency) of the same run. Goals: yield >= 95%, rate >= 80% of ideal,
# zero lost samples.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
insmod "$WULT_KO" || exit 1
stats=/sys/kernel/debug/wult/stats

a0=$(wult_cnt 1 armed) e0=$(wult_cnt 1 emitted)
t0=$EPOCHREALTIME
perf record -q -R -e wult/datapoints,ldist_min=100,ldist_max=200/ -C 1 -o b.data -- sleep 10
t1=$EPOCHREALTIME
a1=$(wult_cnt 1 armed) e1=$(wult_cnt 1 emitted)
grep "^cpu1 " $stats
lost=$(perf report -i b.data --stats 2>/dev/null | awk '/LOST/ { s += $NF } END { print s + 0 }')
perf script -i b.data -s "$WULT_SRC/scripts/perf/wult-decode.py" 2>/dev/null |
	awk '$1 == "raw" { if (!n) first = $5; last = $5; n++; ld += $9; wl += $12 }
	     END { print n, ld / n, wl / n, (last - first) / 1000 }' > m.txt
# The rate is over the measured span, first to last LTime (us), not perf's
# start-up and shut-down.
read -r n ldist wake span < m.txt
awk -v a=$((a1 - a0)) -v e=$((e1 - e0)) -v n="$n" -v t="$span" -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
    -v ld="$ldist" -v wl="$wake" -v lost="$lost" 'BEGIN {
	y = 100 * e / a; rate = (n - 1) / (t / 1e6); ideal = 1e9 / (ld + wl)
	printf "  datapoints armed %d, emitted %d, recorded %d over %.2f s (perf ran %.1f s)\n", a, e, n, t / 1e6, wall
	printf "  yield      %.2f%% (goal >= 95%%): %s\n", y, (y >= 95 ? "met" : "GOAL MISSED")
	printf "  rate       %.0f/s vs ideal %.0f/s (mean LDist %.1f us + mean WakeLatency %.1f us): %.1f%% (goal >= 80%%): %s\n",
		rate, ideal, ld / 1000, wl / 1000, 100 * rate / ideal, (rate >= 0.8 * ideal ? "met" : "GOAL MISSED")
	printf "  lost       %d samples (goal 0): %s\n", lost, (lost == 0 ? "met" : "GOAL MISSED")
}'
