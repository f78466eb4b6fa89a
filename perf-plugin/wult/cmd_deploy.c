// SPDX-License-Identifier: GPL-2.0
/*
 * wult deploy -H [USER@]HOST[:PORT]: make a system under test (SUT) ready
 * for `wult record -H`, from this one (the controller), over the user's
 * ssh (ssh/ssh.c, as wult record -H). The steps, in order:
 *
 *   1. ask the SUT for its kernel release and architecture (uname);
 *   2. build wult.ko (and wult_refidle.ko with --refidle) for that release
 *      here, against its headers (--kernel-src, /lib/modules/REL/build,
 *      /usr/src/linux-headers-REL or a tree scripts/kpkg unpacked), in
 *      CACHE/wult/deploy/REL, or take them built (--modules DIR, their
 *      vermagic checked);
 *   3. send the modules and the static wult (BUILD/rel/wult-static: it
 *      needs no library there) as one tar stream to a sh script on the SUT
 *      (install_script below), which installs them where they differ
 *      (/lib/modules/REL/updates/wult, PREFIX/bin/wult), runs depmod, loads
 *      wult.ko, checks that wult records through its PMU, and unloads it
 *      again unless --keep-loaded or it was loaded before.
 *
 * Here: the options and the order; deploy/ does each step (deploy.h).
 *
 * Nothing is built or installed twice: make rebuilds what changed, the SUT
 * replaces only files whose bytes differ. --dry-run says the steps.
 */
#include <errno.h>
#include <getopt.h>	/* optind */
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "cmds.h"
#include "opts.h"
#include "deploy/deploy.h"

int wult_cmd_deploy(int argc, char **argv)
{
	static struct deploy d;
	const char *host = NULL;
	const struct wult_opt opts[] = {
		WULT_OPT_STRING('H', "host", "SPEC", &host, "the SUT: [USER@]HOST[:PORT]"),
		WULT_OPT_STRING(0, "ssh-opts", "OPTS", &d.ssh_opts,
				"more options for ssh, split at spaces (e.g.\n"
				"'-i KEY -o StrictHostKeyChecking=no')"),
		WULT_OPT_STRING(0, "kernel-src", "DIR", &d.kernel_src,
				"the headers (kernel build directory) of the SUT's\n"
				"kernel; default: /lib/modules/REL/build,\n"
				"/usr/src/linux-headers-REL, or a tree\n"
				"scripts/kpkg unpacked, for the SUT's release REL"),
		WULT_OPT_STRING(0, "modules", "DIR", &d.modules,
				"send DIR/wult.ko (and wult_refidle.ko) built\n"
				"elsewhere, for the SUT's release: nothing built"),
		WULT_OPT_FLAG(0, "refidle", &d.refidle,
			      "also build and install wult_refidle.ko, the\n"
			      "reference cpuidle driver (installed, not loaded)"),
		WULT_OPT_STRING(0, "prefix", "DIR", &d.prefix,
				"install wult as DIR/bin/wult on the SUT (default\n"
				"/usr/local)"),
		WULT_OPT_FLAG(0, "keep-loaded", &d.keep_loaded,
			      "leave wult.ko loaded after the check"),
		WULT_OPT_FLAG('n', "dry-run", &d.dry_run,
			      "say the steps, do nothing (the SUT is still asked\n"
			      "its release)"),
		WULT_OPT_HELP(),
		WULT_OPT_END(),
	};
	const struct wult_optset set = {
		.head = "usage: wult deploy -H [USER@]HOST[:PORT] [options]\n"
			"\n"
			"Make a system under test ready for `wult record -H`: build wult.ko for\n"
			"its running kernel here, against that kernel's headers, and install it\n"
			"there with the wult command (a static build: it needs no library there),\n"
			"then load it, check that wult records through it, and unload it. Over\n"
			"the user's ssh, as root on the SUT (modules need root).\n"
			"\n",
		.opts = opts,
		.tail = "\n"
			"The modules are built in $XDG_CACHE_HOME/wult/deploy/REL (default\n"
			"~/.cache/wult/...), installed on the SUT in /lib/modules/REL/updates/wult\n"
			"(then depmod), so that `modprobe wult` loads them. Files that are already\n"
			"there, byte for byte, are left alone: deploying again changes nothing.\n"
			"\n"
			"Exit status: 0 deployed and checked, 1 failed (the step and the SUT's\n"
			"error said), 2 usage error.\n",
		.col = 25,
	};
	struct utsname un;
	char exe[DEP_PLEN];
	ssize_t n;
	int ret;

	memset(&d, 0, sizeof(d));
	d.prefix = "/usr/local";
	ret = wult_opts_start(&set, argc, argv, &d);
	if (ret)
		return ret == WULT_OPTS_HELP ? 0 : 2;
	if (optind < argc) {
		fprintf(stderr, DEP_CMD ": unexpected argument '%s' (the SUT goes after -H)\n",
			argv[optind]);
		return 2;
	}
	if (!host) {
		fprintf(stderr, DEP_CMD ": no SUT: -H [USER@]HOST[:PORT]\n");
		return 2;
	}
	if (strchr(host, ',')) {
		fprintf(stderr, DEP_CMD ": -H takes one SUT ('%s' names several): deploy to each "
			"in turn\n", host);
		return 2;
	}
	if (ssh_host_parse(&d.sh, host, DEP_CMD, "-H"))
		return 2;
	if (d.kernel_src && d.modules) {
		fprintf(stderr, DEP_CMD ": --kernel-src builds the modules, --modules sends built "
			"ones: give one\n");
		return 2;
	}
	if (d.prefix[0] != '/' || strcspn(d.prefix, "\n") != strlen(d.prefix)) {
		fprintf(stderr, DEP_CMD ": --prefix must be an absolute path, not '%s'\n", d.prefix);
		return 2;
	}
	if (d.ssh_opts && strlen(d.ssh_opts) >= 4096) {
		fprintf(stderr, DEP_CMD ": --ssh-opts is too long\n");
		return 2;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		fprintf(stderr, DEP_CMD ": /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	exe[n] = '\0';
	dep_pathf(d.exe_dir, sizeof(d.exe_dir), "%s", dirname(exe));

	/* What can be refused here is refused before the SUT is asked. */
	if (dep_wult_find(&d) || (!d.modules && dep_src_find(&d)))
		return 1;
	if (dep_sut_ask(&d))
		return 1;
	fprintf(stderr, DEP_CMD ": %s runs Linux %s on %s\n", d.sh.spec, d.rel, d.arch);
	if (uname(&un) || strcmp(un.machine, d.arch)) {
		fprintf(stderr, DEP_CMD ": %s is %s, this system %s: wult deploy builds for its "
			"own architecture only\n", d.sh.spec, d.arch, un.machine);
		return 1;
	}
	/* Refused before the cache is touched: modules or headers of another release. */
	if (d.modules ? dep_modules_check(&d) : dep_headers_find(&d))
		return 1;
	if (dep_work_set(&d) || (!d.modules && dep_modules_build(&d)))
		return 1;
	if (dep_sut_install(&d))
		return 1;
	if (d.dry_run)
		fprintf(stderr, DEP_CMD ": dry run: nothing built, sent or installed\n");
	else
		fprintf(stderr, DEP_CMD ": %s: ready (wult record -H %s)\n", d.sh.spec, d.sh.spec);
	return 0;
}
