// SPDX-License-Identifier: GPL-2.0
/*
 * wult sweep: wult record over the Cartesian product of axes of settings
 * (idle states, deepest state, governor, method, LDist, CPUs), one
 * recording per point into DIR/MONIKER.data, and DIR/sweep.json naming
 * the axes and each point's settings, file and outcome (`wult report DIR`
 * compares them). The model (axes, product, monikers, manifest) is
 * libwult's sweep.h.
 *
 * Each point is this same binary's `wult record` run as a child, with the
 * point's settings as its options (--states, --idle-governor, ...), so
 * record applies them and puts them back on every way out, a SIGKILL of
 * the record included (its restore record, record_cstates.c), and -H runs
 * the point on the SUT through record's -H. The child dies with the sweep:
 * it gets SIGTERM when the sweep goes, even by SIGKILL, and then stops as
 * on Ctrl-C, putting the settings back. It runs in a process group of its
 * own, so a signal reaches it once, passed on by the sweep.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <wult/args.h>
#include <wult/sweep.h>

#include "cmds.h"
#include "opts.h"
#include "record/record_cstates.h"
#include "record/record_opts.h"
#include "record/record_sys.h"

/* The CPU numbers a CPU list may name (as wult record's -C). */
#define SWP_MAX_CPUS	8192
/* A point's wult record argv: its axes, -o, -H, --ssh-opts, the options. */
#define SWP_FIXED_ARGS	(2 * WULT_SWEEP_NR_AXES + 8)

struct swp_opts {
	const char *dir, *host, *ssh_opts;
	int dry_run, quiet;
	char **ropts;		/* the record options after "--" */
	int nropts;
};

static volatile sig_atomic_t swp_signals, swp_last_signal;

#define SWP_HEAD \
"usage: wult sweep -o DIR AXIS=VALUES... [-H HOST] [--dry-run] [-- RECORD OPTIONS]\n" \
"\n" \
"Record with wult record at every point of the Cartesian product of the\n" \
"axes, each point into DIR/MONIKER.data, its settings applied before and\n" \
"put back after it (as wult record --states does, SIGKILL included), and\n" \
"write DIR/sweep.json, the manifest of the axes and of each point's\n" \
"settings, file and outcome. 'wult report DIR' compares the points.\n" \
"\n" \
"Axes (each once; VALUES comma-separated, one point per value):\n" \
"  states=V,...           --states: the idle states enabled, one state or\n" \
"                         a set joined by '+' (states=C1,C2,C3 or\n" \
"                         states=C1+C2,C3)\n" \
"  deepest-state=V,...    --deepest-state: a state and the shallower ones\n" \
"  governor=V,...         --idle-governor: the cpuidle governor (one of\n" \
"                         cpuidle/available_governors)\n" \
"  method=V,...           --method: hrt, tdt, ipi, nic\n" \
"  ldist=MIN-MAX,...      --ldist MIN,MAX (or one time T: T,T), e.g.\n" \
"                         ldist=100-200,1ms-2ms\n" \
"  cpu=V,...              --cpus: a CPU, a range 0-3, or CPUs joined by '+'\n" \
"\n" \
"The first axis varies slowest. A point's MONIKER is its AXIS-VALUE parts\n" \
"joined by '_' (states-C1_governor-menu), characters a file name should not\n" \
"hold turned into '_'.\n" \
"\n"

#define SWP_TAIL \
"\n" \
"RECORD OPTIONS go to every point's wult record (e.g. -- -c 1000 -t 60s);\n" \
"those an axis or the sweep sets (-o, -H, and the axes' options) are\n" \
"refused there. Without -H each point's states and governor are checked\n" \
"against this system's cpuidle before anything is recorded.\n" \
"\n" \
"A point whose wult record fails is said by name and the sweep goes on; the\n" \
"files of the completed points are kept. SIGINT, SIGTERM, SIGHUP, SIGQUIT\n" \
"stop the running point as they stop wult record (its file complete) and\n" \
"end the sweep.\n" \
"\n" \
"Exit status: 0 every point recorded, 1 a point failed or the sweep was\n" \
"stopped, 2 usage error (an unknown axis, state or governor among them).\n"

static void on_signal(int sig)
{
	swp_last_signal = sig;
	swp_signals++;
}

/* The options before "--" and the record options after it. 0, 1 (--help), -1. */
static int parse_opts(int argc, char **argv, struct swp_opts *o, struct wult_sweep *s)
{
	const struct wult_opt opts[] = {
		WULT_OPT_STRING('o', "output", "DIR", &o->dir,
				"the sweep's directory (created; refused when it\n"
				"holds a sweep.json already)"),
		WULT_OPT_STRING('H', "host", "HOST", &o->host,
				"run every point on HOST ([USER@]HOST[:PORT]) over\n"
				"ssh, through wult record's -H"),
		WULT_OPT_STRING(0, "ssh-opts", "OPTS", &o->ssh_opts,
				"more options for ssh (as wult record's)"),
		WULT_OPT_FLAG('n', "dry-run", &o->dry_run,
			      "list the points, their files and their wult record\n"
			      "command lines; nothing is recorded or changed"),
		WULT_OPT_FLAG('q', "quiet", &o->quiet,
			      "no line per point (wult record's own output stays;\n"
			      "give it -q after '--' too)"),
		WULT_OPT_HELP(),
		WULT_OPT_END(),
	};
	const struct wult_optset set = { SWP_HEAD, opts, SWP_TAIL, 25 };
	char err[512];
	int i, n = argc, ret;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			n = i;
			o->ropts = argv + i + 1;
			o->nropts = argc - i - 1;
			break;
		}
	ret = wult_opts_parse(&set, n, argv, o);
	if (ret == WULT_OPTS_HELP)
		return 1;
	if (ret) {
		fprintf(stderr, "see 'wult sweep --help'\n");
		return -1;
	}
	for (i = optind; i < n; i++) {
		ret = wult_sweep_add_axis(s, argv[i], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "wult sweep: %s\n", ret == -ENOMEM ? "out of memory" : err);
			return -1;
		}
	}
	if (!o->dir) {
		fprintf(stderr, "wult sweep: -o DIR is required (the directory of the "
			"points' files and the manifest)\n");
		return -1;
	}
	if (o->host && strchr(o->host, ',')) {
		fprintf(stderr, "wult sweep: -H takes one host, got '%s'\n", o->host);
		return -1;
	}
	if (o->ssh_opts && !o->host) {
		fprintf(stderr, "wult sweep: --ssh-opts is for -H\n");
		return -1;
	}
	ret = wult_sweep_build(s, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "wult sweep: %s\n", ret == -ENOMEM ? "out of memory" : err);
		return -1;
	}
	return 0;
}

/* Whether record option token @t sets @opt (--name, --name=V, or -X...). */
static int sets_option(const char *t, const char *opt)
{
	size_t n = strlen(opt);

	if (opt[1] != '-')
		return t[0] == '-' && t[1] != '-' && strchr(t + 1, opt[1]);
	return !strncmp(t, opt, n) && (!t[n] || t[n] == '=');
}

/* The record options an axis or the sweep owns: refused. 0 or -1 (said). */
static int check_ropts(const struct swp_opts *o, const struct wult_sweep *s)
{
	static const char *const own[] = { "-o", "--output", "-H", "--host", "--ssh-opts" };
	static const char *const alias[WULT_SWEEP_NR_AXES][2] = {
		[WULT_SWEEP_LDIST] = { "-l" },
		[WULT_SWEEP_CPU] = { "-C", "--cpu" },
	};
	unsigned int a, k;
	int i;

	for (i = 0; i < o->nropts; i++) {
		const char *t = o->ropts[i];

		if (t[0] != '-')
			continue;	/* a value */
		for (k = 0; k < sizeof(own) / sizeof(own[0]); k++)
			if (sets_option(t, own[k])) {
				fprintf(stderr, "wult sweep: %s after '--': the sweep sets it (%s)\n",
					own[k], k < 2 ? "DIR/MONIKER.data" : "give it to wult sweep");
				return -1;
			}
		for (a = 0; a < wult_sweep_naxes(s); a++) {
			enum wult_sweep_axis ax = wult_sweep_axis(s, a);
			const char *opt = wult_sweep_axis_option(ax);

			for (k = 0; k < 3; k++) {
				const char *name = k ? alias[ax][k - 1] : opt;

				if (name && sets_option(t, name)) {
					fprintf(stderr, "wult sweep: %s after '--': the %s axis sets "
						"it at each point\n", name, wult_sweep_axis_name(ax));
					return -1;
				}
			}
		}
	}
	return 0;
}

/*
 * Point @p's wult record argv into @argv (NULL-terminated, @max slots,
 * argv[0] "record"), writing into DIR/FILE (@path, @len bytes). Its argc.
 */
static int point_argv(const struct swp_opts *o, const struct wult_sweep *s, unsigned int p,
		      char *path, size_t len, char **argv, int max)
{
	const char *pa[2 * WULT_SWEEP_NR_AXES];
	unsigned int i, n = wult_sweep_point_args(s, p, pa, 2 * WULT_SWEEP_NR_AXES);
	int c = 0, k;

	snprintf(path, len, "%s/%s", o->dir, wult_sweep_file(s, p));
	argv[c++] = (char *)"record";
	for (i = 0; i < n; i++)
		argv[c++] = (char *)pa[i];
	argv[c++] = (char *)"-o";
	argv[c++] = path;
	if (o->host) {
		argv[c++] = (char *)"-H";
		argv[c++] = (char *)o->host;
	}
	if (o->ssh_opts) {
		argv[c++] = (char *)"--ssh-opts";
		argv[c++] = (char *)o->ssh_opts;
	}
	for (k = 0; k < o->nropts && c < max - 1; k++)
		argv[c++] = o->ropts[k];
	argv[c] = NULL;
	return c;
}

/* The CPUs wult record measures with @cpus (-C), or by default, into @ids. */
static int point_cpus(const char *cpus, int *ids, unsigned int max)
{
	static unsigned char set[SWP_MAX_CPUS];
	unsigned int i, n = 0;

	if (!cpus) {
		ids[0] = rec_cpu_online(1) == 1 ? 1 : 0;
		return 1;
	}
	if (wult_cpulist_parse(cpus, set, SWP_MAX_CPUS, NULL, 0) < 0)
		return -1;
	for (i = 0; i < SWP_MAX_CPUS && n < max; i++)
		if (set[i])
			ids[n++] = i;
	return n;
}

/*
 * Every point's record options, checked as wult record checks them, and
 * (here, not with -H) its states and governor against this system's
 * cpuidle, before anything is recorded. 0, or 2 (said, with the point).
 */
static int check_points(const struct swp_opts *o, const struct wult_sweep *s)
{
	int max = SWP_FIXED_ARGS + o->nropts, argc, n, ret = 0;
	char **argv = calloc(max, sizeof(*argv)), path[4096], err[1024];
	int *ids = calloc(SWP_MAX_CPUS, sizeof(*ids));
	struct rec_opts ro;
	unsigned int p;

	if (!argv || !ids) {
		fprintf(stderr, "wult sweep: out of memory\n");
		free(argv);
		free(ids);
		return 1;
	}
	for (p = 0; p < wult_sweep_npoints(s) && !ret; p++) {
		argc = point_argv(o, s, p, path, sizeof(path), argv, max);
		if (rec_opts_parse(argc, argv, &ro)) {
			fprintf(stderr, "wult sweep: point %s: wult record refuses its options "
				"(above)\n", wult_sweep_moniker(s, p));
			ret = 2;
			break;
		}
		if (o->host)
			continue;	/* the SUT's wult record checks its own */
		n = point_cpus(ro.cpus, ids, SWP_MAX_CPUS);
		if (n > 0)
			ret = rec_cstates_check(ro.states, ro.deepest, ro.governor, ids, n, err,
						sizeof(err));
		if (ret)
			fprintf(stderr, "wult sweep: point %s: %s\n", wult_sweep_moniker(s, p),
				err);
	}
	free(argv);
	free(ids);
	return ret;
}

static void print_cmdline(FILE *f, char **argv)
{
	int i;

	fputs("wult", f);
	for (i = 0; argv[i]; i++)
		fprintf(f, strpbrk(argv[i], " \t'\"$\\;&|<>*?()") ? " '%s'" : " %s", argv[i]);
	fputc('\n', f);
}

/* --dry-run: the points, their settings and command lines, on stdout. */
static int dry_run(const struct swp_opts *o, const struct wult_sweep *s)
{
	int max = SWP_FIXED_ARGS + o->nropts;
	char **argv = calloc(max, sizeof(*argv)), path[4096];
	unsigned int p, a, np = wult_sweep_npoints(s);

	if (!argv)
		return 1;
	printf("wult sweep: %u point%s into %s%s%s (dry run: nothing recorded or changed)\n",
	       np, np == 1 ? "" : "s", o->dir, o->host ? " from " : "", o->host ? o->host : "");
	for (p = 0; p < np; p++) {
		printf("%u/%u %s", p + 1, np, wult_sweep_file(s, p));
		for (a = 0; a < wult_sweep_naxes(s); a++)
			printf(" %s=%s", wult_sweep_axis_name(wult_sweep_axis(s, a)),
			       wult_sweep_point_value(s, p, a));
		printf("\n    ");
		point_argv(o, s, p, path, sizeof(path), argv, max);
		print_cmdline(stdout, argv);
	}
	free(argv);
	return fflush(stdout) ? 1 : 0;
}

/* DIR made (0755) or there without a manifest. 0, or an exit status (said). */
static int make_dir(const char *dir)
{
	char path[4096];
	struct stat st;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "wult sweep: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "wult sweep: %s is not a directory\n", dir);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/" WULT_SWEEP_MANIFEST, dir);
	if (!access(path, F_OK)) {
		fprintf(stderr, "wult sweep: %s holds a sweep already (%s): give another -o "
			"DIR, or remove it\n", dir, path);
		return 2;
	}
	return 0;
}

static int write_manifest(const struct swp_opts *o, const struct wult_sweep *s)
{
	char path[4096], err[512];
	int ret;

	snprintf(path, sizeof(path), "%s/" WULT_SWEEP_MANIFEST, o->dir);
	ret = wult_sweep_write(s, path, err, sizeof(err));
	if (ret)
		fprintf(stderr, "wult sweep: %s\n", ret == -ENOMEM ? "out of memory" : err);
	return ret ? 1 : 0;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: waitpid() returns so the signal is passed on at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Runs wult record with @argv as a child and waits for it, passing on each
 * stop signal the sweep gets. Its wait status, or -1 (said).
 */
static int run_record(char **argv)
{
	sig_atomic_t seen = swp_signals;
	pid_t parent = getpid(), pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "wult sweep: fork: %s\n", strerror(errno));
		return -1;
	}
	if (!pid) {
		/* The sweep's death stops the point as a Ctrl-C would. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		execv("/proc/self/exe", argv);
		fprintf(stderr, "wult sweep: cannot run wult record (/proc/self/exe): %s\n",
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* also here: the child may not have run yet */
	for (;;) {
		if (waitpid(pid, &status, 0) == pid)
			return status;
		if (errno != EINTR) {
			fprintf(stderr, "wult sweep: waitpid: %s\n", strerror(errno));
			return -1;
		}
		while (seen != swp_signals) {
			seen++;
			kill(pid, swp_last_signal);
		}
	}
}

/* Each point in turn; the manifest after each. An exit status. */
static int run_points(const struct swp_opts *o, struct wult_sweep *s)
{
	int max = SWP_FIXED_ARGS + o->nropts, status;
	char **argv = calloc(max + 1, sizeof(*argv)), path[4096];
	unsigned int p, np = wult_sweep_npoints(s), done = 0, failed = 0, stopped = 0;

	if (!argv)
		return 1;
	argv[0] = (char *)"wult";
	for (p = 0; p < np && !swp_signals; p++) {
		const char *m = wult_sweep_moniker(s, p);

		point_argv(o, s, p, path, sizeof(path), argv + 1, max);
		if (!o->quiet) {
			fprintf(stderr, "wult sweep: point %u/%u %s: ", p + 1, np, m);
			print_cmdline(stderr, argv + 1);
		}
		status = run_record(argv);
		if (status != -1 && WIFEXITED(status) && !WEXITSTATUS(status) && !swp_signals) {
			wult_sweep_set_status(s, p, WULT_SWEEP_DONE, 0);
			done++;
		} else {
			int code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) :
				   -WTERMSIG(status);

			if (swp_signals) {
				wult_sweep_set_status(s, p, WULT_SWEEP_STOPPED, code);
				stopped++;
				fprintf(stderr, "wult sweep: point %u/%u %s stopped by signal %d\n",
					p + 1, np, m, (int)swp_last_signal);
			} else {
				wult_sweep_set_status(s, p, WULT_SWEEP_FAILED, code);
				failed++;
				fprintf(stderr, "wult sweep: point %u/%u %s failed (%s %d)\n", p + 1,
					np, m, code < 0 ? "signal" : "wult record exit", code < 0 ?
					-code : code);
			}
		}
		if (write_manifest(o, s)) {
			free(argv);
			return 1;
		}
	}
	free(argv);
	fprintf(stderr, "wult sweep: %u point%s: %u done", np, np == 1 ? "" : "s", done);
	if (failed)
		fprintf(stderr, ", %u failed", failed);
	if (stopped)
		fprintf(stderr, ", %u stopped", stopped);
	if (np - done - failed - stopped)
		fprintf(stderr, ", %u not run", np - done - failed - stopped);
	fprintf(stderr, "; %s/" WULT_SWEEP_MANIFEST "\n", o->dir);
	for (p = 0; p < np; p++)
		if (wult_sweep_status(s, p, NULL) == WULT_SWEEP_FAILED)
			fprintf(stderr, "wult sweep: failed: %s\n", wult_sweep_moniker(s, p));
	return done == np ? 0 : 1;
}

/* Says each point before it runs: stderr, as wult record's own lines. */
static void announce(const struct swp_opts *o, const struct wult_sweep *s)
{
	unsigned int np = wult_sweep_npoints(s);

	if (!o->quiet)
		fprintf(stderr, "wult sweep: %u point%s into %s%s%s\n", np, np == 1 ? "" : "s",
			o->dir, o->host ? " from " : "", o->host ? o->host : "");
}

int wult_cmd_sweep(int argc, char **argv)
{
	struct swp_opts o = { .dir = NULL };
	struct wult_sweep *s;
	int ret;

	if (wult_sweep_new(&s)) {
		fprintf(stderr, "wult sweep: out of memory\n");
		return 1;
	}
	argv[0] = (char *)"wult sweep";	/* how getopt's messages name us */
	ret = parse_opts(argc, argv, &o, s);
	if (!ret && check_ropts(&o, s))
		ret = -1;
	if (ret) {
		wult_sweep_free(s);
		return ret > 0 ? 0 : 2;
	}
	ret = check_points(&o, s);
	if (!ret && wult_sweep_set_run(s, o.host, o.ropts, o.nropts))
		ret = 1;
	if (!ret && o.dry_run)
		ret = dry_run(&o, s);
	else if (!ret) {
		ret = make_dir(o.dir);
		if (!ret)
			ret = write_manifest(&o, s);
		if (!ret) {
			announce(&o, s);
			catch_signals();
			ret = run_points(&o, s);
		}
	}
	wult_sweep_free(s);
	return ret;
}
