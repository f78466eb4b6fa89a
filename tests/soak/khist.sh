#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak (run by scripts/vm-run on 6.12-rt, not part of make check): the
# in-kernel histograms over a long run with nothing recorded. perf stat
# counts wult datapoints on CPU1 for MINUTES (argument, default 10) while
# MemAvailable, Slab, Percpu and VmallocUsed (/proc/meminfo) and the
# module's memory (its core plus its vmalloc areas in /proc/vmallocinfo)
# are sampled once a minute. Fails if the module's memory changes at all
# (nothing is allocated while measuring), if the kernel's grows beyond the
# noise bounds below, or if any metric's histogram totals differ from the
# datapoints perf stat counted.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
H=/sys/kernel/debug/wult/hist
min=${1:-10}
# Noise bounds, kB over the run. A leak of 4 bytes per datapoint would
# exceed the first three within 10 minutes (over 100,000 datapoints here).
MAX_SLAB=512 MAX_VMALLOC=512 MAX_PERCPU=128 MAX_AVAIL_DROP=2048

# snap: MemAvailable Slab Percpu VmallocUsed module (kB), one line.
snap() {
	local vm core
	vm=$(awk '/\[wult\]/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo)
	core=$(cat /sys/module/wult/coresize)
	awk -v mod=$(((vm + core) / 1024)) '/^MemAvailable:/ { a = $2 } /^Slab:/ { s = $2 }
		/^Percpu:/ { p = $2 } /^VmallocUsed:/ { v = $2 } END { print a, s, p, v, mod }' /proc/meminfo
}

t_check "insmod hist_bins=10240" insmod "$WULT_KO" hist_bins=10240 || { t_done; exit 1; }
echo "# minute MemAvailable Slab Percpu VmallocUsed wult (kB)" > mem.txt
echo "before $(snap)" >> mem.txt
perf stat -x, -o stat.out -e wult/datapoints/ -C 1 -- sleep $((min * 60)) &
pid=$!
t_check "measuring started" wult_wait_change 1 emitted 150
# The first sample is taken once the event exists (its histograms are
# allocated when it is created): growth is measured from there.
for i in $(seq 0 $((min - 1))); do
	echo "$i $(snap)" >> mem.txt
	[ "$i" -lt $((min - 1)) ] && sleep 60
done
wait $pid
t_eq "perf stat exits 0" 0 $?
echo "after $(snap)" >> mem.txt
cat mem.txt

n=$(awk -F, '/datapoints/ { print $1 }' stat.out)
t_check "perf stat counted datapoints ($n over $min minutes)" test "${n:-0}" -ge $((min * 1000))
for m in wake_latency intr_latency silent_time tai_to_intr; do
	t_eq "$m histogram total = perf stat count" "$n" \
		"$(awk '/^#Total samples:/ { s += $3 } END { print s + 0 }' $H/$m/CPU1)"
done

# grow COLUMN: last in-run sample minus the first; peak: the largest minus the first.
grow() { awk -v c="$1" '$1 ~ /^[0-9]+$/ { if (!n++) f = $c; l = $c } END { printf "%+d\n", l - f }' mem.txt; }
peak() { awk -v c="$1" '$1 ~ /^[0-9]+$/ { if (!n++) f = m = $c; if ($c > m) m = $c } END { print m - f }' mem.txt; }
drop=$((0 - $(grow 2)))
echo "# over $n datapoints, from minute 0 to the last (and the peak): MemAvailable $(grow 2) kB," \
	"Slab $(grow 3) kB (+$(peak 3)), Percpu $(grow 4) kB (+$(peak 4)), VmallocUsed $(grow 5) kB" \
	"(+$(peak 5)), wult $(grow 6) kB (+$(peak 6))"
t_eq "the module's memory does not change while measuring (peak, last)" "0 +0" "$(peak 6) $(grow 6)"
t_check "Slab grows less than $MAX_SLAB kB (peak +$(peak 3))" test "$(peak 3)" -lt $MAX_SLAB
t_check "VmallocUsed grows less than $MAX_VMALLOC kB (peak +$(peak 5))" test "$(peak 5)" -lt $MAX_VMALLOC
t_check "Percpu grows less than $MAX_PERCPU kB (peak +$(peak 4))" test "$(peak 4)" -lt $MAX_PERCPU
t_check "MemAvailable drops less than $MAX_AVAIL_DROP kB ($drop)" test "$drop" -lt $MAX_AVAIL_DROP
t_check "rmmod" rmmod wult
t_done
