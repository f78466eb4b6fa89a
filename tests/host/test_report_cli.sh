#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report's perf-style command line: -i/--input, the default input
# (./wult.data, else ./perf.data), --per-cpu against counts computed here
# from the CSV export, filter numbers without a unit in microseconds (intel
# wult's unit), and the warning for a format that lacks a payload field.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
WREL=$build/rel/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

count() {
	sed -n "s/^$2: \([0-9]*\) datapoints.*/\1/p" "$1"
}

$WREL synth -o "$tmp/a.data" -c 2000 -s 3 --cpus 3 >/dev/null
$WREL synth -o "$tmp/b.data" -c 500 -s 4 >/dev/null

# ---- inputs ----
"$W" report "$tmp/a.data" > "$tmp/pos.rep"
"$W" report -i "$tmp/a.data" > "$tmp/i.rep"
t_eq "-i FILE: exit 0" 0 $?
t_check "-i FILE reports as FILE does" cmp -s "$tmp/pos.rep" "$tmp/i.rep"
"$W" report --input "$tmp/a.data" "$tmp/b.data" > "$tmp/d.rep"
t_check "--input and FILE together make a diff" grep -q '^\[2\] .*/b.data' "$tmp/d.rep"
mkdir "$tmp/cwd"
cp "$tmp/b.data" "$tmp/cwd/perf.data"
(cd "$tmp/cwd" && "$W" report) > "$tmp/def1.rep"
t_eq "no FILE: ./perf.data when there is no ./wult.data" 500 "$(count "$tmp/def1.rep" all)"
cp "$tmp/a.data" "$tmp/cwd/wult.data"
(cd "$tmp/cwd" && "$W" report) > "$tmp/def2.rep"
t_eq "no FILE: ./wult.data first" 2000 "$(count "$tmp/def2.rep" all)"
"$W" report -i "$tmp/nope.data" > /dev/null 2> "$tmp/err"
t_eq "-i of a missing file: exit 1" 1 $?
t_check "-i of a missing file: named" grep -q "nope.data" "$tmp/err"
"$W" report -i > /dev/null 2> "$tmp/err"
t_eq "-i without its FILE: exit 2" 2 $?

# ---- --per-cpu: counts per CPU and state, from the CSV's CPU column ----
"$W" report --csv "$tmp/res/" "$tmp/a.data" > /dev/null
"$W" report --per-cpu "$tmp/a.data" > "$tmp/pc.rep"
t_eq "--per-cpu: exit 0" 0 $?
exp=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "CPU") c = i
		if ($i == "ReqCState") s = i }; next }
	{ n["CPU" $c " " $s]++ } END { for (k in n) print k ": " n[k] }' \
	"$tmp/res/datapoints.csv" | sort)
got=$(sed -n 's/^\(CPU[0-9]* [A-Za-z0-9]*\): \([0-9]*\) datapoints.*/\1: \2/p' \
	"$tmp/pc.rep" | sort)
t_eq "--per-cpu: a group per CPU and state, counts as in the CSV" "$exp" "$got"
t_eq "--per-cpu: 3 CPUs" 3 "$(echo "$got" | cut -d' ' -f1 | sort -u | wc -l)"
t_eq "--per-cpu: all still counts every datapoint" 2000 "$(count "$tmp/pc.rep" all)"

# ---- filter numbers without a unit: microseconds for time metrics ----
n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "WakeLatency") c = i; next }
	$c + 0 > 10' "$tmp/res/datapoints.csv" | wc -l)
"$W" report --include 'WakeLatency > 10' "$tmp/a.data" > "$tmp/f1.rep"
t_eq "'WakeLatency > 10' means 10 us (awk over the CSV: $n)" "$n" "$(count "$tmp/f1.rep" all)"
"$W" report --include 'WakeLatency > 10us' "$tmp/a.data" > "$tmp/f2.rep"
t_eq "the same as 'WakeLatency > 10us'" "$n" "$(count "$tmp/f2.rep" all)"
"$W" report --include 'WakeLatency > 10000ns' "$tmp/a.data" > "$tmp/f3.rep"
t_eq "the same as 'WakeLatency > 10000ns'" "$n" "$(count "$tmp/f3.rep" all)"

# ---- a format that lacks a payload field ----
grep -v 'intr_off;' "$top/tests/data/wult_datapoint.format" > "$tmp/noi.format"
"$W" report --format "$tmp/noi.format" "$top/tests/data/wult_pmu_group.data" \
	> "$tmp/w.rep" 2> "$tmp/w.err"
t_eq "format without intr_off: exit 0" 0 $?
t_check "it warns on stderr, naming the field" \
	grep -q 'warning: the wult:datapoint format lacks intr_off' "$tmp/w.err"
t_check "and in the report" grep -q 'warning: .*lacks intr_off' "$tmp/w.rep"
"$W" report --format "$top/tests/data/wult_datapoint.format" \
	"$top/tests/data/wult_pmu_group.data" > /dev/null 2> "$tmp/w2.err"
t_check "the full format: no warning" sh -c "! grep -q warning '$tmp/w2.err'"

# ---- an allocation failure in the statistics ----
# A preloaded mmap() refuses the 8 KiB mappings the statistics take when a
# value's count passes 255 (lib/stats/stats.c, promote()): the report must say so
# and fail, not print NaN percentiles.
if cc -shared -fPIC -o "$tmp/failmmap.so" -x c - -ldl <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

void *mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	const char *s = getenv("FAIL_MMAP_LEN");

	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	if (s && (flags & MAP_ANONYMOUS) && len == strtoul(s, NULL, 0)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return real(a, len, prot, flags, fd, off);
}
EOF
then
	{ echo "WakeLatency,ReqCState"; for i in $(seq 300); do echo "1.000,C1"; done; } \
		> "$tmp/same.csv"
	"$WREL" report "$tmp/same.csv" > "$tmp/same.rep"
	t_eq "300 equal values: exit 0" 0 $?
	FAIL_MMAP_LEN=8192 LD_PRELOAD="$tmp/failmmap.so" "$WREL" report "$tmp/same.csv" \
		> "$tmp/nomem.rep" 2> "$tmp/nomem.err"
	t_eq "statistics out of memory: exit 1" 1 $?
	t_check "it says which statistics failed, and why" grep -q \
		"same.csv: statistics of WakeLatency: Cannot allocate memory" "$tmp/nomem.err"
	t_check "and prints no report" test ! -s "$tmp/nomem.rep"
else
	t_skip "no C compiler for the mmap() shim"
fi
t_done
