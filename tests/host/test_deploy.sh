#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wult deploy's arguments and refusals, without a SUT (issue 39 item 1): a
# stand-in for ssh on PATH answers `uname -r; uname -m` with a chosen
# release and architecture and logs every call, so that each refusal is
# seen before anything is built or sent. The real deploys, into bare
# guests, are test_ssh.sh's parts ssh/deploy.sh and ssh/remote.sh.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WULT_BUILD:-$top/build}
W=$build/rel/wult
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export XDG_CACHE_HOME=$tmp/cache

# deploy ARGS...: exit status in $rc, stderr in e.
deploy() { "$W" deploy "$@" > o 2> e; rc=$?; }

# Usage errors: exit 2, the problem named, no ssh run.
deploy
t_eq "no -H: exit 2" 2 $rc
t_check "no -H: says so" grep -q '^wult deploy: no SUT: -H \[USER@\]HOST\[:PORT\]' e
for spec in 'a b' '-oProxyCommand=x' 'h:0' 'h:65536' 'h:' '@h' 'u;x@h' '[::1'; do
	deploy -H "$spec"
	t_eq "-H '$spec': exit 2" 2 $rc
	t_check "-H '$spec': names the bad host" \
		grep -qF "wult deploy: bad host '$spec' in -H: [USER@]HOST[:PORT]" e
done
deploy -H a,b
t_eq "-H a,b: exit 2" 2 $rc
t_check "-H a,b: one SUT at a time" grep -q "^wult deploy: -H takes one SUT ('a,b' names several)" e
deploy -H h --kernel-src /x --modules /y
t_eq "--kernel-src with --modules: exit 2" 2 $rc
t_check "--kernel-src with --modules: says give one" grep -q 'give one$' e
deploy -H h --prefix usr/local
t_eq "--prefix relative: exit 2" 2 $rc
t_check "--prefix relative: says so" grep -q "^wult deploy: --prefix must be an absolute path, not 'usr/local'" e
deploy -H h extra
t_eq "an operand: exit 2" 2 $rc
t_check "an operand: named" grep -q "^wult deploy: unexpected argument 'extra'" e
deploy -H h --bogus
t_eq "unknown option: exit 2" 2 $rc
deploy --help
t_eq "--help: exit 0" 0 $rc
t_check "--help: the usage on stdout" grep -q '^usage: wult deploy -H \[USER@\]HOST\[:PORT\]' o

# The ssh stand-in: FAKE_UNAME is its answer (two words), FAKE_RC its exit.
mkdir fake
cat > fake/ssh <<'F'
#!/bin/bash
printf '%s\n' "$*" >> "$FAKE_LOG"
case "${@: -1}" in
'uname -r; uname -m') printf '%s\n' $FAKE_UNAME; exit "${FAKE_RC:-0}" ;;
*) cat > /dev/null; echo "fake ssh: no install here" >&2; exit 99 ;;
esac
F
chmod +x fake/ssh
export PATH=$tmp/fake:$PATH FAKE_LOG=$tmp/log
calls() { wc -l < "$FAKE_LOG" 2>/dev/null || echo 0; }

# No headers for the release: refused, naming Debian's package.
rel=9.9.9-99-amd64
: > log
FAKE_UNAME="$rel x86_64" deploy -H root@sut.example:2200 --ssh-opts '-i k -o A=b'
t_eq "no headers for $rel: exit 1" 1 $rc
cat e
t_check "no headers: names linux-headers-$rel" \
	grep -q "^wult deploy: root@sut.example:2200 runs Linux $rel, and this system has no headers for it .*install Debian's linux-headers-$rel here (apt-get install linux-headers-$rel)" e
t_eq "no headers: one ssh call (uname), nothing sent" 1 "$(calls)"
t_check "ssh gets --ssh-opts first, then BatchMode, user and port" \
	grep -qx -- '-i k -o A=b -T -o BatchMode=yes -o ServerAliveInterval=10 -o ServerAliveCountMax=3 -l root -p 2200 -- sut.example uname -r; uname -m' log
t_check "no headers: nothing in the cache" test ! -e cache/wult

# The SUT's answers refused.
FAKE_UNAME="$rel aarch64" deploy -H sut
t_eq "another architecture: exit 1" 1 $rc
t_check "another architecture: said" grep -q "^wult deploy: sut is aarch64, this system $(uname -m): wult deploy builds for its own architecture only" e
FAKE_UNAME="$rel x86_64" FAKE_RC=255 deploy -H sut
t_eq "ssh fails: exit 1" 1 $rc
t_check "ssh fails: the connection named" \
	grep -q '^wult deploy: sut: cannot ask its kernel release: the connection failed (ssh exit 255)' e
FAKE_UNAME='6.1;rm x86_64' deploy -H sut
t_eq "a release with shell characters: exit 1" 1 $rc
t_check "a release with shell characters: refused" grep -q "^wult deploy: sut: uname -r and -m gave" e
PATH=/nonexistent:/usr/bin/../nothing FAKE_UNAME="$rel x86_64" "$W" deploy -H sut 2> e
t_eq "no ssh client: exit 1" 1 $?
t_check "no ssh client: names openssh-client" grep -q 'install OpenSSH.s client (openssh-client)' e

# Headers and modules of another release than the SUT's.
kdir=$(WULT_BUILD=$build "$top/scripts/kdir" 6.12)
krel=${kdir##*/linux-headers-}
FAKE_UNAME="$rel x86_64" deploy -H sut --kernel-src "$kdir"
t_eq "--kernel-src of $krel for a $rel SUT: exit 1" 1 $rc
t_check "--kernel-src of another release: both named" \
	grep -q "^wult deploy: --kernel-src $kdir: the headers of $krel, not of $rel (the kernel sut runs)" e
FAKE_UNAME="$rel x86_64" deploy -H sut --kernel-src "$tmp"
t_eq "--kernel-src not a build directory: exit 1" 1 $rc
t_check "--kernel-src not a build directory: said" grep -q "no kernel build directory" e
FAKE_UNAME="$rel x86_64" deploy -H sut --modules "$build/kernel/6.12"
t_eq "--modules built for $krel, SUT $rel: exit 1" 1 $rc
t_check "--modules of another release: said" \
	grep -q "^wult deploy: $build/kernel/6.12/wult.ko was built for $krel; sut runs $rel" e
FAKE_UNAME="$krel x86_64" deploy -H sut --modules "$tmp" --refidle
t_eq "--modules without wult.ko: exit 1" 1 $rc
t_check "--modules without wult.ko: said" grep -q "^wult deploy: --modules $tmp: no wult.ko there" e

# --dry-run: the steps said, the SUT only asked its release.
: > log
FAKE_UNAME="$krel x86_64" deploy -H root@sut -n --refidle
t_eq "--dry-run (build): exit 0" 0 $rc
t_eq "--dry-run: one ssh call" 1 "$(calls)"
t_check "--dry-run: the make command against $krel's headers" \
	grep -q "^    make -s -C .*/linux-headers-$krel M=$tmp/cache/wult/deploy/$krel/kernel W=1 modules" e
t_check "--dry-run: the SUT's script (depmod, modprobe)" \
	grep -q "^depmod \"\$rel\" || fail" e
t_check "--dry-run: nothing built" test ! -e "cache/wult/deploy/$krel/kernel"
t_check "--dry-run: says so" grep -q '^wult deploy: dry run: nothing built, sent or installed' e
FAKE_UNAME="$krel x86_64" deploy -H sut -n --modules "$build/kernel/6.12"
t_eq "--dry-run --modules: exit 0" 0 $rc
t_check "--dry-run --modules: the modules named" \
	grep -q "^wult deploy: sending the modules of $build/kernel/6.12 (built for $krel)" e

# Sending: the tar stream on ssh's stdin, the SUT's failure said.
FAKE_UNAME="$krel x86_64" deploy -H sut --modules "$build/kernel/6.12"
t_eq "the SUT's script fails (exit 99): exit 1" 1 $rc
t_check "the SUT's failure named" \
	grep -q '^wult deploy: sut: installing or checking failed there (exit 99)' e
t_check "what was sent: wult.ko and a static wult" \
	sh -c "tar -tf cache/wult/deploy/$krel/stage.tar | sort | tr '\n' ' ' | grep -qx 'wult wult.ko '"
tar -xOf "cache/wult/deploy/$krel/stage.tar" wult > sent-wult
t_check "the wult sent is statically linked" sh -c "file sent-wult | grep -q 'statically linked'"

# Two deploys of one release take turns at its cache directory.
( flock 9; touch held; while [ ! -e release ]; do sleep 0.1; done ) 9> "cache/wult/deploy/$krel/.lock" &
hpid=$!
while [ ! -e held ]; do sleep 0.1; done
FAKE_UNAME="$krel x86_64" "$W" deploy -H sut --modules "$build/kernel/6.12" 2> e2 &
dpid=$!
for ((i = 0; i < 100; i++)); do grep -q 'waiting for another' e2 && break; sleep 0.1; done
t_check "the cache of $krel held: deploy waits, says so" \
	grep -q "^wult deploy: waiting for another wult deploy of $krel (.*/.lock)" e2
t_check "... and has not sent anything yet" sh -c "! grep -q 'installing or checking failed' e2"
touch release
wait $hpid
wait $dpid
t_eq "... then goes on (the stand-in's exit 99)" 1 $?
t_check "... once the other is done" grep -q 'installing or checking failed there (exit 99)' e2
t_done
