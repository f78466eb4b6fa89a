#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# probe_insns.py KO [FUNC] [CALLEE]: instructions executed from the entry of
# FUNC (default wult_idle_probe) to the call of CALLEE (default ktime_get,
# the TAI read; "rdtsc" for the first TSC read, counted with it) along the
# shortest path of FUNC's control-flow graph, from
# `objdump -dr` of the module. NOP padding counts 0; an rdtsc followed by
# NOPs is an alternative site patched at boot to lfence;rdtsc, counted 2.
# Prints the count, or exits 1 if the call is not reachable.

import heapq
import re
import subprocess
import sys

ko = sys.argv[1]
func = sys.argv[2] if len(sys.argv) > 2 else "wult_idle_probe"
callee = sys.argv[3] if len(sys.argv) > 3 else "ktime_get"

out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", ko],
                     capture_output=True, text=True, check=True).stdout
body = []
inside = False
for line in out.splitlines():
    if re.match(r"^[0-9a-f]+ <%s>:$" % re.escape(func), line):
        inside = True
        continue
    if inside:
        if not line.strip():
            break
        body.append(line)
if not body:
    sys.exit("probe_insns: %s not found in %s" % (func, ko))

insns = []          # [addr, mnemonic, operands, reloc]
for line in body:
    m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
    r = re.match(r"^\s+[0-9a-f]+: (R_\S+)\s+(\S+)", line)
    if r and insns:
        insns[-1][3] = r.group(2)
    elif m:
        insns.append([int(m.group(1), 16), m.group(2), m.group(3), ""])

index = {ins[0]: i for i, ins in enumerate(insns)}


def cost(i):
    mn = insns[i][1]
    if mn.startswith("nop"):
        return 0
    if mn == "rdtsc" and i + 1 < len(insns) and insns[i + 1][1].startswith("nop"):
        return 2
    return 1


def succs(i):
    mn, ops = insns[i][1], insns[i][2]
    nxt = [i + 1] if i + 1 < len(insns) else []
    if mn.startswith("ret") or mn in ("ud2", "int3"):
        return []
    tgt = re.match(r"^([0-9a-f]+) <", ops)
    if mn.startswith("j"):
        t = [index[int(tgt.group(1), 16)]] if tgt and int(tgt.group(1), 16) in index else []
        return t if mn == "jmp" else t + nxt
    return nxt


dist = {0: cost(0)}
heap = [(cost(0), 0)]
while heap:
    d, i = heapq.heappop(heap)
    if d > dist.get(i, 1 << 30):
        continue
    if callee == "rdtsc" and insns[i][1] == "rdtsc":
        print(d)
        sys.exit(0)
    if insns[i][1].startswith("call") and insns[i][3].startswith(callee + "-"):
        print(d)
        sys.exit(0)
    for j in succs(i):
        nd = d + cost(j)
        if nd < dist.get(j, 1 << 30):
            dist[j] = nd
            heapq.heappush(heap, (nd, j))
sys.exit("probe_insns: no call of %s reachable in %s" % (callee, func))
