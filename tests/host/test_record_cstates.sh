#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult record --states / --deepest-state / --idle-governor on this host, on a fake cpuidle
# sysfs tree (WULT_CPUIDLE_SYSFS) and restore record (WULT_CPUIDLE_RECORD):
# wult.ko is not loaded here, so every run fails after choosing the states,
# which must then be put back (the failure path); bad names are usage
# errors; a restore record left by a killed run is restored by the next
# run, and one whose writer still runs is left alone; a missing directory
# of the record is created. The recording itself
# with states chosen, and a real SIGKILL mid-recording, need wult.ko: guest
# tests (not here). Runs the ASan/UBSan build.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
tmp=$(mktemp -d)
live=
trap '[ -n "$live" ] && kill "$live" 2>/dev/null; rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1
export WULT_CPUIDLE_SYSFS=$tmp/sys WULT_CPUIDLE_RECORD=$tmp/restore
cpu=$(awk '/^processor/ { print $3; exit }' /proc/cpuinfo)

# tree DISABLES: CPU $cpu's states POLL C1 C1E C6 with these "disable" values,
# the governors ladder and menu (menu current).
tree() {
	local k names=(POLL C1 C1E C6) v=($1)
	rm -rf "$tmp/sys"
	mkdir -p "$tmp/sys/cpuidle"
	echo "ladder menu " > "$tmp/sys/cpuidle/available_governors"
	echo menu > "$tmp/sys/cpuidle/current_governor"
	echo fake > "$tmp/sys/cpuidle/current_driver"
	for k in 0 1 2 3; do
		mkdir -p "$tmp/sys/cpu$cpu/cpuidle/state$k"
		echo "${names[$k]}" > "$tmp/sys/cpu$cpu/cpuidle/state$k/name"
		echo "${v[$k]}" > "$tmp/sys/cpu$cpu/cpuidle/state$k/disable"
	done
}
disables() { cat "$tmp/sys/cpu$cpu/cpuidle/state"{0,1,2,3}/disable | tr '\n' ' '; }
rec() { "$W" record -C "$cpu" -c 10 -o "$tmp/out.data" "$@" > "$tmp/out" 2>"$tmp/err"; }

tree "0 0 1 0"
rec --states POLL,C6
t_eq "--states without wult.ko exits 1" 1 $?
t_check "--states says the states chosen" grep -q \
	"idle states for the recording: CPU $cpu: POLL C6 enabled, C1 C1E disabled" "$tmp/err"
t_check "--states: the failure is said" grep -q "no PMU 'wult'" "$tmp/err"
t_check "--states: restored on the failure path" grep -q "idle states restored" "$tmp/err"
t_eq "--states: every value as before (C1E stays disabled)" "0 0 1 0 " "$(disables)"
t_check "--states: no restore record left" test ! -e "$tmp/restore"

rec --deepest-state C1
t_eq "--deepest-state without wult.ko exits 1" 1 $?
t_check "--deepest-state says the states chosen" grep -q \
	"CPU $cpu: POLL C1 enabled, C1E C6 disabled" "$tmp/err"
t_eq "--deepest-state: every value as before" "0 0 1 0 " "$(disables)"

rec --states POLL,C7
t_eq "--states naming a state the CPU lacks exits 2" 2 $?
t_check "the missing state is named, with the CPU's" grep -q \
	"CPU $cpu has no idle state 'C7' (it has POLL, C1, C1E, C6)" "$tmp/err"
rec --deepest-state C9
t_eq "--deepest-state naming a state the CPU lacks exits 2" 2 $?
rec --states C1 --deepest-state C1
t_eq "--states with --deepest-state exits 2" 2 $?
t_check "--states with --deepest-state explained" grep -q "exclude each other" "$tmp/err"
rec --states 'C1,,C6'
t_eq "--states with an empty name exits 2" 2 $?
t_eq "no value changed by refused runs" "0 0 1 0 " "$(disables)"

rm -rf "$tmp/sys/cpu$cpu/cpuidle"
rec --states C1
t_eq "--states without a cpuidle driver exits 1" 1 $?
t_check "no cpuidle driver explained" grep -q "has no cpuidle states" "$tmp/err"

# The record is written before any value: an unwritable one changes nothing.
# (/proc: no file can be created there, even by root.)
tree "0 0 0 0"
WULT_CPUIDLE_RECORD=/proc/wult-cpuidle.restore rec --states C1
t_eq "--states with an unwritable restore record exits 1" 1 $?
t_check "the restore record's failure is said" grep -q \
	"cannot write the restore record /proc/wult-cpuidle.restore.tmp" "$tmp/err"
t_eq "nothing changed without a restore record" "0 0 0 0 " "$(disables)"
# Its directory is created where it is missing (/run, in a system without
# one), mode 0755 whatever the umask; one level only.
(umask 077; WULT_CPUIDLE_RECORD=$tmp/run/wult-cpuidle.restore rec --states C1)
t_eq "--states with the record's directory missing: exit 1 (no wult.ko), not before" 1 $?
t_check "the missing directory is created and said" grep -q \
	"created $tmp/run (mode 0755) for the restore record $tmp/run/wult-cpuidle.restore" \
	"$tmp/err"
t_eq "the created directory's mode" 755 "$(stat -c %a "$tmp/run" 2>/dev/null)"
t_check "the record's place is said (not the default)" grep -q \
	"their restore record: $tmp/run/wult-cpuidle.restore (WULT_CPUIDLE_RECORD)" "$tmp/err"
t_check "states chosen and put back through that record" grep -q "idle states restored" \
	"$tmp/err"
t_eq "every value as before" "0 0 0 0 " "$(disables)"
t_check "the record is removed" test ! -e "$tmp/run/wult-cpuidle.restore"
WULT_CPUIDLE_RECORD=$tmp/a/b/restore rec --states C1
t_eq "--states with two levels of the record's path missing exits 1" 1 $?
t_check "the directory it cannot create is named" grep -q \
	"cannot create $tmp/a/b for the restore record $tmp/a/b/restore: No such file" "$tmp/err"
t_check "no directory made" test ! -e "$tmp/a"
t_eq "nothing changed" "0 0 0 0 " "$(disables)"

# --idle-governor: switched, said, put back on the failure path.
gov() { cat "$tmp/sys/cpuidle/current_governor"; }
rec --idle-governor ladder --deepest-state C1
t_eq "--idle-governor without wult.ko exits 1" 1 $?
t_check "--idle-governor says the switch" grep -q \
	"CPU $cpu: POLL C1 enabled, C1E C6 disabled; governor ladder (was menu)" "$tmp/err"
t_eq "--idle-governor: the governor is back" menu "$(gov)"
t_eq "--idle-governor: the states are back" "0 0 0 0 " "$(disables)"
rec --idle-governor teo
t_eq "--idle-governor naming a governor the kernel lacks exits 2" 2 $?
t_check "the kernel's governors are listed" grep -q \
	"no cpuidle governor 'teo' (this kernel has: ladder menu" "$tmp/err"
chmod 444 "$tmp/sys/cpuidle/current_governor"
rec --idle-governor ladder
t_eq "--idle-governor where the kernel cannot switch exits 1" 1 $?
t_check "a governor that cannot be switched is explained" grep -q \
	"does not let the cpuidle governor be switched" "$tmp/err"
chmod 644 "$tmp/sys/cpuidle/current_governor"
echo none > "$tmp/sys/cpuidle/current_driver"
rec --idle-governor ladder
t_check "--idle-governor without a cpuidle driver: noted" grep -q \
	"no cpuidle driver, so the governor has nothing to choose" "$tmp/err"
t_eq "--idle-governor without a driver: put back" menu "$(gov)"

# A run killed after choosing (its pid gone): the next run restores first.
tree "1 1 1 0"
d=$tmp/sys/cpu$cpu/cpuidle
printf 'wult cpuidle restore 1\npid 999999999\n%s 0\n%s 0\n' "$d/state0/disable" \
	"$d/state1/disable" > "$tmp/restore"
echo ladder > "$tmp/sys/cpuidle/current_governor"
echo "$tmp/sys/cpuidle/current_governor menu" >> "$tmp/restore"
rec
t_check "a killed run's record is restored from" grep -q \
	"restored the idle states that a killed wult record (pid 999999999)" "$tmp/err"
t_eq "its values are back" "0 0 1 0 " "$(disables)"
t_eq "its governor is back" menu "$(gov)"
t_check "its record is removed" test ! -e "$tmp/restore"

# A record whose writer still runs (a process named wult) is left alone,
# and no other run may choose states meanwhile.
cp "$(command -v sleep)" "$tmp/wult"
"$tmp/wult" 60 &
live=$!
printf 'wult cpuidle restore 1\npid %d\n%s 1\n' "$live" "$d/state0/disable" > "$tmp/restore"
rec
t_check "a live writer's record is kept" test -e "$tmp/restore"
t_eq "a live writer's values are not touched" "0 0 1 0 " "$(disables)"
rec --states C1
t_eq "--states while another run has the states exits 1" 1 $?
t_check "the other run is named" grep -q "wult record pid $live has changed the idle states" \
	"$tmp/err"
kill "$live"
wait "$live" 2>/dev/null
live=

# A record that is not one (or names files that are not cpuidle's) is not
# acted upon: kept, said; --states refuses to go on.
printf 'wult cpuidle restore 1\npid 999999999\n/etc/hostname 0\n' > "$tmp/restore"
rec
t_check "a record naming another file is refused" grep -q "not a cpuidle disable file" \
	"$tmp/err"
rec --states C1
t_eq "--states with a bad record exits 1" 1 $?
t_check "the bad record is kept" test -e "$tmp/restore"

t_done
