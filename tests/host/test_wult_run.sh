#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# The main job (make run = scripts/wult-run) end to end in its default
# guest: exactly the requested datapoints, the per-state report, the CSV;
# wult record's live progress line (carriage returns) only where make
# run's output is a terminal, though the guest's serial port always is one.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# make run's script, on the build run-tests was given.
wr=("$top/scripts/wult-run" --build "${WULT_BUILD:-$top/build}")

"${wr[@]}" --datapoints 400 --ldist 50,4000 --out "$tmp/o" > "$tmp/out" 2>&1
t_eq "wult-run exits 0" 0 $?
# Output to a file: no live line. The recording must outlast the first
# live update (0.5 s of guest time) for that check to mean anything.
secs=$(sed -n 's/^wult record: 400 datapoints in \([0-9.]*\) s .*/\1/p' "$tmp/out")
t_check "the recording outlasts a live line's period (${secs:-?} s >= 0.6)" \
	awk -v s="${secs:-0}" 'BEGIN { exit !(s >= 0.6) }'
t_eq "no carriage return in the output to a file" 0 "$(tr -cd '\r' < "$tmp/out" | wc -c)"
t_check "report has 400 datapoints in all" grep -q '^all: 400 datapoints' "$tmp/out"
t_check "the guest got the reference cpuidle driver, its latencies said" \
	grep -q 'loaded the reference driver wult_refidle (states POLL C1 C2 C3), injected exit latencies of C1,C2,C3: 1,20,80 us$' "$tmp/out"
t_check "the report says what the guest's figures are" \
	grep -q 'QEMU guest on the instruction-counted clock' "$tmp/out"
# median STATE: the state's WakeLatency median (us) in the text report.
median() {
	awk -v s="$1:" '$1 == s { in_s = 1; next } /^[A-Za-z0-9]+: / { in_s = 0 }
		in_s && $1 == "median" { print $2 }' "$tmp/out"
}
# On the instruction-counted clock a state's median is its injected exit
# latency (wult_refidle's defaults: 1, 20, 80 us) plus the same ~1.3 us of
# instructions between the wake and the TAI read.
for s in "C2 20" "C3 80"; do
	set -- $s
	m=$(median "$1")
	t_check "$1: WakeLatency median = $2 us injected + 0.5-3 us of code ($m us)" \
		awk -v m="${m:-0}" -v e="$2" 'BEGIN { exit !(m >= e + 0.5 && m <= e + 3) }'
done
# LDist 50-4000 us spans the reference driver's residencies (2/100/400 us).
n=$(grep -cE '^(POLL|C1|C2|C3): [0-9]+ datapoints' "$tmp/out")
t_check "report has datapoints of several states ($n)" test "$n" -ge 3
t_eq "per-state counts add up to 400" 400 "$(grep -E '^(POLL|C1|C2|C3): [0-9]+ datapoints' "$tmp/out" |
	awk '{ s += $2 } END { print s }')"
for st in count min median p99 p99.9 max; do
	t_check "report has $st of WakeLatency and IntrLatency" \
		grep -qE "^  $st +[0-9.]+ +[0-9.]+$" "$tmp/out"
done
t_check "min WakeLatency is positive" \
	awk '$1 == "min" && $2 + 0 > 0 { ok = 1 } END { exit !ok }' "$tmp/out"
t_eq "datapoints.csv has a row per datapoint" 401 "$(wc -l < "$tmp/o/datapoints.csv")"
t_check "LDist within 50-4000 us in the CSV" awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == "LDist") c = i; next }
	$c < 50 || $c > 4000 { bad++ } END { exit bad > 0 || !c }' "$tmp/o/datapoints.csv"
t_check "perf.data kept" test -s "$tmp/o/wult.data"
# The vCPUs' turns (Documentation/vm-run.md, "Slices"): CPU 0 measured,
# wult record kept on CPU 1, 50 us slices, CPU 1 yielding to CPU 0's
# wakes (halt_exit: an NMI at each exit wait, the echo's timer interrupt
# just before each timer wake), and the header says what the turns still
# stretch. With both vCPUs running QEMU 7.2 alternates their turns at
# each deadline, two a slice, and CPU 0 could be left 10 ns of each:
# before the echo, six runs of 10,000 met p99.99 within 5 us of the
# median in three, and had +5.3, +55 and +804 us in the others. With it,
# what is left above the median is mostly CPU 0's own work: in seven
# runs of 10,000 set against the tick (2026-11-29, host load 9-10, six on
# 6.1), 20 of the 22 datapoints more than 1 us above their state's median
# (+1.4 to +3.8 us) had their LTime 0.1-0.9 us before one of CPU 0's
# scheduler ticks, whose handler (and its TIMER and SCHED softirqs, seen
# with ftrace) then ran in the wake interrupt, before the exit, as on
# hardware and with one vCPU; the other two were +1.85 us (its wake
# interrupt as late) and +2.05 us. So every C1-C3 datapoint is judged:
# within 5 us of its state's median (the goal), or within 10 us with a
# tick (CONFIG_HZ's grid of CLOCK_MONOTONIC, as LTime is) less than 1.5
# us after its LTime. A wake interrupt late by CPU 1's run (+23.6 to +804
# us before the echo) fails it.
t_check "the guest measures CPU 0" grep -q '^wult: measuring CPU 0, 400 datapoints' "$tmp/out"
t_check "the header says what the turns still distort" \
	grep -q "^wult: 2 vCPUs taking turns, 50 us slices, the others yielding to the measured CPU's wakes (a timer interrupt just before each, an NMI at each exit wait): .* WakeLatency p99.99 within 3.6 us of each state's median in 14, within 5.01 us in the other .* came with the measured CPU's own scheduler tick" \
	"$tmp/out"
cfg=$(ls "${WULT_BUILD:-$top/build}"/kernels/6.1/boot/config-* 2> /dev/null | head -n 1)
hz=$(sed -n 's/^CONFIG_HZ=//p' "${cfg:-/dev/null}")
t_check "the guest kernel's tick rate known (CONFIG_HZ=${hz:-?})" test -n "$hz"
# judge STATE: "N M A", the datapoints more than 1 us above the state's
# median with a tick just after their LTime (N), those past 5 us without
# one or 10 us with one (M), and the largest excess (A, us); "none" if
# the state has no datapoint.
judge() {
	awk -F, -v s="$1" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "WakeLatency") w = i
		if ($i == "ReqCState") c = i; if ($i == "LTime") l = i }; next }
	$c == s { print $w, $l }' "$tmp/o/datapoints.csv" | sort -g |
		awk -v hz="${hz:-250}" '{ v[NR] = $1; t[NR] = $2 }
		END { if (!NR) { print "none"; exit }
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			p = 1e9 / hz
			for (i = 1; i <= NR; i++) {
				x = v[i] - med; if (x <= 1) continue
				k = p - (t[i] % p) < 1500; tick += k
				if (x > (k ? 10 : 5)) bad++
			}
			printf "%d %d %.3f\n", tick, bad, v[NR] - med }'
}
for s in C1 C2 C3; do
	read -r nt nb a <<< "$(judge $s)"
	if [ "$nt" = none ]; then
		t_skip "$s: no datapoint in this run"
	else
		t_check "$s: every datapoint within 5 us of the state's median, or 10 us with its own tick ($nt above 1 us with a tick, max +$a us)" \
			test "$nb" -eq 0
	fi
done

# On a terminal (a pseudo-terminal of util-linux's script) the live line
# is drawn: "\rwult: N datapoints, ...". Few datapoints, long LDist: the
# guest's idle time is free, so 1.2 s of it costs little.
if command -v script > /dev/null; then
	script -qec "${wr[*]} --datapoints 40 --ldist 30000,30000 --out $tmp/t" /dev/null \
		< /dev/null > "$tmp/tty" 2>&1
	t_eq "wult-run on a terminal exits 0" 0 $?
	t_check "on a terminal the live line is drawn" grep -q $'\rwult: [0-9]* datapoints, ' \
		"$tmp/tty"
else
	t_skip "wult-run on a terminal: no script(1) (util-linux) here"
fi

"${wr[@]}" --datapoints 0 --out "$tmp/b" > /dev/null 2>&1
t_check "--datapoints 0 fails" test $? -ne 0
"$top/scripts/wult-run" --bogus > /dev/null 2>&1
t_eq "unknown option exits 2" 2 $?
# WULT_PROGRESS, which the guest's /init sets: checked before anything runs.
W=${WULT_BUILD:-$top/build}/rel/wult
WULT_PROGRESS=bogus "$W" record -c 1 -o "$tmp/p.data" > /dev/null 2> "$tmp/p.err"
t_eq "a bad WULT_PROGRESS exits 2" 2 $?
t_check "a bad WULT_PROGRESS is named" grep -q "bad WULT_PROGRESS 'bogus': lines or auto" \
	"$tmp/p.err"

# --host builds wult.ko for the running kernel with the Makefile's rule:
# without its headers that fails at once, naming the package to install.
if [ ! -d "/lib/modules/$(uname -r)/build" ]; then
	"$top/scripts/wult-run" --host --build "$tmp/hb" > /dev/null 2> "$tmp/host.err"
	t_eq "--host without kernel headers: exit 1" 1 $?
	t_check "--host names the headers package" \
		grep -q "install linux-headers-$(uname -r)" "$tmp/host.err"
	t_check "--host built nothing" test ! -e "$tmp/hb/kernel/host/wult.ko"
else
	t_eq "kdir host: the running kernel's headers" \
		"/lib/modules/$(uname -r)/build" "$("$top/scripts/kdir" host)"
fi
t_done
