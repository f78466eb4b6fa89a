#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-cost: 22
# vm-args: --append highres=off
# vm-kernels: 6.12
# One kernel: the check is hrtimer_resolution, the same variable in 6.1,
# 6.12 and 6.12-rt, and the whole cost of this test is its own machine's
# boot (~20 s of host CPU per kernel).
# Without high resolution timers the hrtimer expires from the tick, up to a
# tick late: wult must refuse to measure, with a reason in the kernel log.
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1

t_check "booted with highres=off" grep -qw 'highres=off' /proc/cmdline
t_check "insmod" insmod "$WULT_KO"
perf stat -e wult/datapoints/ -C 1 -- sleep 0.5 > stat.out 2>&1
rc=$?
t_check "perf stat refused (rc=$rc)" test $rc -ne 0 -o -n "$(grep -E 'not supported|Operation not supported' stat.out)"
perf record -e wult/datapoints/ -C 1 -o r.data -- sleep 0.5 > rec.out 2>&1
# perf's words for EOPNOTSUPP on a sampling event.
t_check "perf record fails with EOPNOTSUPP" grep -q "doesn't support sampling" rec.out
wult record -q -C 1 -c 10 -o w.data > wrec.out 2>&1
t_check "wult record fails" test $? -ne 0
t_check "dmesg says why" sh -c 'dmesg | grep -q "wult: no high resolution timers"'
t_eq "nothing armed" 0 "$(wult_cnt 1 armed)"
t_check "rmmod" rmmod wult
t_done
