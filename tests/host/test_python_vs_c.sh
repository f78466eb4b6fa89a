#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The python helper (scripts/perf/wult_perf.py, through wult-report.py under
# perf script) and libwult's decoder give the same metrics, datapoint by
# datapoint, on the same files: overhead compensation to the ns, the
# validity flags of SMICnt/NMICnt (no flag: no value, not 0) and the state
# names given to both (WULT_CSTATES, --cstates). Real recordings from a 6.1 guest (tests/data) and a
# synthetic file whose datapoints lack the SMI/NMI flags half of the time.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/rel/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cols=WakeLatency,IntrLatency,SilentTime,LDist,ReqCState,IntrOff,WakeLatencyRaw,IntrLatencyRaw,SMICnt,NMICnt,CPU

if ! command -v perf >/dev/null || ! perf script -i "$top/tests/data/wult_tp.data" \
	-s "$top/scripts/perf/wult-report.py" >/dev/null 2>&1; then
	echo "SKIP: perf with python scripting is needed"
	t_fail "python vs C skipped: no perf script -s"
	t_done
	exit
fi

# pick CSV COLS: the columns COLS (comma-separated names) of CSV, in order.
pick() {
	awk -F, -v want="$2" 'NR == 1 { n = split(want, w, ","); for (i = 1; i <= NF; i++)
		c[$i] = i; next } { s = ""; for (i = 1; i <= n; i++)
		s = s (i > 1 ? "," : "") $(c[w[i]]); print s }' "$1"
}

# Every second synthetic datapoint without SMI/NMI validity flags (the
# first keeps them: wult report --csv takes its columns from the first
# datapoint). The raw payload ends each tracepoint sample: its u32 size is
# the one that, with the payload and its padding, reaches the record's end;
# flags lies where the C side's field list puts it (tests/tools/dp_fields).
flags_off=$("$build/rel/tools/dp_fields" | awk '$1 == "flags" { print $2 }')
t_check "flags' offset from the C side ($flags_off)" test -n "$flags_off"
"$W" synth -o "$tmp/s.data" -c 2000 -s 9 --cstates 3 >/dev/null
python3 - "$tmp/s.data" "$flags_off" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
flags = int(sys.argv[2])
d_off, d_sz = struct.unpack_from('<2Q', d, 40)
off, n = d_off, 0
while off < d_off + d_sz:
    t, m, sz = struct.unpack_from('<IHH', d, off)
    if t == 9:
        n += 1
        for q in range(off + 8, off + sz - 4, 8):
            rs, = struct.unpack_from('<I', d, q)
            if q + 4 + rs + (8 - (4 + rs) % 8) % 8 == off + sz and rs > flags + 4:
                break
        p = q + 4 + flags
        f, = struct.unpack_from('<I', d, p)
        if n % 2 == 0:
            struct.pack_into('<I', d, p, f & ~0x6)
    off += sz
open(sys.argv[1], 'wb').write(d)
PY
for f in "$tmp/s.data" "$top"/tests/data/wult_record.data "$top"/tests/data/wult_tp.data; do
	name=$(basename "$f")
	WULT_CSTATES=POLL,C1,state2 perf script -i "$f" -s "$top/scripts/perf/wult-report.py" \
		-- --csv "$tmp/py.csv" >/dev/null 2>&1
	"$W" report --cstates POLL,C1,state2 --csv "$tmp/c/" "$f" >/dev/null 2>&1
	# wult report --csv leaves out a column with holes (intel wult refuses
	# empty cells): SMICnt and NMICnt are compared below instead.
	c=$cols
	head -1 "$tmp/c/datapoints.csv" | grep -q SMICnt || c=${cols/,SMICnt,NMICnt/}
	pick "$tmp/py.csv" "$c" > "$tmp/py.txt"
	pick "$tmp/c/datapoints.csv" "$c" > "$tmp/c.txt"
	n=$(wc -l < "$tmp/c.txt")
	t_check "$name: $n datapoints, every metric the same in python and C" \
		cmp -s "$tmp/py.txt" "$tmp/c.txt"
	cmp -s "$tmp/py.txt" "$tmp/c.txt" || diff "$tmp/py.txt" "$tmp/c.txt" | head -3
	for m in SMICnt NMICnt; do
		py=$(pick "$tmp/py.csv" "$m" | grep -c .)
		cn=$("$W" report --include "$m >= 0" "$f" 2>/dev/null |
		     sed -n 's/^  datapoints: [0-9]* read, \([0-9]*\) kept.*/\1/p')
		t_eq "$name: datapoints with a $m value, python and C" "$py" "$cn"
		[ "$name" = s.data ] && [ "$m" = SMICnt ] && smi_synth=$py
	done
	rm -rf "$tmp/c"
done
t_eq "synthetic: half the datapoints have no SMICnt (no validity flag)" 1000 "$smi_synth"
t_done
