# SPDX-License-Identifier: GPL-2.0
# gdb -batch -x trace_wake_gdb.py, for trace_wake.sh: once the guest says
# READY (in TRACE_LOG), attach to QEMU's gdb server (TRACE_PORT), let 50
# idle entries pass, then single-step TRACE_WAKES wakes, each from the
# return of wult_refidle's masked enter() to its next call, writing
# "PC RSP" per instruction to TRACE_OUT ("WAKE N" before each) and the
# modules' function symbols to TRACE_OUT.syms. QEMU steps with IRQs on and
# its timers off (sstep flags 0x5): the wake's interrupt, already pending
# at the idle exit, is taken as in a free run; without NOTIMER the virtual
# clock jumps to the next deadline at every step.
import os
import re
import subprocess
import time

import gdb

port, log, out = os.environ["TRACE_PORT"], os.environ["TRACE_LOG"], os.environ["TRACE_OUT"]
wakes = int(os.environ.get("TRACE_WAKES", "3"))
kodir = os.environ["TRACE_KODIR"]
MAX_STEPS = 300000      # a wake is ~2,000-6,000: a runaway trace stops here

t0 = time.time()
while True:
    try:
        txt = open(log, errors="replace").read()
    except OSError:
        txt = ""
    if "READY" in txt:
        break
    if time.time() - t0 > 900:
        raise SystemExit("trace_wake: the guest never said READY")
    time.sleep(0.5)


def modsyms():
    """(address, name) of every function of the two modules, from their
    sections' load addresses and the .ko files' symbol tables."""
    secaddr = {(m[0], m[1]): int(m[2], 16)
               for m in re.findall(r"SEC (\S+) (\S+) 0x([0-9a-f]+)", txt)}
    syms = []
    for mod in ("wult", "wult_refidle"):
        ko = "%s/%s.ko" % (kodir, mod)
        run = lambda opt: subprocess.run(["readelf", opt, ko], capture_output=True,
                                         text=True, check=True).stdout.splitlines()
        secs = {}
        for line in run("-SW"):
            m = re.match(r"\s*\[\s*(\d+)\]\s+(\S+)", line)
            if m:
                secs[m.group(1)] = m.group(2)
        for line in run("-sW"):
            p = line.split()
            if len(p) >= 8 and p[3] == "FUNC" and (mod, secs.get(p[6])) in secaddr:
                syms.append((secaddr[(mod, secs[p[6]])] + int(p[1], 16), p[7]))
    return syms


syms = modsyms()
with open(out + ".syms", "w") as f:
    for a, n in syms:
        f.write("%x %s\n" % (a, n))
enter = dict((n, a) for a, n in syms)["refidle_enter_masked"]

gdb.execute("set pagination off")
gdb.execute("set architecture i386:x86-64")
gdb.execute("target remote 127.0.0.1:%s" % port)
gdb.execute("maint packet Qqemu.sstep=0x5")


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xffffffffffffffff


def retaddr():
    return int(gdb.parse_and_eval("*(unsigned long *)$rsp")) & 0xffffffffffffffff


bp = gdb.Breakpoint("*%#x" % enter, internal=True)
for _ in range(50):
    gdb.execute("continue")
ra = retaddr()
bp.delete()
with open(out, "w") as f:
    for w in range(wakes):
        gdb.Breakpoint("*%#x" % ra, internal=True, temporary=True)
        gdb.execute("continue")
        f.write("WAKE %d\n" % w)
        for _ in range(MAX_STEPS):
            gdb.execute("stepi", to_string=True)
            pc = reg("pc")
            f.write("%x %x\n" % (pc, reg("rsp")))
            if pc == enter:
                break
        ra = retaddr()
gdb.execute("kill")
