#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# Real SSH on the loopback only (issue 39 item 5): scripts/vm-run --ssh PORT
# boots one 6.12 guest (host clock) running dropbear behind QEMU's user
# network, forwarded from 127.0.0.1:PORT; the host logs in with OpenSSH's
# client and the key vm-run made for the run. Then wult record -H records
# in that guest from here (issue 39 item 2). One boot, a few seconds of
# guest time.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
vr=$top/scripts/vm-run
W=$build/rel/wult
tmp=$(mktemp -d)
vpid=
cleanup() {
	[ -z "$vpid" ] || kill "$vpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# Argument checks first: no guest needed.
"$vr" --ssh 0 /bin/true >/dev/null 2>"$tmp/e"
t_eq "--ssh 0: exit 2" 2 $?
t_check "--ssh 0: names the problem" grep -q -- "--ssh must be a TCP port (1-65535), not '0'" "$tmp/e"
"$vr" --ssh 2222 --clock icount /bin/true >/dev/null 2>"$tmp/e"
t_eq "--ssh with --clock icount: exit 2" 2 $?
t_check "--ssh with --clock icount: says why" grep -q -- "--ssh needs --clock host" "$tmp/e"

for t in ssh ssh-keygen dropbearkey /usr/sbin/dropbear; do
	if ! command -v $t >/dev/null; then
		t_skip "no $t here (scripts/deps installs dropbear-bin and openssh-client)"
		t_done
		exit
	fi
done

# A free port on the loopback (another process could take it before QEMU
# does; then the guest fails to start and the test fails, it does not hang).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
kdir=$(WULT_BUILD=$build "$top/scripts/kdir" 6.12)
krel=${kdir##*/linux-headers-}

# The guest: wult.ko loaded, then up until the host says done (at most 240
# s of its own time).
cat > "$tmp/g.sh" <<'G'
#!/bin/bash
insmod "$WULT_KO" && echo "guest: wult.ko loaded"
t0=$(date +%s)
while [ ! -e /tmp/done ] && [ $(($(date +%s) - t0)) -lt 240 ]; do sleep 0.2; done
[ -e /tmp/done ] && echo "guest: done" || echo "guest: nobody said done"
G
chmod +x "$tmp/g.sh"
o=$tmp/o
WULT_BUILD=$build "$vr" --kernel 6.12 --ssh "$port" --timeout 400 --out "$o" "$tmp/g.sh" \
	> "$tmp/vm.out" 2> "$tmp/vm.err" &
vpid=$!
# Ready: /init's line on the console, then wult.ko loaded by the script.
for ((i = 0; i < 300; i++)); do
	grep -q '^guest: wult.ko loaded' "$tmp/vm.out" 2>/dev/null && break
	kill -0 $vpid 2>/dev/null || break
	sleep 1
done
t_check "the guest says ssh ready on its console" grep -q 'vm-run: ssh ready' "$o/console.txt"
t_check "the guest's script runs (wult.ko loaded)" grep -q '^guest: wult.ko loaded' "$tmp/vm.out"
t_check "a key made for the run" test -s "$o/ssh/id_ed25519" -a -s "$o/ssh/known_hosts"
# Listening on the loopback only: 127.0.0.1:PORT, on no other address.
ss -Hltn "sport = :$port" > "$tmp/ss" 2>&1
t_eq "the forward listens on 127.0.0.1:$port" "127.0.0.1:$port" "$(awk '{ print $4 }' "$tmp/ss")"

key=$o/ssh/id_ed25519
sopts=(-p "$port" -i "$key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
       -o BatchMode=yes -o ConnectTimeout=20 -o LogLevel=ERROR)
rel=$(timeout 60 ssh "${sopts[@]}" root@127.0.0.1 uname -r 2> "$tmp/ssh.err")
t_eq "ssh root@127.0.0.1 uname -r: the guest kernel's release" "$krel" "$rel"
cat "$tmp/ssh.err"
# The guest's host key is the one vm-run wrote: strict checking passes.
rel=$(timeout 60 ssh -p "$port" -i "$key" -o StrictHostKeyChecking=yes \
	-o UserKnownHostsFile="$o/ssh/known_hosts" -o BatchMode=yes root@127.0.0.1 uname -r 2>&1)
t_eq "strict host key checking against OUT/ssh/known_hosts" "$krel" "$rel"
# Only the run's key logs in.
ssh-keygen -q -t ed25519 -N '' -f "$tmp/other"
timeout 60 ssh -p "$port" -i "$tmp/other" -o IdentitiesOnly=yes -o StrictHostKeyChecking=no \
	-o UserKnownHostsFile=/dev/null -o BatchMode=yes root@127.0.0.1 true 2>/dev/null
t_eq "another key is refused (ssh exit 255)" 255 $?

timeout 60 ssh "${sopts[@]}" root@127.0.0.1 'touch /tmp/done'
wait $vpid
t_eq "vm-run exits 0 once the host said done" 0 $?
vpid=
t_check "the guest script saw done" grep -q '^guest: done' "$tmp/vm.out"
[ -s "$tmp/vm.err" ] && sed 's/^/vm-run: /' "$tmp/vm.err" | head -n 20
t_done
