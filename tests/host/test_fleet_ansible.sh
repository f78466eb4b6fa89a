#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# vm-cost: 120
# A fleet through Ansible (issue 39 item 6): scripts/ansible/fleet.yml and
# its role wult_fleet, run end to end by ansible-playbook with its ssh
# connection (OpenSSH's client) against two 6.12 guests of
# `vm-run --ssh` on the loopback (two ports, one key and one known_hosts
# each, strict host key checking, nothing written to ~/.ssh). Each guest
# loads wult_refidle with its own C3 exit latency (sut1 80 us, sut2
# 1 ms); the role records 201 datapoints of C3 on CPU 1 in both at
# once, and the test checks both files on the controller, their counts
# and C3 medians (wult report and, independently, wult-decode.py), the
# per-host reports and the comparison naming both hosts. Then an inventory
# with a host that is down: the run fails naming it, the live host's
# results still arrive.
# Cost: both guests boot at once (one boot each, host clock); measured on
# 2 shared cores: see the figures printed under "# cost".
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
# The guests: wult.ko and wult_refidle (C3's exit latency from $1) loaded,
# /run for --states, then up until the host says done (at most 400 s).
cat > "$tmp/g.sh" <<'G'
#!/bin/bash
mkdir -p /run
insmod "$WULT_KO" && insmod "$WULT_REFIDLE_KO" "exit_us=0,20,$1" &&
	echo "guest: ready"
t0=$(date +%s)
while [ ! -e /tmp/done ] && [ $(($(date +%s) - t0)) -lt 400 ]; do sleep 0.2; done
[ -e /tmp/done ] && echo "guest: done" || echo "guest: nobody said done"
G
chmod +x "$tmp/g.sh"
declare -A port exit_us
exit_us[sut1]=80 exit_us[sut2]=1000
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
	t_check "$h: ssh ready, wult.ko and wult_refidle loaded" grep -q '^guest: ready' "$tmp/$h.out"
done
echo "# cost: both guests ready ${boot%.*} s after their start"
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
# One state, C3, on CPU 1: its WakeLatency carries the guest's injected exit.
cat > "$tmp/vars.yml" <<V
wult_fleet_wult: $W
wult_fleet_results: $tmp/results
wult_fleet_record_opts: ['-C', '1', '--states', 'C3', '-c', '201', '--ldist', '500,1000']
V
TIMEFORMAT='%R s wall, %U s user + %S s system CPU'
{ time timeout 600 ansible-playbook -i "$tmp/inv.yml" -e "@$tmp/vars.yml" "$pb" \
	> "$tmp/pb.out" 2>&1; } 2> "$tmp/pb.time"
rc=$?
echo "# cost: the playbook run (both hosts): $(cat "$tmp/pb.time")"
t_eq "ansible-playbook fleet.yml, two hosts: exit 0" 0 $rc
[ $rc = 0 ] || sed 's/^/  /' "$tmp/pb.out" | tail -n 40
grep -E '^(PLAY RECAP|sut[12] )' "$tmp/pb.out" | sed 's/^/  /'
t_check "Ansible reached both over its ssh" \
	sh -c "grep -q '^sut1 .*ok=[1-9].*unreachable=0 *failed=0' '$tmp/pb.out' &&
		grep -q '^sut2 .*ok=[1-9].*unreachable=0 *failed=0' '$tmp/pb.out'"

R=$tmp/results
# jq-less JSON: FIELD of wult report --json FILE's first input.
js() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
i = d["inputs"][int(sys.argv[3]) if len(sys.argv) > 3 else 0]
g = {x["name"]: x for x in i["groups"]}
q = sys.argv[2]
if q == "states": print(" ".join(n for n in g if n != "all"))
elif q == "only": print(int([v for n, v in g.items() if n != "all"][0]["metrics"]["WakeLatency"]["median"]))
elif q == "read": print(i["validity"]["read"])
elif q == "path": print(i["path"])
elif q == "release": print(i["system"].get("kernel.release", ""))
else: print(int(g[q]["metrics"]["WakeLatency"]["median"]))
' "$@" 2>/dev/null
}
krel=$(WULT_BUILD=$build "$top/scripts/kdir" 6.12)
krel=${krel##*/linux-headers-}
for h in sut1 sut2; do
	f=$R/$h/$h.data
	t_check "$h: its recording arrived ($f)" test -s "$f"
	"$W" report --json "$f" > "$tmp/$h.json" 2> "$tmp/$h.rep.err"
	t_eq "$h: wult report decodes it, exit 0" 0 $?
	t_eq "$h: 201 datapoints" 201 "$(js "$tmp/$h.json" read)"
	# Index 3 is C3; a pipe-mode recording (wult record -H) stores no
	# state names (no WULT_CSTATES section), so the report says state3.
	st=$(js "$tmp/$h.json" states)
	t_check "$h: all in one state, C3 (${st:-none})" grep -qxE 'C3|state3' <<<"$st"
	t_eq "$h: its system description: the guest's kernel" "$krel" "$(js "$tmp/$h.json" release)"
	perf script -i "$f" -s "$top/scripts/perf/wult-decode.py" > "$tmp/$h.dec" 2> /dev/null
	grep -v '^#' "$tmp/$h.dec" | grep -v '^br ' > "$tmp/$h.dp"
	t_eq "$h: wult-decode.py decodes 201 datapoints" 201 "$(wc -l < "$tmp/$h.dp")"
	med[${h#sut}]=$(js "$tmp/$h.json" only)
	# Its column 14: WakeLatency less the probe overhead, as wult report's.
	dmed[${h#sut}]=$(dec_median "$tmp/$h.dp" 14)
	echo "# $h: C3 WakeLatency median ${med[${h#sut}]} ns (wult report), ${dmed[${h#sut}]} ns (wult-decode.py)"
	t_eq "$h: the two decoders' medians agree" "${med[${h#sut}]}" "${dmed[${h#sut}]}"
	t_check "$h: a report (RESULTS/$h/report.txt) of C3" grep -qE '^(C3|state3): 201 datapoints' "$R/$h/report.txt"
	t_check "$h: wult record's messages kept, named" \
		grep -q "^root@127.0.0.1:${port[$h]}: wult record: .*201 datapoints in " "$R/$h/record.log"
done
# The injected exits: 80 us on sut1, 1 ms on sut2; the host clock adds
# the guests' turns on 2 shared cores (measured: 71-79 us to a median).
t_within "sut1: C3 median from its 80 us exit (ns)" "${med[1]:-0}" 80000 999999
t_within "sut2: C3 median from its 1 ms exit (ns)" "${med[2]:-0}" 1000000 2000000
t_check "the comparison (RESULTS/compare.txt) names both hosts' files" \
	sh -c "grep -qx '\[1\] $R/sut1/sut1.data' '$R/compare.txt' &&
		grep -qx '\[2\] $R/sut2/sut2.data' '$R/compare.txt'"
t_eq "compare.json: sut1 then sut2" "$R/sut1/sut1.data $R/sut2/sut2.data" \
	"$(js "$R/compare.json" path 0) $(js "$R/compare.json" path 1)"
t_eq "compare.json: sut2's C3 median is sut2's" "${med[2]:-none}" "$(js "$R/compare.json" only 1)"
t_check "compare.html written" test -s "$R/compare.html"
t_eq "$HOME/.ssh untouched" "$ssh_before" "$(sshdir_sum)"

# A host that is down (a loopback port nobody listens on) beside sut1:
# the run fails and names it; sut1 is measured and reported all the same.
port[down]=$(freeport) key[down]=sut1
inv sut1 down > "$tmp/inv2.yml"
cat > "$tmp/vars2.yml" <<V
wult_fleet_wult: $W
wult_fleet_results: $tmp/results2
wult_fleet_record_opts: ['-C', '1', '--states', 'C3', '-c', '20', '--ldist', '500,1000']
V
timeout 600 ansible-playbook -i "$tmp/inv2.yml" -e "@$tmp/vars2.yml" "$pb" > "$tmp/pb2.out" 2>&1
rc=$?
t_check "a host down: the run fails (exit $rc)" test $rc -ne 0
t_check "a host down: Ansible names it unreachable" grep -q '^fatal: \[down\]: UNREACHABLE!' "$tmp/pb2.out"
t_check "a host down: the role names it" grep -q '"msg": "no results from: down"' "$tmp/pb2.out"
t_check "a host down: the other's results arrive" test -s "$tmp/results2/sut1/sut1.data"
"$W" report --json "$tmp/results2/sut1/sut1.data" > "$tmp/s2.json" 2>/dev/null
t_eq "a host down: the other's 20 datapoints" 20 "$(js "$tmp/s2.json" read)"
t_check "a host down: no results for it" test ! -e "$tmp/results2/down"
t_check "a host down: the comparison has the live host only" \
	grep -qx "File: $tmp/results2/sut1/sut1.data" "$tmp/results2/compare.txt"
[ $rc != 0 ] || sed 's/^/  /' "$tmp/pb2.out" | tail -n 30

# Teardown: both guests told to stop; vm-run checks their kernel logs.
for h in sut1 sut2; do
	timeout 60 ssh -p "${port[$h]}" -i "$tmp/$h/ssh/id_ed25519" -o BatchMode=yes \
		-o UserKnownHostsFile="$tmp/$h/ssh/known_hosts" -o StrictHostKeyChecking=yes \
		root@127.0.0.1 'touch /tmp/done'
done
i=0
for h in sut1 sut2; do
	wait "${vpids[$i]}"
	t_eq "$h: vm-run exits 0 once told done" 0 $?
	i=$((i + 1))
done
vpids=()
c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
echo "# cost: $((c1 / $(getconf CLK_TCK))) s of CPU in all (both guests, the playbooks, the checks)"
t_done
