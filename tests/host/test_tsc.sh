#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult tsc on this machine: it must conclude (fit or unfit, exit 0 or 1) in
# at least 29 of 30 runs, half of them quiet and half with a busy loop on one
# CPU, and each verdict names the method that bounded the shift. Without
# CAP_SYS_NICE its threads fall back from SCHED_FIFO and it still works
# (counted, not required to conclude). Then the exit statuses: 3 when the
# shift cannot be bounded tightly enough (forced here by starving the CAS
# probes), 2 for usage errors.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/rel/wult
RUNS=30
NEED=29
tmp=$(mktemp -d)
busy=
cleanup() {
	[ -n "$busy" ] && kill "$busy" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# The last CPU of our affinity mask gets the busy loop (it shares the CPU
# with the evaluation's thread there, as a loaded machine would).
cpus=$(taskset -cp $$ | sed 's/.*: //')
last=$(echo "$cpus" | tr ',' '\n' | sed 's/.*-//' | sort -n | tail -n 1)
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || echo "SKIP busy-loop runs: one CPU (every run is quiet)"

concluded=0 by_cas=0 by_switch=0 t0=$(date +%s)
for i in $(seq "$RUNS"); do
	if [ "$i" -gt $((RUNS / 2)) ] && [ "$ncpu" -ge 2 ] && [ -z "$busy" ]; then
		taskset -c "$last" bash -c 'while :; do :; done' &
		busy=$!
	fi
	"$W" tsc > "$tmp/out" 2>&1
	rc=$?
	v=$(grep '^verdict: ' "$tmp/out")
	echo "run $i ($([ -n "$busy" ] && echo "busy CPU $last" || echo quiet)): rc=$rc $v"
	case $rc in
	0|1) concluded=$((concluded + 1)) ;;
	esac
	case $v in
	*"bounded by CAS-ordered probes"*) by_cas=$((by_cas + 1)) ;;
	*"bounded by CPU switching"*|*"by CPU switching"*) by_switch=$((by_switch + 1)) ;;
	esac
	if [ "$rc" -eq 0 ]; then
		echo "$v" | grep -qE 'fit for latency measurement: shift within [0-9]+ ticks \([0-9]+ ns\), bounded by (CAS-ordered probes|CPU switching|a single CPU)' ||
			t_fail "run $i: a fit verdict names its bound and method: $v"
	fi
	[ "$rc" -le 1 ] || [ "$rc" -eq 3 ] || { t_fail "run $i: exit $rc"; cat "$tmp/out"; }
done
[ -n "$busy" ] && kill "$busy" && wait "$busy" 2> /dev/null
busy=
echo "$concluded of $RUNS runs concluded ($by_cas bounded by CAS probes, $by_switch by CPU switching) in $(($(date +%s) - t0)) s"
t_check "wult tsc concluded in $concluded >= $NEED of $RUNS runs" test "$concluded" -ge "$NEED"

# Without CAP_SYS_NICE: plain threads, which a loaded VM schedules apart.
if command -v setpriv > /dev/null && [ "$ncpu" -ge 2 ]; then
	taskset -c "$last" bash -c 'while :; do :; done' &
	busy=$!
	plain=0 plain_ok=0
	for i in $(seq 6); do
		setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice "$W" tsc > "$tmp/out" 2>&1
		rc=$?
		grep -q '^  threads: SCHED_OTHER' "$tmp/out" && plain=$((plain + 1))
		case $rc in 0|1) plain_ok=$((plain_ok + 1)) ;; 3) ;; *) t_fail "no CAP_SYS_NICE: exit $rc" ;; esac
	done
	kill "$busy" && wait "$busy" 2> /dev/null
	busy=
	echo "without CAP_SYS_NICE, busy CPU $last: $plain_ok of 6 runs concluded"
	t_eq "without CAP_SYS_NICE the threads fall back to SCHED_OTHER" 6 "$plain"
else
	echo "SKIP runs without CAP_SYS_NICE: no setpriv or one CPU"
fi

# Two CAS probes in one window cannot bound the shift: CPU switching does,
# far too loosely for 1000 ns, so the evaluation cannot conclude.
if [ "$ncpu" -ge 2 ]; then
	"$W" tsc --probes 2 --windows 1 --max-windows 1 > "$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	t_eq "starved CAS probes: could not conclude (3)" 3 "$rc"
	t_check "the verdict says so and names CPU switching" \
		grep -qE '^verdict: could not conclude: .*by CPU switching' "$tmp/out"
	t_check "the per-CPU table says what bounded CPU $last" \
		grep -qE "^ +$last .* switching +[0-9]+" "$tmp/out"
else
	echo "SKIP could-not-conclude status: one CPU"
fi
"$W" tsc --cpus 99999 > /dev/null 2>&1
t_eq "a CPU list out of range is a usage error (2)" 2 $?
"$W" tsc --probes x > /dev/null 2>&1
t_eq "a bad number is a usage error (2)" 2 $?
"$W" tsc --help | grep -q '3 could not conclude'
t_eq "--help documents exit status 3" 0 $?
t_done
