#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-lane: serial
# vm-cost: 45
# wult deploy into bare guests over real SSH on the loopback (issue 39
# items 1 and 5): scripts/vm-run --bare --ssh PORT boots a guest with no
# wult command and no wult module (dropbear there, OpenSSH's client here,
# a key made for the run); wult deploy -H installs both, then wult record
# -H records 300 datapoints there. 6.1 and 6.12-rt here; the 6.12 guest of
# test_remote_ssh.sh is deployed the same way before its recordings.
# 6.1 takes the build path: wult.ko and wult_refidle.ko built by deploy
# against the headers scripts/kpkg unpacked, in BUILD/test-cache (kept, so
# that make rebuilds only what changed since the last run); 6.12-rt sends
# the modules the Makefile built for it (--modules), as building them
# again would cost ~20 s of CPU for nothing new.
# Cost (host CPU, measured on a loaded 2-CPU host): 60-63 s in all with
# the 6.1 module build (~18 s of it, only when kernel/ changed since the
# last run), so ~22 s per guest (boot, dropbear, two deploys, the
# recording); 3-4.5 min of wall time.
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
cd "$tmp" || exit 1
export XDG_CACHE_HOME=$tmp/cache

for t in ssh ssh-keygen dropbearkey /usr/sbin/dropbear; do
	if ! command -v $t >/dev/null; then
		t_skip "no $t here (scripts/deps installs dropbear-bin and openssh-client)"
		t_done
		exit
	fi
done

# The guest: up until the host says done (at most 300 s of its own time).
cat > g.sh <<'G'
#!/bin/bash
echo "guest: up"
t0=$(date +%s)
while [ ! -e /tmp/done ] && [ $(($(date +%s) - t0)) -lt 300 ]; do sleep 0.2; done
[ -e /tmp/done ] && echo "guest: done" || echo "guest: nobody said done"
G
chmod +x g.sh

# ndp FILE: the datapoints wult report counts in FILE.
ndp() { "$W" report "$1" 2>/dev/null | sed -n 's/^all: \([0-9]*\) datapoints.*/\1/p'; }

# guest TAG [DEPLOY OPTIONS]: boot a bare guest of TAG, deploy, record.
guest() {
	local tag=$1 o=$tmp/$1 port krel sut so sopts i n
	shift
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	krel=$(WULT_BUILD=$build "$top/scripts/kdir" "$tag")
	krel=${krel##*/linux-headers-}
	WULT_BUILD=$build "$vr" --kernel "$tag" --ssh "$port" --bare --timeout 500 \
		--out "$o" g.sh > "$tag.vm.out" 2> "$tag.vm.err" &
	vpid=$!
	for ((i = 0; i < 300; i++)); do
		grep -q '^guest: up' "$tag.vm.out" 2>/dev/null && break
		kill -0 $vpid 2>/dev/null || break
		sleep 1
	done
	if ! t_check "$tag: the bare guest is up, ssh ready" grep -q 'vm-run: ssh ready' "$o/console.txt"; then
		sed 's/^/  /' "$tag.vm.err" | tail -n 20
		return
	fi
	sut=root@127.0.0.1:$port
	so="-i $o/ssh/id_ed25519 -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$o/ssh/known_hosts -o LogLevel=ERROR"
	sopts=(-p "$port" -i "$o/ssh/id_ed25519" -o UserKnownHostsFile="$o/ssh/known_hosts"
	       -o BatchMode=yes -o LogLevel=ERROR)
	t_eq "$tag: no wult there before deploying" "" \
		"$(timeout 60 ssh "${sopts[@]}" root@127.0.0.1 'command -v wult; ls /lib/modules/*/updates 2>/dev/null')"
	if [ "$tag" = 6.1 ]; then
		"$W" record -H "$sut" --ssh-opts "$so" -c 10 -o none.data 2> none.err
		t_eq "$tag: record -H before deploying: exit 1" 1 $?
		t_check "$tag: record -H before deploying: says to run wult deploy" \
			grep -q "^wult record: $sut: no wult command there: install it with \`wult deploy -H $sut\`" none.err
	fi

	"$W" deploy -H "$sut" --ssh-opts "$so" "$@" > "$tag.d1.out" 2> "$tag.d1.err"
	t_eq "$tag: wult deploy $*: exit 0" 0 $?
	sed 's/^/  /' "$tag.d1.err"
	t_check "$tag: the SUT's release found ($krel)" \
		grep -q "^wult deploy: $sut runs Linux $krel on x86_64$" "$tag.d1.err"
	t_check "$tag: wult.ko installed in updates/" \
		grep -q "^$sut: /lib/modules/$krel/updates/wult/wult.ko: installed$" "$tag.d1.err"
	t_check "$tag: wult installed in /usr/local/bin" \
		grep -q "^$sut: /usr/local/bin/wult: installed$" "$tag.d1.err"
	t_check "$tag: wult.ko loaded, 3 datapoints recorded through it, unloaded" \
		sh -c "grep -q '^$sut: wult.ko: loaded$' $tag.d1.err &&
		       grep -q '^$sut: wult record: 3 datapoints through the wult PMU$' $tag.d1.err &&
		       grep -q '^$sut: wult.ko: unloaded' $tag.d1.err"
	t_check "$tag: deploy's stdout stays empty" test ! -s "$tag.d1.out"
	t_eq "$tag: not loaded after the check" "" \
		"$(timeout 60 ssh "${sopts[@]}" root@127.0.0.1 'grep "^wult " /proc/modules')"
	t_eq "$tag: the installed wult runs there (static)" "wult $(sed -n 's/^#define WULT_VERSION "\(.*\)"/\1/p' "$top/perf-plugin/wult/cmds.h")" \
		"$(timeout 60 ssh "${sopts[@]}" root@127.0.0.1 'wult version')"

	# Again: nothing changes; this time wult.ko stays loaded.
	"$W" deploy -H "$sut" --ssh-opts "$so" "$@" --keep-loaded 2> "$tag.d2.err"
	t_eq "$tag: deploying again (--keep-loaded): exit 0" 0 $?
	n=$(grep -c ': unchanged$' "$tag.d2.err")
	t_eq "$tag: deploying again: every file unchanged, none installed" \
		"$(grep -c ': installed$' "$tag.d1.err") 0" "$n $(grep -c ': installed$' "$tag.d2.err")"
	t_check "$tag: --keep-loaded: wult.ko left loaded" \
		sh -c "timeout 60 ssh ${sopts[*]} root@127.0.0.1 'grep -q \"^wult \" /proc/modules'"

	"$W" record -H "$sut" --ssh-opts "$so" -c 300 -o "$tag.data" 2> "$tag.r.err"
	t_eq "$tag: wult record -H -c 300: exit 0" 0 $?
	t_eq "$tag: 300 datapoints in $tag.data" 300 "$(ndp "$tag.data")"
	t_eq "$tag: its system description names the guest's kernel" "$krel" \
		"$("$W" report --json "$tag.data" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["inputs"][0].get("system", {}).get("kernel.release", ""))')"

	if [ "$tag" = 6.12-rt ]; then
		# A module the SUT's kernel refuses (its ELF magic broken, its
		# vermagic kept): the SUT's error comes back, named.
		mkdir -p bad
		cp "$build/kernel/$tag/wult.ko" bad/wult.ko
		printf 'XELF' | dd of=bad/wult.ko conv=notrunc status=none
		"$W" deploy -H "$sut" --ssh-opts "$so" --modules bad 2> "$tag.bad.err"
		t_eq "$tag: a module the kernel refuses: exit 1" 1 $?
		sed 's/^/  /' "$tag.bad.err"
		t_check "$tag: ... the loaded one unloaded to replace it" \
			grep -q "^$sut: wult.ko: the old one unloaded$" "$tag.bad.err"
		t_check "$tag: ... modprobe's failure said by the SUT" \
			grep -q "^$sut: modprobe wult failed (its error and kernel log above)$" "$tag.bad.err"
		t_check "$tag: ... with the kernel's reason, headed by the SUT" \
			grep -q "^$sut: .*Invalid ELF header magic" "$tag.bad.err"
		t_check "$tag: ... and the step named here" \
			grep -q "^wult deploy: $sut: installing or checking failed there (exit 1)$" "$tag.bad.err"
	fi
	timeout 60 ssh "${sopts[@]}" root@127.0.0.1 'rmmod wult 2>/dev/null; touch /tmp/done'
	wait $vpid
	t_eq "$tag: vm-run exits 0 once the host said done" 0 $?
	vpid=
	t_check "$tag: the guest script saw done" grep -q '^guest: done' "$tag.vm.out"
}

XDG_CACHE_HOME=$build/test-cache guest 6.1 --refidle
t_check "6.1: wult_refidle.ko installed too" \
	grep -q "^root@127.0.0.1:[0-9]*: /lib/modules/.*/updates/wult/wult_refidle.ko: installed$" 6.1.d1.err
t_check "6.1: built by deploy in the cache" \
	grep -q "^wult deploy: building wult.ko and wult_refidle.ko for .* in $build/test-cache/wult/deploy/" 6.1.d1.err
guest 6.12-rt --modules "$build/kernel/6.12-rt"
t_check "6.12-rt: the Makefile's modules sent" \
	grep -q "^wult deploy: sending the modules of $build/kernel/6.12-rt (built for " 6.12-rt.d1.err
t_done
