#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# probe_path.py KO FUNC: the longest path, in instructions, from FUNC's
# entry to a return or tail jump that passes no call, in `objdump -dr` of
# the module: the most one invocation of FUNC executes without calling out.
# NOP padding counts 0; an rdtsc followed by NOPs is an alternative site
# patched at boot to lfence;rdtsc, counted 2. Prints "INSNS RDTSCS" (the
# TSC reads on that path, ordered or not), or exits 1.

import functools
import re
import subprocess
import sys

ko, func = sys.argv[1], sys.argv[2]
out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", ko],
                     capture_output=True, text=True, check=True).stdout
insns = []
inside = False
for line in out.splitlines():
    if re.match(r"^[0-9a-f]+ <%s>:$" % re.escape(func), line):
        inside = True
        continue
    if not inside:
        continue
    if not line.strip():
        break
    m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
    if m and re.match(r"^R_", m.group(2)):
        # A relocated jump or call leaves the function (objdump shows the
        # unrelocated target, the next instruction).
        if insns and insns[-1][1].startswith(("j", "call")):
            insns[-1] = (insns[-1][0], insns[-1][1], "<external>")
    elif m:
        insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
if not insns:
    sys.exit("probe_path: %s not found in %s" % (func, ko))
index = {a: i for i, (a, _, _) in enumerate(insns)}


def is_rdtsc_site(i):
    return insns[i][1] == "rdtsc" and i + 1 < len(insns) and \
        insns[i + 1][1].startswith("nop")


def cost(i):
    mn = insns[i][1]
    if mn.startswith("nop") or mn in ("data16", "cs", "xchg") and "nop" in insns[i][2]:
        return 0
    return 2 if is_rdtsc_site(i) else 1


def succs(i):
    mn, ops = insns[i][1], insns[i][2]
    tgt = re.match(r"^([0-9a-f]+) <", ops)
    inner = tgt and int(tgt.group(1), 16) in index
    if mn.startswith("ret") or mn in ("ud2", "int3"):
        return []
    if mn == "jmp":
        return [index[int(tgt.group(1), 16)]] if inner else []  # tail jump
    nxt = [i + 1] if i + 1 < len(insns) else []
    if mn.startswith("j"):
        return ([index[int(tgt.group(1), 16)]] if inner else []) + nxt
    return nxt


@functools.lru_cache(maxsize=None)
def longest(i):
    """(instructions, rdtscs) of the longest call-free path from i, or None."""
    if insns[i][1].startswith("call"):
        return None
    here = (cost(i), 1 if insns[i][1] == "rdtsc" else 0)
    nx = succs(i)
    if not nx:
        return here
    best = None
    for j in nx:
        r = longest(j)
        if r is not None and (best is None or r > best):
            best = r
    if best is None:
        return None
    return (here[0] + best[0], here[1] + best[1])


sys.setrecursionlimit(10000)
r = longest(0)
if r is None:
    sys.exit("probe_path: every path of %s calls out" % func)
print(r[0], r[1])
