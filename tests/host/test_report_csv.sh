#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult report --csv against intel wult's own loader rules, and round trips:
# our CSV -> import -> the same statistics, on synthetic and real recordings
# and on a real intel wult result (every metric of it kept).
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/san/wult
WREL=$build/rel/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

# intel_rules DIR: the checks intel wult 1.12.65 makes when it loads a raw
# result (wultlibs/result/RORawResult.py and _RawResultBase.py of that
# release; see also /work/shared/NOTES.md), written out here:
#  1. info.yml is "key: value" YAML with toolname (wult), toolver and
#     reportid ("the 'toolver' key is missing" otherwise); format_version
#     must be 1.x (else a warning); cpu (renamed from cpunum in 1.12.34)
#     is an integer.
#  2. datapoints.csv loads with pandas.read_csv: a header of distinct names,
#     each row as many fields as the header; numeric metrics parse with
#     their dtype (int: IntrOff, SMICnt, NMICnt, SWIRQCnt, CPU; float:
#     the rest but ReqCState).
#  3. df.isnull().values.any() refuses "datapoints with too few values":
#     no empty cell anywhere.
#  4. df.empty refuses "no data in CSV file".
# Prints the first broken rule; succeeds when all hold.
intel_rules() {
	local d=$1 k
	for k in toolname toolver reportid format_version; do
		grep -q "^$k: ." "$d/info.yml" || { echo "info.yml: no $k"; return 1; }
	done
	grep -q "^toolname: wult$" "$d/info.yml" || { echo "toolname is not wult"; return 1; }
	grep -Eq "^format_version: '?1\.[0-9]+'?$" "$d/info.yml" ||
		{ echo "format_version is not 1.x"; return 1; }
	if grep -q "^cpu:" "$d/info.yml"; then
		grep -Eq "^cpu: [0-9]+$" "$d/info.yml" || { echo "cpu not an integer"; return 1; }
	fi
	awk -F, '!/^[A-Za-z_]+: / { bad = NR } END { if (bad) { print "info.yml:" bad ": not key: value"; exit 1 } }' \
		"$d/info.yml" || return 1
	awk -F, '
	NR == 1 {
		n = NF
		for (i = 1; i <= NF; i++) {
			if ($i == "" || seen[$i]++) { print "header: empty or repeated " $i; bad = 1; exit 1 }
			name[i] = $i
		}
		next
	}
	{
		line = $0
		# ReqCState may be quoted with commas inside: unquote first.
		gsub(/"[^"]*"/, "Q", line)
		nf = split(line, f, ",")
		if (nf != n) { print "line " NR ": " nf " fields, header has " n; bad = 1; exit 1 }
		for (i = 1; i <= nf; i++) {
			if (f[i] == "") { print "line " NR ": empty " name[i] " (too few values)"; bad = 1; exit 1 }
			if (name[i] == "ReqCState") continue
			if (name[i] ~ /^(IntrOff|SMICnt|NMICnt|SWIRQCnt|CPU)$/) {
				if (f[i] !~ /^-?[0-9]+$/) { print "line " NR ": " name[i] " not int: " f[i]; bad = 1; exit 1 }
			} else if (f[i] !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) {
				print "line " NR ": " name[i] " not a number: " f[i]; bad = 1; exit 1
			}
		}
		rows++
	}
	END { if (bad) exit 1; if (!rows) { print "no data in CSV file"; exit 1 } }' "$d/datapoints.csv"
}

# tables REPORT: the per-state tables and counter means, without the header
# lines that name the input.
# (the statistics; the declared latencies of the recorded system are not
# in an intel wult result)
tables() {
	sed -n '/^[^ ].*: [0-9]* datapoints/,$p' "$1" |
		awk '/^Declared against measured/ { exit }
		     { if (blank) print ""; blank = ($0 == ""); if (!blank) print }'
}

# ---- a synthetic recording ----
$WREL synth -o "$tmp/a.data" -c 3000 -s 1 --cstates 3 >/dev/null
"$W" report --csv "$tmp/a/" "$tmp/a.data" > "$tmp/a.rep"
t_eq "--csv exits 0" 0 $?
out=$(intel_rules "$tmp/a")
t_eq "synthetic export follows intel wult's loader rules" "" "$out"
t_check "info.yml has date, duration, devid, cpu" \
	grep -Eq "^date: '[0-9]{4}-" "$tmp/a/info.yml"
t_check "info.yml duration in s" grep -Eq "^duration: [0-9]+\.[0-9]{3}$" "$tmp/a/info.yml"
t_check "info.yml devid" grep -q "^devid: hrt$" "$tmp/a/info.yml"
t_check "info.yml toolver" grep -q "^toolver: '[0-9]" "$tmp/a/info.yml"
# The synthetic machine has no APERF/MPERF: CPUFreq is left out, not empty.
t_check "a counter the data lacks is not a column" \
	bash -c "! head -1 '$tmp/a/datapoints.csv' | grep -q CPUFreq"
"$W" report "$tmp/a" > "$tmp/a2.rep"
t_eq "import of our export exits 0" 0 $?
t_check "synthetic round trip: the same statistics" \
	cmp -s <(tables "$tmp/a.rep") <(tables "$tmp/a2.rep")

# The rules catch what intel wult refuses.
cp -r "$tmp/a" "$tmp/bad"
sed -i '2s/^[^,]*,/,/' "$tmp/bad/datapoints.csv"
out=$(intel_rules "$tmp/bad")
t_check "rules refuse an empty cell ($out)" test -n "$out"
sed -i '/^toolver/d' "$tmp/a/info.yml"
out=$(intel_rules "$tmp/a")
t_eq "rules refuse a missing toolver" "info.yml: no toolver" "$out"

# ---- a real recording (wult record in a Debian 6.1 guest) ----
"$W" report --csv "$tmp/r/" "$top/tests/data/wult_record.data" > "$tmp/r.rep"
t_eq "real recording exports" 0 $?
out=$(intel_rules "$tmp/r")
t_eq "real export follows intel wult's loader rules" "" "$out"
"$W" report "$tmp/r" > "$tmp/r2.rep"
t_check "real round trip: the same statistics" \
	cmp -s <(tables "$tmp/r.rep") <(tables "$tmp/r2.rep")
t_eq "real round trip: 30 datapoints" 30 "$(($(wc -l < "$tmp/r/datapoints.csv") - 1))"

# ---- a real intel wult result: every metric survives import + export ----
good=$top/tests/data/intel-wult/good
"$W" report --csv "$tmp/g/" "$good" > "$tmp/g.rep"
t_eq "intel result re-exports" 0 $?
out=$(intel_rules "$tmp/g")
t_eq "re-export follows intel wult's loader rules" "" "$out"
t_eq "intel devid and resolution kept" "devid: tdt resolution: 1" \
	"$(grep -E '^(devid|resolution):' "$tmp/g/info.yml" | tr '\n' ' ' | sed 's/ $//')"
# Each of intel's columns, compared value by value (ours have fixed decimals).
for m in WakeLatency SilentTime IntrLatency LDist CC0% CC1Derived% CC1% CC6% PC2% PC6% \
	 SMICnt NMICnt IntrOff ReqCState; do
	a=$(awk -F, -v m="$m" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == m) c = i; next }
		c { v = $c; if (v ~ /^[0-9.]+$/) v = sprintf("%.3f", v); print v }' \
		"$good/datapoints.csv" | md5sum)
	b=$(awk -F, -v m="$m" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == m) c = i; next }
		c { v = $c; if (v ~ /^[0-9.]+$/) v = sprintf("%.3f", v); print v }' \
		"$tmp/g/datapoints.csv" | md5sum)
	t_eq "intel metric $m kept" "$a" "$b"
done
"$W" report "$tmp/g" > "$tmp/g2.rep"
t_check "intel round trip: the same statistics" \
	cmp -s <(tables "$tmp/g.rep") <(tables "$tmp/g2.rep")
t_check "intel counter means shown (CC1Derived%)" grep -q "CC1Derived% " "$tmp/g.rep"
t_done
