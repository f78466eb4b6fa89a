# SPDX-License-Identifier: GPL-2.0
# wult: perf 6.1 loads libtraceevent plugins only from $TRACEEVENT_PLUGIN_DIR
# and ~/.local/lib/traceevent/plugins, so point it at wult's (which holds
# nothing else) unless the user chose a directory.
if [ -z "${TRACEEVENT_PLUGIN_DIR:-}" ]; then
	export TRACEEVENT_PLUGIN_DIR=@TEPDIR@
fi
