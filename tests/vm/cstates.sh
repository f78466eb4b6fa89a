#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 8
# vm-kernels: 6.12
# One kernel: user space on the wult event's samples, whose payload is the
# same on every kernel (engine.sh and record.sh check it on each; the
# tracepoint's, whose common fields differ on RT, khist.sh (the plugin) and
# report.sh); the other two kernels would cost ~30 s of host CPU each.
# wult record --states, --deepest-state and --idle-governor against a real
# cpuidle driver (wult_refidle: POLL C1 C2 C3): the measured datapoints'
# requested states are only the chosen ones; the previous settings (one
# state disabled by hand, the governor) come back after a normal exit,
# after SIGINT, and after SIGKILL through the restore record that the next
# wult record uses; names the CPU (or kernel) lacks are refused, listing
# the ones there are; the guest's missing /run is created for the record.
# The host tests (test_record_cstates.sh) cover the rest on a fake sysfs
# tree.
# Cost: idle guest time is free on the instruction-counted clock; each
# wult record opens no counters (--no-counters: opening them takes ~0.75 s
# of guest time) and the datapoints are read with wult report --csv.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
C=1
D=/sys/devices/system/cpu/cpu$C/cpuidle
G=/sys/devices/system/cpu/cpuidle
R=/run/wult-cpuidle.restore
# The guest has no /run: the first --states run must create it itself.
had_run=0
[ -e /run ] && had_run=1

t_check "insmod wult_refidle" insmod "$WULT_REFIDLE_KO" exit_us=0,20,80 || { t_done; exit 1; }
t_check "insmod wult.ko" insmod "$WULT_KO" || { t_done; exit 1; }
t_eq "CPU $C's states" "POLL C1 C2 C3" "$(cat $D/state*/name | tr '\n' ' ' | sed 's/ $//')"
# C1 disabled by hand before: every run must leave it so.
echo 1 > $D/state1/disable
disables() { cat $D/state{0,1,2,3}/disable | tr -d '\n'; }
gov0=$(cat $G/current_governor)
govs=$(cat $G/available_governors)
# Another governor to switch to, where the kernel has one (6.1: ladder
# and menu; 6.12 builds menu alone).
other=$(for g in $govs; do [ "$g" != "$gov0" ] && echo "$g"; done | head -1)
echo "# governors: $govs (current $gov0, other '${other}')"

# states FILE: the requested states of FILE's datapoints, "NAME COUNT" sorted.
states() {
	wult report --csv "$1.csv" "$1.data" > /dev/null 2>&1
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ReqCState") c = i; next }
		{ n[$c]++ } END { for (s in n) print s, n[s] }' "$1.csv" | sort | tr '\n' ' '
}

# --states: C3 alone with POLL; LDist long enough that the governor would
# pick C3 anyway, and short enough to stay cheap.
wult record -C $C -c 40 --ldist 500,1000 --no-counters --states POLL,C3 -o s.data 2> s.err
t_eq "--states POLL,C3: exit 0" 0 $?
t_check "--states POLL,C3: said" grep -q "CPU $C: POLL C3 enabled, C1 C2 disabled" s.err
st=$(states s)
t_check "--states POLL,C3: every datapoint POLL or C3, most C3 ($st)" \
	sh -c "echo '$st' | awk '{ for (i = 1; i < NF; i += 2) { if (\$i != \"POLL\" && \$i != \"C3\") exit 1; n[\$i] = \$(i + 1) } exit n[\"C3\"] < 20 }'"
t_eq "--states: the values as before (C1 still disabled)" 0100 "$(disables)"
t_check "--states: no restore record left" test ! -e $R
if [ $had_run = 0 ]; then
	t_check "--states: /run created for the record, said" grep -q \
		"created /run (mode 0755) for the restore record $R" s.err
	t_eq "--states: /run's mode" 755 "$(stat -c %a /run 2>/dev/null)"
else
	t_skip "--states creating a missing /run: this guest has one"
fi
t_check "--states: the default record's place is not said" \
	sh -c '! grep -q "their restore record" s.err'

# --deepest-state C2 with a short LDist: POLL and C2 (C1 stays disabled: it
# was before), never C3.
wult record -C $C -c 40 --ldist 100,300 --no-counters --deepest-state C2 -o d.data 2> d.err
t_eq "--deepest-state C2: exit 0" 0 $?
st=$(states d)
t_check "--deepest-state C2: no C3 datapoint ($st)" sh -c "! echo '$st' | grep -q C3"
t_check "--deepest-state C2: C2 datapoints ($st)" sh -c "echo '$st' | grep -q 'C2 '"
t_eq "--deepest-state: the values as before" 0100 "$(disables)"

# Names the CPU or the kernel lacks: usage errors naming what there is.
wult record -C $C -c 5 --states POLL,C7 -o x.data 2> x.err
t_eq "--states C7: exit 2" 2 $?
t_check "--states C7: the CPU's states listed" \
	grep -q "CPU $C has no idle state 'C7' (it has POLL, C1, C2, C3)" x.err
wult record -C $C -c 5 --idle-governor nosuch -o x.data 2> x.err
t_eq "--idle-governor nosuch: exit 2" 2 $?
t_check "--idle-governor nosuch: the kernel's governors listed" \
	grep -q "no cpuidle governor 'nosuch' (this kernel has: $govs" x.err
t_eq "refused runs changed nothing" "0100 $gov0" "$(disables) $(cat $G/current_governor)"

# SIGINT and SIGKILL while recording, with the governor switched where the
# kernel has another one.
gov=${other:-$gov0}
# run NAME: a recording until a signal; returns once its datapoints flow.
run() {
	wult record -C $C --ldist 500,1000 --no-counters --deepest-state C1 \
		--idle-governor "$gov" -o "$1.data" 2> "$1.err" &
	pid=$!
	wult_wait_change $C emitted 100
}
run int
# (C1 is enabled while recording: --deepest-state C1 asks for it.)
t_eq "while recording: C2 and C3 disabled, C1 enabled, the governor $gov" "0011 $gov" \
	"$(disables) $(cat $G/current_governor)"
kill -INT $pid
wait $pid
t_eq "SIGINT: exit 0" 0 $?
t_check "SIGINT: restored (said)" grep -q "idle states restored" int.err
t_eq "SIGINT: the values and the governor as before" "0100 $gov0" \
	"$(disables) $(cat $G/current_governor)"

run kill
kill -KILL $pid
wait $pid 2> /dev/null
t_eq "SIGKILL: the values stay changed" "0011 $gov" "$(disables) $(cat $G/current_governor)"
t_check "SIGKILL: the restore record is left" test -s $R
# The next run restores first, even one refused afterwards.
wult record -C $C -c 5 --states C9 -o x.data 2> x.err
t_check "the next run restores (said)" \
	grep -q "restored the idle states that a killed wult record (pid $pid)" x.err
t_eq "after it: the values and the governor as before" "0100 $gov0" \
	"$(disables) $(cat $G/current_governor)"
t_check "after it: no restore record" test ! -e $R
t_check "the killed run's file is read" sh -c "wult report kill.data > /dev/null 2>&1"

echo 0 > $D/state1/disable
t_check "rmmod wult" rmmod wult
t_check "rmmod wult_refidle" rmmod wult_refidle
t_done
