#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 7
# Mean latencies without samples: the latency-sum counting events. In one
# recorded run (a group whose members are the sums) the sums equal the
# recorded datapoints' latencies; the documented perf stat recipe prints
# the count, unit and means.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
pmu=/sys/bus/event_source/devices/wult

t_check "insmod" insmod "$WULT_KO"
t_eq "wake_latency_sum alias" "kind=1" "$(cat $pmu/events/wake_latency_sum 2>/dev/null)"
t_eq "intr_latency_sum unit" "ns" "$(cat $pmu/events/intr_latency_sum.unit 2>/dev/null)"

# Same run: the members' per-sample deltas add up to the sums over exactly
# the recorded datapoints. 1 s, ~500 of them: the checks are equalities,
# and wult-decode.py costs ~2.5 ms of host CPU a datapoint under TCG.
perf record -q -R -e '{wult/datapoints/,wult/wake_latency_sum/,wult/intr_latency_sum/}:S' \
	-C 1 -o g.data -- sleep 1 2> g.err
t_eq "record with the sums as group members" 0 $?
perf script -i g.data -F event,period 2>/dev/null | awk '
	/wake_latency_sum/ { w += $1 } /intr_latency_sum/ { i += $1 }
	/datapoints/ { n += $1 } END { printf "%d %d %d\n", n, w, i }' > sums.txt
read -r n w i < sums.txt
perf script -i g.data -s "$WULT_SRC/scripts/perf/wult-decode.py" 2>/dev/null |
	awk '$1 == "raw" { n++; w += $12; i += $13 } END { printf "%d %d %d\n", n, w, i }' > dec.txt
read -r dn dw di < dec.txt
t_check "datapoints recorded ($dn)" test "${dn:-0}" -ge 100
t_eq "group count = recorded datapoints" "$dn" "$n"
t_eq "WakeLatency sum = sum of recorded WakeLatencyRaw (ns)" "$dw" "$w"
t_eq "IntrLatency sum = sum of recorded IntrLatencyRaw (ns)" "$di" "$i"
mw=$(awk -v s="$w" -v n="$n" 'BEGIN { printf "%.3f", s / n }')
md=$(awk -v s="$dw" -v n="$dn" 'BEGIN { printf "%.3f", s / n }')
t_check "mean WakeLatency from the sums ($mw ns) within 1% of the samples' ($md ns)" \
	awk -v a="$mw" -v b="$md" 'BEGIN { d = (a - b) / b; exit !(d < 0.01 && d > -0.01) }'

# The perf stat recipe of Documentation/kernel.md.
perf stat -x, -e wult/datapoints/,wult/wake_latency_sum/,wult/intr_latency_sum/ \
	-C 1 -- sleep 3 > stat.out 2>&1
t_eq "perf stat exits 0" 0 $?
cat stat.out
t_check "perf stat shows the sums in ns" grep -q '^[0-9]*,ns,wult/wake_latency_sum/' stat.out
awk -F, '$3 ~ /datapoints/ { n = $1 } $3 ~ /wake_latency_sum/ { w = $1 }
	$3 ~ /intr_latency_sum/ { i = $1 }
	END { printf "%d %.3f %.3f\n", n, w / n / 1000, i / n / 1000 }' stat.out > means.txt
read -r sn swl sil < means.txt
t_check "perf stat counted datapoints ($sn)" test "${sn:-0}" -ge 100
t_check "means are positive and IntrLatency <= WakeLatency + 1 ms ($swl, $sil us)" \
	awk -v w="$swl" -v i="$sil" 'BEGIN { exit !(w > 0 && i > 0 && i <= w + 1000) }'
t_check "rmmod" rmmod wult
t_done
