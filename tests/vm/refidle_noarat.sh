#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An intel_idle profile on a CPU without ARAT (issue 36 item 2): as
# intel_idle does (intel_idle_state_needs_timer_stop()), wult_refidle
# makes the C6 of profile=skx, whose MWAIT hint is deeper than C1, a
# timer-stop state by itself (no timer_stop=1): cpuidle_flags
# TLB_FLUSHED|TIMER_STOP|RCU_IDLE, C1 and C1E not. Then C6 measured the
# way timerstop.sh measures C3 (one CPU, the others offline; the HPET
# as broadcast device), C6 alone, 100 datapoints at LDist 500-1000 us,
# loaded with no latency injected (exit_us=0,0,0) and as declared: >= 90%
# C6 each time, and the IntrLatency medians (C6 waits with interrupts
# off, so TIntr carries the latency) differ by the declared 133 us +- 0.5.
# vm-args: --cpus 3 --cpu max,-arat
# (timerstop.sh's and tdt.sh's machine, booted once for all.)
# vm-kernels: 6.12
# vm-cost: 6
. "$WULT_SRC/tests/lib.sh"

W=$OUT/refidle_noarat
mkdir -p "$W"
t_cpu0_only	# sets C and CPUIDLE
t_need_icount
if grep -qw arat /proc/cpuinfo; then
	t_fail "the CPU has ARAT: run with vm-run --cpu max,-arat"
	t_done
	exit 1
fi
ST=/sys/kernel/debug/wult_refidle/states
flags() {
	awk -v s="$1" '$1 == s { for (i = 2; i <= NF; i++) if ($i ~ /^cpuidle_flags=/) print substr($i, 15) }' $ST
}

# median NAME COLUMN: of a CSV column of NAME's datapoints, in ns.
median() {
	awk -F, -v col="$2" 'NR == 1 { for (f = 1; f <= NF; f++) if ($f == col) c = f; next }
		{ print $c }' "$W/$1.csv" | sort -g |
		awk '{ v[NR] = $1 } END { print NR ? sprintf("%.0f", v[int((NR + 1) / 2)] * 1000) : -1 }'
}

rcu_expedite
for inj in 0 1; do
	a=
	[ $inj = 0 ] && a=exit_us=0,0,0
	t_check "insmod wult_refidle profile=skx masked_max_us=1500 $a" \
		insmod "$WULT_REFIDLE_KO" profile=skx masked_max_us=1500 $a ||
		{ t_done; exit 1; }
	t_eq "C1 C1E C6 cpuidle flags ($a)" "0x0 0x0 0x64" "$(flags C1) $(flags C1E) $(flags C6)"
	insmod "$WULT_KO"
	cstate_only "$CPUIDLE" 3
	u0=$(cat "$CPUIDLE/state3/usage")
	wult record -q -C "$C" -c 100 --ldist 500,1000 --no-counters \
		-o "$W/c6$inj.data" 2> "$W/c6$inj.err"
	du=$(($(cat "$CPUIDLE/state3/usage") - u0))
	cstate_only "$CPUIDLE" all
	wult report --csv "$W/c6$inj.csv" "$W/c6$inj.data" > "$W/c6$inj.rep" 2>&1
	read -r n k <<< "$(awk -F, 'NR == 1 { for (f = 1; f <= NF; f++) c[$f] = f; next }
		{ n++; k += ($c["ReqCState"] == "C6") } END { print n + 0, k + 0 }' "$W/c6$inj.csv")"
	t_check "C6 ($a): >= 90 of 100 datapoints C6 ($k of $n), C6 entered >= as often ($du)" \
		test "$n" -eq 100 -a "$k" -ge 90 -a "$du" -ge "$k"
	rmmod wult
	rmmod wult_refidle
done
b=$(median c60 IntrLatency) m=$(median c61 IntrLatency)
echo "# C6 IntrLatency medians (ns): $b with none injected, $m with 133 us"
t_within "timer-stop C6: IntrLatency grows by the declared 133 us +- 0.5 (ns)" \
	$((m - b)) 132500 133500
t_done
