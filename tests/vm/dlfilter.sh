#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 13
# vm-kernels: 6.12
# One kernel: user space on the wult event's samples, whose payload is the
# same on every kernel (engine.sh and record.sh check it on each; the
# tracepoint's, whose common fields differ on RT, khist.sh (the plugin) and
# report.sh); the other two kernels would cost ~30 s of host CPU each.
# The perf dlfilter (build/plugins/dlfilter/wult-filter.so) on a real recording: it
# keeps exactly the datapoints an independent decoder (the python script)
# selects with the same condition, and rejects bad expressions clearly.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
f=$WULT_PLUGINS/dlfilter/wult-filter.so
dec=$WULT_SRC/scripts/perf/wult-decode.py

t_check "dlfilter present in the guest" test -f "$f"
t_check "insmod" insmod "$WULT_KO"
# Half a second at 0-1 ms: about 1000 datapoints, enough for every
# condition below to keep some and drop some (each is decoded six times).
perf record -q -R -e wult/datapoints,ldist_max=1000/ -C 1 -o x.data -- sleep 0.5

# "raw" lines of the decoder: $4 seq, $11 intr_off, $14 WakeLatency (ns,
# compensated), $15 IntrLatency.
perf script -i x.data -s "$dec" 2>/dev/null | awk '$1 == "raw"' > all.txt
n=$(wc -l < all.txt)
t_check "recorded datapoints ($n)" test "$n" -ge 100
med=$(awk '{ print $14 }' all.txt | sort -n | awk '{ v[NR] = $1 } END { print v[int(NR / 2)] }')
thr=$((med / 1000))	# microseconds, about half the datapoints above

# filter_case NAME EXPR AWK-CONDITION
filter_case() {
	perf script -i x.data --dlfilter "$f" --dlarg "$2" -s "$dec" \
		2>"$1.err" | awk '$1 == "raw" { print $4 }' | sort -n > "$1.kept"
	awk "$3"' { print $4 }' all.txt | sort -n > "$1.want"
	k=$(wc -l < "$1.kept")
	t_check "$1: kept $k of $n, exactly the expected ones" cmp -s "$1.kept" "$1.want"
	t_check "$1: summary on stderr" grep -q "wult-filter: kept $k, dropped $((n - k)) datapoints" "$1.err"
}
filter_case wake "WakeLatency > ${thr}us" "\$14 > $thr * 1000"
filter_case and 'ReqCState == "C1" && !(IntrLatency <= 200us)' '$15 > 200000'
filter_case none 'WakeLatency < 0' '$14 < 0'
filter_case all 'IntrOff == 0 || IntrOff == 1' '1'
filter_case words "WakeLatency >= ${thr} && (LDist < 0.5ms || LDist >= 500us)" "\$14 >= $thr * 1000"

perf script -i x.data --dlfilter "$f" --dlarg 'WakeLatency >> 3us' > /dev/null 2> bad.err
rc=$?
t_check "bad expression fails (rc $rc)" test $rc -ne 0
t_check "bad expression names the position" grep -q "bad expression 'WakeLatency >> 3us': col [0-9]" bad.err
perf script -i x.data --dlfilter "$f" > /dev/null 2> none.err
t_check "missing expression is explained" grep -q 'no filter expression' none.err
perf script -i x.data --dlfilter "$f" --dlarg 'Bogus > 3' > /dev/null 2> unk.err
t_check "unknown metric is rejected" grep -qi 'bogus' unk.err
t_check "rmmod" rmmod wult
t_done
