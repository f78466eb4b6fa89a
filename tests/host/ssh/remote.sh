# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154	# top, build, tmp, W: test_ssh.sh's
# A part of tests/host/test_ssh.sh (sourced there, in its own directory,
# with the guests of ssh_guests_boot up): real SSH on the loopback only
# (issue 39 item 5): the bare 6.12 guest of vm-run --ssh PORT (host
# clock) runs dropbear behind QEMU's user network, forwarded from
# 127.0.0.1:PORT; the host logs in with OpenSSH's client and the key
# vm-run made for the run. Then wult record -H records in that guest from
# here (issue 39 item 2). The guest is bare (vm-run --bare: no wult
# command, no wult.ko): a wult record -H there is told to run wult
# deploy, and wult deploy -H installs both (the Makefile's 6.12 modules,
# --modules, with --refidle for ssh/fleet.sh) before the recordings
# (issue 39 item 1; ssh/deploy.sh deploys into 6.1 and 6.12-rt). A few
# seconds of guest time. The guest stays up, wult.ko loaded.
here=$PWD
port=${SSH_PORT[6.12]}
kdir=$(WULT_BUILD=$build "$top/scripts/kdir" 6.12)
krel=${kdir##*/linux-headers-}
o=$tmp/6.12
t_check "the guest's script runs" grep -q '^guest: up' "$tmp/6.12.out"
t_check "a key made for the run" test -s "$o/ssh/id_ed25519" -a -s "$o/ssh/known_hosts"
# Listening on the loopback only: 127.0.0.1:PORT, on no other address.
ss -Hltn "sport = :$port" > ss.out 2>&1
t_eq "the forward listens on 127.0.0.1:$port" "127.0.0.1:$port" "$(awk '{ print $4 }' ss.out)"

key=$o/ssh/id_ed25519
sopts=(-p "$port" -i "$key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
       -o BatchMode=yes -o ConnectTimeout=20 -o LogLevel=ERROR)
rel=$(timeout 60 ssh "${sopts[@]}" root@127.0.0.1 uname -r 2> ssh.err)
t_eq "ssh root@127.0.0.1 uname -r: the guest kernel's release" "$krel" "$rel"
cat ssh.err
# The guest's host key is the one vm-run wrote: strict checking passes.
rel=$(timeout 60 ssh -p "$port" -i "$key" -o StrictHostKeyChecking=yes \
	-o UserKnownHostsFile="$o/ssh/known_hosts" -o BatchMode=yes root@127.0.0.1 uname -r 2>&1)
t_eq "strict host key checking against OUT/ssh/known_hosts" "$krel" "$rel"
# Only the run's key logs in.
ssh-keygen -q -t ed25519 -N '' -f "$here/other"
timeout 60 ssh -p "$port" -i "$here/other" -o IdentitiesOnly=yes -o StrictHostKeyChecking=no \
	-o UserKnownHostsFile=/dev/null -o BatchMode=yes root@127.0.0.1 true 2>/dev/null
t_eq "another key is refused (ssh exit 255)" 255 $?

# wult record -H: the guest's wult record -o - over ssh, stored here.
so="-i $key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
sut=root@127.0.0.1:$port

# A SUT without wult: told to deploy it, exit 1, no file. Then deployed.
t_eq "the bare guest has no wult" "" \
	"$(timeout 60 ssh "${sopts[@]}" root@127.0.0.1 'command -v wult; grep "^wult " /proc/modules')"
"$W" record -H "$sut" --ssh-opts "$so" -c 10 -o none.data 2> none.err
t_eq "SUT without wult: exit 1" 1 $?
t_check "SUT without wult: says to run wult deploy" \
	grep -q "^wult record: $sut: no wult command there: install it with \`wult deploy -H $sut\`" none.err
t_check "SUT without wult: no file" test ! -e none.data
"$W" deploy -H "$sut" --ssh-opts "$so" --modules "$build/kernel/6.12" --refidle --keep-loaded 2> d.err
t_eq "wult deploy -H $sut --modules BUILD/kernel/6.12 --refidle --keep-loaded: exit 0" 0 $?
sed 's/^/  /' d.err
t_check "deployed: wult.ko loaded there" \
	sh -c "timeout 60 ssh ${sopts[*]} root@127.0.0.1 'grep -q \"^wult \" /proc/modules'"
# key VALUE of the system description of FILE (wult report --json).
sysval() {
	"$W" report --json "$1" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["inputs"][0].get("system", {}).get(sys.argv[1], ""))' "$2"
}
ndp() { "$W" report "$1" 2>/dev/null | sed -n 's/^all: \([0-9]*\) datapoints.*/\1/p'; }
"$W" record -H "$sut" --ssh-opts "$so" -t 2 -o r.data > r.out 2> r.err
t_eq "record -H $sut -t 2: exit 0" 0 $?
sed 's/^/  /' r.err
t_check "the SUT's messages come through, named" grep -q "^$sut: wult record: .* datapoints in " r.err
t_check "stdout stays empty" test ! -s r.out
n=$(ndp r.data)
t_check "wult report reads the file (${n:-no} datapoints)" test "${n:-0}" -ge 20
t_eq "the file is the SUT's recording (its command line)" "wult record -o - -t 2" \
	"$("$W" report --json r.data | python3 -c 'import json, sys; print(json.load(sys.stdin)["inputs"][0]["command"])')"
t_eq "its system description: the guest's kernel" "$krel" "$(sysval r.data kernel.release)"
t_check "its system description: the guest's cpuidle driver" test -n "$(sysval r.data cpuidle.driver)"
perf script -i r.data > r.script 2> r.script.err
t_eq "stock perf script reads it" 0 $?
t_check "perf script: the datapoints" test "$(grep -c 'wult/datapoints' r.script)" -ge "${n:-1}"

# Several hosts at once, and streams cut inside a record, through a
# stand-in for ssh on PATH that plays r.data back (deterministic cuts).
mkdir -p fake
cat > fake/ssh <<'F'
#!/bin/bash
while [ $# -gt 0 ] && [ "$1" != -- ]; do a+=("$1"); shift; done
h=$2
printf '%s\n' "${a[@]}" "$3" > "$FAKE_DIR/$h.args"
case $h in
cut.example) head -c "$FAKE_CUT" "$FAKE_DATA"; exit 255 ;;
whole.example) cat "$FAKE_DATA" ;;
junk.example) echo junk; echo 'a message' >&2 ;;
esac
F
chmod +x fake/ssh
# The cut: at 100000 bytes, or inside the last record of a smaller r.data
# (a 2 s recording on a starved host-clock guest had 21 datapoints, 17848
# bytes: the whole stream came through).
cutn=$(stat -c %s r.data 2>/dev/null || echo 0)
[ "$cutn" -gt 200000 ] && cutn=100000 || cutn=$((cutn - 1))
PATH=$here/fake:$PATH FAKE_DIR=$here/fake FAKE_DATA=$here/r.data FAKE_CUT=$cutn \
	"$W" record -q -H cut.example,u@whole.example:2200,junk.example -c 5 2> f.err
t_eq "three hosts, one cut, one not perf.data: exit 1" 1 $?
sed 's/^/  /' f.err
t_check "the whole stream stored byte for byte (whole.example-2200.data)" \
	cmp -s r.data whole.example-2200.data
t_check "ssh given the user and the port" \
	grep -q ' -l u -p 2200 ' <<<" $(tr '\n' ' ' < fake/whole.example.args)"
q="'\\''"	# a quote inside sh -c's quoted script
t_check "the SUT runs wult record -o - with the options but -H" \
	grep -qF "wult record -o - ${q}-q${q} ${q}-c${q} ${q}5${q} </dev/null" fake/whole.example.args
t_check "the cut one: error names the host" \
	grep -q "^wult record: cut.example: the connection failed or was lost (ssh exit 255) after $cutn bytes" f.err
sz=$(stat -c %s cut.example.data 2>/dev/null || echo 0)
t_check "the cut one: cut to its whole records ($sz bytes, the cut record left out)" \
	grep -q "^wult record: cut.example: cut.example.data holds the $sz bytes of whole records received (the cut record left out)" f.err
t_check "the cut one: a prefix of the stream below $cutn bytes" \
	sh -c "test $sz -gt 0 -a $sz -lt $cutn && cmp -s -n $sz r.data cut.example.data"
"$W" report cut.example.data > /dev/null 2>&1
t_eq "the cut one: wult report reads it, exit 0 ($(ndp cut.example.data) datapoints)" 0 $?
t_check "not perf.data: said, naming the host" \
	grep -q '^wult record: junk.example: not a perf.data stream (it does not start as a perf.data pipe stream' f.err
t_check "the SUT's stderr relayed with its name" grep -q '^junk.example: a message$' f.err

# Cuts anywhere, TRACING_DATA's trailing data included: the file is the
# stream up to the last unit boundary at or before the cut (python walks
# the pipe format's units here independently), no file without one.
python3 - r.data > bounds <<'P'
import struct, sys
d = open(sys.argv[1], "rb").read()
pos = 16
print(16)
while pos < len(d):
    t, m, sz = struct.unpack_from("<IHH", d, pos)
    if t == 66:
        sz += struct.unpack_from("<I", d, pos + 8)[0]
    pos += sz
    print(pos)
P
td=$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(); pos = 16
while struct.unpack_from("<I", d, pos)[0] != 66: pos += struct.unpack_from("<H", d, pos + 6)[0]
print(pos)' r.data)
cat > fake/ssh <<'F'
#!/bin/bash
head -c "$FAKE_CUT" "$FAKE_DATA"
exit 255
F
bad=
for cut in 8 15 17 $((td + 8)) $((td + 12)) $((td + 500)) 50001; do
	rm -f cut.data
	PATH=$here/fake:$PATH FAKE_CUT=$cut FAKE_DATA=$here/r.data \
		"$W" record -q -H cut.example -o cut.data 2>/dev/null
	exp=$(awk -v c=$cut '$1 <= c { k = $1 } END { print k + 0 }' bounds)
	sz=$(stat -c %s cut.data 2>/dev/null || echo 0)
	[ "$sz" = "$exp" ] && { [ "$sz" = 0 ] || cmp -s -n "$sz" r.data cut.data; } ||
		bad="$bad $cut:$sz/$exp"
done
t_eq "cuts at 8, 15, 17, in TRACING_DATA (at $td) and at 50001: whole units kept" "" "$bad"

# Without -o: HOST-PORT.data; -c passed on.
"$W" record -q -H "$sut" --ssh-opts "$so" -c 30 2> c.err
t_eq "record -H -c 30 (no -o): exit 0" 0 $?
t_eq "written to 127.0.0.1-$port.data, 30 datapoints" 30 "$(ndp "127.0.0.1-$port.data")"

# Stopped here (SIGINT to the controller): the SUT stops as a local wult
# record does, and the file is whole.
"$W" record -H "$sut" --ssh-opts "$so" -o i.data 2> i.err &
wpid=$!
for ((i = 0; i < 60; i++)); do [ "$(stat -c %s i.data 2>/dev/null || echo 0)" -gt 20000 ] && break; sleep 0.5; done
kill -INT $wpid
wait $wpid
t_eq "SIGINT: exit 0" 0 $?
t_check "SIGINT: the SUT's wult record ended cleanly (its summary)" \
	grep -q "^$sut: wult record: .* datapoints in " i.err
n=$(ndp i.data)
"$W" report i.data > /dev/null 2>&1
t_eq "SIGINT: wult report reads the whole file (${n:-no} datapoints), exit 0" 0 $?

# A connection killed mid-run: the error names the host, the file is cut
# at its last whole record and readable, and the SUT's wult record stops.
"$W" record -H "$sut" --ssh-opts "$so" -o k.data 2> k.err &
wpid=$!
for ((i = 0; i < 60; i++)); do [ "$(stat -c %s k.data 2>/dev/null || echo 0)" -gt 20000 ] && break; sleep 0.5; done
spid=$(ps -o pid= --ppid $wpid | head -n 1)
t_check "the controller's ssh client found (pid ${spid:-none})" test -n "$spid"
[ -z "$spid" ] || kill -KILL "$spid"
wait $wpid
t_eq "connection killed: exit 1" 1 $?
sed 's/^/  /' k.err
t_check "connection killed: the error names the host" \
	grep -q "^wult record: $sut: ssh ended by signal 9 after [0-9]* bytes" k.err
t_check "connection killed: says what the file holds" \
	grep -q "^wult record: $sut: k.data holds the [0-9]* bytes of whole records" k.err
n=$(ndp k.data)
"$W" report k.data > /dev/null 2>&1
t_eq "connection killed: wult report reads the file (${n:-no} datapoints), exit 0" 0 $?
t_check "connection killed: datapoints kept" test "${n:-0}" -ge 20
perf script -i k.data > /dev/null 2> k.script.err
t_eq "connection killed: stock perf script reads the file" 0 $?
for ((i = 0; i < 30; i++)); do
	left=$(timeout 60 ssh "${sopts[@]}" root@127.0.0.1 'pidof wult' 2>/dev/null)
	[ -z "$left" ] && break
	sleep 1
done
t_eq "connection killed: the SUT's wult record ended" "" "$left"

