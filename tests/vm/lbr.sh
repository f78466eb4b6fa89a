#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Branch context (LBR) at the wake. TCG has no LBR: the default module says
# so and wult record goes on without; with lbr=fake the module fills each
# context with known addresses (ktime_get+4(i+1) -> wult_lbr_read+4i), which
# exercises the whole path: capture, PMU samples and tracepoint, wult record,
# the pairing with datapoints and the symbolized report (--vmlinux in a
# KASLR guest: kaslr.sh).
# vm-cost: 25
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
# The symbols checked below are the kernel's own, ktime_get's and wult's:
# not in the guest's short /proc/kallsyms (scripts/guest/init). They are
# cut from the kernel's table once wult is loaded for good (ks-sel.txt)
# and mounted with the short one's lines, so that perf, trace-cmd and wult
# report name them without reading the whole table (each read of it costs
# about 0.2 s of guest time, seconds of host CPU under TCG).
umount /proc/kallsyms
pmu=/sys/bus/event_source/devices/wult
dbg=/sys/kernel/debug/wult
dec=$WULT_SRC/scripts/perf/wult-decode.py

# ---- no LBR ----
t_check "insmod (lbr=auto)" insmod "$WULT_KO"
t_eq "no LBR reader under TCG" none "$(cat $dbg/lbr)"
t_check "no branches event alias without LBR" test ! -e $pmu/events/branches
perf stat -x, -e wult/kind=3/ -C 1 -- sleep 0.2 2> nolbr-stat.err
t_check "a branches event is not supported" grep -q 'not supported' nolbr-stat.err
wult record -C 1 -c 50 -o nolbr.data 2> nolbr-rec.err
t_eq "wult record without LBR: exit 0" 0 $?
t_eq "it says once there is no LBR" 1 "$(grep -c 'no LBR' nolbr-rec.err)"
t_check "and records every datapoint" grep -q '50 datapoints .* 0 branch contexts' nolbr-rec.err
wult report --branches nolbr.data > nolbr.rpt 2>&1
t_check "report: the file has no branch contexts" grep -q 'none in this file' nolbr.rpt
t_check "rmmod" rmmod wult
insmod "$WULT_KO" lbr=bogus 2> /dev/null
t_check "insmod lbr=bogus refused" test $? -ne 0
t_check "and the kernel log says why" sh -c "dmesg | grep -q \"unknown lbr mode 'bogus'\""

# ---- fake LBR ----
t_check "insmod lbr=fake" insmod "$WULT_KO" lbr=fake
grep -E ' [Tt] ktime_get$|[[:space:]]\[wult\]$| _text$' /proc/kallsyms > ks-sel.txt
sort -u ks-sel.txt /etc/kallsyms.core > ks-mount.txt
mount --bind ks-mount.txt /proc/kallsyms
t_eq "fake reader" fake "$(cat $dbg/lbr)"
t_check "branches event alias" grep -q 'kind=0x3\|kind=3' $pmu/events/branches

wult record -C 1 -c 300 -o w.data 2> rec.err
t_eq "wult record: exit 0" 0 $?
t_check "300 datapoints, 300 branch contexts" \
	grep -q '300 datapoints .* 300 branch contexts' rec.err
t_check "the branches member is in the group" grep -q 'with wult/branches' rec.err
perf report -i w.data --header-only > /dev/null 2> hdr.err
t_eq "stock perf reads the header" 0 $?
wult report --branches w.data > w.rpt 2> w.err
t_eq "wult report --branches: exit 0" 0 $?
t_check "every context pairs with its datapoint" \
	grep -q 'branch contexts: 300, 300 attached to datapoints' w.rpt
t_check "per state: 300 of 300 have one, all the same" \
	grep -Eq '^  [A-Za-z0-9]+: 300 of 300 kept datapoints have one; 1 distinct' w.rpt
t_check "youngest branch, symbolized, 100%" \
	grep -Eq '^ +300 +100\.0%  ktime_get\+0x4 -> wult_lbr_read\+0 \[wult\]$' w.rpt
i=1
for exp in "ktime_get+0x8 -> wult_lbr_read+0x4 [wult]" \
	   "ktime_get+0xc -> wult_lbr_read+0x8 [wult]" \
	   "ktime_get+0x10 -> wult_lbr_read+0xc [wult]"; do
	t_check "entry $i: $exp" grep -qF "  $exp" w.rpt
	i=$((i + 1))
done
# perf script: stock perf reads it; the python decoder takes neither the
# branch samples nor their group-read copies for datapoints.
perf script -i w.data > /dev/null 2> ps.err
t_eq "perf script reads the file without complaint" "" "$(cat ps.err)"
# Decoded once, for the count here and the contexts below.
perf script -i w.data -s "$dec" 2> /dev/null > py.txt
t_eq "python decoder: exactly the 300 datapoints" 300 "$(awk '$1 == "raw"' py.txt | wc -l)"
n=$(perf script -i w.data --dlfilter "$WULT_PLUGINS/dlfilter/wult-filter.so" \
	--dlarg 'WakeLatency >= 0' -s "$dec" 2> /dev/null | awk '$1 == "raw"' | wc -l)
t_eq "dlfilter passes branch samples, keeps the 300 datapoints" 300 "$n"

# The python decoder, independently: one context per datapoint, same
# seqs, and the addresses are kallsyms' ktime_get+4(i+1) -> wult_lbr_read+4i.
# Every table below is cut from ks-sel.txt, the kernel's own lines.
kt=$(awk '$3 == "ktime_get" { print $1; exit }' ks-sel.txt)
lr=$(awk '$3 == "wult_lbr_read" { print $1; exit }' ks-sel.txt)
want=$(for i in 0 1 2 3; do printf '%x->%x ' $((0x$kt + 4 * (i + 1))) $((0x$lr + 4 * i)); done)
t_eq "python decoder: 300 branch contexts" 300 "$(awk '$1 == "br" && $2 == "raw"' py.txt | wc -l)"
t_eq "python decoder: each is the fake one, nr=4, in the interrupt" 300 \
	"$(awk '$1 == "br"' py.txt | grep -cF "4 0x5 ${want% }")"
awk '$1 == "br" { print $4 }' py.txt | sort -n > br-seq.txt
awk '$1 == "raw" { print $4 }' py.txt | sort -n > dp-seq.txt
t_check "python decoder: the contexts' seqs are the datapoints'" cmp -s br-seq.txt dp-seq.txt

# Here and below, where the default table is not what is checked (w.rpt
# checks it), the report takes the cut one.
wult report --branches --branch-depth 2 --kallsyms ks-sel.txt w.data > d2.rpt
t_eq "--branch-depth 2: two lines per context" 2 "$(grep -c 'ktime_get+0x' d2.rpt)"

# --kallsyms: symbols from another table (ktime_get renamed).
grep -E ' [Tt] (ktime_get|wult_lbr_read)([[:space:]]|$)' ks-sel.txt |
	sed 's/ ktime_get$/ other_fn/' > ks.txt
wult report --branches --kallsyms ks.txt w.data > ks.rpt
t_check "--kallsyms: its names are used" grep -qF 'other_fn+0x4 -> wult_lbr_read+0 [wult]' ks.rpt
# --module: the module's own ELF symbols, where kallsyms has none of it.
grep -E ' [Tt] ktime_get$' ks-sel.txt > ks-core.txt
wult report --branches --kallsyms ks-core.txt w.data > nomod.rpt
t_check "kallsyms without wult's symbols: raw module addresses" \
	grep -Eq 'ktime_get\+0x4 -> 0xf+[0-9a-f]+$' nomod.rpt
wult report --branches --kallsyms ks-core.txt --module "$WULT_KO" w.data > mod.rpt
t_check "--module KO: symbols from the module ELF at its loaded .text" \
	grep -qF 'ktime_get+0x4 -> wult_lbr_read+0 [wult]' mod.rpt
text=$(cat /sys/module/wult/sections/.text)
wult report --branches --kallsyms ks-core.txt --module "$WULT_KO@$text" w.data > moda.rpt
t_check "--module KO@ADDR: the same" grep -qF 'ktime_get+0x4 -> wult_lbr_read+0 [wult]' moda.rpt
wult report --branches --kallsyms ks-core.txt --module /nonexistent/foo.ko w.data > modn.rpt
t_check "--module of a module not loaded: says to give @ADDR" \
	grep -q 'warning: --module /nonexistent/foo.ko: no load address in /sys/module/foo/sections/.text' modn.rpt
wult report --branches --kallsyms ks-core.txt --module "$WULT_KO@zz" w.data > modz.rpt
t_check "--module KO@bad: not an address" grep -q "'zz' is not an address" modz.rpt
wult report --branches --kallsyms nothere w.data > nk.rpt 2>&1
t_eq "--kallsyms missing file: still a report" 0 $?
t_check "--kallsyms missing file: warns, raw addresses" \
	sh -c 'grep -q "warning: --kallsyms: nothere" nk.rpt && grep -Eq "0xf+[0-9a-f]+ -> 0xf+[0-9a-f]+" nk.rpt'
wult report --branches w.data w.data > /dev/null 2> two.err
t_eq "--branches with two files: usage error" 2 $?
wult report --branches=0 w.data > /dev/null 2> zero.err
t_eq "--branches=0: usage error" 2 $?

# Plain perf: a group with the branches member, and the tracepoint.
# Windows of 0.5 s at the default LDist (0-4 ms): ~250 datapoints, 50 at
# least. perf record -N: no build-id cache, which perf otherwise fills
# at its first record (~5 s host CPU) and nothing here reads.
perf record -N -q -R -e '{wult/datapoints/,wult/branches/}' -C 1 -o g.data -- sleep 0.5
wult report --branches --kallsyms ks-sel.txt g.data > g.rpt
n=$(awk '/datapoints: [0-9]+ read/ { print $2 }' g.rpt)
t_check "perf record group: $n datapoints" test "${n:-0}" -ge 50
t_check "perf record group: every datapoint has its context" \
	grep -q "branch contexts: $n, $n attached" g.rpt
m=$(perf script -i g.data -s "$dec" 2> /dev/null | awk '$1 == "raw"' | wc -l)
t_eq "perf record group: python decoder agrees ($n)" "$n" "$m"
perf record -N -q -e wult/datapoints/ -e wult:wake_branches -e wult:datapoint -C 1 \
	-o t.data -- sleep 0.5
perf script -i t.data 2> /dev/null > t.txt
# Each wake_branches record comes right before the datapoint of its seq.
awk '/wult:wake_branches:/ { for (i = 1; i <= NF; i++) if ($i ~ /^seq=/) s = $i; next }
     /wult:datapoint:/ { for (i = 1; i <= NF; i++) if ($i ~ /^seq=/) { n++; if ($i == s) ok++ } }
     END { print n + 0, ok + 0 }' t.txt > pairs.txt
read -r ndp npair < pairs.txt
t_check "tracepoints: $ndp datapoints" test "$ndp" -ge 50
t_eq "tracepoints: each follows its branch context" "$ndp" "$npair"
ctx='ktime_get+0x4->wult_lbr_read+0x0 ktime_get+0x8->wult_lbr_read+0x4 ktime_get+0xc->wult_lbr_read+0x8 ktime_get+0x10->wult_lbr_read+0xc'
t_eq "plugin: every context printed symbolized, taken in the interrupt" "$ndp" \
	"$(grep 'wult:wake_branches: cpu=1 seq=' t.txt | grep -cF "nr=4 in=intr fake $ctx")"
TRACEEVENT_PLUGIN_DIR=/nonexistent perf script -i t.data 2> /dev/null > tn.txt
t_check "without the plugin: the kernel's format (nr=4, flags intr|fake)" \
	grep -q 'wult:wake_branches: cpu=1 seq=[0-9]* nr=4 flags=0x5$' tn.txt
wult report --branches --kallsyms ks-sel.txt t.data > t.rpt
t_check "wult report pairs tracepoint records too" \
	grep -q "branch contexts: $ndp, $ndp attached" t.rpt
t_eq "python decoder: tracepoint contexts decoded ($ndp)" "$ndp" \
	"$(perf script -i t.data -s "$dec" 2> /dev/null | awk '$1 == "br" && $2 == "tp"' |
	   grep -cF "4 0x5 ${want% }")"

# So far every datapoint had a branches event or the tracepoint beside it.
t_eq "debugfs: a context for every datapoint" "$(wult_cnt 1 emitted)" "$(wult_cnt 1 branches)"
t_eq "debugfs: none with LBR off" 0 "$(wult_cnt 1 branches_off)"

# trace-cmd (ftrace) with the plugin, while a counting event measures.
# The counting event measures until trace-cmd is done, however long a
# loaded host makes trace-cmd's start: its workload is ended then.
perf stat -e wult/datapoints/ -C 1 -- sleep 120 > /dev/null 2>&1 &
stat=$!
wult_wait_change 1 emitted 50
trace-cmd record -q -e wult:wake_branches -o tc.dat sleep 0.5 > /dev/null 2>&1
kill $(cat /proc/$stat/task/*/children) 2> /dev/null
wait $stat
trace-cmd report -i tc.dat 2> /dev/null | grep ' wake_branches:' > tc.txt
m=$(wc -l < tc.txt)
t_check "trace-cmd: contexts recorded ($m)" test "$m" -ge 10
t_eq "trace-cmd: each symbolized by the plugin" "$m" "$(grep -cF "nr=4 in=intr fake $ctx" tc.txt)"

perf stat -x, -e wult/datapoints/,wult/branches/ -C 1 -- sleep 0.5 2> stat.txt
a=$(awk -F, '$3 ~ /wult\/datapoints/ { print $1 }' stat.txt)
b=$(awk -F, '$3 ~ /wult\/branches/ { print $1 }' stat.txt)
t_check "perf stat: datapoints counted ($a)" test "${a:-0}" -gt 0
t_eq "perf stat: one branch context per datapoint" "$a" "$b"

wult record -C 1 -c 50 --no-branches -o nb.data 2> nb.err
t_check "--no-branches: none recorded" grep -q '50 datapoints .* 0 branch contexts' nb.err
t_check "rmmod" rmmod wult
t_done
