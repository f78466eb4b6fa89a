# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154	# top, build, tmp, W: test_ssh.sh's
# A part of tests/host/test_ssh.sh (sourced there, in its own directory,
# after ssh/deploy.sh and ssh/remote.sh): a fleet through Ansible (issue 39
# item 6): scripts/ansible/fleet.yml and its role wult_fleet, run end to
# end by ansible-playbook with its ssh connection (OpenSSH's client)
# against two guests of `vm-run --ssh` on the loopback at once, 6.1 and
# 6.12 (two ports, one key and one known_hosts each, strict host key
# checking, nothing written to ~/.ssh). Each guest has wult_refidle
# loaded with its own C3 exit latency (sut1 300 us, sut2 1 ms), not
# wult.ko: the role's deploy (wult deploy -H --modules, this build's
# modules for each host's kernel, from the inventory) loads it. Run 1: a
# sweep, states=C1,C3 on CPU 1, on both at once: each point's file on the
# controller, its count and median (wult report and, independently,
# wult-decode.py), each host's sweep report, each point compared across
# hosts naming both. Run 2: a plain recording on sut1, sut2 and a host
# that is down, without deploying (wult_fleet_deploy: false; run 1 left
# wult.ko loaded): the run fails naming it, the two others are recorded
# and compared.
# Cost: each playbook run 20-30 s wall, 8-10 s of its own CPU (the
# "# cost" lines), the guests ~14 s for both runs.
here=$PWD
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0
# Ansible's own files in the test's directory, not the user's home.
export ANSIBLE_LOCAL_TEMP=$here/ansible/tmp ANSIBLE_SSH_CONTROL_PATH_DIR=$here/ansible/cp
pb=$top/scripts/ansible/fleet.yml
printf 'wult_suts:\n  hosts:\n    x:\n' > "$here/syntax.yml"
ansible-playbook -i "$here/syntax.yml" "$pb" --syntax-check > "$here/syntax.out" 2>&1
t_eq "ansible-playbook --syntax-check fleet.yml: exit 0" 0 $?

# ~/.ssh before, to show the run leaves it alone.
sshdir_sum() { find ~/.ssh -type f -exec sha1sum {} + 2>/dev/null | sort; }
ssh_before=$(sshdir_sum)

freeport() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# The SUTs: the 6.1 guest (ssh/deploy.sh's) as sut1, 6.12 (ssh/remote.sh's)
# as sut2, both deployed with wult_refidle: it is loaded with C3's exit
# latency of each (sut1 300 us, sut2 1 ms), wult.ko not (the role's deploy
# loads it).
declare -A port exit_us kern
kern[sut1]=6.1 kern[sut2]=6.12
exit_us[sut1]=300 exit_us[sut2]=1000
for h in sut1 sut2; do
	port[$h]=${SSH_PORT[${kern[$h]}]}
	t_check "$h (${kern[$h]}): wult.ko unloaded, wult_refidle loaded (C3 exit ${exit_us[$h]} us)" \
		ssh_guest "${kern[$h]}" "rmmod wult 2>/dev/null; modprobe wult_refidle exit_us=0,20,${exit_us[$h]}"
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
		echo "      wult_fleet_deploy_opts: ['--modules', '$build/kernel/${kern[$h]}']"
	done
}
declare -A key
key[sut1]=6.1 key[sut2]=6.12
inv sut1 sut2 > "$here/inv.yml"
# Run 1: deploy (this build's modules for each guest's kernel), then a sweep
# of states C1 and C3 on CPU 1, 101 datapoints a point; C1's WakeLatency
# is the guest's own wake path, C3's carries its injected exit.
cat > "$here/vars.yml" <<V
wult_fleet_wult: $W
wult_fleet_results: $here/results
wult_fleet_sweep: ['states=C1,C3']
wult_fleet_record_opts: ['-C', '1', '-c', '101', '--ldist', '500,1000']
V
TIMEFORMAT='%R s wall, %U s user + %S s system CPU'
{ time timeout 900 ansible-playbook -i "$here/inv.yml" -e "@$here/vars.yml" "$pb" \
	> "$here/pb.out" 2>&1; } 2> "$here/pb.time"
rc=$?
echo "# cost: the playbook, deploy and sweep on both hosts: $(cat "$here/pb.time")"
t_eq "ansible-playbook fleet.yml, two hosts, a sweep: exit 0" 0 $rc
[ $rc = 0 ] || { grep -E '^(fatal|failed): ' "$here/pb.out"; tail -n 40 "$here/pb.out"; } | sed 's/^/  /'
grep -E '^(PLAY RECAP|sut[12] )' "$here/pb.out" | sed 's/^/  /'
t_check "Ansible reached both over its ssh" \
	sh -c "grep -q '^sut1 .*ok=[1-9].*unreachable=0 *failed=0' '$here/pb.out' &&
		grep -q '^sut2 .*ok=[1-9].*unreachable=0 *failed=0' '$here/pb.out'"

R=$here/results
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
declare -A krel
for h in sut1 sut2; do
	krel[$h]=$(WULT_BUILD=$build "$top/scripts/kdir" "${kern[$h]}")
	krel[$h]=${krel[$h]##*/linux-headers-}
done
declare -A med
for h in sut1 sut2; do
	t_check "$h: deployed: wult.ko loaded, /usr/local/bin/wult there" \
		ssh_guest "${kern[$h]}" 'grep -q "^wult " /proc/modules && test -x /usr/local/bin/wult'
	# A pipe-mode recording (wult record -H) has no WULT_CSTATES section:
	# the names come from its system description (C3, not state3).
	for p in C1:C1 C3:C3; do
		f=$R/$h/sweep/states-${p%%:*}.data
		t_check "$h: the sweep's point ${p%%:*} arrived ($f)" test -s "$f"
		"$W" report --json "$f" > "$here/j" 2> /dev/null
		t_eq "$h ${p%%:*}: wult report decodes 101 datapoints" 101 "$(js "$here/j" read)"
		st=$(js "$here/j" states)
		t_check "$h ${p%%:*}: all in that state (${st:-none})" grep -qxE "${p#*:}" <<<"$st"
		perf script -i "$f" -s "$top/scripts/perf/wult-decode.py" 2> /dev/null |
			grep -v '^#' | grep -v '^br ' > "$here/dp"
		t_eq "$h ${p%%:*}: wult-decode.py decodes 101 datapoints" 101 "$(wc -l < "$here/dp")"
		m=$(js "$here/j" only)
		# Its column 14: WakeLatency less the probe overhead, as wult report's.
		t_eq "$h ${p%%:*}: the decoders' WakeLatency medians agree ($m ns)" "$m" \
			"$(dec_median "$here/dp" 14)"
		med[$h.${p%%:*}]=$m
	done
	t_eq "$h: the system description: the guest's kernel" "${krel[$h]}" "$(js "$here/j" release)"
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
# loopback port nobody listens on), without the deploy step (run 1's
# stays: wult.ko loaded; deploying again changed nothing and cost a wult
# record start on each guest): the run fails and names it; the two others
# are recorded and compared.
port[down]=$(freeport) key[down]=6.1 kern[down]=6.1
inv sut1 sut2 down > "$here/inv2.yml"
cat > "$here/vars2.yml" <<V
wult_fleet_wult: $W
wult_fleet_results: $here/results2
wult_fleet_deploy: false
wult_fleet_record_opts: ['-C', '1', '--states', 'C3', '-c', '21', '--ldist', '500,1000']
V
{ time timeout 900 ansible-playbook -i "$here/inv2.yml" -e "@$here/vars2.yml" "$pb" \
	> "$here/pb2.out" 2>&1; } 2> "$here/pb2.time"
rc=$?
echo "# cost: the playbook, record on two hosts, one down: $(cat "$here/pb2.time")"
R=$here/results2
t_check "a host down: the run fails (exit $rc)" test $rc -ne 0
t_check "a host down: Ansible names it unreachable" grep -q '^fatal: \[down\]: UNREACHABLE!' "$here/pb2.out"
t_check "a host down: the role names it" grep -q '"msg": "no results from: down"' "$here/pb2.out"
t_check "a host down: no results for it" test ! -e "$R/down"
for h in sut1 sut2; do
	"$W" report --json "$R/$h/$h.data" > "$here/j" 2>/dev/null
	t_eq "a host down: $h's 21 datapoints (RESULTS/$h/$h.data)" 21 "$(js "$here/j" read)"
	t_check "a host down: $h's report (RESULTS/$h/report.txt)" \
		grep -q '^C3: 21 datapoints' "$R/$h/report.txt"
	t_check "no deploy step: no deploy.log for $h" test ! -e "$R/$h/deploy.log"
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
[ $rc != 0 ] || sed 's/^/  /' "$here/pb2.out" | tail -n 30
