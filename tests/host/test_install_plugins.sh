#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# make install-plugins puts the libtraceevent plugin where perf and
# trace-cmd find it (HOME/.local/lib/traceevent/plugins), and stock perf
# then prints wult:datapoint through it.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make -s -C "$top" install-plugins HOME="$tmp" BUILD="$build" > "$tmp/out" 2>&1
t_eq "make install-plugins exits 0" 0 $?
so=$tmp/.local/lib/traceevent/plugins/plugin_wult.so
t_check "plugin installed in ~/.local/lib/traceevent/plugins" test -f "$so"
t_check "it is the built plugin" cmp -s "$so" "$build/plugins/traceevent/plugin_wult.so"
# perf finds it there by itself: a synthetic wult:datapoint file prints
# through the plugin (WakeLatency=) rather than the kernel's format.
"$build/rel/wult" synth -o "$tmp/s.data" -c 5 > /dev/null 2>&1
HOME=$tmp perf script -i "$tmp/s.data" 2>/dev/null > "$tmp/ps"
t_check "perf uses the installed plugin" grep -q 'WakeLatency=' "$tmp/ps"
t_done
