#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The user-space files call each other in one direction only: from the
# symbols each object of the build defines and uses (nm), the graph of
# "file A uses a function or a table that file B defines" has no loop, in
# libwult (lib/) or in the wult command (perf-plugin/), and libwult uses
# nothing of the command. A piece two files share belongs to a third file
# below both (lib/README.md). Reads the ASan build's objects (no LTO).
# libwult shows its API alone: libwult.so exports exactly the functions
# of lib/include/wult/*.h (and lib/libwult.map lists them), no internal one.
# The same for wult.ko: no loop among kernel/**/*.c (the 6.12 build's objects;
# the PMU hands the engine a callback rather than being called by name).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}

cd "$top" || exit 1
srcs=$(git ls-files 'lib/*.c' 'perf-plugin/*.c' | grep -v '^perf-plugin/\(traceevent\|dlfilter\)/')
missing=0
for s in $srcs; do
	[ -f "$build/san/${s%.c}.o" ] || { t_fail "$s: no object in $build/san"; missing=1; }
done
[ $missing -eq 0 ] && t_ok "every source has its object ($(echo "$srcs" | wc -w) files)"

# graph: reads "source object" lines; prints the arrows going up from lib/,
# the loops, and the number of arrows.
graph() {
	python3 -c '
import collections, subprocess, sys
pairs = [l.split() for l in sys.stdin.read().splitlines() if l.strip()]
srcs = [p[0] for p in pairs]
defs, uses = {}, collections.defaultdict(set)
for s, o in pairs:
    nm = subprocess.run(["nm", "-P", o], capture_output=True, text=True).stdout
    for line in nm.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            uses[s].add(f[0])
        elif f[1] in "TDBRCVW":
            defs.setdefault(f[0], s)
edges, why = collections.defaultdict(set), collections.defaultdict(set)
for a, syms in uses.items():
    for sym in syms:
        b = defs.get(sym)
        if b and b != a:
            edges[a].add(b)
            why[a, b].add(sym)
for a in edges:
    for b in edges[a]:
        if a.startswith("lib/") and not b.startswith("lib/"):
            print("up: %s -> %s: %s" % (a, b, " ".join(sorted(why[a, b]))))
# Loops: the strongly connected components of more than one file (Tarjan).
index, low, stack, on, n = {}, {}, [], set(), [0]
def visit(v):
    index[v] = low[v] = n[0]
    n[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            print("loop: " + " ".join(sorted(comp)))
            for a in comp:
                for b in sorted(edges[a] & set(comp)):
                    print("  %s -> %s: %s" % (a, b, " ".join(sorted(why[a, b]))))
for v in srcs:
    if v not in index:
        visit(v)
print("edges %d" % sum(len(e) for e in edges.values()))
'
}

out=$(for s in $srcs; do echo "$s $build/san/${s%.c}.o"; done | graph)
echo "$out" | grep -v '^edges'
nedges=$(echo "$out" | sed -n 's/^edges //p')
t_check "the call graph was read ($nedges file-to-file arrows)" test "${nedges:-0}" -gt 50
t_eq "no file of lib/ uses the command's" "" "$(echo "$out" | grep '^up:')"
t_eq "no loop of files calling each other" "" "$(echo "$out" | grep '^loop:')"

# libwult's exports, held by the linker: the pic build's objects are
# compiled -fvisibility=hidden with the public headers' declarations in a
# visibility push(default), and libwult.so is linked with lib/libwult.map.
# What libwult.so exports (nm -D) must be the functions lib/include/wult/*.h
# declare (as the compiler reads them: -aux-info), no more (an internal
# function exported) and no less (an API function hidden); the map lists
# the same; the pic objects give default visibility to API functions only;
# the dlfilter, linked with the pic archive, exports none of them.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# declared DIR: the functions lib/include/DIR/*.h declare, one a line.
declared() {
	for h in lib/include/"$1"/*.h; do echo "#include \"${h#lib/include/}\""; done > "$tmp/$1.c"
	gcc -std=gnu11 -D_GNU_SOURCE -Ilib/include -Ikernel/uapi -I"$build/libperf/include" \
		-fsyntax-only -aux-info "$tmp/$1.aux" "$tmp/$1.c" || return
	sed -n "s|^/\* lib/include/$1/[^ ]* \*/ extern \(.*\)|\1|p" "$tmp/$1.aux" |
		sed 's/ (.*//; s/.*[ *]//' | sort -u
}
# names A B: the names of list A that list B lacks, on one line.
lacks() { comm -23 <(echo "$1") <(echo "$2") | tr '\n' ' ' | sed 's/ $//'; }
api=$(declared wult)
internal=$(declared internal)
t_check "the API was read ($(echo "$api" | wc -l) functions of lib/include/wult/)" \
	test "$(echo "$api" | wc -l)" -gt 100
t_check "the internal functions were read ($(echo "$internal" | wc -l))" \
	test "$(echo "$internal" | wc -l)" -gt 20
so=$build/pic/libwult.so
if [ -f "$so" ]; then
	exported=$(nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
	t_eq "libwult.so exports nothing outside the API" "" "$(lacks "$exported" "$api")"
	t_eq "libwult.so exports the whole API" "" "$(lacks "$api" "$exported")"
	t_eq "libwult.so exports no internal function" "" \
		"$(comm -12 <(echo "$internal") <(echo "$exported") | tr '\n' ' ')"
else
	t_fail "no $so (make user)"
fi
map=$(sed -n 's/^[[:space:]]*\([a-z_][a-z0-9_]*\);$/\1/p' lib/libwult.map | sort -u)
t_eq "lib/libwult.map lists no function outside the API" "" "$(lacks "$map" "$api")"
t_eq "lib/libwult.map lists the whole API" "" "$(lacks "$api" "$map")"
picdef=$(for s in $(git ls-files 'lib/*.c'); do
	o=$build/pic/${s%.c}.o
	[ -f "$o" ] || { echo "(no $o)"; continue; }
	readelf -sW "$o" | awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" { print $8 }'
done | sort -u)
t_eq "the pic objects (-fvisibility=hidden) leave only the API visible" "" "$(lacks "$picdef" "$api")"
for f in "$build"/plugins/dlfilter/*.so; do
	[ -f "$f" ] || { t_fail "no dlfilter in $build/plugins/dlfilter"; break; }
	t_eq "$(basename "$f") exports none of libwult" "" \
		"$(nm -D --defined-only "$f" | awk '{ sub(/@.*/, "", $3); print $3 }' |
			grep -E '^(wult|pd|tsc|dpctr|sw)_' | tr '\n' ' ')"
done

# wult.ko: every object the module links (Kbuild's wult-y).
kb=$build/kernel/6.12
kobjs=$(sed -n '/^wult-y/,/^$/p' kernel/Kbuild | tr -d '\\' | sed 's/^wult-y :=//' | tr -s ' \t' '\n' | grep '\.o$')
kmissing=0
for o in $kobjs; do
	[ -f "$kb/$o" ] || { t_fail "kernel/${o%.o}.c: no object in $kb"; kmissing=1; }
done
[ $kmissing -eq 0 ] && t_ok "wult.ko: every source has its object ($(echo "$kobjs" | wc -w) files)"
kout=$(for o in $kobjs; do echo "kernel/${o%.o}.c $kb/$o"; done | graph)
echo "$kout" | grep -v '^edges'
knedges=$(echo "$kout" | sed -n 's/^edges //p')
t_check "wult.ko's call graph was read ($knedges file-to-file arrows)" test "${knedges:-0}" -gt 20
t_eq "no loop of kernel/ files calling each other" "" "$(echo "$kout" | grep '^loop:')"
t_done
