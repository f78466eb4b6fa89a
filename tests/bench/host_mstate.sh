#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The idle accounting's cost per idle transition (issue 15's goal: <= 30 ns
# per transition; a transition is one cpu_idle probe call, an idle entry
# or an idle exit), counted from each kernel's build of wult.ko: the
# longest call-free path through the probe, the most one call executes
# with accounting on and no datapoint measurement, in instructions and TSC
# reads (CPUs without an accounting event take 3 instructions more than
# before the accounting existed). The ns cannot be measured here: no
# module loads on this host and a TCG guest's ns say nothing of a real
# CPU; bench_mstate times the same work in user space. A kernel without
# its wult.ko is a SKIP line (run-bench counts them); a probe the script
# cannot follow fails the run.
build=${WULT_BUILD:-$(dirname "$0")/../../build}
rc=0
for k in 6.1 6.12 6.12-rt; do
	ko=$build/kernel/$k/wult.ko
	[ -f "$ko" ] || { echo "  SKIP $k: $ko missing (make modules)"; continue; }
	read -r n t < <(python3 "$(dirname "$0")/probe_path.py" "$ko" wult_idle_probe) ||
		{ echo "  FAILED: $k: wult_idle_probe not measurable"; rc=1; continue; }
	printf '  %-8s cpu_idle probe per idle transition, accounting on: <= %d instructions, %d TSC read\n' \
		"$k" "$n" "$t"
done
exit $rc
