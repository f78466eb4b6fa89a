#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reproduces the rare datapoint counted but not sampled (issue 11 m) in a
# guest: scripts/vm-run --kernel 6.12 --timeout 400 scripts/repro/unsampled.sh [RUNS]
# Prints wult record's summary of each run (which says whether the kernel
# counted the missing samples as lost) and wult.ko's counters.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
insmod "$WULT_KO" || exit 1
for i in $(seq "${1:-4}"); do
	wult record -C 1 -c 40000 --ldist 50,300 -o "r$i.data" 2> "r$i.err"
	echo "run $i: exit $? $(grep 'counted but not sampled' "r$i.err")"
	grep -v 'counted but not sampled' "r$i.err"
done
cat /sys/kernel/debug/wult/stats
rmmod wult
