#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `wult tsc` in a guest, where perf's mmap page exposes TSC time: both CPUs
# are evaluated, calibration agrees with the kernel, perf-page conversion
# parameters exist, and the verdict comes with its reasons and exit status.
. "$WULT_SRC/tests/lib.sh"

wult tsc > "$OUT/tsc.txt" 2>&1
rc=$?
cat "$OUT/tsc.txt"
t_check "exit status is fit (0) or unfit (1), not an error (got $rc)" test $rc -le 1
# A busy host can keep TCG's vCPUs from running together; then the
# evaluation may not conclude, which must be said, not hidden.
if grep -q '^cross-CPU evaluation: ' "$OUT/tsc.txt"; then
	t_check "inconclusive evaluation is the verdict's reason" \
		grep -q 'not shown fit for latency measurement: the cross-CPU evaluation' "$OUT/tsc.txt"
else
	t_check "both CPUs evaluated" grep -qE '^ +1 \[' "$OUT/tsc.txt"
fi
ppm=$(sed -nE 's/.*, ([+-][0-9.]+) ppm from the kernel.s.*/\1/p' "$OUT/tsc.txt")
t_check "calibration within 50 ppm of the kernel (${ppm:-none} ppm)" \
	awk -v p="${ppm:-1e9}" 'BEGIN { exit !(p < 50 && p > -50) }'
t_check "perf sample-time conversion available" \
	grep -q '^conversion (perf sample time): mult [0-9]' "$OUT/tsc.txt"
if [ $rc -eq 1 ]; then
	t_check "unfit verdict says why" \
		grep -qE '(UNFIT|not shown fit) for latency measurement: .' "$OUT/tsc.txt"
else
	t_check "fit verdict" grep -q 'verdict: TSC fit' "$OUT/tsc.txt"
fi
wult tsc --cpus 99 > /dev/null 2>&1
t_eq "a CPU that does not exist is a usage error" 2 $?
t_done
