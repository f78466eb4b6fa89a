#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The wult command's front door (issue 40): `wult --version` as perf's,
# `wult synth && wult report` without the module (synth writes ./wult.data,
# keeping an existing one as wult.data.old, as wult record does), and
# --cstates names that would put datapoints under the wrong state, and wult
# hist without the module or samples. One vocabulary (issue 40 item 3):
# times with a unit in every command, a bare number in microseconds (or
# in the unit an option names), -C/--cpus in perf's syntax, counts named as
# counts, -m meaning metrics, optional values as --opt=V and --opt V, and
# options that shape an output not asked for refused. Record's checks run
# without wult.ko: its options are checked before anything is opened.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

v=$("$W" version)
t_eq "wult --version prints what wult version does" "$v" "$("$W" --version 2>&1)"
t_check "wult --help names --version" sh -c "'$W' --help | grep -q -- --version"

cd "$tmp" || exit 1
"$W" synth -c 300 2> err
t_eq "wult synth: exit 0" 0 $?
t_check "wult synth writes ./wult.data" test -s wult.data
t_check "wult synth says what it wrote" grep -q "wrote wult.data" err
"$W" report > rep 2> err
t_eq "wult synth && wult report: exit 0" 0 $?
t_check "wult synth && wult report: 300 datapoints" grep -q "^all: 300 datapoints" rep
"$W" synth -c 200 -s 2 2> err
t_check "a second wult synth keeps the first as wult.data.old" \
	sh -c "'$W' report wult.data.old | grep -q '^all: 300 datapoints'"
t_check "... and says so" grep -q "kept the existing wult.data as wult.data.old" err

for c in POLL,,C6 ,C1 POLL,C1, POLL,C1,C1 C1,POLL,C1; do
	"$W" report --cstates "$c" wult.data > out 2> err
	t_eq "--cstates $c: exit 2" 2 $?
	t_eq "--cstates $c: no report" "" "$(cat out)"
done
"$W" report --cstates POLL,,C6 wult.data 2>&1 | grep -q "index 1 has an empty name"
t_eq "--cstates POLL,,C6: the empty index named" 0 $?
"$W" report --cstates POLL,C1,C1 wult.data 2>&1 | grep -q "'C1' names both index 1 and index 2"
t_eq "--cstates POLL,C1,C1: the repeated name named" 0 $?
"$W" report --cstates POLL,C1,C6 wult.data > out
t_check "--cstates POLL,C1,C6 names index 2 C6" grep -q "^C6: " out

# wult hist: no module, or a wrong --dir, is not "no samples"; no samples
# is no answer (exit 4), its --csv and --html not written.
"$W" hist --dir "$tmp/nonexistent" > out 2> err
t_eq "wult hist --dir /nonexistent: exit 1" 1 $?
t_check "wult hist --dir /nonexistent: named" grep -q "nonexistent: No such file" err
mkdir kh
"$W" hist --dir kh --csv kh.csv --html kh.html > out 2> err
t_eq "wult hist, no samples: exit 4" 4 $?
t_check "wult hist, no samples: said" grep -q "no samples in kh" err
t_check "wult hist, no samples: no --csv, no --html" test ! -e kh.csv -a ! -e kh.html

# ---- one vocabulary ----
# synth: a bare number is microseconds, as everywhere (it was ns).
"$W" synth -o u1.data -c 500 --wake 1,20 --ldist 1,4000 --tail 0,0 2>/dev/null
"$W" synth -o u2.data -c 500 --wake 1us,20us --ldist 1us,4ms --tail 0,0 2>/dev/null
t_check "synth: bare --wake/--ldist values are microseconds" cmp -s u1.data u2.data
"$W" synth -o u3.data -c 500 --wake 1000ns,0.02ms --ldist 0.001ms,0.004s --tail 0,0 2>/dev/null
t_check "synth: ns, us, ms and s give the same file" cmp -s u2.data u3.data
"$W" synth -o u4.data -c 300 --nr-cpus 3 --nr-cstates 4 2>/dev/null
"$W" synth -o u5.data -c 300 --cpus 3 --cstates 4 2>/dev/null
t_check "synth: --nr-cpus/--nr-cstates, the old --cpus/--cstates kept" cmp -s u4.data u5.data
"$W" report --per-cpu u4.data > out
t_check "synth --nr-cpus 3: CPUs 0-2" grep -q "^CPU2 " out
"$W" synth -o u7.data -c 300 --cstate-names POLL,C1E,C6 2>/dev/null
t_check "synth --cstate-names: the report names the states" \
	sh -c "'$W' report u7.data | grep -q '^C6: '"
for n in POLL,,C6 POLL,C1, C1,C1 POLL,C1,C6,C7; do
	"$W" synth -o u8.data --cstate-names "$n" 2> err
	t_eq "synth --cstate-names $n: exit 2" 2 $?
done
"$W" synth -o u6.data --wake 1,2parsecs 2> err
t_eq "synth: an unknown unit is exit 2" 2 $?
t_check "synth: ... named" grep -q "unknown unit 'parsecs'" err
t_check "synth --help: the bare unit stated" sh -c "'$W' synth --help | grep -q 'without one is in\$'"

# record: --ldist with units, -C/--cpus, -t, --capture; all checked before
# wult.ko is looked for, so a good value gets as far as "no PMU".
rec() { "$W" record -o "$tmp/r.data" "$@" > out 2> err; echo $?; }
for v in 100us,1ms 100,1000 0,4000 1ms,2ms 0.1ms,50ms; do
	rec --ldist "$v" > rc
	t_check "record --ldist $v accepted" sh -c "! grep -q 'bad --ldist' err"
done
for v in 1ms,100us 100us 1,60ms 0.5,2 1us,2xs 0,0; do
	t_eq "record --ldist $v: exit 2" 2 "$(rec --ldist "$v")"
	t_check "record --ldist $v: named" grep -q "bad --ldist '$v'" err
done
grep -q "MIN is above MAX" < <(rec --ldist 1ms,100us >/dev/null; cat err)
t_eq "record --ldist 1ms,100us: MIN above MAX said" 0 $?
for o in "-C 0,2-3" "--cpus 1" "--cpu 1" "-t 500ms" "-t 10" "-t 2m" "--time-limit=1h"; do
	rec $o > /dev/null
	t_check "record $o accepted" sh -c "! grep -q 'bad --' err"
done
for o in "-C 0,,1" "--cpus 3-1" "--cpu x" "-t 5parsecs" "-t 0"; do
	t_eq "record $o: exit 2" 2 "$(rec $o)"
	t_check "record $o: said" grep -q "bad --" err
done
t_eq "record --capture 20 (a separate value): not an operand" "" \
	"$(rec --stop-on 'WakeLatency > 1' --capture 20 >/dev/null; grep 'unexpected argument' err)"
t_eq "record --capture=2s: exit 2 (above 1000ms)" 2 "$(rec --stop-on x --capture=2s)"
t_eq "record --capture=20ms --stop-on: accepted" "" \
	"$(rec --stop-on 'WakeLatency > 1' --capture=20ms >/dev/null; grep 'bad --capture' err)"
rec -m 512 > /dev/null
t_check "record -m N: kept, with a note that -m means metrics" grep -q "in wult, -m means metrics" err
"$W" record --help > help
t_check "record --help: -C, --cpus" grep -q -- "-C, --cpus CPUS" help
t_check "record --help: the bare unit stated" grep -q "a number without one is in" help
t_eq "record --help: no line over 80 columns" "" "$(awk 'length > 80' help)"
t_check "record --help: the exit status whole" grep -q "^Exit status: 0 recorded, 1 failed or stopped early, 2 usage error.$" help

# hist: -C/--cpus via the shared parser, -m/--metrics with report's names.
"$W" hist -C 3-1 > out 2> err
t_eq "hist -C 3-1: exit 2" 2 $?
t_check "hist -C 3-1: said" grep -q "bad --cpus" err
mkdir -p kh2/wake_latency kh2/intr_latency
for m in WakeLatency wake_latency IntrLatency all; do
	"$W" hist --dir kh2 -m "$m" > out 2> err
	t_eq "hist -m $m: accepted (no samples: exit 4)" 4 $?
done
"$W" hist --dir kh2 --metric SilentTime > /dev/null 2>&1
t_eq "hist --metric (the old name): accepted" 4 $?
"$W" hist --dir kh2 -m Bogus > out 2> err
t_eq "hist -m Bogus: exit 2" 2 $?
"$W" hist --dir kh2 -w 500ms > out 2> err
t_eq "hist --watch 500ms: refused (whole seconds)" 2 $?
t_eq "hist --help: no line over 80 columns" "" "$("$W" hist --help | awk 'length > 80')"

# tsc: -C/--cpus, time options with units, the same --help layout.
"$W" tsc -C 0-x > out 2> err
t_eq "tsc -C 0-x: exit 2" 2 $?
t_check "tsc -C 0-x: said" grep -q "bad --cpus" err
"$W" tsc --max-ms 2parsecs > out 2> err
t_eq "tsc --max-ms 2parsecs: exit 2" 2 $?
"$W" tsc --help > help
t_check "tsc --help: -C, --cpus" grep -q -- "^  -C, --cpus LIST" help
t_check "tsc --help: options as the other commands'" grep -q -- "^      --probes N  " help
t_eq "tsc --help: no line over 80 columns" "" "$(awk 'length > 80' help)"

# report: --branches N as --branches=N; shaping options without their output.
"$W" report --hist-buckets 5 wult.data > out 2> err
t_eq "report --hist-buckets without --hist: exit 2" 2 $?
t_check "report --hist-buckets without --hist: said" grep -q "give --hist too" err
"$W" report --hist-linear wult.data > out 2> err
t_eq "report --hist-linear without --hist: exit 2" 2 $?
"$W" report --plots WakeLatency wult.data > out 2> err
t_eq "report --plots without --html: exit 2" 2 $?
t_check "report --plots without --html: said" grep -q "give --html OUT too" err
"$W" report --hist --hist-buckets 5 wult.data > out 2> err
t_eq "report --hist --hist-buckets 5: exit 0" 0 $?
"$W" report --branches 5 wult.data > a 2>&1
"$W" report --branches=5 wult.data > b 2>&1
t_check "report --branches 5 is --branches=5" cmp -s a b
"$W" report --include 'WakeLatency > 5 parsecs' wult.data > out 2> err
t_check "report: '> 5 parsecs' is an unknown unit" grep -q "unknown unit 'parsecs'" err
"$W" report --include 'WakeLatency > 10 us' wult.data > a 2>&1
"$W" report --include 'WakeLatency > 10us' wult.data > b 2>&1
t_check "report: '> 10 us' is '> 10us'" cmp -s a b
"$W" report --include 'Bogus > 1' wult.data > out 2> err
t_check "report: the unknown metric's list whole (ends with ')')" \
	sh -c "head -1 err | grep -q 'RunLatency)\$'"

# ---- the smaller items (issue 40 item 5) ----
# A pipe cut short: the whole datapoints before the cut reported (the same
# statistics as a file of just those), the cut said, exit 1.
"$W" synth -o - -c 3000 -s 5 2>/dev/null | head -c 400000 | "$W" report - > cut 2> err
t_eq "a pipe cut short: exit 1" 1 $?
t_check "a pipe cut short: said" grep -q "the input ends early (offset .*truncated" err
n=$(sed -n 's/^all: \([0-9]*\) datapoints.*/\1/p' cut)
t_check "a pipe cut short: a partial report (${n:-none} of 3000 datapoints)" \
	test "${n:-0}" -gt 1000 -a "${n:-0}" -lt 3000
"$W" synth -o whole.data -c "${n:-1}" -s 5 2>/dev/null
"$W" report whole.data > whole
t_eq "a pipe cut short: the statistics of its whole datapoints" \
	"$(sed -n '/^all:/,/^$/p' whole)" "$(sed -n '/^all:/,/^$/p' cut)"
"$W" synth -o - -c 3000 -s 5 2>/dev/null | head -c 400000 | "$W" report --csv cutcsv/ - > /dev/null 2>&1
t_check "a pipe cut short: no partial --csv" test ! -e cutcsv/datapoints.csv
head -c 200000 whole.data > trunc.data
"$W" report trunc.data > out 2> err
t_eq "a truncated file: exit 1" 1 $?
t_check "a truncated file is called truncated" grep -q "trunc.data: truncated: " err

# --per-cpu: each CPU's states in the order of the report without it.
"$W" synth -o pc.data -c 600 --nr-cpus 2 --cstate-names POLL,C1,C6 2>/dev/null
t_eq "--per-cpu orders states as without it (POLL, C1, C6)" \
	"CPU0 POLL,CPU0 C1,CPU0 C6,CPU1 POLL,CPU1 C1,CPU1 C6," \
	"$("$W" report --per-cpu pc.data | sed -n 's/^\(CPU[0-9]* [A-Z0-9]*\): .*/\1/p' | tr '\n' ,)"
t_eq "... and so does the report without it" "POLL,C1,C6,all," \
	"$("$W" report pc.data | sed -n 's/^\([A-Za-z0-9]*\): [0-9]* datapoints.*/\1/p' | tr '\n' ,)"

# wult-decode.py: a name per column.
if command -v perf > /dev/null; then
	"$W" synth -o perf.data -c 20 2>/dev/null
	perf script -s "$top/scripts/perf/wult-decode.py" < /dev/null > dec 2>/dev/null
	h=$(grep -m1 '^# src' dec | wc -w)
	c=$(grep -m1 '^tp ' dec | wc -w)
	t_eq "wult-decode.py: as many names as columns" "$((h - 1))" "$c"
else
	t_skip "no perf: wult-decode.py not run"
fi

# wult tsc: no negative zero, and what it does without rdtscp said in the code
# path's message (the flag is there on this host or not: the text is fixed).
"$W" tsc -C 0 --calib-windows 3 --calib-us 2ms --max-ms 100 > tsc.out 2>&1
t_check "wult tsc prints no '-0.00'" sh -c "! grep -q -- '-0\.00' tsc.out"
if grep -q "rdtscp no" tsc.out; then
	t_check "wult tsc without rdtscp says what it reads instead" grep -q "lfence;rdtsc" tsc.out
else
	t_check "wult tsc's no-rdtscp note exists (this CPU has rdtscp)" \
		grep -q "without rdtscp the cross-CPU probes read lfence;rdtsc" "$top/perf-plugin/wult/cmd_tsc.c"
fi
t_done
