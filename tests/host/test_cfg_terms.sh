#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The "wult" PMU's config terms and its sources are one list each in
# kernel/uapi/linux/wult.h (WULT_CFG_TERMS, WULT_SOURCES); the C side reads
# them through what the lists generate (tests/tools/cfg_terms prints the
# accessors' view). Held to it here: the Python mirror
# (scripts/perf/wult_perf.py's CFG_TERMS and SOURCES, same names, words,
# bits and ids), Documentation/kernel.md's config table (each term's bits
# as sysfs format/ shows them: "config:0-15", "config2:16" for one bit),
# and the sysfs strings wult.ko showed before the list existed (the
# format/ files of a 6.12 guest, kept in tests/vm/wult_format.txt for
# tests/vm/engine.sh too: guests get no tests/data).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
tool=$build/rel/tools/cfg_terms
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t_check "cfg_terms built" test -x "$tool"
"$tool" > "$tmp/c.txt"
t_eq "every generated accessor agrees with its word's known bits" "" \
	"$(grep '^bad' "$tmp/c.txt")"
t_eq "the C lists: 11 terms, 4 sources" "11 4" \
	"$(grep -c '^term' "$tmp/c.txt") $(grep -c '^source' "$tmp/c.txt")"

python3 - "$top/scripts/perf" > "$tmp/py.txt" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wult_perf as w
for name, (word, lo, hi) in w.CFG_TERMS.items():
    print("term", name, word, lo, hi)
for i, name in sorted(w.SOURCES.items()):
    print("source", i, name)
PY
t_eq "wult_perf.py's terms and sources are the header's" "$(cat "$tmp/c.txt")" \
	"$(cat "$tmp/py.txt")"

# "name: word:lo-hi" as sysfs format/ shows a term.
awk '$1 == "term" { printf "%s: %s:%s%s\n", $2, $3, $4, ($4 == $5 ? "" : "-" $5) }' \
	"$tmp/c.txt" | sort > "$tmp/fmt.txt"
t_eq "wult.ko's format/ strings (tests/vm/wult_format.txt)" \
	"$(sort "$top/tests/vm/wult_format.txt")" "$(cat "$tmp/fmt.txt")"
sed -n 's/^| `\([a-z_0-9]*\)` | \(config[12]\{0,1\}:[0-9-]*\) |.*/\1: \2/p' \
	"$top/Documentation/kernel.md" | sort > "$tmp/doc.txt"
t_eq "kernel.md's config table names every term with its bits" \
	"$(cat "$tmp/fmt.txt")" "$(cat "$tmp/doc.txt")"
t_done
