# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154	# top, build, tmp, W: test_ssh.sh's
# A part of tests/host/test_ssh.sh (sourced there, in its own directory,
# with the guests of ssh_guests_boot up): wult deploy into bare guests over
# real SSH (issue 39 items 1 and 5): nothing of wult there before; wult
# deploy -H installs the wult command and wult.ko and checks them, a second
# deploy changes nothing (--keep-loaded), then wult record -H records 300
# datapoints there. 6.1 takes the build path: wult.ko and wult_refidle.ko
# built by deploy against the headers scripts/kpkg unpacked, in
# BUILD/test-cache (kept, so that make rebuilds only what changed since
# the last run; ~18 s of CPU when kernel/ changed); 6.12-rt sends the
# modules the Makefile built for it (--modules), as building them again
# would cost ~20 s of CPU for nothing new. The 6.12 guest is deployed the
# same way by ssh/remote.sh. 6.12-rt goes first and its guest is done
# before 6.1's build, which keeps fewer guests up under that load (when
# the guests took the host's clock, an idle one there logged "hrtimer:
# interrupt took 8247150 ns"; they are icount guests now, vm-run.md's
# SSH). The 6.1 guest stays up for ssh/fleet.sh (wult_refidle installed).

# ndp FILE: the datapoints wult report counts in FILE.
ndp() { "$W" report "$1" 2>/dev/null | sed -n 's/^all: \([0-9]*\) datapoints.*/\1/p'; }

# guest TAG [DEPLOY OPTIONS]: deploy into the bare guest of TAG, record.
guest() {
	local tag=$1 o=$tmp/$1 port=${SSH_PORT[$1]} krel sut so sopts n
	shift
	krel=$(WULT_BUILD=$build "$top/scripts/kdir" "$tag")
	krel=${krel##*/linux-headers-}
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
	ssh_guest "$tag" 'rmmod wult 2>/dev/null'
}

guest 6.12-rt --modules "$build/kernel/6.12-rt"
t_check "6.12-rt: the Makefile's modules sent" \
	grep -q "^wult deploy: sending the modules of $build/kernel/6.12-rt (built for " 6.12-rt.d1.err
ssh_guest_done 6.12-rt
rc=$?
t_eq "6.12-rt: vm-run exits 0 once the host said done (its kernel log clean)" 0 $rc
[ $rc = 0 ] || sed 's/^/  6.12-rt: /' "$tmp/6.12-rt.err" | tail -n 20
t_check "6.12-rt: the guest script saw done" grep -q '^guest: done' "$tmp/6.12-rt.out"
XDG_CACHE_HOME=$build/test-cache guest 6.1 --refidle
t_check "6.1: wult_refidle.ko installed too" \
	grep -q "^root@127.0.0.1:[0-9]*: /lib/modules/.*/updates/wult/wult_refidle.ko: installed$" 6.1.d1.err
t_check "6.1: built by deploy in the cache" \
	grep -q "^wult deploy: building wult.ko and wult_refidle.ko for .* in $build/test-cache/wult/deploy/" 6.1.d1.err
