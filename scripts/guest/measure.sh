#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# measure.sh CPU DATAPOINTS LDIST_MIN,LDIST_MAX: load wult.ko if needed,
# record DATAPOINTS datapoints on CPU and print the per-state report.
# Runs in the vm-run guest (make run) or on real hardware (wult-run --host).
set -euo pipefail
cpu=${1:-1} count=${2:-10000} ldist=${3:-0,4000}
pmu=/sys/bus/event_source/devices/wult

if [ ! -d $pmu ]; then
	insmod "$WULT_KO" || { echo "measure: cannot load $WULT_KO" >&2; exit 1; }
fi
echo "wult PMU: type $(cat $pmu/type), events: $(ls $pmu/events 2>/dev/null | tr '\n' ' ')"
echo "formats: $(cd $pmu/format && grep -H . ./* | sed 's|^\./||' | tr '\n' ' ')"
