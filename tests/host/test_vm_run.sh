#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# scripts/vm-run itself: arguments, exit status, file transfer, timeout and
# the kernel-log check must all be able to fail a run.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
vr=$top/scripts/vm-run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$vr" --bogus x >/dev/null 2>&1
t_eq "unknown option exits 2" 2 $?
"$vr" "$tmp/nonexistent.sh" >/dev/null 2>&1
t_eq "missing script exits 2" 2 $?
"$vr" --kernel 5.10 /bin/true >/dev/null 2>&1
t_check "unknown kernel fails" test $? -ne 0
"$vr" --clock tsc /bin/true >/dev/null 2>"$tmp/cerr"
t_eq "unknown clock exits 2" 2 $?
t_check "and names the problem" grep -q -- "--clock must be icount or host, not 'tsc'" "$tmp/cerr"
"$vr" --slice 0 /bin/true >/dev/null 2>"$tmp/cerr"
t_eq "--slice 0 exits 2" 2 $?
t_check "and names the problem" grep -q -- "--slice must be a positive integer (us)" "$tmp/cerr"
"$vr" --clock host --slice 50 /bin/true >/dev/null 2>"$tmp/cerr"
t_eq "--slice on the host's clock exits 2" 2 $?
t_check "and says why" grep -q -- "--slice needs --clock icount" "$tmp/cerr"

# The VM suite's default machine (run-tests' vm_args), make run's but for
# its slices (scripts/wult-run): its saved guest is restored here instead of
# booting a machine of this test's own (~20 s of host CPU a boot). Only the
# runs below that check a boot boot.
m=(--nic rtl8139)

cat > "$tmp/g.sh" <<'G'
#!/bin/bash
echo "args:$#:$1:$2"
head -c 100000 /dev/urandom > "$OUT/blob"
sha1sum "$OUT/blob" | cut -d' ' -f1 > "$OUT/blob.sha1"
test -d /sys/kernel/tracing/events && test -d /sys/kernel/debug
echo "mounts:$?"
command -v wult perf trace-cmd python3 >/dev/null; echo "tools:$(command -v wult)"
echo "clock:$WULT_CLOCK cpus:$(nproc) online:$(cat /sys/devices/system/cpu/online)"
echo "cmdline:$(grep -o 'maxcpus=[0-9]*' /proc/cmdline)"
awk '/^cpu MHz/ { print "mhz:" int($4 + 0.5); exit }' /proc/cpuinfo
# Idle time is skipped: 100 s of guest sleep fit in the 60 s timeout.
sleep 100 && echo slept
exit 7
G
# The machine booted and saved first if nobody has yet, with a timeout
# that leaves a loaded host time for the boot (on a host with a load of
# 18 a boot and save took more than 60 s, and every 60 s run below timed
# out): their 60 s bounds a restored guest, where it shows that idle time
# is skipped.
printf '#!/bin/sh\nexit 0\n' > "$tmp/p.sh"
"$vr" "${m[@]}" --timeout 600 --out "$tmp/p" "$tmp/p.sh" > /dev/null 2>&1
t_eq "the machine saved or restored first: exit 0" 0 $?
out=$("$vr" "${m[@]}" --timeout 60 --out "$tmp/o" "$tmp/g.sh" "a b" 'c$d' 2>"$tmp/err")
t_eq "guest exit status propagates" 7 $?
t_check "the booted guest was saved (said), or restored" \
	grep -Eq 'saved the booted 6.1 guest|restoring the booted 6.1 guest' "$tmp/err"
t_check "QEMU's warning that the NIC has no peer is dropped" \
	sh -c "! grep -q 'has no peer' '$tmp/err'"
t_check "icount is the default clock; two CPUs online" grep -qx 'clock:icount cpus:2 online:0-1' <<<"$out"
t_check "icount 6.1: booted with maxcpus=1, /init onlined CPU 1" grep -qx 'cmdline:maxcpus=1' <<<"$out"
t_check "icount: the TSC runs at 1 GHz" grep -qx 'mhz:1000' <<<"$out"
t_check "icount: idle time is skipped (sleep 100 in a 60 s run)" grep -qx slept <<<"$out"
t_check "arguments arrive intact" grep -qx 'args:2:a b:c$d' <<<"$out"
t_check "tracefs and debugfs mounted" grep -qx 'mounts:0' <<<"$out"
t_check "wult on PATH" grep -qx 'tools:/wult/bin/wult' <<<"$out"
t_eq "binary file transferred intact" "$(cat "$tmp/o/blob.sha1" 2>/dev/null)" \
	"$(sha1sum "$tmp/o/blob" 2>/dev/null | cut -d' ' -f1)"
t_check "transferred file has its size" test "$(stat -c %s "$tmp/o/blob" 2>/dev/null)" = 100000
t_check "dmesg.txt saved" grep -q 'Linux version' "$tmp/o/dmesg.txt"
# The booted guest is saved once and restored by every later run of the
# same machine, each with its own payload (script, arguments, module).
out=$("$vr" "${m[@]}" --timeout 60 --out "$tmp/o2" "$tmp/g.sh" second 2>"$tmp/err2")
t_eq "restored guest: exit status" 7 $?
t_check "a later run restores the saved guest" grep -q 'restoring the booted 6.1 guest' "$tmp/err2"
t_check "restored guest: this run's arguments" grep -qx 'args:1:second:' <<<"$out"
t_check "restored guest: icount, two CPUs online" grep -qx 'clock:icount cpus:2 online:0-1' <<<"$out"
t_check "restored guest: idle time skipped" grep -qx slept <<<"$out"
t_eq "restored guest: a file transferred intact" "$(cat "$tmp/o2/blob.sha1" 2>/dev/null)" \
	"$(sha1sum "$tmp/o2/blob" 2>/dev/null | cut -d' ' -f1)"
# WULT_VM_SNAPSHOT=reuse restores a saved guest, and boots a machine that
# has none without saving one (WULT_VM_SNAPSHOT=0 takes that boot path
# too): below, with a guest that cannot boot.
out=$(WULT_VM_SNAPSHOT=reuse "$vr" "${m[@]}" --timeout 60 --out "$tmp/o4" "$tmp/g.sh" fourth 2>"$tmp/err4")
t_eq "WULT_VM_SNAPSHOT=reuse, a saved guest: exit status" 7 $?
t_check "WULT_VM_SNAPSHOT=reuse restores a saved guest" grep -q 'restoring the booted 6.1 guest' "$tmp/err4"
# The host's clock: its kernel log is host-load noise ("hrtimer: interrupt
# took" under a loaded host fails the run), so only its output counts.
# Booted without saving it: nothing restores it.
printf '#!/bin/sh\necho "clock:$WULT_CLOCK cpus:$(nproc)"\n' > "$tmp/h1.sh"
out=$(WULT_VM_SNAPSHOT=reuse "$vr" --clock host --cpus 3 --out "$tmp/h1" "$tmp/h1.sh" 2>/dev/null)
t_check "--clock host: the host's clock, three CPUs" grep -qx 'clock:host cpus:3' <<<"$out"
# Under icount 6.12 brings its secondary CPUs up at boot itself (its
# bring-up waits with cpu_relax() and sleeps, which let them run): seen in
# the VM suite's default 6.12 machine, whose saved guest keeps its boot's
# kernel log. Restored, or booted and saved for the 6.12 VM tests beside
# this one to restore: a machine of this test's own cost a boot (~20 s of
# host CPU) that no other run used.
cat > "$tmp/s.sh" <<'G'
#!/bin/sh
echo "args:$#:$1"
echo "online:$(cat /sys/devices/system/cpu/online) cmdline:$(grep -o 'maxcpus=[0-9]*' /proc/cmdline)"
dmesg | grep -o 'Brought up 1 node, [0-9]* CPUs'
exit 7
G
out=$("$vr" "${m[@]}" --kernel 6.12 --timeout 300 --out "$tmp/s" "$tmp/s.sh" third 2>"$tmp/err3")
t_eq "6.12: exit status" 7 $?
t_check "6.12: arguments" grep -qx 'args:1:third' <<<"$out"
t_check "icount 6.12: both CPUs online, no maxcpus=" grep -qx 'online:0-1 cmdline:' <<<"$out"
t_check "icount 6.12: both brought up at boot" grep -qx 'Brought up 1 node, 2 CPUs' <<<"$out"

cache=${WULT_BUILD:-$top/build}/vm
# The base initramfs is keyed by content only: started by another path
# (relative, with ..), vm-run reuses the base the run above left.
base0=$(cd "$cache" && stat -c '%n %i %Y' base-*.cpio 2>/dev/null)
t_check "one base initramfs in the cache ($base0)" test "$(wc -w <<<"$base0")" = 3
printf '#!/bin/sh\necho "WARNING: CPU: 0 PID: 1 at fake" > /dev/kmsg\n' > "$tmp/w.sh"
(cd "$top/tests" && ../scripts/../scripts/vm-run "${m[@]}" --out "$tmp/w" "$tmp/w.sh") \
	>/dev/null 2>"$tmp/werr"
t_eq "a WARN in the kernel log fails the run" 126 $?
t_check "the WARN line is shown, prefixed for run-tests' summary" \
	grep -q '^vm-run: dmesg: .*WARNING: CPU: 0 PID: 1 at fake' "$tmp/werr"
printf '#!/bin/sh\necho "hrtimer: interrupt took 1234567 ns" > /dev/kmsg\n' > "$tmp/ht.sh"
"$vr" "${m[@]}" --out "$tmp/ht" "$tmp/ht.sh" >/dev/null 2>&1
t_eq "an 'hrtimer: interrupt took' line fails the run" 126 $?
t_check "another path to vm-run does not rebuild the base" \
	sh -c "! grep -q 'building base' '$tmp/werr'"
t_eq "the same base file is kept" "$base0" \
	"$(cd "$cache" && stat -c '%n %i %Y' base-*.cpio 2>/dev/null)"

# A guest that cannot boot is booted three times, then fails; one that
# dies after its script started is not booted again. Cannot boot: 96 MB
# of memory, too little for the kernel to unpack itself beside a 60 MB
# initramfs, so it dies at once, before the kernel prints a line (a death
# without a word once made vm-run exit 1 at the first retry);
# rdinit=/nonexistent keeps it from booting should it ever fit. Booted
# without a saved guest (trying to save one that never reaches /init
# would cost a fourth boot), on the host's clock (the retries do not
# depend on the clock). Three deaths: ~1 s of host CPU;
# three kernels that boot and find no init cost 11-14 s.
printf '#!/bin/sh\necho never\n' > "$tmp/n.sh"
WULT_VM_SNAPSHOT=0 "$vr" --clock host --cpus 1 --mem 96 --append rdinit=/nonexistent \
	--timeout 60 --out "$tmp/n" "$tmp/n.sh" > /dev/null 2> "$tmp/nerr"
t_eq "a guest that cannot boot fails with 125" 125 $?
t_eq "it was booted three times" 2 "$(grep -c 'died while booting' "$tmp/nerr")"
# WULT_VM_SNAPSHOT=reuse with no saved guest of its machine (the 96 MB
# one, which nothing else runs) boots it, on the instruction-counted
# clock, and tries to save none: no restore, nor a save, done or failed.
WULT_VM_SNAPSHOT=reuse "$vr" --cpus 1 --mem 96 --append rdinit=/nonexistent \
	--timeout 60 --out "$tmp/r" "$tmp/n.sh" > /dev/null 2> "$tmp/rerr"
t_eq "WULT_VM_SNAPSHOT=reuse, no saved guest: exit status" 125 $?
t_eq "WULT_VM_SNAPSHOT=reuse, no saved guest: booted (three times)" 2 \
	"$(grep -c 'died while booting' "$tmp/rerr")"
t_check "WULT_VM_SNAPSHOT=reuse, no saved guest: none restored or saved" \
	sh -c "! grep -Eq 'restoring|saved the booted|could not save' '$tmp/rerr'"
printf '#!/bin/sh\necho c > /proc/sysrq-trigger\n' > "$tmp/c.sh"
"$vr" "${m[@]}" --timeout 60 --out "$tmp/c" "$tmp/c.sh" > /dev/null 2> "$tmp/cerr"
rc=$?
t_check "a guest crashing in its script fails (rc $rc)" test $rc -eq 125 -o $rc -eq 126
t_check "and is not booted again" sh -c "! grep -q 'died while booting' '$tmp/cerr'"

# A busy loop: under icount a sleeping guest skips its idle time.
printf '#!/bin/sh\nwhile :; do :; done\n' > "$tmp/h.sh"
t0=$(date +%s)
"$vr" "${m[@]}" --timeout 3 --out "$tmp/h" "$tmp/h.sh" >/dev/null 2>"$tmp/herr"
t_eq "a hung guest is killed at the timeout" 124 $?
t_check "timeout is reported" grep -q 'timed out' "$tmp/herr"
t_check "timeout kill is prompt" test $(($(date +%s) - t0)) -lt 30

# The VM cache under concurrent use (make run beside make check, a test
# file edited between two runs): a base initramfs another vm-run holds is
# never deleted, one nobody holds is. A copy of the harness with one line
# more has a base key of its own; --prepare builds its base in a cache of
# its own and prunes the others, booting nothing.
b2=$tmp/b2
mkdir -p "$tmp/c2" "$b2/vm"
cp -a "$top/scripts" "$tmp/c2/"
echo "# another payload: $$" >> "$tmp/c2/scripts/vm-run"
real=${WULT_BUILD:-$top/build}
for d in rel kernel linux-src plugins; do ln -s "$real/$d" "$b2/$d"; done
held=$b2/vm/base-aaaaaaaaaaaaaaaa.cpio idle=$b2/vm/base-bbbbbbbbbbbbbbbb.cpio
echo held > "$held" && echo idle > "$idle"
# This shell holds the first as a running vm-run does (not inherited).
exec {lk}> "${held%.cpio}.lock"
flock -s "$lk"
WULT_BUILD=$b2 WULT_KERNELS=${WULT_KERNELS:-$top/build/kernels} \
	"$tmp/c2/scripts/vm-run" --prepare {lk}>&- > /dev/null 2> "$tmp/perr"
t_eq "--prepare: exit 0" 0 $?
t_check "--prepare built a base of its own" grep -q 'building base' "$tmp/perr"
t_check "a base another run holds is kept" test -s "$held"
t_check "a base nobody holds is pruned" test ! -e "$idle"
t_eq "the new base beside the held one" 2 "$(ls "$b2"/vm/base-*.cpio | wc -l)"
exec {lk}>&-
WULT_BUILD=$b2 WULT_KERNELS=${WULT_KERNELS:-$top/build/kernels} \
	"$tmp/c2/scripts/vm-run" --prepare > /dev/null 2> "$tmp/perr2"
t_check "released, it is pruned at the next run" test ! -e "$held"
t_check "and the next run reuses its own base" sh -c "! grep -q 'building base' '$tmp/perr2'"
t_done
