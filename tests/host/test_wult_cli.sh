#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The wult command's front door (issue 40): `wult --version` as perf's,
# `wult synth && wult report` without the module (synth writes ./wult.data,
# keeping an existing one as wult.data.old, as wult record does), and
# --cstates names that would put datapoints under the wrong state, and wult
# hist without the module or samples.
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
t_done
