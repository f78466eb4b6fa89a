#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kpkg, kdir and kimage: the test kernels are Debian's packages
# unpacked into the build tree, never installed on the host. Every kernel's
# headers, image and modules come from that tree, and the module built
# against them (make's) carries their release; no package list of
# scripts/deps installs a kernel.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
kernels=${WULT_KERNELS:-$top/build/kernels}

"$top/scripts/kpkg" 5.10 > /dev/null 2>&1
t_eq "kpkg: an unknown tag exits 2" 2 $?
for k in 6.1 6.12 6.12-rt; do
	root=$("$top/scripts/kpkg" "$k")
	t_eq "$k: its tree is in the build tree" "$kernels/$k" "$root"
	kd=$("$top/scripts/kdir" "$k")
	img=$("$top/scripts/kimage" "$k")
	rel=${kd##*/linux-headers-}
	t_eq "$k: kdir is under the tree" "$root/usr/src/linux-headers-$rel" "$kd"
	t_eq "$k: kimage is under the tree" "$root/boot/vmlinuz-$rel" "$img"
	t_eq "$k: the image is a bzImage (boot protocol magic)" HdrS \
		"$(dd if="$img" bs=1 skip=514 count=4 2>/dev/null)"
	# The flavour's Makefile names the common tree by an absolute path.
	t_check "$k: the headers include the unpacked common tree" \
		grep -q "^include $root/usr/src/linux-headers-" "$kd/Makefile"
	t_check "$k: modules.dep made for modinfo -b" test -s "$root/lib/modules/$rel/modules.dep"
	t_check "$k: modinfo -b finds virtio_blk there" sh -c \
		"modinfo -b '$root' -k '$rel' -n virtio_blk 2>/dev/null | grep -q '^$root/\|^(builtin)'"
	for p in linux-image- linux-headers- linux-kbuild-; do
		t_check "$k: .kpkg names the $p package" grep -q "^Package: $p" "$root/.kpkg"
	done
	ko=$build/kernel/$k/wult.ko
	if [ -f "$ko" ]; then
		t_eq "$k: make's wult.ko is built for $rel" "$rel" \
			"$(modinfo -F vermagic "$ko" | cut -d' ' -f1)"
	else
		t_fail "$k: $ko not built"
	fi
done
for prof in run check bench fuzz; do
	list=$("$top/scripts/deps" --list "$prof")
	t_check "deps $prof: a list" test -n "$list"
	t_eq "deps $prof: no kernel image or headers in it" "" \
		"$(grep -E '^linux-(image|headers)-' <<<"$list")"
done
t_done
