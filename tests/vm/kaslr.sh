#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report --vmlinux in a KASLR guest: branch addresses in the kernel
# image named from the image's own symbols (tests/tools/ksymtab_elf.c, at
# link addresses), moved by the offset of kallsyms' _text from the image's.
# The branch contexts come from lbr=fake (ktime_get+4(i+1) ->
# wult_lbr_read+4i, see lbr.sh, which checks the rest of the path).
# vm-cost: 28
# vm-args: --kaslr
# vm-kernels: 6.12
# One kernel: what is checked is wult report's relocation, user space,
# and the whole cost is this machine's firmware boot (~30 s of host CPU
# per kernel).
. "$WULT_SRC/tests/lib.sh"
cd "$OUT" || exit 1
# The symbols below are the kernel's own (scripts/guest/init mounts a short
# /proc/kallsyms): cut from the whole table once wult is loaded.
umount /proc/kallsyms

t_check "insmod lbr=fake" insmod "$WULT_KO" lbr=fake
grep -E ' [Tt] ktime_get$|[[:space:]]\[wult\]$| _text$' /proc/kallsyms > ks-sel.txt
sort -u ks-sel.txt /etc/kallsyms.core > ks-mount.txt
mount --bind ks-mount.txt /proc/kallsyms
wult record -C 1 -c 20 -o w.data 2> rec.err
t_check "20 datapoints, 20 branch contexts" \
	grep -q '20 datapoints .* 20 branch contexts' rec.err

ktext=$(awk '$3 == "_text" { print $1; exit }' ks-sel.txt)
t_check "KASLR moved the kernel (_text at $ktext)" test "$ktext" != ffffffff81000000
grep -E ' _text$|[[:space:]]\[wult\]$' ks-sel.txt > ks-text.txt
wult report --branches --kallsyms ks-text.txt --vmlinux "$WULT_VMLINUX_SYMS" w.data > vml.rpt
t_check "--vmlinux: names at link addresses, moved by KASLR" \
	grep -qF 'ktime_get+0x4 -> wult_lbr_read+0 [wult]' vml.rpt
t_check "and the offset is said ($(grep -o 'KASLR offset [0-9a-fx]*' vml.rpt))" \
	grep -qF "KASLR offset $(printf '%#x' $((0x$ktext - 0xffffffff81000000)))" vml.rpt
wult report --branches --kallsyms ks-text.txt w.data > novml.rpt
t_check "without --vmlinux that address has no name" \
	grep -Eq '0xf+[0-9a-f]+ -> wult_lbr_read\+0 \[wult\]$' novml.rpt
umount /proc/kallsyms
t_check "rmmod" rmmod wult
t_done
