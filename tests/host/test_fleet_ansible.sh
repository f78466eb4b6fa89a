#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# vm-cost: 90
# A fleet through Ansible (issue 39 item 6): scripts/ansible/fleet.yml and
# its role wult_fleet, run end to end by ansible-playbook with its ssh
# connection (OpenSSH's client) against two 6.12 guests of
# `vm-run --ssh` on the loopback (two ports, one key and one known_hosts
# each, strict host key checking, nothing written to ~/.ssh). Each guest
# loads wult_refidle with its own C3 exit latency (sut1 300 us, sut2
# 1 ms), not wult.ko: the role's deploy (wult deploy -H --modules, this
# build's modules) installs and loads it. Run 1: a sweep, states=C1,C3 on
# CPU 1, on both at once: each point's file on the controller, its count
# and median (wult report and, independently, wult-decode.py), each host's
# sweep report, each point compared across hosts naming both. Run 2: a
# plain recording on sut1, sut2 and a host that is down: the run fails
# naming it, the two others are recorded and compared.
# Cost: both guests boot at once (one boot each, host clock), ready after
# 31-47 s of wall time on 2 cores shared with other work; each playbook
# run 44-49 s wall, 10 s of its own CPU; the whole test 95 s of CPU
# (guests included), 2.5-3 min wall. The figures are printed under "# cost".
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
vr=$top/scripts/vm-run
W=$build/rel/wult
tmp=$(mktemp -d)
vpids=()
# Teardown on every exit path: the guests' vm-runs (each kills its QEMU on
# exit) are ended by their ids and waited for.
cleanup() {
	local p
	for p in "${vpids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${vpids[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

for t in ansible-playbook ssh ssh-keygen dropbearkey /usr/sbin/dropbear perf; do
	if ! command -v $t >/dev/null; then
		t_skip "no $t here (scripts/deps installs ansible-core, dropbear-bin, openssh-client)"
		t_done
		exit
	fi
done

export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0
# Ansible's own files in the test's directory, not the user's home.
export ANSIBLE_LOCAL_TEMP=$tmp/ansible/tmp ANSIBLE_SSH_CONTROL_PATH_DIR=$tmp/ansible/cp
pb=$top/scripts/ansible/fleet.yml
printf 'wult_suts:\n  hosts:\n    x:\n' > "$tmp/syntax.yml"
ansible-playbook -i "$tmp/syntax.yml" "$pb" --syntax-check > "$tmp/syntax.out" 2>&1
t_eq "ansible-playbook --syntax-check fleet.yml: exit 0" 0 $?

# ~/.ssh before, to show the run leaves it alone.
sshdir_sum() { find ~/.ssh -type f -exec sha1sum {} + 2>/dev/null | sort; }
ssh_before=$(sshdir_sum)

freeport() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# The guests: wult_refidle (C3's exit latency from $1) loaded, /run for
# --states, then up until the host says done (at most 400 s).
cat > "$tmp/g.sh" <<'G'
#!/bin/bash
mkdir -p /run
insmod "$WULT_REFIDLE_KO" "exit_us=0,20,$1" && echo "guest: ready"
t0=$(date +%s)
while [ ! -e /tmp/done ] && [ $(($(date +%s) - t0)) -lt 400 ]; do sleep 0.2; done
[ -e /tmp/done ] && echo "guest: done" || echo "guest: nobody said done"
G
chmod +x "$tmp/g.sh"
declare -A port exit_us
exit_us[sut1]=300 exit_us[sut2]=1000
t0=$(date +%s.%N)
for h in sut1 sut2; do
	port[$h]=$(freeport)
	WULT_BUILD=$build "$vr" --kernel 6.12 --ssh "${port[$h]}" --timeout 600 \
		--out "$tmp/$h" "$tmp/g.sh" "${exit_us[$h]}" > "$tmp/$h.out" 2> "$tmp/$h.err" &
	vpids+=($!)
done
for ((i = 0; i < 400; i++)); do
	n=0
	for h in sut1 sut2; do grep -q '^guest: ready' "$tmp/$h.out" 2>/dev/null && n=$((n + 1)); done
	[ $n = 2 ] && break
	for p in "${vpids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
	sleep 1
done
boot=$(echo "$(date +%s.%N) - $t0" | bc)
for h in sut1 sut2; do
	t_check "$h: ssh ready, wult_refidle loaded" grep -q '^guest: ready' "$tmp/$h.out"
done
# tree_ticks PID...: CPU clock ticks of these processes and their
# descendants so far (QEMU's, not reaped until the end).
tree_ticks() {
	local p t=0
	for p in "$@"; do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
		# shellcheck disable=SC2046	# one pid a word
		t=$((t + $(tree_ticks $(ps -o pid= --ppid "$p"))))
	done
	echo $t
}
echo "# cost: both guests ready ${boot%.*} s after their start, $(($(tree_ticks "${vpids[@]}") / $(getconf CLK_TCK))) s of CPU"
for h in sut1 sut2; do
	grep -q '^guest: ready' "$tmp/$h.out" && continue
	sed "s/^/$h: /" "$tmp/$h.out" "$tmp/$h.err" | tail -n 20
	t_done
	exit 1
done

# The inventory: the connection as any lab's would give it; the run's key
# and each guest's known_hosts (vm-run's), strict host key checking.
inv() {
	echo 'wult_suts:'
	echo '  hosts:'
	for h in "$@"; do
		echo "    $h:"
		echo "      ansible_host: 127.0.0.1"
		echo "      ansible_port: ${port[$h]}"
		echo "      ansible_user: root"
		echo "      ansible_ssh_private_key_file: $tmp/${key[$h]}/ssh/id_ed25519"
		echo "      ansible_ssh_common_args: -o UserKnownHostsFile=$tmp/${key[$h]}/ssh/known_hosts -o StrictHostKeyChecking=yes -o ConnectTimeout=20"
	done
}
declare -A key
key[sut1]=sut1 key[sut2]=sut2
inv sut1 sut2 > "$tmp/inv.yml"
# Run 1: deploy (this build's modules for the guests' 6.12), then a sweep
# of states C1 and C3 on CPU 1, 101 datapoints a point; C1's WakeLatency
# is the host clock's overhead, C3's carries the guest's injected exit.
cat > "$tmp/vars.yml" <<V
wult_fleet_wult: $W
wult_fleet_results: $tmp/results
wult_fleet_deploy_opts: ['--modules', '$build/kernel/6.12']
wult_fleet_sweep: ['states=C1,C3']
wult_fleet_record_opts: ['-C', '1', '-c', '101', '--ldist', '500,1000']
V
export XDG_CACHE_HOME=$tmp/cache	# wult deploy's, not the user's
TIMEFORMAT='%R s wall, %U s user + %S s system CPU'
{ time timeout 900 ansible-playbook -i "$tmp/inv.yml" -e "@$tmp/vars.yml" "$pb" \
	> "$tmp/pb.out" 2>&1; } 2> "$tmp/pb.time"
rc=$?
echo "# cost: the playbook, deploy and sweep on both hosts: $(cat "$tmp/pb.time")"
t_eq "ansible-playbook fleet.yml, two hosts, a sweep: exit 0" 0 $rc
[ $rc = 0 ] || sed 's/^/  /' "$tmp/pb.out" | tail -n 40
grep -E '^(PLAY RECAP|sut[12] )' "$tmp/pb.out" | sed 's/^/  /'
t_check "Ansible reached both over its ssh" \
	sh -c "grep -q '^sut1 .*ok=[1-9].*unreachable=0 *failed=0' '$tmp/pb.out' &&
		grep -q '^sut2 .*ok=[1-9].*unreachable=0 *failed=0' '$tmp/pb.out'"

R=$tmp/results
# js FILE WHAT [N]: from wult report --json FILE, input N (default 0).
js() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
i = d["inputs"][int(sys.argv[3]) if len(sys.argv) > 3 else 0]
g = {x["name"]: x for x in i["groups"] if x["name"] != "all"}
q = sys.argv[2]
if q == "states": print(" ".join(g))
elif q == "only": print(int(list(g.values())[0]["metrics"]["WakeLatency"]["median"]))
elif q == "read": print(i["validity"]["read"])
elif q == "path": print(i["path"])
elif q == "release": print(i["system"].get("kernel.release", ""))
' "$@" 2>/dev/null
}
gsh() {
	timeout 60 ssh -p "${port[$1]}" -i "$tmp/$1/ssh/id_ed25519" -o BatchMode=yes \
		-o UserKnownHostsFile="$tmp/$1/ssh/known_hosts" -o StrictHostKeyChecking=yes \
		root@127.0.0.1 "$2"
}
krel=$(WULT_BUILD=$build "$top/scripts/kdir" 6.12)
krel=${krel##*/linux-headers-}
declare -A med
for h in sut1 sut2; do
	t_check "$h: deployed: wult.ko loaded, /usr/local/bin/wult there" \
		gsh $h 'grep -q "^wult " /proc/modules && test -x /usr/local/bin/wult'
	# A pipe-mode recording (wult record -H) has no WULT_CSTATES section:
	# the names come from its system description (C3, not state3).
	for p in C1:C1 C3:C3; do
		f=$R/$h/sweep/states-${p%%:*}.data
		t_check "$h: the sweep's point ${p%%:*} arrived ($f)" test -s "$f"
		"$W" report --json "$f" > "$tmp/j" 2> /dev/null
		t_eq "$h ${p%%:*}: wult report decodes 101 datapoints" 101 "$(js "$tmp/j" read)"
		st=$(js "$tmp/j" states)
		t_check "$h ${p%%:*}: all in that state (${st:-none})" grep -qxE "${p#*:}" <<<"$st"
		perf script -i "$f" -s "$top/scripts/perf/wult-decode.py" 2> /dev/null |
			grep -v '^#' | grep -v '^br ' > "$tmp/dp"
		t_eq "$h ${p%%:*}: wult-decode.py decodes 101 datapoints" 101 "$(wc -l < "$tmp/dp")"
		m=$(js "$tmp/j" only)
		# Its column 14: WakeLatency less the probe overhead, as wult report's.
		t_eq "$h ${p%%:*}: the decoders' WakeLatency medians agree ($m ns)" "$m" \
			"$(dec_median "$tmp/dp" 14)"
		med[$h.${p%%:*}]=$m
	done
	t_eq "$h: the system description: the guest's kernel" "$krel" "$(js "$tmp/j" release)"
	t_check "$h: its sweep's report (RESULTS/$h/report.txt): both points with data" \
		grep -q " $R/$h/sweep: 2 points, 2 with datapoints" "$R/$h/report.txt"
	t_eq "$h: report.json: each point's count and median, as its file's" \
		"states-C1 101 ${med[$h.C1]}; states-C3 101 ${med[$h.C3]}; " \
		"$(python3 -c 'import json, sys
for p in json.load(open(sys.argv[1]))["sweep"]["points"]:
    print(p["moniker"], *("%d" % p["states"][0][k] for k in ("count", "median")), end="; ")' \
			"$R/$h/report.json" 2>/dev/null)"
	t_check "$h: deploy's and the sweep's messages kept" \
		test -s "$R/$h/deploy.log" -a -s "$R/$h/record.log"
done
echo "# medians (ns): sut1 C1 ${med[sut1.C1]}, C3 ${med[sut1.C3]}; sut2 C1 ${med[sut2.C1]}, C3 ${med[sut2.C3]}"
# The injected exits: C1 0, C3 300 us on sut1 and 1 ms on sut2; the host
# clock adds the guests' turns on 2 shared cores (60-80 us to a median
# alone, C1's median; 1.4 ms more to sut2's C3 beside a make check), so a
# median is bounded below by its exit, not above.
lots=999999999999
t_within "sut1: C1 median (ns)" "${med[sut1.C1]:-0}" 1 $lots
t_within "sut2: C1 median (ns)" "${med[sut2.C1]:-0}" 1 $lots
t_within "sut1: C3 median at least its 300 us exit (ns)" "${med[sut1.C3]:-0}" 300000 $lots
t_within "sut2: C3 median at least its 1 ms exit (ns)" "${med[sut2.C3]:-0}" 1000000 $lots
for p in C1 C3; do
	c=$R/compare/states-$p
	t_check "point $p compared across hosts: sut1's file then sut2's (compare/states-$p.txt)" \
		sh -c "grep -qx '\[1\] $R/sut1/sweep/states-$p.data' '$c.txt' &&
			grep -qx '\[2\] $R/sut2/sweep/states-$p.data' '$c.txt'"
	t_eq "compare/states-$p.json: sut2's median is sut2's" "${med[sut2.$p]:-none}" "$(js "$c.json" only 1)"
done
t_eq "$HOME/.ssh untouched" "$ssh_before" "$(sshdir_sum)"

# Run 2: one recording (C3 only) on sut1, sut2 and a host that is down (a
# loopback port nobody listens on): the run fails and names it; the two
# others are deployed again (nothing to change), recorded and compared.
port[down]=$(freeport) key[down]=sut1
inv sut1 sut2 down > "$tmp/inv2.yml"
cat > "$tmp/vars2.yml" <<V
wult_fleet_wult: $W
wult_fleet_results: $tmp/results2
wult_fleet_deploy_opts: ['--modules', '$build/kernel/6.12']
wult_fleet_record_opts: ['-C', '1', '--states', 'C3', '-c', '21', '--ldist', '500,1000']
V
{ time timeout 900 ansible-playbook -i "$tmp/inv2.yml" -e "@$tmp/vars2.yml" "$pb" \
	> "$tmp/pb2.out" 2>&1; } 2> "$tmp/pb2.time"
rc=$?
echo "# cost: the playbook, deploy and record on two hosts, one down: $(cat "$tmp/pb2.time")"
R=$tmp/results2
t_check "a host down: the run fails (exit $rc)" test $rc -ne 0
t_check "a host down: Ansible names it unreachable" grep -q '^fatal: \[down\]: UNREACHABLE!' "$tmp/pb2.out"
t_check "a host down: the role names it" grep -q '"msg": "no results from: down"' "$tmp/pb2.out"
t_check "a host down: no results for it" test ! -e "$R/down"
for h in sut1 sut2; do
	"$W" report --json "$R/$h/$h.data" > "$tmp/j" 2>/dev/null
	t_eq "a host down: $h's 21 datapoints (RESULTS/$h/$h.data)" 21 "$(js "$tmp/j" read)"
	t_check "a host down: $h's report (RESULTS/$h/report.txt)" \
		grep -q '^C3: 21 datapoints' "$R/$h/report.txt"
	t_check "a host down: $h's record.log, the SUT's messages named" \
		grep -q "^root@127.0.0.1:${port[$h]}: wult record: .*21 datapoints in " "$R/$h/record.log"
done
t_check "the comparison (RESULTS/compare.txt) names the two hosts' files" \
	sh -c "grep -qx '\[1\] $R/sut1/sut1.data' '$R/compare.txt' &&
		grep -qx '\[2\] $R/sut2/sut2.data' '$R/compare.txt' && ! grep -q '^\[3\]' '$R/compare.txt'"
t_eq "compare.json: sut1 then sut2" "$R/sut1/sut1.data $R/sut2/sut2.data" \
	"$(js "$R/compare.json" path 0) $(js "$R/compare.json" path 1)"
t_within "compare.json: sut2's C3 median, at least its 1 ms exit (ns)" \
	"$(js "$R/compare.json" only 1 || echo 0)" 1000000 $lots
t_check "compare.html written" test -s "$R/compare.html"
[ $rc != 0 ] || sed 's/^/  /' "$tmp/pb2.out" | tail -n 30

echo "# cost: both guests, boot and both runs: $(($(tree_ticks "${vpids[@]}") / $(getconf CLK_TCK))) s of CPU"
# Teardown: both guests told to stop; vm-run checks their kernel logs.
for h in sut1 sut2; do
	timeout 60 ssh -p "${port[$h]}" -i "$tmp/$h/ssh/id_ed25519" -o BatchMode=yes \
		-o UserKnownHostsFile="$tmp/$h/ssh/known_hosts" -o StrictHostKeyChecking=yes \
		root@127.0.0.1 'touch /tmp/done'
done
i=0
for h in sut1 sut2; do
	wait "${vpids[$i]}"
	rc=$?
	t_eq "$h: vm-run exits 0 once told done (its kernel log clean)" 0 $rc
	[ $rc = 0 ] || sed "s/^/  $h: /" "$tmp/$h.err" | tail -n 20
	i=$((i + 1))
done
vpids=()
c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
echo "# cost: $((c1 / $(getconf CLK_TCK))) s of CPU in all (both guests, the playbooks, the checks)"
t_done
