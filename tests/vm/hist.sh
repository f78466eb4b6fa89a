#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 3
# The ftrace recipe of Documentation/usage.md: an in-kernel histogram of
# WakeLatency per requested state with a hist trigger on wult:datapoint.
# Its counts must add up to the datapoints perf stat counted in the run.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
T=/sys/kernel/tracing/events/wult/datapoint
H='hist:keys=req_cstate,wake_latency.buckets=10000:sort=req_cstate,wake_latency'
L='hist:keys=req_cstate,intr_latency.log2'

t_check "insmod" insmod "$WULT_KO"
t_check "format has wake_latency" grep -q 'field:u64 wake_latency;' $T/format
# Append (>>): opening the trigger file with O_TRUNC removes its triggers.
t_check "bucket trigger accepted" sh -c "echo '$H' >> $T/trigger"
t_check "log2 trigger accepted" sh -c "echo '$L' >> $T/trigger"
perf stat -x, -e wult/datapoints/ -C 1 -- sleep 3 2> stat.out
n=$(awk -F, '/datapoints/ { print $1 }' stat.out)
cat $T/hist > hist.txt
t_check "perf stat counted datapoints ($n)" test "${n:-0}" -ge 100
# Two histograms: the buckets one first, then the log2 one.
hits=$(awk '/Hits:/ { print $2 }' hist.txt | tr '\n' ' ')
t_eq "both histograms hit once per datapoint" "$n $n " "$hits"
sum=$(awk '/wake_latency: ~/ { s += $NF } END { print s + 0 }' hist.txt)
t_eq "bucket counts add up to the datapoints" "$n" "$sum"
t_check "buckets are 10 us wide" grep -qE 'wake_latency: ~ [0-9]+-[0-9]*9999 ' hist.txt
t_check "keyed by requested state" grep -q '{ req_cstate: *1, wake_latency: ~' hist.txt
t_check "log2 histogram of intr_latency" grep -q 'intr_latency: ~ 2^' hist.txt
t_check "drop: trigger removed" sh -c "echo '!$H' >> $T/trigger && echo '!$L' >> $T/trigger"
t_check "no trigger left" sh -c "! grep -q '^hist' $T/trigger"
t_check "rmmod" rmmod wult
t_done
