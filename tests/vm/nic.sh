#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The nic method on QEMU's rtl8139 (vm-run --nic rtl8139): the device's
# own clock (TCTR) and its timer interrupt as the delayed event, against
# wult_refidle's known exit latencies (exit_us=0,20,80) on the
# instruction-counted clock, as refidle.sh does for hrt.
#
# - the device is claimed from its driver (8139cp: QEMU's model is an
#   RTL8139C+) for the recordings and given back after them (the claim
#   outlives its last event for a grace period; here rmmod ends it;
#   nic_faults.sh checks the grace itself); refused while
#   its interface is up (EBUSY), refused for a device wult does not know
#   and for none at all (ENODEV), and without a device term (EINVAL);
# - one state enabled at a time, one LDist range: the WakeLatency medians
#   of C2 and C3 minus C1's are the injected 20 and 80 us within 0.5 us,
#   hrt's tolerance on this clock (refidle.sh says why, and checks hrt);
# - IntrLatency >= 0 everywhere (LTime is the device time converted to
#   the TSC; an error in it would show as a negative latency first), and
#   the conversion's error bound (ltime_err, on the tracepoint) is small;
# - the shadow hrtimer lets the governor see LTime: with every state
#   enabled a long LDist gives C3, a short one POLL/C1 (without it the
#   governor's next timer would be the tick or later, far beyond a short
#   LDist; not run here without the shadow);
# - the LDist recorded is the one armed: nic's shortest distance, 2.1 us,
#   clamps no datapoint's LDist below it, and a range wholly below it is
#   refused (was ldist_clamp.sh);
# - a state left with IRQs off whose exit outlasts the shadow's margin
#   (wult_refidle irqs_off=4, C3 alone, 80 us, LDist 200-400 us) keeps
#   >= 90% of its datapoints: the shadow is out of the way from the idle
#   entry on (Documentation/kernel.md, "The nic source");
# - while claimed, a write to the interrupt's smp_affinity is refused
#   (IRQF_NOBALANCING: irqbalance cannot move it off the measured CPU);
# - the report, its HTML and the intel wult export name the method and
#   the device; hrt against nic is one wult report A B;
# - the device is back with 8139cp after rmmod wult, the kernel log clean.
#
# One CPU, as refidle.sh (t_cpu0_only). The suite's default machine
# carries the NIC (scripts/run-tests); by hand: vm-run --nic rtl8139.
# Measured: 14-18 s of host CPU per kernel on a saved guest (the IRQs-off
# C3 section about 3 s of it), and the LDist clamp's section about 1.5 s
# (ldist_clamp.sh alone: ~3.5 s, its own restore and module loads).
# vm-cost: 19
. "$WULT_SRC/tests/lib.sh"

W=$OUT/nic
mkdir -p "$W"
t_cpu0_only
C=0
CPUIDLE=/sys/devices/system/cpu/cpu$C/cpuidle
t_need_icount

t_need_nic
t_eq "the NIC's driver before" 8139cp "$(nic_driver)"
IF=$(ls "$DEV/net" 2>/dev/null | head -n 1)

# decode NAME: wult report --csv's datapoints of NAME.data as NAME.txt,
# columns as refidle.sh's (10 req_cstate, 14 WakeLatency, 15 IntrLatency,
# 12 and 13 the raw ones, ns).
decode() {
	wult report --cstates "${STATES// /,}" --csv "$W/$1.csv" "$W/$1.data" \
		> "$W/$1.rep" 2>&1
	awk -F, -v names="$STATES" 'BEGIN { n = split(names, nm, " ")
		for (i = 1; i <= n; i++) idx[nm[i]] = i - 1 }
	function ns(v) { return sprintf("%.0f", v * 1000) }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print "raw", "-", $c["CPU"], NR - 2, $c["LTime"], $c["TBI"], $c["TAI"],
		$c["TIntr"], ns($c["LDist"]), idx[$c["ReqCState"]], $c["IntrOff"],
		ns($c["WakeLatencyRaw"]), ns($c["IntrLatencyRaw"]),
		ns($c["WakeLatency"]), ns($c["IntrLatency"]), "-" }' \
		"$W/$1.csv" > "$W/$1.txt"
}

# record NAME LDIST COUNT [ARGS]: nic datapoints of CPU C in NAME.txt.
record() {
	local name=$1 ldist=$2 count=$3
	shift 3
	wult record -q -C $C -c "$count" --ldist "$ldist" --no-counters \
		--method nic --device "$BDF" "$@" -o "$W/$name.data" 2> "$W/$name.err"
	decode "$name"
}

t_check "insmod wult_refidle exit_us=0,20,80 target_us=2,50,100" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 target_us=2,50,100 || { t_done; exit 1; }
STATES=$(cat $CPUIDLE/state*/name | tr '\n' ' ' | sed 's/ $//')
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }
t_eq "format term device" "config2:0-31" "$(cat /sys/bus/event_source/devices/wult/format/device)"

# ---- refusals ------------------------------------------------------------------
# fails NAME ERRNO_TEXT EVENT: perf fails to open EVENT saying so.
fails() {
	perf stat -e "$3" -C $C -- true > "$W/bad.out" 2>&1
	if grep -q "$2" "$W/bad.out"; then t_ok "$1"; else t_fail "$1: $(tail -n 2 "$W/bad.out")"; fi
}
ip link set "$IF" up
fails "interface $IF up: refused" "<not supported>\|busy\|returned with 16" "wult/datapoints,source=3,device=0x80/"
t_check "dmesg says the device is in use" sh -c "dmesg | grep -q 'wult: nic: $BDF is in use: its interface $IF is up'"
ip link set "$IF" down
t_eq "still with its driver after the refusal" 8139cp "$(nic_driver)"
fails "a device wult does not know (virtio 00:02.0): refused" "No such device" "wult/datapoints,source=3,device=0x10/"
t_check "dmesg says it is not a device wult knows" sh -c "dmesg | grep -q 'wult: nic: 0000:00:02.0 (1af4:.*) is not a device wult knows'"
fails "no such device (00:1f.7): refused" "No such device" "wult/datapoints,source=3,device=0xff/"
fails "nic without a device term: refused" "<not supported>\|returned with 22" "wult/datapoints,source=3/"
t_check "wult record --method nic without --device is a usage error" \
	sh -c "! wult record --method nic -o $W/x.data 2>/dev/null"

# ---- known exit latencies --------------------------------------------------------
for s in 1 2 3; do
	cstate_only "$CPUIDLE" $s
	[ $s = 2 ] && echo 1 > /sys/kernel/tracing/events/wult/datapoint/enable
	record s$s 1000,2000 60
	[ $s = 2 ] && echo 0 > /sys/kernel/tracing/events/wult/datapoint/enable
done
# hrt, C1, the same way: the figure to compare with (refidle.sh checks
# hrt's differences).
cstate_only "$CPUIDLE" 1
wult record -q -C $C -c 60 --ldist 1000,2000 --no-counters -o "$W/h1.data" 2> "$W/h1.err"
decode h1
cstate_only "$CPUIDLE" all
for s in 1 2 3; do
	n=$(wc -l < "$W/s$s.txt") k=$(awk -v s=$s '$10 == s' "$W/s$s.txt" | wc -l)
	t_check "nic, only C$s enabled: 60 datapoints, all C$s ($k of $n)" test "$k" -eq "$n" -a "$n" -eq 60
	w[$s]=$(dec_median "$W/s$s.txt" 14) i[$s]=$(dec_median "$W/s$s.txt" 15)
done
hw1=$(dec_median "$W/h1.txt" 14) hi1=$(dec_median "$W/h1.txt" 15)
echo "# nic medians (ns): WakeLatency C1 ${w[1]} C2 ${w[2]} C3 ${w[3]}; IntrLatency C1 ${i[1]} C2 ${i[2]} C3 ${i[3]}"
echo "# hrt medians (ns): WakeLatency C1 $hw1; IntrLatency C1 $hi1"
t_within "nic WakeLatency: C2 - C1 = 20 us +- 0.5 (ns)" $((w[2] - w[1])) 19500 20500
t_within "nic WakeLatency: C3 - C1 = 80 us +- 0.5 (ns)" $((w[3] - w[1])) 79500 80500
t_within "nic IntrLatency: C3 - C1 = 0 +- 0.5 us (ns)" $((i[3] - i[1])) -500 500
bad=$(cat "$W"/s[123].txt | awk '$13 < 0 || $15 < 0' | wc -l)
t_eq "nic: every IntrLatency (raw and compensated) >= 0" 0 "$bad"
t_eq "nic: every datapoint IntrOff=0 (IRQs-on states)" 0 "$(cat "$W"/s[123].txt | awk '$11 != 0' | wc -l)"
grep -h 'method:' "$W/s1.rep" | sed 's/^ */# report /'
t_check "the report names the method nic" grep -q 'method: nic' "$W/s1.rep"
t_check "the report names the device" grep -q "device: $BDF" "$W/s1.rep"
mkdir -p "$W/exp"
wult report --csv "$W/exp" "$W/s1.data" > /dev/null 2>&1
# Quoted: YAML 1.1 would read 0000:00:10.0 as a base-60 number.
t_eq "the intel wult export's devid is the device, quoted" "devid: '$BDF'" "$(grep '^devid:' "$W/exp/info.yml")"
wult report --html "$W/s1.html" "$W/s1.data" > /dev/null 2>&1
t_check "the HTML report names the method and the device" \
	sh -c "grep -q 'method: nic' $W/s1.html && grep -q 'device: $BDF' $W/s1.html"
wult report "$W/h1.data" "$W/s1.data" > "$W/diff.rep" 2>&1
t_check "hrt against nic on the same CPU is one wult report A B" \
	sh -c "grep -q 'method: hrt' $W/diff.rep && grep -q 'method: nic' $W/diff.rep"

# The conversion's error bound, from the tracepoint (ltime_err, ns).
grep -o 'source=3 ltime_err=[0-9]*' /sys/kernel/tracing/trace | cut -d= -f3 | sort -n > "$W/err.txt"
ne=$(wc -l < "$W/err.txt") emax=$(tail -n 1 "$W/err.txt") emed=$(sed -n "$(((ne + 1) / 2))p" "$W/err.txt")
echo "# ltime_err (ns) over $ne datapoints: median $emed, max $emax"
t_check "tracepoint datapoints of the nic carry ltime_err ($ne)" test "$ne" -ge 50
# A 30 ns tick: half of it, half the read window, the rate's share.
t_within "ltime_err max (ns)" "${emax:-0}" 1 200

# ---- the shadow hrtimer: the governor sees LTime -----------------------------------
record long 2000,4000 60
record short 0,50 60
p=$(dec_share "$W/long.txt" "3") q=$(dec_share "$W/short.txt" "0 1")
echo "# governor: LDist 2000-4000 us $p% C3; LDist 0-50 us $q% POLL/C1"
t_check "nic, LDist 2000-4000 us, every state enabled: >= 80% C3 ($p%)" test "$p" -ge 80
t_check "nic, LDist 0-50 us: mostly POLL/C1 ($q%)" test "$q" -gt 50

grep "^cpu$C " /sys/kernel/debug/wult/stats | sed 's/^/# /'

# ---- the route stays on the measured CPU ----------------------------------------
# While claimed, the interrupt is requested with IRQF_NOBALANCING: a write
# to its smp_affinity (irqbalance's, a user's) is refused, even one naming
# the measured CPU itself, and the recording is not disturbed.
cstate_only "$CPUIDLE" 1
wult record -q -C $C -c 40 --ldist 1000,2000 --no-counters --method nic \
	--device "$BDF" -o "$W/aff.data" 2> "$W/aff.err" &
rp=$!
for i in $(seq 500); do
	[ "$(nic_driver)" = wult_nic ] && grep -q wult_nic /proc/interrupts && break
	sleep 0.01
done
irq=$(awk -F: '/wult_nic/ { gsub(/ /, "", $1); print $1; exit }' /proc/interrupts)
t_check "claimed: the interrupt is wult_nic's in /proc/interrupts ($irq)" test -n "$irq"
t_check "claimed: a write to /proc/irq/$irq/smp_affinity is refused" \
	sh -c "! echo 1 2>/dev/null > /proc/irq/${irq:-0}/smp_affinity"
wait $rp
t_eq "claimed: wult record beside the refused write exits 0" 0 $?
decode aff
t_eq "claimed: the recording beside it has its 40 datapoints" 40 "$(wc -l < "$W/aff.txt")"
cstate_only "$CPUIDLE" all

# ---- the LDist recorded is the one armed (was tests/vm/ldist_clamp.sh) --------
# The LDist recorded is the one armed (issue 36, L4), with the one source
# that has a shortest distance: nic (rtl8139's timer needs its value 2 us
# ahead of its clock; the engine arms nic at 2.1 us at least). LDist
# 0-100 us (above the CPU's LDist floor, which wult record requires of the
# range's top: 2.5-7.4 us seen, but 24 us once on 6.12-rt, where 0-20 us
# was refused), only wult_refidle's C2 (hlt, exit 20 us: the next arm is dated
# from the interrupt's handler, 20 us before the exit probe arms it, so an
# LDist drawn shorter than that is armed at the shortest distance, the
# clamp's case; such a datapoint's LDist is then above 20 us, out of the
# event's range):
# - no datapoint has an LDist below 2.1 us, and none a SilentTime (LTime -
#   TBI) above its LDist (the arm comes before TBI). Before, the device
#   clamped the arm to 2 us and the datapoint kept the LDist drawn: 73 of
#   351 datapoints below 2 us, 4 with SilentTime > LDist (6.12, LDist
#   0-4 us, a CPU whose floor was 2.5 us). Such a datapoint is valid only
#   where the way from the exit probe back into idle is under 2 us; in
#   the suite's guests the floor is 2.6-7.4 us, run to run, and the old
#   module passed these two checks there too (the rule's unit test,
#   test_armed_ldist, holds the arithmetic);
# - an LDist range wholly below 2.1 us is refused (EINVAL, with the
#   reason): every LDist would be clamped out of it.
# (A guest of its own per kernel before, with this wult_refidle.)
cstate_only "$CPUIDLE" 2

wult record -q -C $C -c 150 --ldist 0,100 --no-counters --method nic --device "$BDF" \
	-o "$W/clamp-c2.data" 2> "$W/clamp-c2.err"
wult report --csv "$W/clamp-c2.csv" "$W/clamp-c2.data" > "$W/clamp-c2.rep" 2>&1
# Columns in us, 3 decimals.
read -r n short over min <<< "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ l = $c["LDist"]; s = $c["SilentTime"]; n++
	  if (l < 2.1) k++; if (s > l) b++; if (n == 1 || l < m) m = l }
	END { printf "%d %d %d %s\n", n, k, b, n ? m : "-" }' "$W/clamp-c2.csv")"
echo "# $n datapoints, LDist min $min us; below 2.1 us: $short; SilentTime > LDist: $over"
t_eq "nic, LDist 0-100 us: 150 datapoints ($(grep -c . "$W/clamp-c2.err") lines of stderr)" 150 "$n"
t_eq "no LDist below the armed 2.1 us (min $min)" 0 "$short"
t_eq "no SilentTime above its LDist" 0 "$over"

evopen -w $C "wult/datapoints,source=3,device=0x80,ldist_min=0,ldist_max=2/" > "$W/clamp-low.out" 2>&1
t_check "LDist 0-2 us with nic: EINVAL with the reason ($(cat "$W/clamp-low.out"))" \
	grep -q "^EINVAL 22.*below the nic source's shortest launch distance, 2100 ns" "$W/clamp-low.out"
cstate_only "$CPUIDLE" all

# ---- a state left with IRQs off whose exit outlasts the shadow's margin ------
# wult_refidle's C3 with irqs_off=4, alone: the device's interrupt ends
# its masked wait, the 80 us exit runs with IRQs off, then the idle exit
# (TAI, IntrOff=1) and the handler. At LDist 200-400 us the governor's
# margin (LDist / 8 + 5 us: 30-55 us) is shorter than that exit: a
# shadow still armed there raised the timer's vector beside the device's
# and every datapoint was dropped (other_wake, then the stale interrupt
# counted not_idle against the next arm). Kept: >= 90% of the events that
# found the CPU idle (armed - not_idle - cancelled), every one IntrOff=1
# with a WakeLatency of at least the injected 80 us. The C3 wait spins
# (~15 s of host CPU per guest second, refidle.sh): 200 datapoints, at
# most 0.3 s of guest time, C1 (hlt) around them, expedited grace periods,
# and wult.ko stays loaded: its LDist floor, known from the recordings
# above, spares wult record's calibration (up to 1.2 s of guest time in
# that wait, for an LDist below 1 ms and no floor known).
rcu_expedite
t_check "rmmod wult_refidle, wult.ko loaded" rmmod wult_refidle
t_check "insmod wult_refidle irqs_off=4" \
	insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 irqs_off=4 || { t_done; exit 1; }
cstate_only "$CPUIDLE" 1
read -r a0 n0 c0 e0 <<< "$(wult_cnt $C armed) $(wult_cnt $C not_idle) $(wult_cnt $C cancelled) $(wult_cnt $C emitted)"
cstate_only "$CPUIDLE" 3
wult record -q -C $C -c 200 -t 0.3 --ldist 200,400 --no-counters --method nic \
	--device "$BDF" -o "$W/off3.data" 2> "$W/off3.err"
cstate_only "$CPUIDLE" 1
read -r a1 n1 c1 e1 <<< "$(wult_cnt $C armed) $(wult_cnt $C not_idle) $(wult_cnt $C cancelled) $(wult_cnt $C emitted)"
decode off3
grep "^cpu$C " /sys/kernel/debug/wult/stats | sed 's/^/# /'
idle=$((a1 - a0 - (n1 - n0) - (c1 - c0))) kept=$((e1 - e0))
n=$(wc -l < "$W/off3.txt")
echo "# IRQs-off C3, LDist 200-400 us: $kept kept of $idle that found the CPU idle, $n recorded"
t_check "IRQs-off C3 at LDist 200-400 us: >= 90% of the idle events kept ($kept of $idle)" \
	test "$idle" -gt 0 -a $((kept * 10)) -ge $((idle * 9))
t_check "IRQs-off C3: 200 datapoints recorded ($n)" test "$n" -eq 200
t_eq "IRQs-off C3: datapoints neither C3 nor IntrOff=1" 0 "$(awk '$10 != 3 || $11 != 1' "$W/off3.txt" | wc -l)"
t_eq "IRQs-off C3: WakeLatencies below the injected 80 us" 0 "$(awk '$14 < 80000' "$W/off3.txt" | wc -l)"

dmesg | grep 'wult: nic:' | tail -n 3 | sed 's/^/# /'
t_check "rmmod wult" rmmod wult
t_eq "the NIC is back with its driver after rmmod" 8139cp "$(nic_driver)"
t_check "dmesg: given back to 8139cp" sh -c "dmesg | grep -q 'wult: nic: $BDF given back to 8139cp'"
t_check "rmmod wult_refidle" rmmod wult_refidle
t_done
