// SPDX-License-Identifier: GPL-2.0
/*
 * wult deploy, on the SUT over ssh: its release asked, then the files
 * sent as one tar stream to a sh script there that installs and checks
 * them (install_script).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "deploy.h"

/* Step 1: the SUT's release and architecture. 0, or -1 (said). */
int dep_sut_ask(struct deploy *d)
{
	char *av[SSH_MAX_ARGS + 1], optbuf[4096], out[512];
	int st, code;

	if (ssh_argv(av, &d->sh, d->ssh_opts, optbuf, sizeof(optbuf), "uname -r; uname -m")) {
		fprintf(stderr, DEP_CMD ": --ssh-opts is too long\n");
		return -1;
	}
	st = ssh_run(av, -1, out, sizeof(out), DEP_CMD);
	if (st < 0)
		return -1;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (code == SSH_NO_CLIENT) {
		fprintf(stderr, DEP_CMD ": no ssh command here: install OpenSSH's client "
			"(openssh-client)\n");
		return -1;
	}
	if (code) {
		fprintf(stderr, DEP_CMD ": %s: cannot ask its kernel release: %s (ssh exit %d)\n",
			d->sh.spec, code == SSH_FAILED ? "the connection failed" :
			"uname failed there", code);
		return -1;
	}
	if (sscanf(out, "%127s %63s", d->rel, d->arch) != 2 ||
	    strspn(d->rel, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		   "._+~-") != strlen(d->rel)) {
		fprintf(stderr, DEP_CMD ": %s: uname -r and -m gave '%s'\n", d->sh.spec, out);
		return -1;
	}
	return 0;
}

/*
 * The SUT's side, for `sh -c` (POSIX sh and busybox both): the tar stream
 * on stdin unpacked, each file installed where it differs, depmod, then
 * wult.ko loaded and a 3-datapoint recording made through it. Its lines
 * go to our stdout; an error to stderr with exit 1.
 */
static const char install_script[] =
	"sut=%s rel=%s prefix=%s mods=%s keep=%d\n"
	"say() { echo \"$sut: $*\" >&2; }\n"
	"fail() { say \"$*\"; exit 1; }\n"
	"[ \"$(uname -r)\" = \"$rel\" ] || fail \"it now runs $(uname -r), not $rel\"\n"
	"[ \"$(id -u)\" = 0 ] || fail \"not root (user $(id -un)): installing modules "
	"needs root (root@HOST)\"\n"
	"for c in tar cmp depmod modprobe rmmod mktemp; do\n"
	"	command -v $c >/dev/null 2>&1 || fail \"no $c command\"\n"
	"done\n"
	"t=$(mktemp -d /tmp/wult-deploy.XXXXXX) || fail \"cannot make a temporary directory\"\n"
	"trap 'rm -rf \"$t\"' EXIT\n"
	"tar -C \"$t\" -xf - || fail \"cannot unpack the files sent\"\n"
	"d=/lib/modules/$rel/updates/wult\n"
	"mkdir -p \"$d\" \"$prefix/bin\" || fail \"cannot create $d and $prefix/bin\"\n"
	"changed=0\n"
	"put() {\n"
	"	if cmp -s \"$1\" \"$2\"; then say \"$2: unchanged\"; return 0; fi\n"
	"	cp \"$1\" \"$2.new\" && chmod \"$3\" \"$2.new\" && mv -f \"$2.new\" \"$2\" ||\n"
	"		fail \"cannot install $2\"\n"
	"	say \"$2: installed\"\n"
	"}\n"
	"for m in $mods; do\n"
	"	cmp -s \"$t/$m.ko\" \"$d/$m.ko\" || changed=1\n"
	"	put \"$t/$m.ko\" \"$d/$m.ko\" 644\n"
	"done\n"
	"put \"$t/wult\" \"$prefix/bin/wult\" 755\n"
	"depmod \"$rel\" || fail \"depmod $rel failed\"\n"
	"was=0\n"
	"grep -q '^wult ' /proc/modules && was=1\n"
	"if [ $was = 1 ] && [ $changed = 1 ]; then\n"
	"	rmmod wult 2>/dev/null || fail \"the wult.ko loaded is in use (a recording?): "
	"the new one is installed; unload the old one (rmmod wult) and deploy again to "
	"check it\"\n"
	"	say \"wult.ko: the old one unloaded\"\n"
	"fi\n"
	"if ! grep -q '^wult ' /proc/modules; then\n"
	"	n=$(dmesg 2>/dev/null | wc -l)\n"
	"	if ! modprobe wult 2>\"$t/err\"; then\n"
	"		{ cat \"$t/err\"; dmesg 2>/dev/null | tail -n +$((n + 1)) | tail -n 5; } |\n"
	"			sed \"s|^|$sut: |\" >&2\n"
	"		fail \"modprobe wult failed (its error and kernel log above)\"\n"
	"	fi\n"
	"	say \"wult.ko: loaded\"\n"
	"fi\n"
	"[ -e /sys/bus/event_source/devices/wult/type ] ||\n"
	"	fail \"wult.ko loaded, but no wult PMU in /sys/bus/event_source/devices\"\n"
	"if ! \"$prefix/bin/wult\" record -q -c 3 -t 30 -o \"$t/check.data\" 2>\"$t/err\"; then\n"
	"	sed \"s|^|$sut: |\" \"$t/err\" >&2\n"
	"	[ $was = 1 ] || [ $keep = 1 ] || rmmod wult\n"
	"	fail \"wult record through the wult PMU failed (above)\"\n"
	"fi\n"
	"say \"wult record: 3 datapoints through the wult PMU\"\n"
	"if [ $was = 0 ] && [ $keep = 0 ]; then\n"
	"	rmmod wult || fail \"rmmod wult failed\"\n"
	"	say \"wult.ko: unloaded (modprobe wult loads it)\"\n"
	"fi\n"
	"w=$(command -v wult)\n"
	"[ \"$w\" = \"$prefix/bin/wult\" ] || say \"note: wult on this PATH is '$w', not "
	"$prefix/bin/wult: wult record -H runs the one on the PATH\"\n"
	"exit 0\n";

/* Step 3: the files sent and installed, wult.ko checked. 0, or -1 (said). */
int dep_sut_install(struct deploy *d)
{
	char stage[DEP_PLEN], tarf[DEP_PLEN], src[DEP_PLEN], dst[DEP_PLEN];
	char script[8192], remote[16384] = "sh -c ", mods[64], qrel[256], qpre[DEP_PLEN];
	char qsut[1024];
	char *av[SSH_MAX_ARGS + 1], optbuf[4096];
	const char *names[] = { "wult", "wult_refidle" };
	int i, st, code, fd;

	dep_pathf(mods, sizeof(mods), "'%s'", d->refidle ? "wult wult_refidle" : "wult");
	qrel[0] = qpre[0] = qsut[0] = '\0';
	if (ssh_quote(qrel, sizeof(qrel), d->rel) || ssh_quote(qpre, sizeof(qpre), d->prefix) ||
	    ssh_quote(qsut, sizeof(qsut), d->sh.spec) ||
	    (size_t)snprintf(script, sizeof(script), install_script, qsut, qrel, qpre, mods,
			     d->keep_loaded) >= sizeof(script) ||
	    ssh_quote(remote, sizeof(remote), script) ||
	    ssh_argv(av, &d->sh, d->ssh_opts, optbuf, sizeof(optbuf), remote)) {
		fprintf(stderr, DEP_CMD ": --prefix or --ssh-opts is too long\n");
		return -1;
	}
	fprintf(stderr, DEP_CMD ": installing on %s: /lib/modules/%s/updates/wult/%s, "
		"%s/bin/wult; depmod; loading wult.ko and recording 3 datapoints%s\n",
		d->sh.spec, d->rel, d->refidle ? "{wult,wult_refidle}.ko" : "wult.ko",
		d->prefix, d->keep_loaded ? "" : "; unloading it");
	if (d->dry_run) {
		fprintf(stderr, "    tar -cf - wult.ko%s wult | ssh ... %s 'sh -c SCRIPT', "
			"SCRIPT:\n%s", d->refidle ? " wult_refidle.ko" : "", d->sh.host, script);
		return 0;
	}
	/* The files as the SUT gets them: without DWARF (symbols kept), named. */
	dep_pathf(stage, sizeof(stage), "%s/stage", d->work);
	if (dep_mkdirs(stage)) {
		fprintf(stderr, DEP_CMD ": cannot create %s: %s\n", stage, strerror(errno));
		return -1;
	}
	for (i = 0; i < 2 + d->refidle; i++) {
		const char *name = i ? names[i - 1] : NULL;
		char *sa[] = { "strip", "--strip-debug", "-o", dst, src, NULL };
		char *ca[] = { "cp", src, dst, NULL };

		if (name) {
			dep_pathf(src, sizeof(src), "%s/%s.ko", d->kos, name);
			dep_pathf(dst, sizeof(dst), "%s/%s.ko", stage, name);
		} else {
			dep_pathf(src, sizeof(src), "%s", d->wult);
			dep_pathf(dst, sizeof(dst), "%s/wult", stage);
		}
		/* (strip may not know the file: then it goes as it is) */
		if (dep_run(sa, 2) && dep_run(ca, 0)) {
			fprintf(stderr, DEP_CMD ": cannot copy %s to %s\n", src, dst);
			return -1;
		}
	}
	dep_pathf(tarf, sizeof(tarf), "%s/stage.tar", d->work);
	{
		char *ta[] = { "tar", "-C", stage, "-cf", tarf, "wult.ko", "wult",
			       d->refidle ? "wult_refidle.ko" : NULL, NULL };

		if (dep_run(ta, 0)) {
			fprintf(stderr, DEP_CMD ": cannot make %s\n", tarf);
			return -1;
		}
	}
	fd = open(tarf, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, DEP_CMD ": %s: %s\n", tarf, strerror(errno));
		return -1;
	}
	fflush(stdout);
	st = ssh_run(av, fd, NULL, 0, DEP_CMD);
	close(fd);
	if (st < 0)
		return -1;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (!code)
		return 0;
	if (code == SSH_FAILED)
		fprintf(stderr, DEP_CMD ": %s: the connection failed or was lost (ssh exit 255)\n",
			d->sh.spec);
	else
		fprintf(stderr, DEP_CMD ": %s: installing or checking failed there (exit %d)\n",
			d->sh.spec, code);
	return -1;
}
