#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 3
# `wult tsc` in a guest, where perf's mmap page exposes TSC time: both CPUs
# are evaluated, calibration agrees with the kernel, perf-page conversion
# parameters exist, and the verdict comes with its reasons and exit status.
. "$WULT_SRC/tests/lib.sh"

wult tsc > "$OUT/tsc.txt" 2>&1
rc=$?
cat "$OUT/tsc.txt"
t_check "exit status is fit (0), unfit (1) or could not conclude (3), not an error (got $rc)" \
	test $rc -le 1 -o $rc -eq 3
t_check "both CPUs evaluated" grep -qE '^ +1 ' "$OUT/tsc.txt"
# A busy host can keep TCG's vCPUs from running together; then the
# evaluation may not conclude, which must be said, not hidden.
if [ $rc -eq 3 ]; then
	t_check "could not conclude, and says which method bounded the shift" \
		grep -qE '^verdict: could not conclude: .* by (CAS-ordered probes|CPU switching)' "$OUT/tsc.txt"
fi
ppm=$(sed -nE 's/.*, ([+-][0-9.]+) ppm from the kernel.s.*/\1/p' "$OUT/tsc.txt")
t_check "calibration within 50 ppm of the kernel (${ppm:-none} ppm)" \
	awk -v p="${ppm:-1e9}" 'BEGIN { exit !(p < 50 && p > -50) }'
t_check "perf sample-time conversion available" \
	grep -q '^conversion (perf sample time): mult [0-9]' "$OUT/tsc.txt"
if [ $rc -eq 1 ]; then
	t_check "unfit verdict says why" \
		grep -qE 'UNFIT for latency measurement: .' "$OUT/tsc.txt"
elif [ $rc -eq 0 ]; then
	t_check "fit verdict names its method" \
		grep -qE 'verdict: TSC fit .*bounded by (CAS-ordered probes|CPU switching)' "$OUT/tsc.txt"
fi
wult tsc --cpus 99 > /dev/null 2>&1
t_eq "a CPU that does not exist is a usage error" 2 $?
t_done
