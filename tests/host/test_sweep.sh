#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult sweep and wult report DIR on this host, under ASan/UBSan, without
# wult.ko: on a fake cpuidle tree (WULT_CPUIDLE_SYSFS, as
# test_record_cstates.sh) a sweep's every point fails after its wult record
# chose the states (no PMU here), so the sweep says each failed point by
# name, exits 1, keeps the manifest with each point's exit status, and
# every setting is as before; --dry-run lists the points and makes nothing;
# bad input is refused (exit 2, named) before anything is made. wult report
# DIR reads fixture sweeps of wult synth files whose states differ by known
# offsets (text, --json, --html), says the points without data, and refuses
# what has no meaning for a sweep. The recording itself, with real states,
# governors and SIGKILLs: tests/vm/sweep.sh.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1
export WULT_CPUIDLE_SYSFS=$tmp/sys WULT_CPUIDLE_RECORD=$tmp/restore
cd "$tmp" || exit 1
# The CPU wult record measures by default: 1 when it exists, else 0.
cpu=0
[ -e /sys/devices/system/cpu/cpu1 ] && cpu=1

mkdir -p sys/cpuidle
echo "ladder menu " > sys/cpuidle/available_governors
echo menu > sys/cpuidle/current_governor
echo fake > sys/cpuidle/current_driver
names=(POLL C1 C2 C3)
for k in 0 1 2 3; do
	mkdir -p "sys/cpu$cpu/cpuidle/state$k"
	echo "${names[$k]}" > "sys/cpu$cpu/cpuidle/state$k/name"
	echo 0 > "sys/cpu$cpu/cpuidle/state$k/disable"
done
echo 1 > "sys/cpu$cpu/cpuidle/state0/disable"
settings() { echo "$(cat sys/cpu$cpu/cpuidle/state{0,1,2,3}/disable | tr -d '\n') $(cat sys/cpuidle/current_governor)"; }
before=$(settings)

# ---- bad input ----
"$W" sweep -o bad foo=1 2> e1
t_eq "unknown axis: exit 2" 2 $?
t_check "unknown axis named" grep -q "unknown axis 'foo'" e1
"$W" sweep -o bad states=C1,C9 2> e2
t_eq "unknown state: exit 2" 2 $?
t_check "unknown state named with the CPU's" grep -q \
	"point states-C9: --states: CPU $cpu has no idle state 'C9' (it has POLL, C1, C2, C3)" e2
"$W" sweep -o bad governor=teo 2> e3
t_eq "unavailable governor: exit 2" 2 $?
t_check "unavailable governor named with the kernel's" grep -q \
	"point governor-teo: --idle-governor: no cpuidle governor 'teo' (this kernel has: ladder menu" e3
"$W" sweep states=C1 2> e4
t_eq "no -o: exit 2" 2 $?
t_check "no -o said" grep -q -- "-o DIR is required" e4
"$W" sweep -o bad states=C1 -- -o x 2> e5
t_eq "-o among the record options: exit 2" 2 $?
t_check "... said" grep -q -- "-o after '--': the sweep sets it" e5
"$W" sweep -o bad states=C1 -- --states C2 2> e6
t_eq "an axis's option among the record options: exit 2" 2 $?
t_check "... said" grep -q -- "--states after '--': the states axis sets it at each point" e6
"$W" sweep -o bad method=hrt,bogus 2> e7
t_eq "a value wult record refuses: exit 2" 2 $?
t_check "... the point named" grep -q "point method-bogus: wult record refuses its options" e7
"$W" sweep -o bad states=C1 deepest-state=C2 2> e8
t_eq "states with deepest-state: exit 2" 2 $?
"$W" sweep -o bad -H a,b states=C1 2> e9
t_eq "-H with two hosts: exit 2" 2 $?
# A kernel that shows current_governor_ro alone (before 5.8 without
# cpuidle_sysfs_switch): its governor cannot be chosen, said before anything.
mv sys/cpuidle/current_governor sys/cpuidle/current_governor_ro
"$W" sweep -o bad governor=menu 2> e10
t_eq "a governor that cannot be switched (current_governor_ro): exit 1" 1 $?
t_check "... said" grep -q "point governor-menu: --idle-governor: this kernel does not let the cpuidle governor be switched" e10
mv sys/cpuidle/current_governor_ro sys/cpuidle/current_governor
t_check "refused sweeps make nothing" test ! -e bad
t_eq "refused sweeps change nothing" "$before" "$(settings)"

# ---- --dry-run ----
"$W" sweep -o d states=C1,C2+C3 governor=menu,ladder --dry-run -- -c 10 > dry 2> dry.err
t_eq "--dry-run: exit 0" 0 $?
t_eq "--dry-run: the points in order" \
	"states-C1_governor-menu.data states-C1_governor-ladder.data states-C2+C3_governor-menu.data states-C2+C3_governor-ladder.data" \
	"$(awk '$1 ~ /^[0-9]+\/[0-9]+$/ { print $2 }' dry | tr '\n' ' ' | sed 's/ $//')"
t_check "--dry-run: the settings and the command line" grep -qx \
	"    wult record --states C2,C3 --idle-governor ladder -o d/states-C2+C3_governor-ladder.data -c 10" dry
"$W" sweep -o d ldist=100-200 cpu=$cpu -H root@sut:2222 --ssh-opts "-i key" -n > dryh
t_check "--dry-run -H: the host and ssh options in each command line" grep -qx \
	"    wult record --ldist 100,200 --cpus $cpu -o d/ldist-100-200_cpu-$cpu.data -H root@sut:2222 --ssh-opts '-i key'" dryh
t_check "--dry-run makes nothing" test ! -e d
t_eq "--dry-run changes nothing" "$before" "$(settings)"

# ---- a sweep whose points all fail (no wult.ko here) ----
"$W" sweep -o f states=C1,C2 governor=menu,ladder -- -c 10 > f.out 2> f.err
t_eq "failing points: exit 1" 1 $?
t_check "each failed point named" grep -q "wult sweep: failed: states-C2_governor-ladder" f.err
t_check "the count said" grep -q "wult sweep: 4 points: 0 done, 4 failed; f/sweep.json" f.err
t_eq "the manifest: each point failed with record's exit 1" 4 \
	"$(grep -c '"status": "failed", "exit_status": 1}' f/sweep.json)"
t_eq "every setting as before" "$before" "$(settings)"
t_check "no restore record left" test ! -e restore
"$W" sweep -o f states=C1 2> again.err
t_eq "a directory holding a sweep is refused: exit 2" 2 $?
t_check "... said" grep -q "f holds a sweep already" again.err
"$W" report f > fr.out 2> fr.err
t_eq "report of a sweep without data: exit 4" 4 $?
t_check "... each point says why" grep -q "C2      ladder    (its recording failed)" fr.out

# ---- -H: every point through wult record -H (a stand-in for ssh) ----
# The stand-in keeps each call's arguments and plays a pipe-mode stream back.
"$W" synth -o - -c 50 --nr-cstates 2 --cstate-names C1,C2 > p.data 2> /dev/null
mkdir -p fake
cat > fake/ssh <<'F'
#!/bin/bash
n=$(find "$FAKE_DIR" -name 'call*' | wc -l)
printf '%s\n' "$@" > "$FAKE_DIR/call$n"
cat "$FAKE_DATA"
F
chmod +x fake/ssh
PATH=$tmp/fake:$PATH FAKE_DIR=$tmp/fake FAKE_DATA=$tmp/p.data \
	"$W" sweep -q -o h -H u@sut.example:2200 states=C1,C9 -- -c 5 > h.out 2> h.err
t_eq "-H: exit 0 (a state this host lacks is the SUT's to check)" 0 $?
sed 's/^/  /' h.err
t_eq "-H: one ssh per point" 2 "$(find fake -name 'call*' | wc -l)"
t_check "-H: each point's file is its stream, byte for byte" cmp -s p.data h/states-C9.data
q="'\\''"	# a quote inside sh -c's quoted script
t_check "-H: the SUT's wult record gets the point's settings and the options" \
	grep -qF "wult record -o - ${q}--states${q} ${q}C9${q} ${q}-c${q} ${q}5${q}" fake/call1
t_check "-H: ssh gets the user and the port" grep -qx 2200 fake/call0
t_check "-H: the manifest names the host" grep -q '"host": "u@sut.example:2200"' h/sweep.json
t_eq "-H: both points done" 2 "$(grep -c '"status": "done"' h/sweep.json)"
"$W" report h > hr.out 2>&1
t_eq "-H: report DIR: exit 0" 0 $?
t_check "-H: report DIR: both points with datapoints, the host said" \
	grep -q "^Sweep h: 2 points, 2 with datapoints; recorded on u@sut.example:2200" hr.out

# SIGINT mid-point: passed on to the point's wult record -H, which closes
# ssh's input (the SUT's record stops); this stand-in plays its stream and
# then waits for that. The point is stopped, the rest not run, exit 1.
cat > fake/ssh <<'F'
#!/bin/bash
n=$(find "$FAKE_DIR" -name 'call*' | wc -l)
printf '%s\n' "$@" > "$FAKE_DIR/call$n"
cat "$FAKE_DATA"
cat > /dev/null
F
rm -f fake/call*
PATH=$tmp/fake:$PATH FAKE_DIR=$tmp/fake FAKE_DATA=$tmp/p.data \
	"$W" sweep -o i -H sut.example states=C1,C2 > i.out 2> i.err &
sp=$!
for _ in $(seq 300); do
	[ -s i/states-C1.data ] && cmp -s p.data i/states-C1.data && break
	sleep 0.1
done
kill -INT $sp
wait $sp
t_eq "SIGINT mid-point: exit 1" 1 $?
t_check "SIGINT: the point said stopped" grep -q "point 1/2 states-C1 stopped by signal 2" i.err
t_check "SIGINT: the count said" grep -q "2 points: 0 done, 1 stopped, 1 not run" i.err
t_check "SIGINT: the manifest: the point stopped, the next pending" python3 -c '
import json
p = json.load(open("i/sweep.json"))["points"]
assert [x["status"] for x in p] == ["stopped", "pending"], p'
t_eq "SIGINT: one ssh, its stream kept whole" "1 0" \
	"$(find fake -name 'call*' | wc -l) $(cmp -s p.data i/states-C1.data; echo $?)"

# ---- wult report DIR over fixtures ----
# A sweep dir of synth files: C2's wakes 19 us and C3's 79 us longer.
mkdir -p r
"$W" synth -o r/states-C1.data -c 100 --nr-cstates 1 --cstate-names C1 --wake 2us,2us \
	--tail 0,1us > /dev/null 2>&1
"$W" synth -o r/states-C1+C2+C3.data -c 400 -s 2 --nr-cstates 3 --cstate-names C1,C2,C3 \
	--wake 2us,2us --tail 0,1us --state-offset 0,19us,79us > /dev/null 2>&1
cat > r/sweep.json <<'EOF'
{"wult_sweep": 1, "host": null, "record_options": ["-c", "400"],
 "axes": [{"name": "states", "values": ["C1", "C1+C2+C3", "C2"]}],
 "points": [
  {"moniker": "states-C1", "file": "states-C1.data", "settings": {"states": "C1"},
   "status": "pending"},
  {"moniker": "states-C1+C2+C3", "file": "states-C1+C2+C3.data",
   "settings": {"states": "C1+C2+C3"}, "status": "stopped", "signal": 2},
  {"moniker": "states-C2", "file": "states-C2.data", "settings": {"states": "C2"},
   "status": "failed", "exit_status": 1}]}
EOF
"$W" report r > r.out 2> r.err
t_eq "report DIR: exit 0" 0 $?
cat r.out
t_check "report DIR: the header" grep -q "^Sweep r: 3 points, 2 with datapoints; recorded here" r.out
t_check "report DIR: the column heads" grep -q "^states    ReqCState  count  median     p99  p99.99$" r.out
t_check "report DIR: a failed point says so" grep -q "^C2        (its recording failed)$" r.out
t_check "report DIR: the points without data on stderr" grep -q "1 of 3 points without datapoints" r.err
t_check "report DIR: a pending point with a file (a killed sweep's) is reported, and said" \
	grep -q "point states-C1 is pending but has a file (a sweep killed while recording it?)" r.err
med() { awk -v p="$1" -v s="$2" '$1 == p && $2 == s { printf "%.0f", $4 * 1000 }' r.out; }
m1=$(med C1+C2+C3 C1)
m2=$(med C1+C2+C3 C2)
m3=$(med C1+C2+C3 C3)
t_eq "report DIR: C2 - C1 = the 19 us offset (ns)" 19000 $((m2 - m1))
t_eq "report DIR: C3 - C1 = the 79 us offset (ns)" 79000 $((m3 - m1))
t_check "report DIR: a point of several states has its all row" grep -q "^C1+C2+C3  all " r.out
t_eq "report DIR: the point of one state has its row alone" "C1" \
	"$(awk '$1 == "C1" { print $2 }' r.out | tr '\n' ' ' | sed 's/ $//')"
"$W" report --json r > r.json 2> rj.err
t_eq "report --json DIR: exit 0" 0 $?
t_check "--json: valid JSON with the points, settings and medians" python3 -c '
import json, sys
d = json.load(open("r.json"))["sweep"]
assert [a["name"] for a in d["axes"]] == ["states"], d["axes"]
p = {x["moniker"]: x for x in d["points"]}
assert p["states-C2"]["no_data"] == "its recording failed"
assert p["states-C1+C2+C3"]["status"] == "stopped"
assert p["states-C1+C2+C3"]["settings"] == {"states": "C1+C2+C3"}
st = {s["state"]: s for s in p["states-C1+C2+C3"]["states"]}
assert st["C3"]["median"] - st["C1"]["median"] == 79000, st
assert [s["state"] for s in p["states-C1"]["states"]] == ["C1"]
assert sum(st[s]["count"] for s in ("C1", "C2", "C3")) == st["all"]["count"] == 400
'
"$W" report --html r.html r > /dev/null 2> rh.err
t_eq "report --html DIR: exit 0" 0 $?
t_check "--html: the sweep's table" grep -q '<section id="sweep"><h2>Sweep: WakeLatency' r.html
t_eq "--html: the text's rows" 6 "$(grep -o '<tr><td>' r.html | wc -l)"
t_check "--html: the points' files as its inputs" grep -q '<h3>\[2\] r/states-C1+C2+C3.data</h3>' r.html
"$W" report --csv x r 2> c.err
t_eq "report --csv DIR: exit 2" 2 $?
t_check "... said" grep -q -- "--csv is not for a sweep's directory" c.err
"$W" report r r/states-C1.data 2> two.err
t_eq "a sweep among other inputs: exit 2" 2 $?
t_check "... said" grep -q "r is a wult sweep's directory: report it alone" two.err
rm r/states-C1.data
sed -i 's/"status": "pending"}/"status": "done", "exit_status": 0}/' r/sweep.json
"$W" report r > /dev/null 2> miss.err
t_eq "a done point's file missing: exit 1" 1 $?
t_check "... said with the point" grep -q "point states-C1: its file is missing" miss.err
echo '{"wult_sweep": 1, "axes": [' > r/sweep.json
"$W" report r > /dev/null 2> bad.err
t_eq "a broken manifest: exit 1" 1 $?
t_check "... said where" grep -q "r/sweep.json: not JSON: byte " bad.err
t_done
