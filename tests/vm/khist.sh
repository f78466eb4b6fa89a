#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 16
# wult.ko's in-kernel histograms (/sys/kernel/debug/wult/hist/): off
# unless loaded with hist_bins (wult hist then says so); their
# totals equal the datapoints perf stat counted and the datapoints perf
# record sampled; percentiles read from the bins are within one bin of the
# recorded samples' percentiles; reset clears them; the exact min/max/sum
# match the samples; wult hist shows the same percentiles and resets; a
# latency-band event counts the datapoints in its band; the bipolar
# tai_to_intr (TIntr - TAI) has the same totals, the samples' exact
# figures, and the sign of the state kind (negative for the default idle's
# hlt, whose interrupt runs before the CPU leaves idle); and a run with no
# samples recorded does not grow kernel memory (20 s here: the 10-minute
# soak is make soak's, tests/soak/khist.sh).
# Before the memory check: the libtraceevent plugin (was plugin.sh).
# The same first perf stat run also checks the ftrace recipe of
# Documentation/usage.md: an in-kernel histogram of WakeLatency per
# requested state with a hist trigger on wult:datapoint, whose counts must
# add up to the datapoints perf stat counted (it was tests/vm/hist.sh, a
# guest of its own: ~2 s of host CPU per kernel to restore and end one).
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
H=/sys/kernel/debug/wult/hist
T=/sys/kernel/tracing/events/wult/datapoint
TH='hist:keys=req_cstate,wake_latency.buckets=10000:sort=req_cstate,wake_latency'
TL='hist:keys=req_cstate,intr_latency.log2'
DEC=$WULT_SRC/scripts/perf/wult-decode.py

# Off by default (their update costs every datapoint, Documentation/bench.md):
# no folder, and wult hist says how to turn them on.
t_check "insmod without hist_bins" insmod "$WULT_KO" || { t_done; exit 1; }
t_eq "hist_bins 0 by default" 0 "$(cat /sys/module/wult/parameters/hist_bins)"
t_check "no histograms by default" test ! -e $H
wult hist > off.out 2> off.err
t_eq "wult hist without histograms exits 1" 1 $?
t_check "wult hist says to load wult.ko with hist_bins" grep -q 'hist_bins=' off.err
t_check "rmmod" rmmod wult
t_check "insmod hist_bins=10240" insmod "$WULT_KO" hist_bins=10240 || { t_done; exit 1; }
t_check "hist/reset exists" test -f $H/reset
t_check "four metrics, CPU1 files" test -f $H/wake_latency/CPU1 -a \
	-f $H/intr_latency/CPU1 -a -f $H/silent_time/CPU1 -a -f $H/tai_to_intr/CPU1
t_eq "bin width 1 us by default" 1 "$(cat /sys/module/wult/parameters/hist_bin_us)"

# total FILE: the samples of every #State section.
total() {
	awk '/^#Total samples:/ { s += $3 } END { print s + 0 }' "$1"
}

# binsum FILE: the bin rows (negative ones too) plus under- and overflow.
binsum() {
	awk '/^#There are .* (greater or equal|lower) than/ { s += $3 }
	     /^ *-?[0-9]+\t/ { s += $2 } END { print s + 0 }' "$1"
}

# ---- counts equal perf stat's ------------------------------------------------
# The ftrace hist triggers count the same run.
t_check "format has wake_latency" grep -q 'field:u64 wake_latency;' $T/format
# Append (>>): opening the trigger file with O_TRUNC removes its triggers.
t_check "bucket trigger accepted" sh -c "echo '$TH' >> $T/trigger"
t_check "log2 trigger accepted" sh -c "echo '$TL' >> $T/trigger"
perf stat -x, -e wult/datapoints/ -C 1 -- sleep 3 2> stat.out
n=$(awk -F, '/datapoints/ { print $1 }' stat.out)
cat $T/hist > hist.txt
t_check "perf stat counted datapoints for the ftrace histograms ($n)" test "${n:-0}" -ge 100
# Two histograms: the buckets one first, then the log2 one.
hits=$(awk '/Hits:/ { print $2 }' hist.txt | tr '\n' ' ')
t_eq "ftrace: both histograms hit once per datapoint" "$n $n " "$hits"
sum=$(awk '/wake_latency: ~/ { s += $NF } END { print s + 0 }' hist.txt)
t_eq "ftrace: bucket counts add up to the datapoints" "$n" "$sum"
t_check "ftrace: buckets are 10 us wide" grep -qE 'wake_latency: ~ [0-9]+-[0-9]*9999 ' hist.txt
t_check "ftrace: keyed by requested state" grep -q '{ req_cstate: *1, wake_latency: ~' hist.txt
t_check "ftrace: log2 histogram of intr_latency" grep -q 'intr_latency: ~ 2^' hist.txt
t_check "ftrace drop: trigger removed" sh -c "echo '!$TH' >> $T/trigger && echo '!$TL' >> $T/trigger"
t_check "ftrace: no trigger left" sh -c "! grep -q '^hist' $T/trigger"
cat $H/wake_latency/CPU1 > wake1.txt
cat $H/intr_latency/CPU1 > intr1.txt
cat $H/silent_time/CPU1 > silent1.txt
cat $H/tai_to_intr/CPU1 > tai1.txt
t_check "perf stat counted datapoints ($n)" test "${n:-0}" -ge 20
t_eq "WakeLatency histogram total = perf stat count" "$n" "$(total wake1.txt)"
t_eq "IntrLatency histogram total = perf stat count" "$n" "$(total intr1.txt)"
t_eq "SilentTime histogram total = perf stat count" "$n" "$(total silent1.txt)"
t_eq "TaiToIntr histogram total = perf stat count" "$n" "$(total tai1.txt)"
t_eq "TaiToIntr bins, underflow and overflow add up" "$n" "$(binsum tai1.txt)"
t_check "TaiToIntr is bipolar: bins from -5120 us" \
	grep -q '^#There are [0-9]* samples lower than -5120 microseconds' tai1.txt
t_eq "WakeLatency bins add up" "$n" "$(binsum wake1.txt)"
t_check "sections name the states" grep -q '^#State: default_idle' wake1.txt
t_check "latency_hist header lines" sh -c "grep -q '^#Minimum latency: [0-9]* microseconds' wake1.txt &&
	grep -q '^#Average latency: ' wake1.txt && grep -q '^#Maximum latency: ' wake1.txt &&
	grep -q '^#usecs' wake1.txt"
t_eq "CPU0 histograms empty (never measured)" 0 "$(total $H/wake_latency/CPU0)"

# ---- reset -------------------------------------------------------------------
t_check "reset accepted" sh -c "echo 1 > $H/reset"
t_eq "reset: totals 0" "0 0 0" "$(total $H/wake_latency/CPU1) $(total $H/intr_latency/CPU1) $(total $H/silent_time/CPU1)"
t_eq "reset: no bin rows left" 0 "$(grep -c $'^ *[0-9]*\t' $H/wake_latency/CPU1)"
t_check "writing 0 to reset is refused" sh -c "! echo 0 > $H/reset 2>/dev/null"

# ---- against the recorded samples ---------------------------------------------
# 1 s: ~500 datapoints; every check below is an equality or "within one
# bin", and wult-decode.py costs ~2.5 ms of host CPU a datapoint under TCG.
perf record -q -R -e wult/datapoints/ -C 1 -o rec.data -- sleep 1 2> rec.err
perf script -i rec.data -s "$DEC" 2>/dev/null | awk '$1 == "raw"' > rec.txt
cat $H/wake_latency/CPU1 > wake2.txt
cat $H/intr_latency/CPU1 > intr2.txt
cat $H/tai_to_intr/CPU1 > tai2.txt
m=$(wc -l < rec.txt)
t_check "perf record sampled datapoints ($m)" test "$m" -ge 20
t_eq "histogram total = samples recorded" "$m" "$(total wake2.txt)"

# pct_bins FILE P: the P-th percentile's bin (us) from the bins of all states
# (rank ceil(P * N / 100)); 10240 when it lies in the overflow count.
pct_bins() {
	awk -v p="$2" '/^#Total samples:/ { n += $3 } /^ *[0-9]+\t/ { c[$1] += $2 }
		END { r = int((p * n + 99) / 100); if (r < 1) r = 1
		      k = 0; for (b = 0; b < 10240; b++) if (b in c) {
		        k += c[b]; if (k >= r) { print b; exit } } print 10240 }' "$1"
}

# pct_samples COL P: the same rank of the samples' latencies, in us, with
# everything from 10240 us on in one overflow bin as in the histogram.
pct_samples() {
	awk "{ v = int((\$$1 - \$5) / 1000); print v < 10240 ? v : 10240 }" rec.txt |
		sort -n | awk -v p="$2" '{ v[NR] = $1 }
		END { r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'
}

for p in 50 90 99; do
	b=$(pct_bins wake2.txt $p)
	s=$(pct_samples 7 $p)
	d=$((b - s)); d=${d#-}
	t_check "WakeLatency p$p from bins ($b us) within one bin of samples ($s us)" test "$d" -le 1
	b=$(pct_bins intr2.txt $p)
	s=$(pct_samples 8 $p)
	d=$((b - s)); d=${d#-}
	t_check "IntrLatency p$p from bins ($b us) within one bin of samples ($s us)" test "$d" -le 1
done
# wult hist reads the same files: its per-state percentiles (all samples
# are in default_idle here) are those of the bins.
wult hist -C 1 --no-bars --csv whist.csv > whist.txt 2> whist.err
t_eq "wult hist exits 0" 0 $?
row=$(awk '$1 == "default_idle" { print $2, $6, $7, $8 }' whist.txt)
want="$m $(pct_bins wake2.txt 50) $(pct_bins wake2.txt 90) $(pct_bins wake2.txt 99)"
t_eq "wult hist: count, p50, p90, p99 (us) = the bins'" "$want" "${row//>=/}"
row=$(awk -F, '$3 == "default_idle" { print $4, $8, $9, $10 }' whist.csv)
t_eq "wult hist --csv: the same" "$want" "${row//>=/}"

# The exact line: count sum min max, ns.
exact=$(awk '/^#Exact:/ { c += $3; s += $5; if (!mn || ($7 && $7 < mn)) mn = $7; if ($9 > mx) mx = $9 }
	END { print c, s, mn, mx }' wake2.txt)
want=$(awk '{ v = $7 - $5; c++; s += v; if (!mn || v < mn) mn = v; if (v > mx) mx = v }
	END { printf "%d %.0f %d %d\n", c, s, mn, mx }' rec.txt)
t_eq "exact count, sum, min, max = samples'" "$want" "$exact"

# TaiToIntr = TIntr - TAI ($8 - $7), signed: the exact line, the samples
# below zero (underflow and negative rows) and the sign of the state kind:
# every sample of the default idle (sti; hlt) ran its handler first.
exact=$(awk '/^#Exact:/ && $3 { c += $3; s += $5; if (!n++ || $7 < mn) mn = $7; if (n == 1 || $9 > mx) mx = $9 }
	END { print c, s, mn, mx }' tai2.txt)
want=$(awk '{ v = $8 - $7; c++; s += v; if (c == 1 || v < mn) mn = v; if (c == 1 || v > mx) mx = v }
	END { printf "%d %.0f %d %d\n", c, s, mn, mx }' rec.txt)
t_eq "TaiToIntr exact count, sum, min, max = samples' TIntr - TAI" "$want" "$exact"
neg=$(awk '/^#There are .* lower than/ { s += $3 } /^ *-[0-9]+\t/ { s += $2 } END { print s + 0 }' tai2.txt)
t_eq "TaiToIntr below zero = samples with TIntr < TAI" "$(awk '$8 < $7' rec.txt | wc -l)" "$neg"
t_eq "TaiToIntr below zero = samples with intr_off 0" "$(awk '$11 == 0' rec.txt | wc -l)" "$neg"
t_eq "default idle (hlt, IRQs on): every TaiToIntr negative" "$m" "$neg"
# wult hist: its p50 is the bin (floor, us) of the samples' rank-ceil(N/2) value.
row=$(wult hist -C 1 -m tai_to_intr --no-bars | awk '$1 == "default_idle" { print $2, $3, $6 }')
want=$(awk '{ v = ($8 - $7) / 1000; f = int(v); print (f > v ? f - 1 : f) }' rec.txt | sort -n |
	awk '{ v[NR] = $1 } END { r = int((50 * NR + 99) / 100); if (r < 1) r = 1; print v[r] }')
t_eq "wult hist -m tai_to_intr: count, exact min, p50 (us)" \
	"$m $(awk '/^#Exact:/ && $3 { printf "%.3f", $7 / 1000 }' tai2.txt) $want" "$row"

# ---- a latency band as a counting event ----------------------------------------
# Datapoints with WakeLatencyRaw in [0, p50) and [p50, inf) split the total.
t_check "wult hist --reset" wult hist --reset
t_eq "wult hist --reset: totals 0" 0 "$(total $H/wake_latency/CPU1)"
lo=$(pct_bins wake2.txt 50)
perf stat -x, -e wult/datapoints/ -e "wult/wake_band,band_hi=$lo/" \
	-e "wult/wake_band,band_lo=$lo/" -C 1 -- sleep 3 2> band.out
read -r all below above <<< "$(awk -F, '{ print $1 }' band.out | tr '\n' ' ')"
t_check "band counts add up ($below + $above = $all)" test "$((below + above))" -eq "$all"
inband=$(awk -v b="$lo" '/^#Total/ {} /^ *[0-9]+\t/ { if ($1 < b) s += $2 } END { print s + 0 }' $H/wake_latency/CPU1)
t_eq "band [0, $lo us) = histogram rows below $lo us" "$inband" "$below"
# Sampling a band: perf record keeps only its datapoints, which the
# python decoder and wult report both take as datapoints.
perf record -q -R -e "wult/wake_band,band_lo=$lo,period=1/" -C 1 -o band.data -- sleep 1 2> bandrec.err
perf script -i band.data -s "$DEC" 2>/dev/null | awk '$1 == "raw"' > band.txt
nb=$(wc -l < band.txt)
t_check "band sampling recorded datapoints ($nb)" test "$nb" -ge 10
t_eq "every sampled datapoint has WakeLatencyRaw >= $lo us" 0 \
	"$(awk -v b=$((lo * 1000)) '$7 - $5 < b' band.txt | wc -l)"
wult report band.data > bandrep.txt 2>&1
t_eq "wult report reads a band recording" 0 $?
t_eq "wult report: all of its datapoints" "$nb" \
	"$(awk '/^all: [0-9]+ datapoints/ { print $2; exit }' bandrep.txt)"
perf record -e wult/wake_band,band_lo=5,band_hi=5/ -C 1 -o bad.data -- true > bad.out 2>&1
t_check "band_lo >= band_hi: EINVAL" grep -q 'returned with 22 ' bad.out

# ---- the libtraceevent plugin (was tests/vm/plugin.sh) -----------------------
# The libtraceevent plugin (build/plugins/traceevent/plugin_wult.so) in
# stock perf and trace-cmd: wult:datapoint records print as named
# latencies in us, and the printed values equal the python decoder's for
# the same records.
t_check "plugin present in the guest" test -f "$TRACEEVENT_PLUGIN_DIR/plugin_wult.so"

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

# ---- memory ------------------------------------------------------------------
# mem: vmalloc + unreclaimable slab, kB.
mem() {
	awk '/^VmallocUsed:|^SUnreclaim:/ { s += $2 } END { print s }' /proc/meminfo
}
m0=$(mem)
perf stat -x, -e wult/datapoints/ -C 1 -- sleep 20 2> long.out
m1=$(mem)
n=$(awk -F, '/datapoints/ { print $1 }' long.out)
echo "# kernel memory before/after a 20 s run of $n datapoints: $m0 kB / $m1 kB"
t_check "no memory growth over $n datapoints ($m0 -> $m1 kB, < 256 kB)" test $((m1 - m0)) -lt 256
t_check "rmmod" rmmod wult
t_done
