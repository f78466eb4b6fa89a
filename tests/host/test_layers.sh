#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The user-space files call each other in one direction only: from the
# symbols each object of the build defines and uses (nm), the graph of
# "file A uses a function or a table that file B defines" has no loop, in
# libwult (lib/) or in the wult command (perf-plugin/), and libwult uses
# nothing of the command. A piece two files share belongs to a third file
# below both (lib/README.md). Reads the ASan build's objects (no LTO).
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

out=$(echo "$srcs" | python3 -c '
import collections, os, subprocess, sys
build = sys.argv[1]
srcs = sys.stdin.read().split()
defs, uses = {}, collections.defaultdict(set)
for s in srcs:
    nm = subprocess.run(["nm", "-P", os.path.join(build, "san", s[:-2] + ".o")],
                        capture_output=True, text=True).stdout
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
' "$build")
echo "$out" | grep -v '^edges'
nedges=$(echo "$out" | sed -n 's/^edges //p')
t_check "the call graph was read ($nedges file-to-file arrows)" test "${nedges:-0}" -gt 50
t_eq "no file of lib/ uses the command's" "" "$(echo "$out" | grep '^up:')"
t_eq "no loop of files calling each other" "" "$(echo "$out" | grep '^loop:')"
t_done
