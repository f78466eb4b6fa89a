#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The python helpers' datapoint layout (scripts/perf/wult_perf.py: DP,
# DP_FIELDS, DP2, DP2_FIELDS, DP4, DP4_FIELDS after the common header HDR) is the C side's:
# every field of kernel/uapi/linux/wult.h's list (WULT_DP_FIELDS, printed
# by tests/tools/dp_fields) at the same offset, with the same size and
# signedness, in the same order, none missing, none extra; and libwult's
# built-in format says the same (wult synth writes it into its files).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
tool=$build/rel/tools/dp_fields
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t_check "dp_fields built" test -x "$tool"
"$tool" > "$tmp/c.txt"
n=$(wc -l < "$tmp/c.txt")
t_check "the C list has fields ($n)" test "$n" -ge 23

# name offset size signed, from wult_perf.py's structs.
python3 - "$top/scripts/perf" > "$tmp/py.txt" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import wult_perf as w
off = w.HDR.size
for st, names in ((w.DP, w.DP_FIELDS), (w.DP2, w.DP2_FIELDS), (w.DP4, w.DP4_FIELDS)):
    counts = []
    num = ""
    for c in st.format.lstrip("<"):
        if c.isdigit():
            num += c
        else:
            counts += [c] * int(num or 1)
            num = ""
    assert len(counts) == len(names), (st.format, names)
    for c, name in zip(counts, names):
        size = struct.calcsize("<" + c)
        print(name, off, size, int(c.islower()))
        off += size
PY
cut -d' ' -f1-4 "$tmp/c.txt" > "$tmp/c4.txt"
t_check "wult_perf.py lays out every field as the C list ($(wc -l < "$tmp/py.txt") fields)" \
	cmp -s "$tmp/c4.txt" "$tmp/py.txt"
cmp -s "$tmp/c4.txt" "$tmp/py.txt" || diff "$tmp/c4.txt" "$tmp/py.txt" | head -5

# The built-in format (a synthetic file's TRACING_DATA holds it): the
# same names, offsets, sizes and signedness.
"$build/rel/wult" synth -o "$tmp/s.data" -c 10 >/dev/null 2>&1
grep -a -o 'field:[us][0-9]* [a-z_0-9]*;	offset:[0-9]*;	size:[0-9]*;	signed:[01];' \
	"$tmp/s.data" | sed 's/field:[us][0-9]* \([a-z_0-9]*\);	offset:\([0-9]*\);	size:\([0-9]*\);	signed:\([01]\);/\1 \2 \3 \4/' \
	> "$tmp/fmt.txt"
t_check "the built-in format lays out every field as the C list" cmp -s "$tmp/c4.txt" "$tmp/fmt.txt"

# wult-report.py's metric names: its CSV columns are columns libwult's
# metric table names (wult report --csv's header), and its time columns
# (written in us) the table's time metrics (which wult report lists when
# --metrics is given something else).
"$build/rel/wult" report --csv "$tmp/csv/" "$tmp/s.data" >/dev/null 2>&1
head -1 "$tmp/csv/datapoints.csv" | tr ',' '\n' | sort > "$tmp/c_cols.txt"
"$build/rel/wult" report --metrics none "$tmp/s.data" 2>&1 |
	sed -n 's/.*is not a time metric (\(.*\))$/\1/p' | sed 's/, /\n/g' | sort > "$tmp/c_time.txt"
python3 - "$top/scripts/perf/wult-report.py" "$tmp" <<'PY'
import ast, sys
names = {}
for node in ast.parse(open(sys.argv[1]).read()).body:
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        if node.targets[0].id in ("CSV_COLS", "TIME_COLS"):
            names[node.targets[0].id] = ast.literal_eval(node.value)
open(sys.argv[2] + "/py_cols.txt", "w").write("".join(c + "\n" for c in sorted(names["CSV_COLS"])))
open(sys.argv[2] + "/py_time.txt", "w").write("".join(c + "\n" for c in sorted(names["TIME_COLS"])))
PY
t_check "wult-report.py's CSV columns ($(wc -l < "$tmp/py_cols.txt")) are libwult's metrics" \
	test -z "$(comm -23 "$tmp/py_cols.txt" "$tmp/c_cols.txt")"
comm -23 "$tmp/py_cols.txt" "$tmp/c_cols.txt" | head -3
t_check "wult-report.py's time columns are libwult's time metrics ($(wc -l < "$tmp/c_time.txt"))" \
	cmp -s "$tmp/py_time.txt" "$tmp/c_time.txt"
t_done
