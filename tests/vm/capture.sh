#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 9
# wult record --stop-on EXPR --capture with a slow wake made on purpose:
# wult_refidle's C3 waits exit_us=300 before its idle exit, so a C3
# datapoint's WakeLatency is > 300 us while C1's is ~1 us. With C1 and C3
# enabled and LDist spanning both, the governor picks C1 for short sleeps
# and C3 for long ones: the recording must stop at the first C3 datapoint
# (WakeLatency > 200us), which is the file's last, every earlier one below
# 200 us; the capture beside it must hold the measured CPU's events of the
# window, among them the wake's own timer interrupt inside [TBI, TAI] and
# the idle entry at TBI; wult report must show them; the tracefs instance
# must be gone afterwards, and one a SIGKILLed run left is removed by the
# next run.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
C=1
D=/sys/devices/system/cpu/cpu$C/cpuidle
T=/sys/kernel/tracing

t_check "insmod wult_refidle exit_us=0,0,300" insmod "$WULT_REFIDLE_KO" exit_us=0,0,300 ||
	{ t_done; exit 1; }
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }

wult record -C $C --ldist 50,3000 --no-counters --states C1,C3 \
	--stop-on 'WakeLatency > 200us' --capture=5 -o s.data 2> s.err
t_eq "--stop-on: exit 0" 0 $?
sed 's/^/# /' s.err
t_check "the stop is said" grep -q "stopped at a datapoint matching 'WakeLatency > 200us': CPU $C, C3" s.err
wult report --csv s.csv s.data > s.rep 2>&1
read -r n st w slow <<< "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "WakeLatency") w = i; if ($i == "ReqCState") r = i }; next }
	{ n++; last = $r " " $w; if ($w > 200) slow++ } END { print n, last, slow }' s.csv)"
last="$st $w"
echo "# $n datapoints, the last: $last, $slow above 200 us"
t_check "the last datapoint is the slow C3 one ($last)" sh -c "echo '$last' | awk '\$1 == \"C3\" && \$2 > 300 { ok = 1 } END { exit !ok }'"
t_eq "only the last is above 200 us" "1" "$slow"
t_check "the capture is beside the file" test -s s.data.capture
grep -c . s.data.capture | sed 's/^/# capture lines: /'
t_check "the capture names the datapoint" grep -q "^# reqcstate C3" s.data.capture
t_check "the tracefs instance is removed" sh -c "! ls $T/instances | grep -q wult-"

# What wult report makes of it.
sed -n '/^capture/,$p' s.rep | sed 's/^/# /'
t_check "wult report shows the capture" grep -q "^capture (s.data.capture" s.rep
t_check "the wake's timer interrupt is inside [TBI, TAI]" \
	grep -Eq "^ +[0-9.-]+ +[0-9.]+ +idle +(local_timer|hrtimer_expire wult_hrt_fn)" s.rep
t_check "the idle entry at TBI is in it (C3)" grep -Eq "^ +-?[01]\.[0-9]+ +[0-9.]+ +idle +idle state=3" s.rep

# A run killed with its instance up: the next run removes it.
wult record -C $C --ldist 500,1000 --no-counters --stop-on 'WakeLatency > 10s' \
	--capture -o k.data 2> k.err &
pid=$!
wult_wait_change $C emitted 100
t_check "a running --capture has its instance" test -d $T/instances/wult-$pid
kill -KILL $pid
wait $pid 2> /dev/null
wult record -C $C -c 3 --ldist 500,1000 --no-counters -o n.data 2> n.err
t_check "the next run removes the killed run's instance (said)" \
	grep -q "removed the tracefs instance .*wult-$pid" n.err
t_check "it is gone" test ! -d $T/instances/wult-$pid

# Usage errors.
wult record -C $C --capture -o x.data 2> x.err
t_eq "--capture without --stop-on: exit 2" 2 $?
wult record -C $C --stop-on 'Nope > 1' -c 1 -o x.data 2> x.err
t_eq "--stop-on with an unknown metric: exit 2" 2 $?
t_check "the metric is named" grep -q "Nope" x.err

t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle
t_done
