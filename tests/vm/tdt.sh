#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 40
# vm-args: --cpus 3 --cpu max,-arat
# (Without ARAT: the machine timerstop.sh needs, booted once for both;
# no state here stops the local timer, so nothing here changes.)
#
# The tdt source (local APIC TSC deadline). QEMU's TCG APIC has no
# TSC-deadline mode, so here tdt is refused with EOPNOTSUPP unless wult.ko
# is loaded with tdt=emulated, which computes LTime the way the kernel
# computes a deadline instead of reading MSR_IA32_TSC_DEADLINE; everything
# else (TSC stamps, TIntr at local_timer_entry, the time base, selection,
# validity) is the real path.
. "$WULT_SRC/tests/lib.sh"

DEC=$WULT_SRC/scripts/perf/wult-decode.py
STATS=/sys/kernel/debug/wult/stats
W=$OUT/tdt
mkdir -p "$W"
taskset -p 1 $$ > /dev/null

# fails_with NAME MESSAGE EVENT: perf record of EVENT on CPU 1 fails saying MESSAGE.
fails_with() {
	perf record -e "$3" -C 1 -o "$W/bad.data" -- true > "$W/bad.out" 2>&1
	if [ $? -ne 0 ] && grep -q "$2" "$W/bad.out"; then t_ok "$1"; else t_fail "$1: $(tail -n 2 "$W/bad.out")"; fi
}

# ---- no TSC-deadline mode: refused, saying why ------------------------------
t_check "no tsc_deadline_timer in this guest" sh -c '! grep -qw tsc_deadline_timer /proc/cpuinfo'
t_check "insmod wult.ko (tdt=auto)" insmod "$WULT_KO" || { t_done; exit 1; }
t_eq "format term source" "config:40-43" "$(cat /sys/bus/event_source/devices/wult/format/source)"
# wult.ko's reason reaches the opener (/sys/kernel/debug/wult/refusals,
# kernel.md "Refusals"). First, while no refusal of it was logged (the log
# is ratelimited per check): wult record with its counters, which opened
# the refused leader once per member it probed (five log lines).
WHY="tdt: the local APIC timer is not in TSC-deadline mode on this system"
nwhy() { dmesg | grep -c "wult: $WHY"; }
n0=$(nwhy)
timeout 60 wult record -q -C 1 -c 10 --method tdt -o "$W/no.data" > "$W/no.out" 2>&1
rc=$? n1=$(nwhy)
t_check "wult record --method tdt fails at once without TSC-deadline mode (rc=$rc)" \
	test $rc -ne 0 -a $rc -ne 124
t_check "... saying wult.ko's reason after the errno, in one line" grep -qx \
	"wult record: cannot open wult/.*,source=1/: Operation not supported: wult.ko: $WHY" "$W/no.out"
t_eq "... which the kernel logged once" 1 $((n1 - n0))
# Another refusal, another reason: the ipi launcher is the measured CPU.
wult record -q -C 1 -c 1 --method ipi --launcher 1 -o "$W/no.data" > "$W/ipi.out" 2>&1
t_check "wult record --method ipi --launcher 1 -C 1: refused, saying why" grep -qx \
	"wult record: cannot open wult/.*,source=2,launcher=1/: Invalid argument: wult.ko: ipi: CPU1: the launcher must be another CPU than the measured one" \
	"$W/ipi.out"
# One thread opening four events on CPU 1: the tdt refusal; the same
# event with aux_output, which wult's event_init takes and perf itself
# then refuses with the same errno (the tdt line, stamped before this
# open began, is not its reason); a config mistake (kept, not logged); a
# nic event naming a PCI device that does not exist.
n0=$(nwhy)
evopen -w 1 wult/datapoints,source=1/ wult/datapoints/A wult/kind=99/ \
	wult/datapoints,source=3,device=0xff/ > "$W/why.out" 2>&1
n1=$(nwhy)
mapfile -t why < "$W/why.out"
TAB=$'\t'
t_eq "evopen -w: the tdt refusal's reason" "EOPNOTSUPP 95${TAB}wult.ko: $WHY" "${why[0]:-}"
t_eq "perf's own refusal just after, same errno and CPU: no reason" "EOPNOTSUPP 95" "${why[1]:-}"
t_eq "an unknown kind: its reason" "EINVAL 22${TAB}wult.ko: unknown kind 99" "${why[2]:-}"
t_eq "nic, no such device: its reason" \
	"ENODEV 19${TAB}wult.ko: nic: no PCI device 0000:00:1f.7" "${why[3]:-}"
t_eq "... one tdt log line for the four opens" 1 $((n1 - n0))
# Without debugfs (a mount namespace without it): the errno, and where
# wult.ko keeps the reason.
unshare -m sh -c "umount /sys/kernel/debug && exec wult record -q -C 1 -c 10 --method tdt -o $W/no.data" \
	> "$W/nodbg.out" 2>&1
t_check "debugfs not mounted: the errno, and where the reason is" sh -c \
	"grep -qx 'wult record: cannot open wult/.*: Operation not supported' $W/nodbg.out &&
	 grep -q 'mount -t debugfs none /sys/kernel/debug and read /sys/kernel/debug/wult/refusals' $W/nodbg.out"
fails_with "tdt without TSC-deadline mode: EOPNOTSUPP" "doesn't support sampling" wult/datapoints,source=1/
t_check "dmesg says why" sh -c 'dmesg | grep -q "wult: tdt: the local APIC timer is not in TSC-deadline mode"'
fails_with "unknown source: EINVAL" "returned with 22 " wult/datapoints,source=4/
t_check "wult record --method bogus is a usage error" \
	sh -c "! wult record --method bogus -o $W/x.data 2>/dev/null"
t_check "rmmod" rmmod wult
t_check "tdt=bogus refused" sh -c "! insmod $WULT_KO tdt=bogus 2>/dev/null"
t_check "insmod wult.ko tdt=off" insmod "$WULT_KO" tdt=off
fails_with "tdt=off: EOPNOTSUPP" "doesn't support sampling" wult/datapoints,source=1/
t_check "rmmod" rmmod wult

# ---- tdt=emulated: hrt on CPU 1 and tdt on CPU 2, at once -------------------
t_check "insmod wult.ko tdt=emulated" insmod "$WULT_KO" tdt=emulated || { t_done; exit 1; }
# emitted CPU1 CPU2: both counters from one read of the stats.
emitted() { awk '$1 ~ /^cpu[12]$/ { for (i = 2; i <= NF; i++) if ($i ~ /^emitted=/) printf "%s ", substr($i, 9) }' $STATS; }
read -r a1 a2 <<< "$(emitted)"
# Each workload runs until killed, so both measure through the interval
# below however far apart a loaded CPU 0 starts them. perf record -N here
# and below: perf's first record in a guest otherwise copies kallsyms and
# modules into its build-id cache (~5 s host CPU), which nothing here reads.
perf record -N -q -R -e "wult/datapoints,source=0,ldist_min=100,ldist_max=1000/" -C 1 \
	-o "$W/s0.data" -- sleep 60 2> "$W/s0.err" &
p0=$!
perf record -N -q -R -e "wult/datapoints,source=1,ldist_min=100,ldist_max=1000/" -C 2 \
	-o "$W/s1.data" -- sleep 60 2> "$W/s1.err" &
p1=$!
wult_wait_change 1 armed 100
wult_wait_change 2 armed 100
src_now=$(cat /sys/kernel/debug/wult/source | tr '\n' ' ')
# The rates: datapoints emitted on each CPU in one 0.2 s interval (~360
# at LDist 100-1000 us; short, as every datapoint recorded is decoded
# below at ~2.5 ms of host CPU); the same interval for both, so the host's
# load and the stagger of the two starts do not bias the comparison.
read -r i1 i2 <<< "$(emitted)"
sleep 0.2
read -r j1 j2 <<< "$(emitted)"
src_end=$(cat /sys/kernel/debug/wult/source | tr '\n' ' ')
kill $(cat /proc/$p0/task/*/children /proc/$p1/task/*/children) 2> /dev/null
wait $p0 $p1
read -r b1 b2 <<< "$(emitted)"
t_eq "debugfs source while both run" "cpu1 hrt cpu2 tdt " "$src_now"
t_eq "... and still at the interval's end" "cpu1 hrt cpu2 tdt " "$src_end"
n_hrt=$((j1 - i1)) n_tdt=$((j2 - i2))
echo "# datapoints in the same 0.2 s: hrt $n_hrt, tdt $n_tdt"
t_check "tdt rate >= 80% of hrt's ($n_tdt vs $n_hrt)" test $((n_tdt * 100)) -ge $((n_hrt * 80)) -a "$n_tdt" -gt 100
# Each file decoded once. Stock perf record may write a ring record twice
# (engine.sh): exact repeats are dropped and counted.
dups=0
for src in 0 1; do
	perf script -i "$W/s$src.data" -s "$DEC" 2>/dev/null | awk '$1 == "raw"' > "$W/s$src.all"
	awk '!seen[$0]++' "$W/s$src.all" > "$W/s$src.txt"
	dups=$((dups + $(wc -l < "$W/s$src.all") - $(wc -l < "$W/s$src.txt")))
done
t_check "records perf wrote twice: at most 2 ($dups)" test "$dups" -le 2
t_eq "source=0 on CPU 1: every emitted datapoint sampled" "$((b1 - a1))" "$(wc -l < "$W/s0.txt")"
t_eq "source=1 on CPU 2: every emitted datapoint sampled" "$((b2 - a2))" "$(wc -l < "$W/s1.txt")"
# Columns: src ev cpu seq ltime tbi tai tintr ldist ...
t_eq "hrt datapoints all from CPU 1" 0 "$(awk '$3 != 1' "$W/s0.txt" | wc -l)"
t_eq "tdt datapoints all from CPU 2" 0 "$(awk '$3 != 2' "$W/s1.txt" | wc -l)"
n=$(wc -l < "$W/s1.txt")
ok=$(awk '$5 < $7 && $5 <= $8 && $5 > $6 { k++ } END { print k + 0 }' "$W/s1.txt")
t_check "tdt: LTime < TAI, LTime <= TIntr, SilentTime > 0 for >= 99% ($ok of $n)" \
	test $((ok * 100)) -ge $((n * 99)) -a "$n" -gt 100
bad=$(awk '$9 < 100000 || $9 > 1000000' "$W/s1.txt" | wc -l)
t_eq "tdt: LDist in range" 0 "$bad"
t_eq "the python decoder names the method of every tdt datapoint" 0 \
	"$(awk '$17 != "tdt"' "$W/s1.txt" | wc -l)"
t_eq "... and of every hrt one" 0 "$(awk '$17 != "hrt"' "$W/s0.txt" | wc -l)"
wult report "$W/s1.data" > "$W/s1.rep" 2>&1
t_check "wult report's header names the method" grep -q '^  method: tdt$' "$W/s1.rep"
timeout 120 wult record -q -C 1 -c 200 --ldist 100,1000 --method tdt -o "$W/w.data" 2> "$W/w.err"
t_eq "wult record --method tdt" 0 $?
wult report "$W/w.data" > "$W/w.rep" 2>&1
t_check "... its report names the method and has 200 datapoints" \
	sh -c "grep -q '^  method: tdt$' $W/w.rep && grep -q '^all: 200 datapoints' $W/w.rep"
wult report "$W/s0.data" "$W/s1.data" > "$W/diff.rep" 2>&1
t_check "a diff of hrt and tdt says the methods differ" grep -q 'different methods' "$W/diff.rep"
# The time base: TSC ns are far from CLOCK_MONOTONIC after boot? Both start
# near 0 in a fresh guest; what tells them apart is the source field.
# 0.3 s at the default LDist (0-4 ms): ~150 records, where a few would do.
perf record -N -q -e "wult/datapoints,source=1/" -e wult:datapoint -C 1 -o "$W/tp.data" -- sleep 0.3 2>/dev/null
# The format's own print (without wult's libtraceevent plugin) has source=.
TRACEEVENT_PLUGIN_DIR=/nonexistent perf script -i "$W/tp.data" 2>/dev/null |
	grep 'wult:datapoint' > "$W/tp.txt"
t_check "tracepoint records of tdt datapoints say source=1" grep -q 'source=1' "$W/tp.txt"
t_check "no tdt datapoint says source=0" sh -c "! grep -q 'source=0' $W/tp.txt"

# ---- one source per CPU: a second source's event is refused at open ----------
# The hrt event measures (LDist 20-40 ms: few datapoints) until the check
# is done, its workload then ended.
perf record -N -q -R -e "wult/datapoints,source=0,ldist_min=20000,ldist_max=40000/" -C 1 \
	-o "$W/c0.data" -- sleep 60 2>/dev/null &
p0=$!
wult_wait_change 1 armed 100
fails_with "another source on a measured CPU: EBUSY" "returned with 16 " "wult/datapoints,source=1/"
t_check "... while the hrt event still measures" test "$(cat /sys/kernel/debug/wult/source)" = "cpu1 hrt"
kill $(cat /proc/$p0/task/*/children) 2> /dev/null
wait $p0

sleep 0.2
left=$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] }
	n = c["armed"] - c["emitted"] - c["not_idle"] - c["stale_tai"] - c["other_intr"] - c["other_wake"] - c["tsc_unstable"] - c["invalid"] - c["cancelled"]
	if (n) print $1 "=" n }' $STATS)
t_eq "no event left armed" "" "$left"
grep -E '^cpu[12] ' $STATS | sed 's/^/# /'
t_check "rmmod" rmmod wult
t_done
