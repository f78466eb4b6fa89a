#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every command example of README.md and Documentation/*.md runs (issue 40
# item 4), so the docs cannot drift from the commands again. The examples
# are the `wult ...` and `perf ...` lines of the code blocks (a `$ ` prompt
# and a trailing `# comment` dropped, `\` continuations joined); a line
# that names a command's output ("wult record: ...") or its synopsis
# ("[options]", "[-C CPUS]", COMMAND) is not one.
#
# Run on this host, each in a directory of its own against synthetic data
# (`wult synth`: every *.data the line reads, and ./wult.data, ./perf.data,
# with states POLL, C1, C6 on two CPUs; an intel wult result where one is
# named): every line that needs nothing but files, which must exit 0 (3
# where it has a --fail-if: the condition held, as documented).
#
# Marked "needs wult.ko" (a line with wult record, wult hist, wult sweep,
# perf record, perf stat, perf list, trace-cmd or /sys/kernel/debug): checked
# without the module, as far as a host can: each wult record and wult hist in
# it is run (each wult sweep with --dry-run: its plan, nothing recorded)
# and must get past its options (any exit but 2, the usage error: without
# wult.ko they stop at the PMU or the histogram directory); each wult
# event (wult/NAME,TERM=V/) must name wult.ko's event aliases and format
# terms (kernel/core/wult_pmu_kinds.c's kinds, the uapi header's
# WULT_CFG_TERMS) and each wult:NAME a tracepoint of
# kernel/trace/wult_trace.h; every scripts/ or build/ path named must exist.
# The guest suites run these for real (tests/vm/).
#
# Marked "needs a SUT" (wult deploy, or any line with -H HOST): the same,
# with an ssh on PATH that reaches nothing and fails as ssh does when the
# host is down (exit 255): the line must get past its options (any exit but
# 2), and no example reaches a machine, not even a name lookup.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${WULT_BUILD:-$top/build}" && pwd)
W=$build/rel/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v perf > /dev/null || { t_skip "no perf on this host: the perf script examples cannot run"; }
mkdir -p "$tmp/bin" "$tmp/share"
ln -s "$W" "$tmp/bin/wult"
# wult script's pieces from this build and this tree, wherever the build is.
ln -s "$build/plugins/traceevent" "$tmp/share/traceevent"
ln -s "$build/plugins/dlfilter" "$tmp/share/dlfilter"
ln -s "$top/scripts/perf" "$tmp/share/scripts"
printf '#!/bin/sh\necho "ssh: doc examples reach no host" >&2\nexit 255\n' > "$tmp/bin/ssh"
chmod +x "$tmp/bin/ssh"

python3 - "$top" "$build" "$tmp" > "$tmp/results" <<'EOF'
import glob, os, re, shlex, shutil, subprocess, sys

top, build, tmp = sys.argv[1:4]
env = dict(os.environ, PATH=tmp + "/bin:" + os.environ["PATH"],
           WULT_SHARE_DIR=tmp + "/share", ASAN_OPTIONS="detect_leaks=0")
W = tmp + "/bin/wult"

def read(path):
    with open(path) as f:
        return f.read()

# What wult.ko offers perf: event aliases, format terms, tracepoints.
pmu = read(top + "/kernel/core/wult_pmu_kinds.c")
aliases = set(re.findall(r'\[WULT_KIND_\w+\]\s*=\s*\{\s*\.name\s*=\s*"(\w+)"', pmu))
terms = set(re.findall(r'^\s*X\((\w+), config[12]?, \d+, \d+\)', read(top + "/kernel/uapi/linux/wult.h"), re.M))
terms |= {"period", "freq", "name", "config", "config1", "config2"}	# perf's own
tracepoints = set(re.findall(r'TRACE_EVENT\((\w+),', read(top + "/kernel/trace/wult_trace.h")))

def examples():
    """(file:line, command) of every example in the docs' code blocks."""
    files = [top + "/README.md"] + sorted(glob.glob(top + "/Documentation/*.md"))
    for path in files:
        lines = read(path).split("\n")
        rel = os.path.relpath(path, top)
        fenced = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("```"):
                fenced = not fenced
                i += 1
                continue
            if not fenced and not line.startswith("    "):
                i += 1
                continue
            start = i
            cmd = line.strip()
            i += 1
            if cmd.startswith("$ "):
                cmd = cmd[2:]
            if not re.match(r"(wult|perf)( [a-z-]+( |$)|$)", cmd):
                continue
            # continuations: a trailing backslash, or a quote left open
            while i < len(lines) and (cmd.endswith("\\") or not balanced(cmd)):
                cmd = (cmd[:-1] if cmd.endswith("\\") else cmd + "\n") + " " + lines[i].strip()
                i += 1
            if re.match(r"(wult|perf) [\w-]+:", cmd):		# an output line
                continue
            if re.search(r"\[-|\[options\]|\bCOMMAND\b|\[perf script options\]", cmd):
                continue					# a synopsis
            cmd = strip_comment(cmd)
            yield "%s:%d" % (rel, start + 1), cmd

def balanced(s):
    try:
        shlex.split(s, comments=False)
        return True
    except ValueError:
        return False

def strip_comment(cmd):
    """The command without a trailing '# comment' outside quotes."""
    q = None
    for j, c in enumerate(cmd):
        if q:
            q = None if c == q else q
        elif c in "'\"":
            q = c
        elif c == "#" and j and cmd[j - 1] in " \t":
            return cmd[:j].rstrip()
    return cmd

MODULE = re.compile(r"\bwult (record|hist|sweep|deploy)\b|\bperf (record|stat|list)\b|trace-cmd|/sys/kernel/debug|insmod|modprobe")

def segments(cmd):
    """The simple commands of a line, as argument lists (the first line only
    of a multi-line one: the rest is a program for awk or python)."""
    lex = shlex.shlex(cmd.split("\n")[0], posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    argv = []
    try:
        for tok in lex:
            if tok in ("&&", "||", "|", ";", "&"):
                yield argv
                argv = []
            else:
                argv.append(tok)
    except ValueError:
        pass
    yield argv

def event_specs(arg):
    """'{a/x,y/,b}:S' -> ['a/x,y/', 'b']: commas inside /.../ are terms."""
    arg = re.sub(r"^\{|\}(:\w+)?$", "", arg)
    out, cur, depth = [], "", False
    for c in arg:
        if c == "/":
            depth = not depth
        if c == "," and not depth:
            out.append(cur)
            cur = ""
        else:
            cur += c
    return out + [cur] if cur else out

def check_event(spec):
    m = re.match(r"wult/([^/]*)/\w*$", spec)
    if m:
        for t in m.group(1).split(","):
            key = t.split("=")[0]
            if key and key not in aliases and key not in terms:
                return "wult.ko has no event or term '%s' (in %s)" % (key, spec)
        return None
    m = re.match(r"wult:(\w+)$", spec)
    if m and m.group(1) not in tracepoints:
        return "wult.ko has no tracepoint wult:%s" % m.group(1)
    if spec.startswith("wult") and not m:
        return "not a wult event: %s" % spec
    return None

def dry(cmd, wd):
    """A line that needs wult.ko, checked without it: None or what is wrong."""
    for argv in segments(cmd):
        if not argv:
            continue
        for a in argv:
            if (a.startswith("scripts/") and not os.path.exists(os.path.join(top, a))) or \
               (a.startswith("build/") and not os.path.exists(os.path.join(build, a[6:]))):
                return "names %s, which does not exist" % a
        if argv[0] == "perf":
            for j, a in enumerate(argv):
                if a == "-e" and j + 1 < len(argv):
                    for spec in event_specs(argv[j + 1]):
                        why = check_event(spec)
                        if why:
                            return why
        if argv[:2] == ["wult", "sweep"]:	# its plan only: nothing recorded
            argv = argv[:2] + ["--dry-run"] + argv[2:]
        if argv[:2] in (["wult", "record"], ["wult", "hist"], ["wult", "sweep"],
                        ["wult", "deploy"]):
            try:
                p = subprocess.run([W] + argv[1:], cwd=wd, env=env, stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, timeout=30)
            except subprocess.TimeoutExpired:
                return "%s did not stop within 30 s without wult.ko" % " ".join(argv[:2])
            # A CPU this host lacks is the host's fact, not the example's.
            if p.returncode == 2 and "does not exist" not in p.stderr:
                return "%s refused its options: %s" % (" ".join(argv[:2]),
                                                       p.stderr.strip().split("\n")[-1])
    return None

def synth(wd, name, seed):
    subprocess.run([W, "synth", "-o", os.path.join(wd, name), "-c", "3000", "-s", str(seed),
                    "--nr-cpus", "2", "--nr-cstates", "3", "--cstate-names", "POLL,C1,C6"],
                   env=env, check=True, capture_output=True)

def prepare(cmd, wd):
    """The inputs the line reads, made in its directory."""
    os.makedirs(wd)
    os.symlink(top + "/scripts", wd + "/scripts")
    os.symlink(top + "/tests", wd + "/tests")
    os.symlink(build, wd + "/build")
    synth(wd, "wult.data", 1)
    synth(wd, "perf.data", 1)
    seed = 2
    for argv in segments(cmd):
        for j, a in enumerate(argv):
            prev = argv[j - 1] if j else ""
            if prev in ("-o", "--output", "--html", "--csv") or a.startswith("--json="):
                continue
            if a.endswith(".data") and not os.path.exists(os.path.join(wd, a)):
                synth(wd, a, seed)
                seed += 1
            elif re.match(r"intel-wult-results/", a) and not os.path.exists(os.path.join(wd, a)):
                shutil.copytree(top + "/tests/data/intel-wult/good", os.path.join(wd, a))

n = 0
for where, cmd in examples():
    n += 1
    wd = "%s/ex%d" % (tmp, n)
    short = cmd.split("\n")[0]
    short = short if len(short) < 90 else short[:87] + "..."
    if MODULE.search(cmd):
        os.makedirs(wd)
        why = dry(cmd, wd)
        need = "a SUT" if re.search(r"\bwult deploy\b| -H ", cmd) else "wult.ko"
        print("%s\t%s: %s (needs %s: options and events checked)%s" %
              ("ok" if not why else "not ok", where, short, need, ": " + why if why else ""))
        continue
    prepare(cmd, wd)
    try:
        # stdin not a pipe: perf script would read a pipe-mode perf.data from it
        p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], cwd=wd, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=120)
        rc, err = p.returncode, p.stderr.strip().split("\n")[-1] if p.stderr.strip() else ""
    except subprocess.TimeoutExpired:
        rc, err = -1, "timed out"
    want = (0, 3) if "--fail-if" in cmd else (0,)
    print("%s\t%s: %s (exit %d%s)" % ("ok" if rc in want else "not ok", where, short, rc,
                                      "" if rc in want else ": " + err))
print("count\t%d" % n)
EOF
t_eq "the example extraction ran" 0 $?
while IFS=$'\t' read -r st what; do
	case $st in
	ok) t_ok "$what" ;;
	count) count=$what ;;
	*) t_fail "$what" ;;
	esac
done < "$tmp/results"
# The extraction must find the examples: a docs reshuffle that hides them
# from it (another block style) must not pass as "nothing failed".
t_check "at least 80 examples found (${count:-0})" test "${count:-0}" -ge 80
t_done
