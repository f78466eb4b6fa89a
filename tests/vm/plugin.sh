#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 8
# The libtraceevent plugin (build/plugins/traceevent/plugin_wult.so) in stock perf and
# trace-cmd: wult:datapoint records print as named latencies in us, and the
# printed values equal the python decoder's for the same records.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1

t_check "plugin present in the guest" test -f "$TRACEEVENT_PLUGIN_DIR/plugin_wult.so"
t_check "insmod" insmod "$WULT_KO"

# Half a second: about 250 datapoints (the default LDist, 0-4 ms).
perf record -q -e wult/datapoints/ -e wult:datapoint -C 1 -o tp.data -- sleep 0.5
perf script -i tp.data 2>/dev/null | grep 'wult:datapoint:' > plugin.txt
n=$(wc -l < plugin.txt)
t_check "perf script prints datapoints ($n)" test "$n" -ge 50
t_check "plugin format used (WakeLatency= in every line)" \
	test "$(grep -c 'WakeLatency=[0-9-]*\.[0-9][0-9][0-9] ' plugin.txt)" = "$n"
t_check "state printed by name" test "$(grep -c 'ReqCState=C1 ' plugin.txt)" = "$n"
TRACEEVENT_PLUGIN_DIR=/nonexistent perf script -i tp.data 2>/dev/null |
	grep 'wult:datapoint:' > noplugin.txt
t_check "without the plugin the kernel's format prints" \
	grep -q 'req_cstate=1 intr_off=[01] ltime=' noplugin.txt

# Same records through the python decoder: seq, WakeLatency, IntrLatency in
# ns (compensated), from the tracepoint's fields.
perf script -i tp.data -s "$WULT_SRC/scripts/perf/wult-decode.py" 2>/dev/null |
	awk '$1 == "tp" { printf "%s %.3f %.3f\n", $4, $14 / 1000, $15 / 1000 }' |
	sort -n > py.txt
sed -E 's/.* seq=([0-9]+) .* WakeLatency=([0-9.-]+) IntrLatency=([0-9.-]+) .*/\1 \2 \3/' \
	plugin.txt | sort -n > pl.txt
t_check "python decoder saw the same records ($(wc -l < py.txt))" \
	test "$(wc -l < py.txt)" = "$n"
t_check "plugin latencies equal the python decoder's" cmp -s py.txt pl.txt

# trace-cmd loads the same plugin through the system libtraceevent.
perf stat -e wult/datapoints/ -C 1 -- sleep 8 > /dev/null 2>&1 &
stat=$!
# perf takes seconds to start under TCG: trace once datapoints flow.
wult_wait_change 1 emitted 50
trace-cmd record -q -e wult:datapoint -o tc.dat sleep 1 > /dev/null 2>&1
t_check "trace-cmd record" test -s tc.dat
trace-cmd report -i tc.dat 2>/dev/null | grep ' datapoint:' > tc.txt
m=$(wc -l < tc.txt)
t_check "trace-cmd report prints datapoints ($m)" test "$m" -ge 10
t_check "trace-cmd uses the plugin" \
	test "$(grep -c 'ReqCState=C1 WakeLatency=' tc.txt)" = "$m"
wait $stat
t_check "rmmod" rmmod wult
t_done
