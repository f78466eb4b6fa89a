#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult hist on a histogram directory laid out as the module's debugfs one
# (--dir): the table's exact figures and bin percentiles, CPU selection,
# --reset through the reset file, --watch rounds, the bipolar tai_to_intr
# (negative rows, underflow) in the table, bars, CSV and HTML, and clear
# errors for bad options and files that are not the module's format.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
wult=${WULT_BUILD:-$top/build}/rel/wult
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/wake_latency" "$d/intr_latency" "$d/silent_time" "$d/tai_to_intr"

# section NAME COUNT SUM MIN MAX OVER ROWS...: one state as the module prints
# it; UNDER=N LO=US HI=US set the underflow and the bins' range.
section() {
	local name=$1 c=$2 s=$3 mn=$4 mx=$5 ov=$6
	shift 6
	printf '#State: %s\n#Minimum latency: %d microseconds\n#Average latency: 0 microseconds\n' "$name" $((mn / 1000))
	printf '#Maximum latency: %d microseconds\n#Total samples: %d\n' $((mx / 1000)) "$c"
	printf '#There are %d samples lower than %d microseconds.\n' "${UNDER:-0}" "${LO:-0}"
	printf '#There are %d samples greater or equal than %d microseconds.\n' "$ov" "${HI:-10240}"
	printf '#Exact: count %d sum %d min %d max %d nanoseconds\n#usecs\t%16s\n' "$c" "$s" "$mn" "$mx" samples
	for r in "$@"; do printf '%5d\t%16d\n' "${r%:*}" "${r#*:}"; done
}
# CPU1: 100 samples in C1 (bins 10 us: 50, 11: 40, 20: 9) and 1 overflow.
{
	printf '#CPU: 1\n#Metric: wake_latency\n#Bin width: 1 microseconds\n#Datapoints of other states: 0\n'
	section POLL 0 0 0 0 0
	section C1 100 1500000 10100 12000000 1 10:50 11:40 20:9
} > "$d/wake_latency/CPU1"
# CPU0: never measured.
printf '#CPU: 0\n#Metric: wake_latency\n#Bin width: 1 microseconds\n' > "$d/wake_latency/CPU0"
for m in intr_latency silent_time; do
	cp "$d/wake_latency/CPU0" "$d/$m/CPU0"
	cp "$d/wake_latency/CPU1" "$d/$m/CPU1"
done
# tai_to_intr, bipolar [-5120, 5120) us: CPU1 C1 has 10 samples, 1 below
# -5120 us, rows -3 (6), -1 (1), 2 (1), and 1 from 5120 us on.
{
	printf '#CPU: 1\n#Metric: tai_to_intr\n#Bin width: 1 microseconds\n'
	UNDER=1 LO=-5120 HI=5120 section C1 10 -5000000 -6000000 6000000 1 -3:6 -1:1 2:1
} > "$d/tai_to_intr/CPU1"
cp "$d/wake_latency/CPU0" "$d/tai_to_intr/CPU0"

out=$("$wult" hist --dir "$d" --no-bars 2>&1)
t_eq "exit 0" 0 $?
t_check "only CPU1 shown (CPU0 has no samples)" sh -c "echo '$out' | grep -q '^CPU1 wake_latency' && ! echo '$out' | grep -q '^CPU0'"
row=$(echo "$out" | awk '$1 == "C1"')
t_eq "C1 row: count, exact min/avg/max, p50 p90 p99 p99.9 from the bins, overflow" \
	"C1 100 10.100 15.000 12000.000 10 11 20 >=10240 0 1" "$(echo $row)"
t_check "empty state listed with its count" sh -c "echo '$out' | grep -qE '^ +POLL +0$'"
out=$("$wult" hist --dir "$d" -C 1 -m wake_latency 2>&1)
t_check "terminal histogram rows" sh -c "echo '$out' | grep -qE '^ +\[8, 16\) +90 #{40}$' &&
	echo '$out' | grep -qE '^ +\[16, 32\) +9 #{4}$' && echo '$out' | grep -qE '^ +>= 10240 +1 #$'"
t_eq "-m all: four metrics of CPU1" 4 "$("$wult" hist --dir "$d" -m all --no-bars | grep -c '^CPU1 ')"
t_eq "-C 0: listed CPUs are shown even when empty" 1 "$("$wult" hist --dir "$d" -C 0 --no-bars | grep -c '^CPU0 wake_latency')"

# --csv: the table's rows, a header, percentiles as in the table.
"$wult" hist --dir "$d" -C 1 -m wake_latency --no-bars --csv "$d/s.csv" > /dev/null
t_eq "--csv: exit 0" 0 $?
t_eq "--csv header" "CPU,Metric,State,Count,Min,Avg,Max,P50,P90,P99,P99.9,Underflow,Overflow,BinWidth" "$(head -1 "$d/s.csv")"
t_eq "--csv rows" "1,wake_latency,POLL,0,,,,,,,,0,0,1
1,wake_latency,C1,100,10.100,15.000,12000.000,10,11,20,>=10240,0,1,1" "$(tail -n +2 "$d/s.csv")"

# tai_to_intr: exact negative min/avg, percentiles from the bins (ranks
# ceil(p * 10 / 100): 5 -> -3, 9 -> 2, 10 -> the overflow), the underflow
# and overflow counts; bars mirrored below zero; the CSV the same.
out=$("$wult" hist --dir "$d" -C 1 -m tai_to_intr 2>&1)
row=$(echo "$out" | awk '$1 == "C1" && NF > 6')
t_eq "tai_to_intr C1 row: negative exact figures and percentiles, under/overflow" \
	"C1 10 -6000.000 -500.000 6000.000 -3 2 >=5120 >=5120 1 1" "$(echo $row)"
t_check "tai_to_intr bars: underflow, mirrored rows, positive rows, overflow in order" \
	sh -c "echo '$out' | grep -E '^ +(< |>= |\[)' | awk '{ print \$1 \$2 \$3 }' | tr '\n' ' ' |
	grep -qx '<-51201 \[-4,-2)6 \[-2,-1)0 \[-1,0)1 \[2,4)1 >=51201 '"
t_check "tai_to_intr bars: the fullest row is the widest" \
	sh -c "echo '$out' | grep -qE '^ +\[-4, -2\) +6 #{40}\$'"
"$wult" hist --dir "$d" -C 1 -m tai_to_intr --no-bars --csv "$d/t.csv" > /dev/null
t_eq "tai_to_intr --csv row" "1,tai_to_intr,C1,10,-6000.000,-500.000,6000.000,-3,2,>=5120,>=5120,1,1,1" \
	"$(tail -n +2 "$d/t.csv")"
printf '#CPU: 1\n#Metric: tai_to_intr\n#Bin width: 1 microseconds\n' > "$d/t1"
UNDER=9 LO=-5120 HI=5120 section C1 10 -1 -6000000 6000000 0 3:1 >> "$d/t1"
mkdir -p "$d/u/tai_to_intr" && cp "$d/t1" "$d/u/tai_to_intr/CPU1"
row=$("$wult" hist --dir "$d/u" -C 1 -m tai_to_intr --no-bars | awk '$1 == "C1"')
t_eq "percentiles in the underflow are '<N'" "C1 10 -6000.000 -0.000 6000.000 <-5120 <-5120 3 3 9 0" "$(echo $row)"
t_check "--csv leaves no temporary file" test ! -e "$d/s.csv.tmp"

# --html: wult report's page. A second CPU (C1: 100 samples in bin 30)
# makes "all" add the bins up: rank 100 of 200 is in bin 30, rank 200 in
# the overflow.
h=$(mktemp -d)
trap 'rm -rf "$d" "$h"' EXIT
cp -r "$d/wake_latency" "$d/intr_latency" "$d/silent_time" "$h"
{
	printf '#CPU: 2\n#Metric: wake_latency\n#Bin width: 1 microseconds\n'
	section C1 100 3050000 30000 30900 0 30:100
} > "$h/wake_latency/CPU2"
"$wult" hist --dir "$h" -m wake_latency --no-bars --html "$d/h.html" > /dev/null
t_eq "--html: exit 0" 0 $?
t_check "--html leaves no temporary file" test ! -e "$d/h.html.tmp"
# hcell STATE ROW: the first metric's cell of a state's table in the page.
hcell() {
	awk -v s="<h3>$1:" -v r="<tr><th>$2</th><td>" '
		index($0, s) { on = 1 } on && /<\/div>/ { on = 0 }
		on && index($0, r) == 1 { sub(/^<tr><th>[^<]*<\/th><td>/, ""); sub(/<.*/, ""); print; exit }' \
		"$d/h.html"
}
hrow() {
	local st=$1 r out=
	for r in count min median p90 p99 p99.9 max mean stddev; do
		out="$out $(hcell "$st" $r)"
	done
	echo $out
}
t_eq "--html: CPU1 C1 as the text table (exact min/avg/max, bin percentiles)" \
	"100 10.100 10.000 11.000 20.000 10240.000 12000.000 15.000 -" "$(hrow "CPU1 C1")"
t_eq "--html: CPU2 C1" "100 30.000 30.000 30.000 30.000 30.000 30.900 30.500 -" \
	"$(hrow "CPU2 C1")"
t_eq "--html: all adds the CPUs' bins and exact figures up" \
	"200 10.100 30.000 30.000 30.000 10240.000 12000.000 22.750 -" "$(hrow all)"
t_check "--html: titled wult hist" grep -q '<title>wult hist</title>' "$d/h.html"
t_check "--html: histogram plot data per CPU and state" \
	grep -q '"hist":\[{"f":0,"s":"CPU1 C1","m":0,"n":100' "$d/h.html"
t_check "--html: says the figures are the kernel's" \
	grep -q 'in the histograms (counted by wult.ko' "$d/h.html"
"$wult" hist --dir "$h" -m all --no-bars --html "$d/h3.html" > /dev/null
t_check "--html -m all: four metric columns" grep -q \
	'<th>us</th><th>WakeLatency</th><th>IntrLatency</th><th>SilentTime</th><th>TaiToIntr</th>' "$d/h3.html"
# tai_to_intr on the page: exact negative figures, bins' percentiles (the
# overflow's start for p99), "all" the same with one CPU.
cp -r "$d/tai_to_intr" "$h"
"$wult" hist --dir "$h" -m tai_to_intr --no-bars --html "$d/h.html" > /dev/null
t_eq "--html tai_to_intr: CPU1 C1" "10 -6000.000 -3.000 2.000 5120.000 5120.000 6000.000 -500.000 -" \
	"$(hrow "CPU1 C1")"
t_eq "--html tai_to_intr: all" "10 -6000.000 -3.000 2.000 5120.000 5120.000 6000.000 -500.000 -" \
	"$(hrow all)"
t_check "--html tai_to_intr: named TaiToIntr" grep -q '<th>us</th><th>TaiToIntr</th>' "$d/h.html"
# Its plot: linear buckets (no logarithm below zero) from the underflow,
# drawn one bin below -5120 us, to the overflow's start.
edges=$(grep -o '"s":"CPU1 C1","m":0,"n":10,"e":\[[^]]*' "$d/h.html" | sed 's/.*"e":\[//')
t_eq "--html tai_to_intr plot: first, second and last bucket edges (us)" \
	"-5121.000 -5018.589 5120.001" "$(echo "$edges" | awk -F, '{ print $1, $2, $NF }')"
check_html_err() {
	local out rc
	out=$("$wult" hist --dir "$h" --html "$d/nodir/h.html" 2>&1 > /dev/null)
	rc=$?
	if [ $rc -eq 1 ] && echo "$out" | grep -q "cannot write $d/nodir/h.html.tmp"; then
		t_ok "--html into a missing directory: exit 1, named"
	else
		t_fail "--html into a missing directory (rc=$rc: $out)"
	fi
}
check_html_err

# --reset writes 1 to the reset file; alone it prints nothing.
touch "$d/reset"
out=$("$wult" hist --dir "$d" --reset)
t_eq "--reset: exit 0, nothing printed" "0:" "$?:$out"
t_eq "--reset wrote 1" 1 "$(cat "$d/reset")"
out=$("$wult" hist --dir "$d" --no-bars -w 1 -n 2)
t_eq "--watch 1 --count 2: two rounds" 2 "$(echo "$out" | grep -c '^--- round')"

# Errors: named, non-zero, no crash.
check_err() {
	local name=$1 want_rc=$2 want=$3 out rc
	shift 3
	out=$("$wult" hist "$@" 2>&1)
	rc=$?
	if [ $rc -eq "$want_rc" ] && echo "$out" | grep -q -- "$want"; then
		t_ok "$name"
	else
		t_fail "$name (rc=$rc: $out)"
	fi
}
check_err "bad --cpus" 2 "bad --cpus: bad CPU list 'x'" --dir "$d" -C x
check_err "bad --metrics" 2 "unknown --metrics 'foo'" --dir "$d" -m foo
check_err "--watch 0" 2 "bad --watch '0'" --dir "$d" -w 0
check_err "--count without --watch" 2 "needs --watch" --dir "$d" -n 3
check_err "stray argument" 2 "unexpected argument 'x'" --dir "$d" x
check_err "listed CPU without a file" 1 "CPU7: No such file" --dir "$d" -C 7
printf '#State: C1\n#Total samples: 3\n#Exact: count 3 sum 3 min 1 max 1 nanoseconds\n0\t2\n' > "$d/intr_latency/CPU1"
check_err "bins that do not add up" 1 "intr_latency/CPU1: state C1: bins, underflow and overflow" --dir "$d" -m intr_latency
printf '#State: C1\ngarbage\n' > "$d/silent_time/CPU1"
check_err "a line that is not the format" 1 "silent_time/CPU1: line 2" --dir "$d" -m silent_time
check_err "--csv into a missing directory" 1 "cannot write $d/none/x.csv.tmp" --dir "$d" -m wake_latency --csv "$d/none/x.csv"
check_err "no reset file" 1 "cannot reset through $d/none/reset" --dir "$d/none" --reset
t_done
