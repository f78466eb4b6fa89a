# SPDX-License-Identifier: GPL-2.0
# Helpers for shell tests (host and guest): t_ok/t_fail/t_check record one
# check each, t_skip a check that cannot run here (printed and counted),
# t_done prints "N passed, N failed, N skipped" and returns the status.
# Source it as: . "${WULT_SRC:-$(dirname "$0")/../..}/tests/lib.sh"

T_PASS=0
T_FAIL=0
T_SKIP=0

t_ok() { T_PASS=$((T_PASS + 1)); echo "ok - $*"; }
t_fail() { T_FAIL=$((T_FAIL + 1)); echo "not ok - $*"; }
t_skip() { T_SKIP=$((T_SKIP + 1)); echo "skip - $*"; }

# t_check NAME CMD...: the command's success is the check.
t_check() {
	local name=$1
	shift
	if "$@"; then t_ok "$name"; else t_fail "$name"; fi
}

# t_eq NAME EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1: expected '$2', got '$3'"; fi
}

t_done() {
	echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}

# wult_cnt CPU FIELD: one of wult.ko's per-CPU counters
# (/sys/kernel/debug/wult/stats, e.g. armed, emitted).
wult_cnt() {
	awk -v c="cpu$1" -v k="$2" '$1 == c { for (i = 2; i <= NF; i++) {
		split($i, kv, "="); if (kv[1] == k) print kv[2] } }' \
		/sys/kernel/debug/wult/stats
}

# wult_wait_change CPU FIELD TRIES: wait (TRIES x 0.2 s at most) until the
# counter moves, i.e. until perf's event measures (it takes seconds to
# start under TCG). Fails if it never does.
wult_wait_change() {
	local v0 i
	v0=$(wult_cnt "$1" "$2")
	for i in $(seq "$3"); do
		[ "$(wult_cnt "$1" "$2")" != "$v0" ] && return 0
		sleep 0.2
	done
	return 1
}

# t_cpu0_only: take every CPU but CPU 0 offline. Ground-truth tests measure
# one CPU: several vCPUs take turns under TCG, which shows in the tails,
# and an offline vCPU never runs, so the default machine with the others
# offline needs no guest of its own to boot and save. Sets C, the measured
# CPU (the one left online), and CPUIDLE, its cpuidle directory.
t_cpu0_only() {
	local f
	for f in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -f "$f" ] && echo 0 > "$f"
	done
	C=$(($(nproc) - 1))
	CPUIDLE=/sys/devices/system/cpu/cpu$C/cpuidle
}

# t_need_icount: end the test, failed, unless the guest runs on the
# instruction-counted clock (vm-run --clock icount), which its exact
# bounds need.
t_need_icount() {
	[ "${WULT_CLOCK:-}" = icount ] && return 0
	t_fail "needs the instruction-counted clock (vm-run --clock icount), not '${WULT_CLOCK:-}'"
	t_done
	exit 1
}

# t_need_nic: the guest's emulated NIC (vm-run --nic rtl8139) with its
# driver's modules loaded: sets BDF and DEV (its sysfs directory); fails
# and exits without one. nic_driver: the name of the driver bound to it,
# or none.
t_need_nic() {
	local m
	BDF=${WULT_NIC_BDF:-}
	if [ -z "$BDF" ]; then
		t_fail "no NIC in this guest (vm-run --nic rtl8139)"
		t_done
		exit 1
	fi
	DEV=/sys/bus/pci/devices/$BDF
	while read -r m; do insmod /wult/nicmods/"$m"; done < /wult/nicmods/order
}
nic_driver() {
	local d
	d=$(readlink "$DEV/driver" 2>/dev/null) && echo "${d##*/}" || echo none
}

# perf_nsamples FILE: the wult datapoint samples stock perf script reads
# from perf.data FILE (- for stdin), from its C output: wult-decode.py costs
# ~2.5 ms of host CPU a datapoint under TCG (half of it perf's own python
# glue), for tests that ask nothing of a datapoint but that it is there
# (record.sh and report.sh test the python decoder).
perf_nsamples() {
	perf script -i "$1" -F event 2>/dev/null | grep -c '^ *wult/datapoints'
}

# rcu_expedite: expedited RCU grace periods, which end at once. Opening and
# closing a wult event waits for grace periods; a CPU that polls or spins
# meanwhile costs host CPU for every guest ns of the wait. rcu_normal, set
# by PREEMPT_RT kernels after boot, overrides them, so it is cleared.
# Non-zero when they cannot be set.
rcu_expedite() {
	{ echo 0 > /sys/kernel/rcu_normal && echo 1 > /sys/kernel/rcu_expedited; } 2> /dev/null
}

# cstate_only DIR N|all: enable only idle state N (or all of them) of a
# CPU's cpuidle directory DIR. Enabling first: with no state enabled for
# a moment the governor picks POLL, disabled or not (a POLL datapoint in
# tests/vm/refidle_prewake.sh's C1 -> C2 switch).
cstate_only() {
	local d
	for d in "$1"/state*; do
		case "$2" in
		all|"${d##*state}") echo 0 > "$d/disable" ;;
		esac
	done
	for d in "$1"/state*; do
		case "$2" in
		all|"${d##*state}") ;;
		*) echo 1 > "$d/disable" ;;
		esac
	done
}

# t_within NAME VALUE LO HI: a check that the integer VALUE is in [LO, HI].
t_within() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then
		t_ok "$1 ($2 in [$3, $4])"
	else
		t_fail "$1 ($2 not in [$3, $4])"
	fi
}

# dec_median FILE COLUMN [STATE]: the median (ns) of a column of
# wult-decode.py's datapoint lines (of one requested state, column 10);
# -1 when there are none.
dec_median() {
	awk -v c="$2" -v s="${3:--}" 's == "-" || $10 == s { print $c }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : -1 }'
}

# dec_share FILE STATES: the percentage of wult-decode.py's datapoint lines
# whose requested state (column 10) is one of STATES.
dec_share() {
	awk -v s=" $2 " 'index(s, " " $10 " ") { k++ } END { print NR ? int(k * 100 / NR) : 0 }' "$1"
}

# Bare guests reached over real SSH on the loopback, for host tests:
# vm-run --bare --ssh PORT (dropbear there, OpenSSH's client here, a key
# made for the run; no wult command and no wult module in the guest),
# booted at once so that the parts of one test share them. A guest waits,
# blocked on a fifo (its busy time is host CPU), until
# ssh_guest_done. Uses the host test's top and build.
# ssh_guests_boot DIR LIMIT KERNEL...: a guest of each KERNEL, up for at
# most LIMIT s of its own time; vm-run's --out DIR/KERNEL (ssh/id_ed25519,
# ssh/known_hosts, console.txt), its stdout and stderr DIR/KERNEL.out and
# .err. Sets SSH_PORT[KERNEL] and SSH_PID[KERNEL]; returns once each has
# said its script is up on stdout or its vm-run ended.
ssh_guests_boot() {
	local dir=$1 limit=$2 k i up
	shift 2
	declare -gA SSH_PORT SSH_PID
	SSH_DIR=$dir
	cat > "$dir/ssh-guest.sh" <<'G'
#!/bin/bash
mkdir -p /run && mkfifo /tmp/done && exec 3<> /tmp/done
echo "guest: up"
if read -r -t "$1" -u 3; then echo "guest: done"; else echo "guest: nobody said done"; fi
G
	chmod +x "$dir/ssh-guest.sh"
	for k; do
		# A free port (another process could take it before QEMU does;
		# the guest then fails to start, and the test fails, not hangs).
		SSH_PORT[$k]=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		WULT_BUILD=$build "$top/scripts/vm-run" --kernel "$k" --ssh "${SSH_PORT[$k]}" \
			--bare --timeout $((limit + 300)) --out "$dir/$k" "$dir/ssh-guest.sh" "$limit" \
			> "$dir/$k.out" 2> "$dir/$k.err" &
		SSH_PID[$k]=$!
	done
	for ((i = 0; i < 600; i++)); do
		up=1
		for k; do
			grep -q '^guest: up' "$dir/$k.out" 2>/dev/null ||
				! kill -0 "${SSH_PID[$k]}" 2>/dev/null || up=0
		done
		[ $up = 1 ] && break
		sleep 1
	done
}

# ssh_guest KERNEL CMD: run CMD in that guest (root, its key, strict host
# key checking against its known_hosts, at most 60 s).
ssh_guest() {
	timeout 60 ssh -p "${SSH_PORT[$1]}" -i "$SSH_DIR/$1/ssh/id_ed25519" -o BatchMode=yes \
		-o UserKnownHostsFile="$SSH_DIR/$1/ssh/known_hosts" -o StrictHostKeyChecking=yes \
		-o LogLevel=ERROR root@127.0.0.1 "$2"
}

# ssh_guest_done KERNEL: tell the guest it is done and wait for its
# vm-run; its exit status (vm-run checks the kernel log).
ssh_guest_done() {
	local rc
	ssh_guest "$1" 'echo > /tmp/done'
	wait "${SSH_PID[$1]}"
	rc=$?
	SSH_PID[$1]=
	return $rc
}

# ssh_guests_kill: end the guests' vm-runs still running (a test's exit
# trap), each by its id, and wait for them (each kills its QEMU).
ssh_guests_kill() {
	local p
	for p in "${SSH_PID[@]}"; do [ -z "$p" ] || kill "$p" 2>/dev/null; done
	for p in "${SSH_PID[@]}"; do [ -z "$p" ] || wait "$p" 2>/dev/null; done
}
