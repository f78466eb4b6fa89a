// SPDX-License-Identifier: GPL-2.0
/*
 * wult script: stock `perf script` with wult's pieces found wherever wult
 * was installed, so no path has to be typed: the libtraceevent plugin
 * (perf 6.1 looks only in $TRACEEVENT_PLUGIN_DIR and ~/.local), the
 * dlfilter (`--dlfilter wult`) and the perf script scripts (`-s NAME`).
 *
 * The pieces are found relative to the running wult, so a relocated
 * install or a DESTDIR staging tree works as well as the build tree:
 *   PREFIX/bin/wult    -> PREFIX/share/wult/{traceevent,dlfilter,scripts}
 *   BUILD/rel/wult     -> BUILD/plugins/{traceevent,dlfilter}, and the
 *                         source tree's scripts/perf through BUILD/src (a
 *                         link the build makes: BUILD=DIR may be anywhere)
 * $WULT_SHARE_DIR names an installed share directory instead.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"

#define DLFILTER_NAME	"wult-filter.so"
#define TEP_PLUGIN_NAME	"plugin_wult.so"
#define MAX_ARGS	256

#define PLEN		(PATH_MAX * 2)

struct wult_paths {
	char tep_dir[PLEN];		/* holds plugin_wult.so, nothing else */
	char dlfilter[PLEN];
	char scripts[PLEN];
};

static int exists(const char *dir, const char *name)
{
	char p[PLEN + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, R_OK);
}

/* The three locations under an installed share directory. */
static int from_share(struct wult_paths *p, const char *share)
{
	snprintf(p->tep_dir, sizeof(p->tep_dir), "%s/traceevent", share);
	snprintf(p->dlfilter, sizeof(p->dlfilter), "%s/dlfilter/" DLFILTER_NAME, share);
	snprintf(p->scripts, sizeof(p->scripts), "%s/scripts", share);
	return exists(p->tep_dir, TEP_PLUGIN_NAME) ? 0 : -ENOENT;
}

/* DIR/REL made absolute and without "..", when it exists. */
static void resolve(char *out, size_t len, const char *dir, const char *rel)
{
	char p[PLEN], r[PATH_MAX];

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, rel) >= sizeof(p))
		p[0] = '\0';		/* too long: found nowhere */
	if ((size_t)snprintf(out, len, "%s", realpath(p, r) ? r : p) >= len)
		out[0] = '\0';
}

static int find_paths(struct wult_paths *p)
{
	char exe[PATH_MAX], dir[PATH_MAX], share[PLEN], build[PLEN];
	ssize_t n;

	if (getenv("WULT_SHARE_DIR"))
		return from_share(p, getenv("WULT_SHARE_DIR"));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", dirname(exe));
	resolve(share, sizeof(share), dir, "../share/wult");
	if (!from_share(p, share))
		return 0;
	/* The build tree: BUILD/rel/wult, BUILD/plugins, BUILD/src/scripts/perf. */
	resolve(build, sizeof(build), dir, "..");
	resolve(p->tep_dir, sizeof(p->tep_dir), build, "plugins/traceevent");
	resolve(p->dlfilter, sizeof(p->dlfilter), build, "plugins/dlfilter/" DLFILTER_NAME);
	resolve(p->scripts, sizeof(p->scripts), build, "src/scripts/perf");
	return exists(p->tep_dir, TEP_PLUGIN_NAME) ? 0 : -ENOENT;
}

static void script_usage(FILE *f)
{
	fprintf(f,
"usage: wult script [--list] [perf script options]\n"
"\n"
"Runs stock `perf script` with wult's libtraceevent plugin (wult:datapoint\n"
"printed with its metrics) and these shorthands:\n"
"  --dlfilter wult       wult's dlfilter (then --dlarg 'WakeLatency > 50')\n"
"  -s, --script NAME     a wult perf script script by name (wult-report.py,\n"
"                        wult-decode.py)\n"
"  --list                where wult found its plugin, dlfilter and scripts\n"
"  -h, --help            this text\n"
"\n"
"Every other option goes to perf script as it is. $WULT_PERF names the perf\n"
"to run (default: perf on PATH). Exit status: perf script's, or 1 when perf\n"
"or wult's pieces cannot be found.\n");
}

static void list_paths(const struct wult_paths *p)
{
	printf("traceevent plugin: %s/" TEP_PLUGIN_NAME "\n", p->tep_dir);
	printf("dlfilter: %s%s\n", p->dlfilter, access(p->dlfilter, R_OK) ? " (missing)" : "");
	printf("scripts: %s%s\n", p->scripts, access(p->scripts, R_OK) ? " (missing)" : "");
}

/* -s NAME: NAME or NAME.py in the scripts directory, else as given. */
static const char *script_arg(const struct wult_paths *p, const char *name, char *buf,
			      size_t len)
{
	if (strchr(name, '/'))
		return name;
	snprintf(buf, len, "%s/%s", p->scripts, name);
	if (!access(buf, R_OK))
		return buf;
	snprintf(buf, len, "%s/%s.py", p->scripts, name);
	return access(buf, R_OK) ? name : buf;
}

int wult_cmd_script(int argc, char **argv)
{
	static char bufs[MAX_ARGS][PLEN + 16];
	const char *perf = getenv("WULT_PERF") ? getenv("WULT_PERF") : "perf";
	char *args[2 * MAX_ARGS + 3];
	struct wult_paths p;
	int i, n = 0;

	if (argc > MAX_ARGS) {
		fprintf(stderr, "wult script: more than %d arguments\n", MAX_ARGS);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			script_usage(stdout);
			return 0;
		}
	}
	if (find_paths(&p)) {
		fprintf(stderr, "wult script: wult's traceevent plugin is not beside this "
			"wult (looked for %s/" TEP_PLUGIN_NAME "); set WULT_SHARE_DIR\n",
			p.tep_dir);
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		list_paths(&p);
		return 0;
	}
	args[n++] = (char *)perf;
	args[n++] = (char *)"script";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--dlfilter=wult")) {
			args[n++] = (char *)"--dlfilter";
			a = p.dlfilter;
		} else if (i > 1 && !strcmp(argv[i - 1], "--dlfilter") && !strcmp(a, "wult")) {
			a = p.dlfilter;
		} else if (i > 1 && (!strcmp(argv[i - 1], "-s") ||
				     !strcmp(argv[i - 1], "--script"))) {
			a = script_arg(&p, a, bufs[i], sizeof(bufs[i]));
		} else if (!strncmp(a, "--script=", 9)) {
			snprintf(bufs[i], sizeof(bufs[i]), "--script=%s",
				 script_arg(&p, a + 9, bufs[0], sizeof(bufs[0])));
			a = bufs[i];
		}
		args[n++] = (char *)a;
	}
	args[n] = NULL;
	/* perf 6.1 loads libtraceevent plugins only from here and ~/.local. */
	setenv("TRACEEVENT_PLUGIN_DIR", p.tep_dir, 0);
	execvp(perf, args);
	fprintf(stderr, "wult script: cannot run %s: %s (install linux-perf)\n", perf,
		strerror(errno));
	return 1;
}
