#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trace_wake.sh [--build DIR] [--kernel K] [--wakes N] MODE OUT: every
# instruction of N (3) wakes of vm_insns.sh's setup in a guest of kernel K
# (6.1), single-stepped through QEMU's gdb server (vm-run --gdb): OUT gets
# "PC RSP" per instruction, OUT.syms the modules' functions, and
# trace_parts.py then says where the instructions went, per part or per
# function (Documentation/bench.md, "Where a wake's instructions go").
# MODE: base, cnt_hrt, cnt_tdt, rec_hrt, rec_tdt (trace_wake_guest.sh).
# The kernel's symbols come from a guest's /proc/kallsyms, once per kernel,
# kept in the build's VM cache. About 2 min of host CPU a mode; needs gdb.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build kernel=6.1 wakes=3
while [ $# -gt 2 ]; do
	case "$1" in
	--build) build=$(cd "${2:?}" && pwd); shift 2 ;;
	--kernel) kernel=${2:?}; shift 2 ;;
	--wakes) wakes=${2:?}; shift 2 ;;
	*) echo "trace_wake.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done
[ $# = 2 ] || { echo "usage: trace_wake.sh [--build DIR] [--kernel K] [--wakes N] MODE OUT" >&2; exit 2; }
mode=$1 out=$2
command -v gdb > /dev/null || { echo "trace_wake.sh: needs gdb" >&2; exit 1; }
bench=$top/tests/bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ksyms=$build/vm/ksyms-$kernel.txt
if [ ! -s "$ksyms" ]; then
	WULT_BUILD=$build "$top/scripts/vm-run" --kernel "$kernel" --cpus 1 \
		--out "$work/ksyms" "$bench/trace_wake_guest.sh" ksyms > /dev/null
	mv "$work/ksyms/ksyms.txt" "$ksyms"
fi
port=$((20000 + RANDOM % 20000))
WULT_BUILD=$build "$top/scripts/vm-run" --kernel "$kernel" --cpus 1 --gdb $port \
	--timeout 1800 --out "$work/vm" "$bench/trace_wake_guest.sh" "$mode" \
	> "$work/log" 2>&1 &
vm=$!
rc=0
TRACE_PORT=$port TRACE_LOG=$work/log TRACE_OUT=$out TRACE_WAKES=$wakes \
	TRACE_KODIR=$build/kernel/$kernel timeout 1800 \
	gdb -nx -batch -x "$bench/trace_wake_gdb.py" > "$work/gdb.log" 2>&1 || rc=$?
# gdb's kill ends the guest; vm-run then reports a guest without a result.
wait $vm || true
if [ $rc != 0 ] || ! grep -q '^WAKE' "$out" 2>/dev/null; then
	echo "trace_wake.sh: no trace (gdb exit $rc):" >&2
	tail -n 5 "$work/gdb.log" "$work/log" >&2
	exit 1
fi
python3 "$bench/trace_parts.py" "$ksyms" "$out"
