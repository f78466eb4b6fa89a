#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 6
# vm-kernels: 6.12
# One kernel: the description is read from the same sysfs files on every
# kernel (tests/unit/test_sysdesc.c checks the reading on a fake tree).
# The system description wult record stores, against the guest's own
# sysfs and procfs: every wult_refidle state's name, description, declared
# exit latency and target residency and disable setting (C1 disabled by
# hand before the recording, so recorded disabled), the cpuidle driver and
# governor, the kernel release and command line, the clocksource, the CPU
# vendor, PM QoS's current limit; the MSRs read or said unreadable, never
# failing the recording; the same through a pipe (wult record -o -).
# Then declared against measured on wult_refidle's C3 alone (exit_us
# 1,20,80; instruction-counted clock): the row's declared latency is the
# sysfs one and the measured median is the injected 80 us plus the exit
# path; --suggest's figures are the table's, rounded up.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
t_cpu0_only	# sets C and CPUIDLE

t_check "insmod wult_refidle" insmod "$WULT_REFIDLE_KO" exit_us=1,20,80 || { t_done; exit 1; }
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }
echo 1 > "$CPUIDLE/state1/disable"

wult record -q -C $C -c 40 --ldist 300,600 --no-counters -o r.data 2> r.err
t_eq "wult record: exit 0" 0 $?
t_check "wult record: no complaint about the description" \
	sh -c '! grep -q "system description" r.err'
wult report --info r.data > info.out 2>&1
t_eq "--info: exit 0" 0 $?

# has KEY VALUE: --info lists KEY with VALUE.
has() {
	local v
	v=$(awk -v k="$1" '$1 == k { sub(/^ *[^ ]+ +/, ""); print; exit }' info.out)
	t_eq "description: $1" "$2" "$v"
}
n=0
for d in "$CPUIDLE"/state*; do
	k=${d##*state}
	has "state$k.name" "$(cat "$d/name")"
	has "state$k.desc" "$(cat "$d/desc")"
	has "state$k.latency_us" "$(cat "$d/latency")"
	has "state$k.residency_us" "$(cat "$d/residency")"
	has "state$k.disable" "$(cat "$d/disable")"
	n=$((n + 1))
done
t_eq "wult_refidle's four states" 4 "$n"
has cpuidle.states "$n"
has cpuidle.cpus "$C"
has cpuidle.driver "$(cat /sys/devices/system/cpu/cpuidle/current_driver)"
has cpuidle.governor "$(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null ||
			cat /sys/devices/system/cpu/cpuidle/current_governor_ro)"
has kernel.release "$(uname -r)"
# (trailing blanks, which the kernel may leave, are not kept)
has kernel.cmdline "$(sed 's/[[:space:]]*$//' /proc/cmdline)"
has clocksource.current \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
has cpu.vendor "$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)"
has tsc.constant_tsc "$(grep -qw constant_tsc /proc/cpuinfo && echo yes || echo no)"
has cpu.arat "$(grep -qw arat /proc/cpuinfo && echo yes || echo no)"
if [ -c /dev/cpu_dma_latency ]; then
	has pmqos.cpu_dma_latency_us "$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')"
else
	t_skip "no /dev/cpu_dma_latency in this guest"
fi
v=$(awk '$1 == "msr.pkg_cst_config_control" { print $2 }' info.out)
t_check "MSR_PKG_CST_CONFIG_CONTROL read or said why not ($v)" \
	sh -c "echo '$v' | grep -Eq '^(0x[0-9a-f]+|unreadable:|not)'"
echo 0 > "$CPUIDLE/state1/disable"

# Pipe mode: the description read back from the stream.
wult record -q -C $C -c 20 --ldist 300,600 --no-counters -o - > p.data 2> p.err
t_eq "wult record -o -: exit 0" 0 $?
wult report --info - < p.data > pinfo.out 2>&1
t_eq "pipe mode: state 3's declared latency" "$(cat "$CPUIDLE/state3/latency")" \
	"$(awk '$1 == "state3.latency_us" { print $2 }' pinfo.out)"
t_eq "pipe mode: C1 enabled again" 0 "$(awk '$1 == "state1.disable" { print $2 }' pinfo.out)"

# Declared against measured: C3 alone (with POLL), LDist beyond its target
# residency.
wult record -q -C $C -c 60 --ldist 500,1000 --no-counters --states POLL,C3 -o c3.data 2> c3.err
t_eq "C3 recording: exit 0" 0 $?
wult report --suggest c3.data > c3.out 2>&1
t_eq "C3 report: exit 0" 0 $?
cat c3.out | sed -n '/^Declared against/,$p'
lat3=$(cat "$CPUIDLE/state3/latency")
row=$(awk '/^Declared against/ { on = 1 } on && $1 == "C3" { print; exit }' c3.out)
t_eq "the C3 row's declared latency is sysfs's" "$lat3" "$(echo "$row" | awk '{ print $2 }')"
t_eq "the C3 row's target residency is sysfs's" "$(cat "$CPUIDLE/state3/residency")" \
	"$(echo "$row" | awk '{ print $3 }')"
med=$(echo "$row" | awk '{ printf "%d", $4 * 1000 }')
# 80 us injected, plus the exit path and the timer's delivery (~1.3 us under icount).
t_within "C3's measured median (ns) is the injected 80 us plus the exit path" "$med" 80000 84000
ratio=$(echo "$row" | awk '{ print $8 }')
want=$(echo "$row" | awk -v l="$lat3" '{ printf "%.2f", $6 / l }')
t_eq "the C3 row's ratio is p99.99 / declared" "$want" "$ratio"
sug=$(awk '/^Suggested settings/ { on = 1 } on && $1 == "C3" { print; exit }' c3.out)
t_eq "--suggest: C3's latency to declare is its p99.99 rounded up" \
	"$(echo "$row" | awk '{ v = $6; i = int(v); print (v > i) ? i + 1 : i }')" \
	"$(echo "$sug" | awk '{ print $4 }')"
t_check "--suggest: an intel_idle.table= string naming C3" grep -q '^  intel_idle.table=.*C3:' c3.out
rmmod wult
rmmod wult_refidle
t_done
