#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# DKMS: `make dkms-src` stages the module's sources with dkms.conf, and
# `dkms add` + `dkms build` build wult.ko and wult_refidle.ko from them
# against Debian's 6.1 headers (unpacked by scripts/kpkg, not installed).
# One kernel: the host runs none of ours, so the build shows -k is
# honoured; make builds all three already, and a second dkms build cost
# ~20 s of CPU. A private DKMS tree
# (--dkmstree) keeps the system's DKMS state untouched; nothing is
# installed or loaded.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ver=$(sed -n 's/^#define WULT_VERSION "\(.*\)"/\1/p' "$top/perf-plugin/wult/cmds.h")

if ! command -v dkms > /dev/null; then
	t_skip "dkms not installed (scripts/deps installs it)"
	t_done
	exit
fi
make -s -C "$top" dkms-src DESTDIR="$tmp/stage" > "$tmp/out" 2>&1
t_eq "make dkms-src: exit 0" 0 $?
src=$tmp/stage/usr/src/wult-$ver
t_check "dkms.conf names the version" grep -qx "PACKAGE_VERSION=\"$ver\"" "$src/dkms.conf"
t_eq "every kernel source staged" \
	"$(cd "$top/kernel" && find . -name '*.[ch]' -o -name Kbuild -o -name Makefile | sort)" \
	"$(cd "$src" && find . -name '*.[ch]' -o -name Kbuild -o -name Makefile | sort)"
mkdir -p "$tmp/tree"
opts=(--sourcetree "$tmp/stage/usr/src" --dkmstree "$tmp/tree")
dkms add -m wult -v "$ver" "${opts[@]}" > "$tmp/add" 2>&1
t_eq "dkms add: exit 0" 0 $?
for k in 6.1; do
	kd=$("$top/scripts/kdir" "$k") || { t_fail "no $k headers"; continue; }
	kver=${kd##*/linux-headers-}
	# The headers scripts/kpkg unpacked into the build tree, not installed
	# ones: DKMS is told where they are.
	dkms build -m wult -v "$ver" -k "$kver" --kernelsourcedir "$kd" "${opts[@]}" \
		> "$tmp/build-$k" 2>&1
	rc=$?
	t_eq "dkms build against $kver: exit 0" 0 $rc
	[ $rc -eq 0 ] || tail -n 20 "$tmp/build-$k" "$tmp/tree/wult/$ver/build/make.log" 2>/dev/null
	for m in wult wult_refidle; do
		ko=$tmp/tree/wult/$ver/$kver/x86_64/module/$m.ko
		[ -f "$ko" ] || ko=$(ls "$ko".* 2>/dev/null | head -n 1)
		t_check "$k: $m.ko built" test -n "$ko" -a -f "$ko"
		t_eq "$k: its vermagic is $kver" "$kver" \
			"$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)"
		t_eq "$k: it is $m" "$m" "$(modinfo -F name "$ko" 2>/dev/null)"
	done
done
dkms status -m wult "${opts[@]}" > "$tmp/status" 2>&1
t_eq "dkms status: built" 1 "$(grep -c ': built' "$tmp/status")"
cat "$tmp/status"
t_done
