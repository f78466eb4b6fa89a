#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 14
# When the engine arms its timer. Not while perf holds the event disabled
# (perf stat -D). Not at every LDist on a busy CPU: with a shell loop
# pinned to CPU 1 and LDist 0-5 us, each expiry finds a task running and
# the next datapoint waits a 1 ms hold-off (held_off), so CPU 1's local
# timer interrupts stay bounded (before: 280,478/s on 6.12 under the
# instruction clock, and "hrtimer: interrupt took" in dmesg, which vm-run
# fails on). Once the loop ends, measuring goes on. The same short range
# on an idle CPU re-arms at once (its not_idle drops come in the idle
# task) and keeps yielding. perf record in frequency mode stops and
# restarts the event at every tick: nothing in flight is lost.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
taskset -p 1 $$ > /dev/null || echo "# taskset failed: CPU 1 is shared"

# loc CPU: local timer interrupts of CPU so far (CPUs 0-1 online).
loc() {
	awk -v f=$(($1 + 2)) '$1 == "LOC:" { print $f }' /proc/interrupts
}

# Uptime in centiseconds (busybox date has no %N).
now_cs() { awk '{ sub(/\./, "", $1); print $1 + 0 }' /proc/uptime; }

# rate CPU SECONDS: LOC interrupts per second on CPU over SECONDS.
rate() {
	local l0 l1 t0 t1
	l0=$(loc "$1") t0=$(now_cs)
	sleep "$2"
	l1=$(loc "$1") t1=$(now_cs)
	echo $(((l1 - l0) * 100 / (t1 - t0)))
}

# stat_bg CONFIG: perf stat of one wult event on CPU 1 in the background;
# returns once it measures (30 s at most). stat_end ends it: its window
# lasts as long as the checks need, not a guessed length, and the start is
# polled every 20 ms, not 200 (a second of LDist 0-5 us on an idle CPU is
# ~200,000 wakes to emulate, ~15 s of host CPU). The sleep's 60 s only
# bound a hung check.
stat_bg() {
	local v0 i
	rm -f stat.pid
	v0=$(wult_cnt 1 armed)
	perf stat -x, -e "wult/$1/" -C 1 -- \
		sh -c 'sleep 60 & echo $! > stat.pid; wait' 2>> stat.err &
	spid=$!
	for i in $(seq 1500); do
		[ "$(wult_cnt 1 armed)" != "$v0" ] && return 0
		sleep 0.02
	done
	return 1
}
stat_end() {
	kill "$(cat stat.pid)"
	wait $spid
}

t_check "insmod" insmod "$WULT_KO" || { t_done; exit 1; }
t_check "stats has held_off and arm_failed" \
	test -n "$(wult_cnt 1 held_off)" -a -n "$(wult_cnt 1 arm_failed)"

# ---- disabled: nothing armed -----------------------------------------------
a0=$(wult_cnt 1 armed)
perf stat -x, -D 3000 -e wult/datapoints/ -C 1 -- sleep 4 2> d.err &
pid=$!
sleep 2
a1=$(wult_cnt 1 armed)
wait $pid
a2=$(wult_cnt 1 armed)
t_eq "disabled (perf stat -D 3000): nothing armed in its first 2 s" "$a0" "$a1"
t_check "enabled after the delay: armed ($a1 -> $a2)" test "$a2" -gt "$a1"

# ---- frequency mode: perf stops and restarts the event at every tick ------
a0=$(wult_cnt 1 armed) e0=$(wult_cnt 1 emitted) c0=$(wult_cnt 1 cancelled)
# 1 s: a few hundred ticks, each a stop/start with the timer in flight,
# and ~6,500 datapoints. -B: no build-id cache (copying kallsyms into it
# cost ~6 s of host CPU; f.data is not read).
perf record -q -B -F 1000 -e wult/ldist_min=100,ldist_max=200/ -C 1 -o f.data \
	-- sleep 1 2> f.err
a1=$(wult_cnt 1 armed) e1=$(wult_cnt 1 emitted) c1=$(wult_cnt 1 cancelled)
echo "# frequency mode: armed +$((a1 - a0)), emitted +$((e1 - e0)), cancelled +$((c1 - c0))"
t_check "frequency mode: measured ($((e1 - e0)) datapoints)" test $((e1 - e0)) -gt 100
t_check "frequency mode: stop/start at each tick cancel nothing (<= 1, the end)" \
	test $((c1 - c0)) -le 1
t_check "frequency mode: >= 90% of armed emitted" \
	test $(((e1 - e0) * 10)) -ge $(((a1 - a0) * 9))

# ---- a busy CPU, LDist 0-5 us ----------------------------------------------
base_busy=0
taskset -c 1 sh -c 'while :; do :; done' &
spin=$!
base_busy=$(rate 1 0.5)
h0=$(wult_cnt 1 held_off) e0=$(wult_cnt 1 emitted)
stat_bg ldist_min=0,ldist_max=5
t_check "busy CPU 1, LDist 0-5 us: measuring" test $? -eq 0
# A hold-off per ms: 0.5 s gives ~500 of them and a rate to compare (a
# busy guest CPU costs host CPU for every guest ns).
r=$(rate 1 0.5)
h1=$(wult_cnt 1 held_off)
echo "# busy CPU 1: $base_busy LOC/s without wult, $r with LDist 0-5 us; held_off +$((h1 - h0))"
t_check "busy, LDist 0-5 us: LOC rate bounded ($r/s < 5000/s)" test "$r" -lt 5000
t_check "busy: hold-offs counted ($((h1 - h0)))" test $((h1 - h0)) -gt 100
# The loop ends while the event still measures: datapoints follow.
kill $spin
wait $spin 2> /dev/null
e1=$(wult_cnt 1 emitted)
# 50 ms is 50 hold-offs long: the first datapoints come within 1 ms.
sleep 0.05
e2=$(wult_cnt 1 emitted)
t_check "idle again: measuring goes on ($e1 -> $e2)" test "$e2" -gt "$e1"
stat_end

# ---- a busy CPU, LDist 100-200 us (before: 5,450/s, no datapoint) ----------
taskset -c 1 sh -c 'while :; do :; done' &
spin=$!
stat_bg ldist_min=100,ldist_max=200
r=$(rate 1 0.5)
echo "# busy CPU 1, LDist 100-200 us: $r LOC/s"
t_check "busy, LDist 100-200 us: LOC rate bounded ($r/s < 3000/s)" test "$r" -lt 3000
stat_end
kill $spin
wait $spin 2> /dev/null

# ---- an idle CPU, LDist 0-5 us: re-armed at once, still yields -------------
h0=$(wult_cnt 1 held_off) e0=$(wult_cnt 1 emitted) n0=$(wult_cnt 1 not_idle)
stat_bg ldist_min=0,ldist_max=5
# ~20,000 datapoints and ~5,000 not_idle drops in 0.1 s.
r=$(rate 1 0.1)
stat_end
h1=$(wult_cnt 1 held_off) e1=$(wult_cnt 1 emitted) n1=$(wult_cnt 1 not_idle)
echo "# idle CPU 1, LDist 0-5 us: $r LOC/s, emitted +$((e1 - e0)), not_idle +$((n1 - n0)), held_off +$((h1 - h0))"
t_check "idle, LDist 0-5 us: datapoints ($((e1 - e0)))" test $((e1 - e0)) -gt 0
t_check "idle: not_idle drops in the idle task are not held off ($((h1 - h0)) of $((n1 - n0)))" \
	test $(((h1 - h0) * 10)) -lt $((n1 - n0 + 10))
t_eq "no arm failed" 0 "$(wult_cnt 1 arm_failed)"
grep -v '^$' stat.err | grep -v ',' | head -5
t_check "rmmod" rmmod wult
t_done
