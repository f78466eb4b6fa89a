#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The documentation keeps up with the code: every long option that a wult
# subcommand's --help lists is in its man page, every README-named folder
# has a README, and every debugfs file and event alias of wult.ko is in
# Documentation/kernel.md.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
wult=${WULT_BUILD:-$top/build}/rel/wult

for cmd in record report tsc synth script hist deploy sweep; do
	man=$top/Documentation/wult-$cmd.md
	t_check "man page for wult $cmd" test -f "$man"
	"$wult" "$cmd" --help > /tmp/wult-help.$$ 2>&1
	t_eq "wult $cmd --help exits 0" 0 $?
	missing=$(grep -oE -- '--[a-z][a-z0-9-]+' /tmp/wult-help.$$ | sort -u |
		  while read -r o; do grep -q -- "$o" "$man" || echo "$o"; done | tr '\n' ' ')
	t_eq "every option of wult $cmd is in its man page" "" "$missing"
done
rm -f /tmp/wult-help.$$
for d in kernel lib perf-plugin scripts tests Documentation; do
	t_check "$d/ has a README" test -s "$top/$d/README.md"
done
for f in stats source events lbr refusals hist/reset hist_bins hist_bin_us; do
	t_check "debugfs file $f documented" grep -q "$f" "$top/Documentation/kernel.md"
done
t_check "wult-report.md explains the idle residency columns" \
	grep -q 'Entries/s' "$top/Documentation/wult-report.md"
t_check "wult-report.md explains the interrupt columns" \
	grep -q 'IRQ time %' "$top/Documentation/wult-report.md"
t_check "wult-hist.md explains --html's figures" grep -q 'no sum of squares' \
	"$top/Documentation/wult-hist.md"
for a in datapoints wake_latency_sum intr_latency_sum branches wake_branches idle_time idle_entries wake_band intr_band idle_irq_time idle_irqs exit_intr_time exit_intrs; do
	t_check "event alias $a documented" grep -q "$a" "$top/Documentation/kernel.md"
done
t_done
