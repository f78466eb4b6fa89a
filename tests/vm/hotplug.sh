#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 5
# CPU hotplug during wult record: the measured CPU going offline is said on
# stderr, and when it returns wult record measures it again (its perf
# events are reopened: the kernel drops them at offline), so datapoints
# follow the return; the file is complete. With -o - it stops cleanly.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
on=/sys/devices/system/cpu/cpu1/online

t_check "insmod" insmod "$WULT_KO"
t_check "CPU 1 can go offline" test -w $on

e0=$(wult_cnt 1 emitted)
wult record -q -C 1 --ldist 1000,2000 -o h.data 2> h.err &
pid=$!
t_check "measuring starts" wult_wait_change 1 emitted 100
sleep 1
echo 0 > $on
sleep 1
t_check "the offline CPU is said on stderr" grep -q 'CPU 1 went offline' h.err
e1=$(wult_cnt 1 emitted)
sleep 1
t_eq "nothing measured while offline" "$e1" "$(wult_cnt 1 emitted)"
echo 1 > $on
t_check "measured again after its return" wult_wait_change 1 emitted 100
sleep 2
kill -INT $pid
wait $pid
t_eq "SIGINT after the return: exit 0" 0 $?
cat h.err
t_check "the return is said on stderr" grep -q 'CPU 1 is back online.*measuring it again' h.err
t_check "and the time offline in the summary" grep -q 'CPU 1 was offline for' h.err
before=$((e1 - e0))
after=$(($(wult_cnt 1 emitted) - e1))
n=$(perf_nsamples h.data)
echo "# emitted before offline $before, after the return $after; file $n"
t_check "datapoints after the return are in the file ($n > $before)" test "$n" -gt "$before"
t_check "the file holds >= 95% of all emitted ($n of $((before + after)))" \
	test $((n * 100)) -ge $(((before + after) * 95))
t_eq "wult report reads them all" "$n" \
	"$(wult report h.data 2>/dev/null | sed -n 's/^all: \([0-9]*\) datapoints.*/\1/p')"

# -o -: the new events cannot be announced in a pipe: a clean stop.
wult record -q -C 1 -o - 2> p.err > p.data &
pid=$!
wult_wait_change 1 emitted 100
sleep 1
echo 0 > $on
sleep 1
echo 1 > $on
wait $pid
t_eq "-o -: stops with 1 when the CPU returns" 1 $?
t_check "-o -: says why" grep -q 'pipe (-o -) cannot announce' p.err
n=$(perf_nsamples - < p.data)
t_check "-o -: the stream is complete and reads ($n datapoints)" test "$n" -ge 5
t_done
