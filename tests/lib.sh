# SPDX-License-Identifier: GPL-2.0
# Helpers for shell tests (host and guest): t_ok/t_fail/t_check record one
# check each, t_done prints "N passed, N failed" and returns the status.
# Source it as: . "${WULT_SRC:-$(dirname "$0")/../..}/tests/lib.sh"

T_PASS=0
T_FAIL=0

t_ok() { T_PASS=$((T_PASS + 1)); echo "ok - $*"; }
t_fail() { T_FAIL=$((T_FAIL + 1)); echo "not ok - $*"; }

# t_check NAME CMD...: the command's success is the check.
t_check() {
	local name=$1
	shift
	if "$@"; then t_ok "$name"; else t_fail "$name"; fi
}

# t_eq NAME EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1: expected '$2', got '$3'"; fi
}

t_done() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
