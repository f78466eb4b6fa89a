#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# make install / uninstall: every file in a DESTDIR staging tree, by name,
# type and mode; the staged wult finds its pieces relative to itself; every
# man page renders without warnings and `man wult-record` finds its page;
# bash completion completes; a PREFIX install's profile snippet makes stock
# perf print wult:datapoint through the plugin; uninstall leaves nothing.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
st=$tmp/stage
tep=$(pkg-config --variable=libdir libtraceevent)/traceevent/plugins

make -s -C "$top" install DESTDIR="$st" PREFIX=/usr BUILD="$build" > "$tmp/out" 2>&1
t_eq "make install DESTDIR=... PREFIX=/usr: exit 0" 0 $?
cat "$tmp/out"

# Every file, with its mode and, for links, the target (the final path).
exp="-rw-r--r-- etc/profile.d/wult.sh
-rw-r--r-- usr/share/bash-completion/completions/wult
-rw-r--r-- usr/share/man/man1/wult-deploy.1
-rw-r--r-- usr/share/man/man1/wult-hist.1
-rw-r--r-- usr/share/man/man1/wult-record.1
-rw-r--r-- usr/share/man/man1/wult-report.1
-rw-r--r-- usr/share/man/man1/wult-script.1
-rw-r--r-- usr/share/man/man1/wult-sweep.1
-rw-r--r-- usr/share/man/man1/wult-synth.1
-rw-r--r-- usr/share/man/man1/wult-tsc.1
-rw-r--r-- usr/share/man/man1/wult.1
-rw-r--r-- usr/share/wult/dlfilter/wult-filter.so
-rw-r--r-- usr/share/wult/scripts/wult-decode.py
-rw-r--r-- usr/share/wult/scripts/wult-report.py
-rw-r--r-- usr/share/wult/scripts/wult_perf.py
-rw-r--r-- usr/share/wult/traceevent/plugin_wult.so
-rwxr-xr-x usr/bin/wult
-rwxr-xr-x usr/lib/wult/wult-static
lrwxrwxrwx ${tep#/}/plugin_wult.so -> /usr/share/wult/traceevent/plugin_wult.so"
got=$(cd "$st" && find . \( -type f -o -type l \) -printf '%M %P %l\n' | sort |
      sed 's/ $//; s/^\(l[^ ]* [^ ]*\) /\1 -> /')
t_eq "installed files, modes and the plugin link" "$(echo "$exp" | sort)" "$got"
t_check "no other kind of file" test -z "$(find "$st" ! -type d ! -type f ! -type l)"
for f in usr/bin/wult usr/share/wult/traceevent/plugin_wult.so \
	 usr/share/wult/dlfilter/wult-filter.so; do
	b=$build/rel/wult
	case $f in
	*plugin_wult.so) b=$build/plugins/traceevent/plugin_wult.so ;;
	*wult-filter.so) b=$build/plugins/dlfilter/wult-filter.so ;;
	esac
	t_check "$f is the built one" cmp -s "$st/$f" "$b"
done
for f in "$top"/scripts/perf/*.py; do
	t_check "script $(basename "$f") installed as is" \
		cmp -s "$f" "$st/usr/share/wult/scripts/$(basename "$f")"
done
t_check "libtraceevent (trace-cmd) looks in $tep" \
	grep -q "$tep" <(strings "$(pkg-config --variable=libdir libtraceevent)/libtraceevent.so.1")
t_check "the profile snippet points perf at the installed plugin" \
	grep -q 'TRACEEVENT_PLUGIN_DIR=/usr/share/wult/traceevent$' "$st/etc/profile.d/wult.sh"

# The staged wult finds its pieces beside itself, not in the build tree.
"$st/usr/bin/wult" script --list > "$tmp/list" 2>&1
t_eq "staged wult script --list: exit 0" 0 $?
t_check "it finds the staged plugin" \
	grep -qx "traceevent plugin: $st/usr/share/wult/traceevent/plugin_wult.so" "$tmp/list"
t_check "the staged dlfilter" grep -qx "dlfilter: $st/usr/share/wult/dlfilter/wult-filter.so" \
	"$tmp/list"
t_check "the staged scripts" grep -qx "scripts: $st/usr/share/wult/scripts" "$tmp/list"
WULT_PERF=echo "$st/usr/bin/wult" script -s wult-report --dlfilter wult > "$tmp/args"
t_eq "-s NAME and --dlfilter wult become the staged paths" \
	"script -s $st/usr/share/wult/scripts/wult-report.py --dlfilter $st/usr/share/wult/dlfilter/wult-filter.so" \
	"$(cat "$tmp/args")"

# Man pages: each renders without a warning; man finds wult-record by name.
for m in "$st"/usr/share/man/man1/*.1; do
	w=$(groff -man -ww -z "$m" 2>&1)
	t_eq "$(basename "$m") renders without warnings" "" "$w"
done
MANWIDTH=80 man -M "$st/usr/share/man" wult-record > "$tmp/man" 2>&1
t_eq "man wult-record: exit 0" 0 $?
t_check "it is the wult-record page" grep -q 'wult record - record wult datapoints' "$tmp/man"
t_check "with the options of wult record --help" grep -q -- '--mmap-pages' "$tmp/man"
t_check "man wult-script finds the new page" \
	sh -c "man -M '$st/usr/share/man' wult-script | grep -q 'dlfilter wult'"

# Completion: subcommands, then the options the installed wult lists.
comp() {
	PATH=$st/usr/bin:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _wult; echo "${COMPREPLY[*]}"' \
		_ "$st/usr/share/bash-completion/completions/wult" "$@"
}
t_eq "completion: wult rec<TAB>" record "$(comp wult rec)"
t_eq "completion: wult record --no-<TAB>" "--no-branches --no-counters" \
	"$(comp wult record --no-)"
t_eq "completion: wult report --per<TAB>" "--per-cpu" "$(comp wult report --per)"

# A PREFIX install (no DESTDIR): with the profile snippet, stock perf
# prints wult:datapoint through the installed plugin.
p=$tmp/prefix
make -s -C "$top" install PREFIX="$p" SYSCONFDIR="$p/etc" TEP_SYSDIR="$p/tep" \
	BUILD="$build" > /dev/null 2>&1
t_eq "make install PREFIX=...: exit 0" 0 $?
"$p/bin/wult" synth -o "$tmp/s.data" -c 5 > /dev/null 2>&1
(unset TRACEEVENT_PLUGIN_DIR; . "$p/etc/profile.d/wult.sh"
 HOME=$tmp perf script -i "$tmp/s.data" 2>/dev/null) > "$tmp/ps"
t_check "perf finds the plugin through profile.d/wult.sh" grep -q 'WakeLatency=' "$tmp/ps"
(unset TRACEEVENT_PLUGIN_DIR; HOME=$tmp "$p/bin/wult" script -i "$tmp/s.data" 2>/dev/null) \
	> "$tmp/ws"
t_check "wult script finds it by itself" grep -q 'WakeLatency=' "$tmp/ws"
t_eq "5 datapoints" 5 "$(grep -c 'wult:datapoint' "$tmp/ws")"

# Uninstall: nothing but the empty directories make install created.
make -s -C "$top" uninstall DESTDIR="$st" PREFIX=/usr BUILD="$build" > /dev/null 2>&1
t_eq "make uninstall: exit 0" 0 $?
t_eq "make uninstall leaves no file" "" "$(find "$st" ! -type d)"
t_check "nor the share directory" test ! -e "$st/usr/share/wult"
t_done
