#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 200
# vm-args: --append idle=poll
# The polling idle path (idle=poll: cpu_idle_poll(), state 0, interrupts
# on): the engine must end the poll on its interrupt and yield valid
# datapoints named POLL, interrupt first (IntrOff 0).
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1

t_check "booted with idle=poll" grep -qw 'idle=poll' /proc/cmdline
t_check "insmod" insmod "$WULT_KO"
a0=$(wult_cnt 1 armed) e0=$(wult_cnt 1 emitted)
taskset -c 0 wult record -q -C 1 -c 500 --ldist 200,1000 -o p.data 2> p.err
t_eq "record 500 datapoints" 0 $?
a=$(($(wult_cnt 1 armed) - a0)) e=$(($(wult_cnt 1 emitted) - e0))
# The next event is armed when a datapoint ends: one that fires before the
# CPU is back in idle (not_idle) is no datapoint. Under TCG the way back
# takes up to ~100 us, more on a loaded host.
t_check "yield >= 90% of armed ($e of $a)" test $((e * 100)) -ge $((a * 90))
wult report -u ns p.data > p.txt
t_check "every datapoint requested POLL" grep -q '^POLL: 500 datapoints' p.txt
perf script -i p.data -s "$WULT_SRC/scripts/perf/wult-decode.py" 2>/dev/null |
	awk '$1 == "raw"' > p.dec
t_eq "500 decoded" 500 "$(wc -l < p.dec)"
t_check "state index 0 in every datapoint" test "$(awk '$10 != 0' p.dec | wc -l)" = 0
t_check "interrupt first (IntrOff 0) in every datapoint" \
	test "$(awk '$11 != 0' p.dec | wc -l)" = 0
# The poll ends at our interrupt: a wake latency near the poll loop's
# reaction, far below the 1 ms the poll could last otherwise.
med=$(awk '{ print $12 }' p.dec | sort -n | awk '{ v[NR] = $1 } END { print v[int(NR / 2)] }')
t_check "median WakeLatency ${med} ns < 500 us" test "$med" -lt 500000
t_check "rmmod" rmmod wult
t_done
