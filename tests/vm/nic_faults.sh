#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nic method when things go wrong (issue 36, M3-M5, L3, L5), on QEMU's
# rtl8139 (vm-run --nic rtl8139), CPU 0 alone, no cpuidle driver:
#
# - a driver wult does not take devices from (pci-stub here, vfio-pci on a
#   real machine, whose unbind waits for its users) has the NIC: the open
#   is refused, EBUSY, with the reason, and the device stays with it
#   (before: wult unbound any driver);
# - an interface of the NIC in another network namespace (a container's;
#   netns_hold moves it there): the open is refused, EBUSY, with the
#   reason (before: wult took the device from under the container);
# - a claim outlives its last event for a grace period: two opens back to
#   back take the NIC from 8139cp once, and 8139cp has it again after the
#   grace (before: every open and close re-probed the NIC's driver);
# - lost device events (wult/nic_drop, fault injection: the next N arms
#   are not written) each cost one datapoint, ended by the shadow hrtimer
#   (wult/nic's lost counter), on an idle CPU and on a busy one whose
#   hold-offs are lost too; the CPU keeps measuring after them (before: a
#   lost hold-off armed nothing again, and the CPU stopped measuring);
# - a device timer that does not fire at the claim (nic_drop 1 against
#   its self-test) refuses the open, EIO, with the reason;
# - suspend while a CPU measures with the NIC is refused (EBUSY);
# - ipi on a one-CPU system says there is no other CPU (ENODEV), not that
#   "launcher CPU 0" does not exist (EINVAL);
# - the NIC removed (its sysfs remove file) during perf stat: perf stat
#   ends cleanly, the kernel log has no oops (vm-run checks), the claim is
#   released when the event closes, and after a rescan the NIC is
#   8139cp's and measures again (before: the BAR was unmapped under the
#   armed source and the handler).
#
# Measured: 17-21 s of host CPU per kernel on a saved guest.
# vm-cost: 20
. "$WULT_SRC/tests/lib.sh"

W=$OUT/nicf
mkdir -p "$W"
t_cpu0_only

t_need_nic
t_eq "the NIC's driver before" 8139cp "$(nic_driver)"
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }
D=/sys/kernel/debug/wult
EV="wult/datapoints,source=3,device=0x80,ldist_min=300,ldist_max=600/"

# nic FIELD: one of wult/nic's counters.
nic() {
	tr ' ' '\n' < $D/nic | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'
}
# refused NAME ERRNO REASON [EVENT]: perf stat cannot open EVENT (the nic
# event), and wult's refusals file has errno ERRNO with REASON (a grep
# pattern). PRE: a command to run perf stat under (an array).
PRE=()
refused() {
	"${PRE[@]}" perf stat -e "${4:-$EV}" -C $C -- true > "$W/bad.out" 2>&1
	if grep -q "<not supported>\|returned with\|Error:" "$W/bad.out" &&
		grep -q "errno=$2 $3" $D/refusals; then
		t_ok "$1"
	else
		t_fail "$1: $(tail -n 2 "$W/bad.out"); $(tail -n 1 $D/refusals)"
	fi
}
# grace_end: wait (guest time) until the claim's grace is over and 8139cp
# has the NIC again (between the two it has no driver).
grace_end() {
	local _
	for _ in $(seq 40); do
		[ "$(nic_driver)" = 8139cp ] && return 0
		sleep 0.2
	done
	return 1
}

# ---- a driver wult does not take devices from -------------------------------
echo "$BDF" > /sys/bus/pci/drivers/8139cp/unbind
insmod /wult/nicmods/pci-stub.ko
echo pci-stub > "$DEV/driver_override"
echo "$BDF" > /sys/bus/pci/drivers/pci-stub/bind
t_eq "the NIC bound to pci-stub by hand" pci-stub "$(nic_driver)"
refused "held by pci-stub: refused" 16 "nic: $BDF is bound to pci-stub, which wult does not take devices from (only from 8139cp"
t_eq "still pci-stub's after the refusal" pci-stub "$(nic_driver)"
echo "$BDF" > /sys/bus/pci/drivers/pci-stub/unbind
echo > "$DEV/driver_override"
echo "$BDF" > /sys/bus/pci/drivers/8139cp/bind
t_eq "8139cp's again" 8139cp "$(nic_driver)"

# ---- an interface in another network namespace --------------------------------
IF=$(ls "$DEV/net" 2>/dev/null | head -n 1)
if [ -z "$IF" ]; then
	t_fail "8139cp's interface: none under $DEV/net"
else
	PRE=(netns_hold "$IF")
	refused "its interface in another network namespace: refused" 16 \
		"nic: $BDF is in use: its interface $IF is in another network namespace"
	PRE=()
	t_check "the interface back in the initial namespace" test -e "$DEV/net/$IF"
	t_eq "still 8139cp's" 8139cp "$(nic_driver)"
fi

# ---- the claim's grace ---------------------------------------------------------
t0=$(dmesg | grep -c "wult: nic: $BDF taken from 8139cp")
perf stat -e "$EV" -C $C -- sleep 0.05 > "$W/g1.out" 2>&1
perf stat -e "$EV" -C $C -- sleep 0.05 > "$W/g2.out" 2>&1
t_eq "two opens back to back: still claimed between them" wult_nic "$(nic_driver)"
t1=$(dmesg | grep -c "wult: nic: $BDF taken from 8139cp")
t_eq "two opens back to back take the NIC from 8139cp once" 1 $((t1 - t0))
t_check "after the grace the NIC is 8139cp's again" grace_end
t_eq "after the grace: driver" 8139cp "$(nic_driver)"

# ---- lost device events ------------------------------------------------------
# Idle: three arms not written; each costs one datapoint (ended by the
# shadow, or by a tick after LTime: other_wake), and the recording goes on.
l0=$(nic lost) d0=$(nic dropped)
perf stat -e "$EV" -C $C -- sh -c "sleep 0.1; echo 3 > $D/nic_drop; sleep 0.4" > "$W/lost.out" 2>&1
l1=$(nic lost) d1=$(nic dropped)
n=$(awk '/datapoints/ { gsub(/,/, "", $1); print $1; exit }' "$W/lost.out")
echo "# idle, 3 arms dropped: lost $((l1 - l0)), dropped $((d1 - d0)), $n datapoints in 0.5 s"
t_eq "idle: 3 arms dropped" 3 $((d1 - d0))
t_check "idle: datapoints counted around them ($n)" test "${n:-0}" -ge 100

# Busy: the CPU runs a loop, so most events find it busy and arm a
# hold-off; single arms dropped ten times in it hit hold-offs as well as
# datapoints. Afterwards the idle CPU measures again.
l0=$(nic lost) d0=$(nic dropped)
perf stat -e "$EV" -C $C -- sh -c "
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo 1 > $D/nic_drop; j=0
		while [ \$j -lt 300 ]; do j=\$((j + 1)); done
	done
	cat $D/stats > $W/busy.stats; sleep 0.3; cat $D/stats > $W/after.stats" > "$W/busy.out" 2>&1
l1=$(nic lost) d1=$(nic dropped)
e0=$(awk -v c="cpu$C" '$1 == c { for (i = 2; i <= NF; i++) if ($i ~ /^emitted=/) { sub(/.*=/, "", $i); print $i } }' "$W/busy.stats")
e1=$(awk -v c="cpu$C" '$1 == c { for (i = 2; i <= NF; i++) if ($i ~ /^emitted=/) { sub(/.*=/, "", $i); print $i } }' "$W/after.stats")
h=$(awk -v c="cpu$C" '$1 == c { for (i = 2; i <= NF; i++) if ($i ~ /^held_off=/) { sub(/.*=/, "", $i); print $i } }' "$W/busy.stats")
echo "# busy, 10 single drops: lost $((l1 - l0)), dropped $((d1 - d0)), held_off $h; emitted in the 0.3 s after: $((e1 - e0))"
t_eq "busy: 10 arms dropped" 10 $((d1 - d0))
t_check "busy: the shadow ended lost events ($((l1 - l0)))" test $((l1 - l0)) -ge 1
t_check "busy: the CPU took hold-offs ($h)" test "${h:-0}" -gt 0
t_check "busy: the idle CPU measures after them ($((e1 - e0)) datapoints in 0.3 s)" test $((e1 - e0)) -ge 50

# ---- the claim's self-test: a timer that does not fire -----------------------
t_check "the grace over before the self-test" grace_end
echo 1 > $D/nic_drop
refused "a device timer that does not fire: refused" 5 "nic: $BDF: its timer interrupt did not come within"
t_eq "the refused NIC is 8139cp's again" 8139cp "$(nic_driver)"
echo 0 > $D/nic_drop

# ---- errnos that say what is wrong (L3) ---------------------------------------
# Not nic's, but a one-CPU guest is here: ipi with no other CPU online
# named "launcher CPU 0 does not exist" (EINVAL).
refused "ipi with one CPU online: ENODEV, no other CPU to launch from" 19 \
	"ipi: CPU$C: no other CPU is online to launch from" "wult/datapoints,source=2/"

# ---- suspend while claimed ------------------------------------------------------
# opened: wait until perf stat's event exists (the claim alone may be in
# its grace, which a suspend gives back).
opened() {
	local _
	for _ in $(seq 200); do
		[ "$(cat $D/events)" -gt 0 ] && return 0
		sleep 0.01
	done
	return 1
}
perf stat -e "$EV" -C $C -- sleep 1 > "$W/pm.out" 2>&1 &
pp=$!
t_check "perf stat's event open" opened
if grep -qw freeze /sys/power/state; then
	# Should the refusal fail, the RTC wakes the guest instead of the
	# suite's 600 s timeout.
	[ -w /sys/class/rtc/rtc0/wakealarm ] && echo +3 > /sys/class/rtc/rtc0/wakealarm
	t_check "suspend (freeze) while claimed is refused" sh -c "! echo freeze 2>/dev/null > /sys/power/state"
	[ -w /sys/class/rtc/rtc0/wakealarm ] && echo 0 > /sys/class/rtc/rtc0/wakealarm
	t_check "dmesg says why" sh -c "dmesg | grep -q 'wult: nic: $BDF is measuring CPU$C: suspend refused'"
else
	t_skip "suspend while claimed: no freeze in /sys/power/state ($(cat /sys/power/state))"
fi
wait $pp
t_eq "perf stat beside the refused suspend exits 0" 0 $?

# ---- PCI removal while claimed -------------------------------------------------
perf stat -e "$EV" -C $C -- sleep 1 > "$W/rm.out" 2>&1 &
pp=$!
t_check "perf stat's event open" opened
t_eq "claimed before the removal" wult_nic "$(nic_driver)"
sleep 0.2
echo 1 > "$DEV/remove"
t_check "the NIC is gone" test ! -e "$DEV"
wait $pp
t_eq "perf stat across the removal exits 0" 0 $?
n=$(awk '/datapoints/ { gsub(/,/, "", $1); print $1; exit }' "$W/rm.out")
t_check "perf stat across the removal counted the datapoints before it ($n)" test "${n:-0}" -ge 20
t_check "dmesg: removed while claimed" sh -c "dmesg | grep -q 'wult: nic: $BDF was removed while claimed'"
t_check "dmesg: released once closed" sh -c "dmesg | grep -q 'wult: nic: $BDF released (it was removed)'"
echo 1 > /sys/bus/pci/rescan
t_eq "after a rescan the NIC is 8139cp's" 8139cp "$(nic_driver)"
perf stat -e "$EV" -C $C -- sleep 0.2 > "$W/re.out" 2>&1
n=$(awk '/datapoints/ { gsub(/,/, "", $1); print $1; exit }' "$W/re.out")
t_check "after a rescan it measures again ($n datapoints)" test "${n:-0}" -ge 20
cat $D/nic | sed 's/^/# nic: /'

t_check "rmmod wult" rmmod wult
t_eq "8139cp's after rmmod" 8139cp "$(nic_driver)"
t_done
