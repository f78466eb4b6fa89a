#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# vm-cost: 95
# Real SSH on the loopback (issue 39): three bare guests of
# `vm-run --bare --ssh PORT` (dropbear there, OpenSSH's client here, a key
# made for each; no wult command and no wult module until wult deploy
# installs them), 6.1, 6.12 and 6.12-rt, booted at once and shared by the
# three parts of this test, run in this order, each on the guests as the
# one before left them:
#   ssh/deploy.sh  wult deploy -H into the bare 6.1 (deploy builds the
#                  modules) and 6.12-rt (--modules) guests, then wult
#                  record -H there; 6.12-rt is done after it.
#   ssh/remote.sh  vm-run --ssh itself and wult record -H against the bare
#                  6.12 guest (deployed first): files, cuts, signals.
#   ssh/fleet.sh   scripts/ansible's playbook against 6.1 and 6.12 at
#                  once, each with wult_refidle's own C3 exit: a sweep,
#                  then a recording with a third host down.
# One case, so that no case depends on another's guests. The parts were
# three cases with five boots (test_deploy_ssh, test_remote_ssh and
# test_fleet_ansible: 146 s of host CPU together); a boot costs 8-10 s,
# and a guest waiting for the host next to nothing (tests/lib.sh's
# ssh_guests_boot). Cost (measured on a loaded 2-CPU host, five runs):
# 87-109 s of host CPU (the upper figures with deploy's 6.1 build, when
# kernel/ changed since the last run), 2.3-3 min of wall time; it prints
# "# cost" lines.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
vr=$top/scripts/vm-run
W=$build/rel/wult
tmp=$(mktemp -d)
cleanup() {
	ssh_guests_kill
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
# wult deploy's cache (its build and stage directories), not the user's.
export XDG_CACHE_HOME=$tmp/cache
# tree_ticks PID...: CPU clock ticks of these processes and their
# descendants so far (the guests' QEMUs, not reaped until they end).
tree_ticks() {
	local p t=0
	for p in "$@"; do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
		# shellcheck disable=SC2046	# one pid a word
		t=$((t + $(tree_ticks $(ps -o pid= --ppid "$p"))))
	done
	echo $t
}
# cpu: this test's CPU seconds so far, the running guests' included.
cpu() {
	# shellcheck disable=SC2046	# one pid a word
	echo $((($(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat) +
		$(tree_ticks $(printf '%s ' "${SSH_PID[@]}"))) / $(getconf CLK_TCK)))
}

# vm-run --ssh's argument checks: no guest needed.
"$vr" --ssh 0 /bin/true >/dev/null 2>"$tmp/e"
t_eq "--ssh 0: exit 2" 2 $?
t_check "--ssh 0: names the problem" grep -q -- "--ssh must be a TCP port (1-65535), not '0'" "$tmp/e"
"$vr" --ssh 2222 --clock wall /bin/true >/dev/null 2>"$tmp/e"
t_eq "--ssh with an unknown clock: exit 2" 2 $?
t_check "--ssh with an unknown clock: names it" grep -q -- "--clock must be icount or host, not 'wall'" "$tmp/e"

for t in ssh ssh-keygen dropbearkey /usr/sbin/dropbear; do
	if ! command -v $t >/dev/null; then
		t_skip "no $t here (scripts/deps installs dropbear-bin and openssh-client)"
		t_done
		exit
	fi
done
# The fleet's tools: without them, the other parts still run.
parts="deploy remote fleet"
for t in ansible-playbook perf; do
	command -v $t >/dev/null && continue
	t_skip "ssh/fleet.sh: no $t here (scripts/deps installs ansible-core and linux-perf)"
	parts="deploy remote"
done

# The guests: up for at most 900 s of their own time (the whole test is
# 4-8 min of wall time on a loaded host).
t0=$(date +%s)
ssh_guests_boot "$tmp" 900 6.1 6.12 6.12-rt
echo "# cost: the three guests up $(($(date +%s) - t0)) s after their start; $(cpu) s of CPU so far"
up=1
for k in 6.1 6.12 6.12-rt; do
	if grep -q 'vm-run: ssh ready' "$tmp/$k/console.txt" 2>/dev/null; then
		t_ok "$k: the bare guest says ssh ready on its console"
		# icount, its idle time following the host's (vm-run: a host
		# that makes a vCPU wait cannot stretch the guest's handlers)
		t_eq "$k: the guest's clock is icount" icount "$(ssh_guest "$k" 'cat /wult/run/clock')"
	else
		t_fail "$k: the bare guest says ssh ready on its console"
		up=0
		sed "s/^/  $k: /" "$tmp/$k.out" "$tmp/$k.err" | tail -n 20
	fi
done
[ $up = 1 ] || { t_done; exit 1; }

for part in $parts; do
	mkdir -p "$tmp/$part"
	cd "$tmp/$part" || exit 1
	# shellcheck source=ssh/deploy.sh
	. "$top/tests/host/ssh/$part.sh"
	echo "# cost: after ssh/$part.sh, $(cpu) s of CPU (guests included)"
done

# The guests still up told to stop; vm-run checks their kernel logs.
for k in 6.1 6.12 6.12-rt; do
	[ -n "${SSH_PID[$k]}" ] || continue
	ssh_guest_done "$k"
	rc=$?
	t_eq "$k: vm-run exits 0 once the host said done (its kernel log clean)" 0 $rc
	[ $rc = 0 ] || sed "s/^/  $k: /" "$tmp/$k.err" | tail -n 20
	t_check "$k: the guest script saw done" grep -q '^guest: done' "$tmp/$k.out"
done
echo "# cost: $(cpu) s of CPU in all ($(($(date +%s) - t0)) s of wall time from the boots)"
t_done
