#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 13
# wult record -> wult report on a real measurement: per-datapoint latencies
# equal the python decoder's to the nanosecond, the statistics equal the
# perf script -s report's, plain perf record files read too, and a two-file
# diff shows both files.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
py=$WULT_SRC/scripts/perf

t_check "insmod" insmod "$WULT_KO"
# 300: every check below is an equality, and each datapoint costs ~5 ms of
# host CPU under TCG in the two python scripts.
wult record -q -c 300 -o r.data 2>/dev/null
t_eq "record 300 datapoints" 0 $?

# Per datapoint: CSV (us, 3 decimals) against the decoder (ns), by LTime.
wult report --csv r.csv r.data > /dev/null
t_eq "report --csv" 0 $?
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	 { printf "%s %.0f %.0f\n", $c["LTime"], $c["WakeLatency"] * 1000,
	   $c["IntrLatency"] * 1000 }' r.csv | sort > c.txt
perf script -i r.data -s "$py/wult-decode.py" 2>/dev/null |
	awk '$1 == "raw" { print $5, $14, $15 }' | sort > p.txt
t_eq "CSV has every datapoint" 300 "$(wc -l < c.txt)"
t_check "latencies equal the python decoder's to the ns" cmp -s c.txt p.txt

# Statistics: "all" rows of wult report -u ns against wult-report.py --ns.
wult report -u ns r.data > w.txt
perf script -i r.data -s "$py/wult-report.py" -- --ns 2>/dev/null > s.txt
for m in WakeLatency IntrLatency; do
	col=$([ $m = WakeLatency ] && echo 2 || echo 3)
	# libwult's statistics are exact to the ns, also for the tails of tens
	# of ms of TCG guests: beyond 2^22 ns the values themselves are kept
	# while they are at most WULT_STATS_KEEP (32768) a metric, far more
	# than 300 datapoints hold (Documentation/datapath.md).
	for st in count min median p99 p99.9 max; do
		w=$(awk -v st="$st" -v c="$col" '/^all:/ { a = 1 } a && $1 == st { print $c; exit }' w.txt)
		i=$(awk 'NR == 2 { for (k = 1; k <= NF; k++) if ($k == "'"$st"'") print k }' s.txt)
		p=$(awk -v m="$m" -v i="$i" '$1 == "all" && $2 == m { print $i }' s.txt)
		t_check "$m $st: wult report $w, python $p" \
			awk -v a="$w" -v b="$p" 'BEGIN { d = a - b; if (d < 0) d = -d
				exit !(a != "" && b != "" && d < 1) }'
	done
done

# Files of plain perf record, PMU samples and tracepoint.
perf record -q -R -e wult/datapoints/ -C 1 -o pmu.data -- sleep 1
wult report pmu.data > pmu.txt 2>&1
t_eq "wult report reads perf record -R -e wult/datapoints/" 0 $?
perf record -q -e wult/datapoints/ -e wult:datapoint -C 1 -o tp.data -- sleep 1
wult report tp.data > tp.txt 2>&1
t_eq "wult report reads perf record -e wult:datapoint" 0 $?
t_check "tracepoint file has datapoints" grep -qE '^all: [1-9][0-9]* datapoints' tp.txt

wult report r.data pmu.data > diff.txt
t_eq "two-file diff" 0 $?
t_check "diff names both files" sh -c 'grep -q r.data diff.txt && grep -q pmu.data diff.txt'

wult report nosuch.data > /dev/null 2> e.txt
t_check "missing file: non-zero exit" test $? -ne 0
t_check "missing file: named" grep -q nosuch.data e.txt
t_check "rmmod" rmmod wult
t_done
