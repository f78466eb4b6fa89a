// SPDX-License-Identifier: GPL-2.0
/*
 * wult record's options: the usage text, the option table and the checks
 * of each value and of the options together. A new option is a row of
 * lopts[] (a letter when it has a short form, else an OPT_ code), a case
 * in rec_opts_parse() or parse_valued(), and a field of struct rec_opts.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/wult.h>
#include <wult/args.h>

#include "record_opts.h"

/* The CPU numbers -C may name (NR_CPUS of the largest kernel configs). */
#define REC_MAX_CPUS	8192

/* --capture's window (ms): a wake's story is rarely longer. */
#define CAPTURE_DEF_MS	10
#define CAPTURE_MAX_MS	1000

/* The options without a short form. */
enum {
	OPT_METHOD = 256,
	OPT_LAUNCHER,
	OPT_DEVICE,
	OPT_NO_COUNTERS,
	OPT_NO_BRANCHES,
	OPT_STATES,
	OPT_DEEPEST,
	OPT_GOVERNOR,
	OPT_STOP_ON,
	OPT_CAPTURE,
	OPT_WAKE_TASK,
	OPT_MMAP,
	OPT_SSH_OPTS,
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: wult record [options]\n"
"\n"
"Record wult datapoints of the selected CPUs into a perf.data file. Each\n"
"datapoint is a sample of the wult event leading a group of the counters\n"
"this machine has (msr, cstate_core, cstate_pkg, cycles, instructions) and\n"
"of every -e event, read at the datapoint, and of wult.ko's idle accounting\n"
"(wult/idle_time/, idle_entries/, idle_irq_time/ and idle_irqs/ of each idle\n"
"state of the measured CPUs, for the report's residency table). Where\n"
"wult.ko can read the LBR (its PMU has the branches event), each\n"
"datapoint's branch context is recorded too, as a sample of a\n"
"wult/branches/ member. Needs wult.ko loaded.\n"
"\n"
"  -C, --cpus CPUS        CPUs to measure, perf syntax (1,3 or 0-3);\n"
"                         default CPU 1 when it exists, else 0 (--cpu is\n"
"                         an old name of it)\n"
"  -l, --ldist MIN,MAX    launch distance range, whole microseconds, e.g.\n"
"                         100us,1ms (default %uus,%uus; at most %uus); MAX\n"
"                         must not be below the CPUs' LDist floor (measured\n"
"                         first)\n"
"      --method M         delayed-event source: hrt (default: a high\n"
"                         resolution timer), tdt (the local APIC's TSC\n"
"                         deadline, where the APIC has that mode), ipi\n"
"                         (a wake sent from a launcher CPU, as a remote\n"
"                         scheduler wakeup: an IPI, or to a polling CPU a\n"
"                         need_resched write without interrupt) or nic (a\n"
"                         PCI device's clock and interrupt; needs --device;\n"
"                         the device leaves its driver while measured and\n"
"                         gets it back after)\n"
"      --launcher N       ipi: the CPU that sends the wakes (default CPU 0,\n"
"                         or, measuring CPU 0, one the kernel picks)\n"
"      --wake-task        ipi: the wake is a wake_up_process() of a kernel\n"
"                         thread bound to the measured CPU; datapoints add\n"
"                         RunLatency, when it runs (not on PREEMPT_RT)\n"
"      --device BDF       the nic method's PCI device, [DOMAIN:]BUS:DEV.FN\n"
"                         (as lspci -D shows it); rtl8139 only for now\n"
"  -c, --count N          stop after N datapoints (all CPUs together)\n"
"  -t, --time-limit T     stop after T (e.g. 500ms, 10s, 2m, 1h; a number\n"
"                         without a unit: seconds)\n"
"  -e, --event EVENT      also count EVENT in the group: pmu/term=val,.../\n"
"                         or a generic name (cycles, cpu-clock, ...);\n"
"                         repeatable\n"
"      --no-counters      do not add the discovered counters (nor the idle\n"
"                         accounting)\n"
"      --no-branches      no branch context (LBR) even where it can be read\n"
"  -o, --output FILE      output file (default wult.data); an existing one\n"
"                         is kept as FILE.old, as perf record does; '-' is\n"
"                         standard output, in perf's pipe mode\n"
"      --mmap-pages N     ring buffer pages per CPU, a power of 2 (default\n"
"                         256; -m N, perf record's letter, is kept for\n"
"                         scripts: in wult, -m means metrics)\n"
"  -q, --quiet            no progress reports and no summary\n"
"      --states NAMES     enable only these idle states of the measured CPUs\n"
"                         (cpuidle names, comma-separated, e.g. POLL,C6)\n"
"                         while recording; restored afterwards\n"
"      --deepest-state NAME  enable NAME and the shallower idle states,\n"
"                         disable the deeper ones while recording\n"
"      --idle-governor NAME  switch the cpuidle governor to NAME (one of\n"
"                         cpuidle/available_governors) while recording\n"
"      --stop-on EXPR     stop at the first datapoint matching EXPR (wult\n"
"                         report's filter language: 'WakeLatency > 200us')\n"
"      --capture[=T]      with --stop-on: trace the measured CPUs' interrupts,\n"
"                         softirqs, timers, scheduling and idle in a tracefs\n"
"                         instance and keep the T (default %ums, at most\n"
"                         %ums; a number without a unit: ms, as before)\n"
"                         before the stop's datapoint in FILE.capture (wult\n"
"                         report shows it); --capture T works too\n"
"  -H, --host HOSTS       record on these systems instead, over ssh:\n"
"                         [USER@]HOST[:PORT], comma-separated; each runs\n"
"                         'wult record -o -' with the other options, and\n"
"                         its perf.data is written here as it comes, to\n"
"                         HOST.data (HOST-PORT.data with a port), or to -o\n"
"                         FILE with one host\n"
"      --ssh-opts OPTS    more options for ssh, split at spaces (e.g.\n"
"                         '-i KEY -o StrictHostKeyChecking=no')\n"
"  -h, --help             this text\n"
"\n"
"Stops at -c, -t, SIGINT, SIGTERM, SIGHUP or SIGQUIT, leaving a complete\n"
"file. The file is valid while it is written and synced every 0.05 s, so a\n"
"killed wult record (SIGKILL, SIGUSR1, ...) loses at most the last 0.075 s.\n"
"A measured CPU that goes offline is reported and measured again when it\n"
"returns (with -o -, recording stops then). When fewer than half of the\n"
"armed datapoints were valid (wult.ko's counters), a warning gives the\n"
"counts and the main reasons; datapoints of an idle state that was disabled\n"
"(the kernel polled or fell back instead) are warned about too.\n"
"\n"
"Times take a unit: ns, us, ms or s; a number without one is in\n"
"microseconds, as in every wult command, except where an option says\n"
"otherwise (-t: seconds, --capture: ms).\n"
"\n"
"Exit status: 0 recorded, 1 failed or stopped early, 2 usage error.\n"
"\n"
"Progress: a line rewritten in place when stderr is a terminal, else a plain\n"
"line every 10 s. WULT_PROGRESS=lines gives the plain lines on a terminal\n"
"too (a terminal that is not the user's, e.g. a guest's serial port logged\n"
"to a file).\n",
		WULT_LDIST_DEF_MIN_US, WULT_LDIST_DEF_MAX_US, WULT_LDIST_LIMIT_US,
		CAPTURE_DEF_MS, CAPTURE_MAX_MS);
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

/* -t: a time, bare seconds (as timeout(1)), m and h too. 0 or -1. */
static int parse_time(const char *s, double *secs, char *err, size_t errlen)
{
	double ns;

	if (wult_time_parse(s, 1e9, WULT_TIME_LONG, &ns, err, errlen))
		return -1;
	*secs = ns / 1e9;
	return 0;
}

/* @ns (@what: MIN or MAX) in whole microseconds, at most @max. 0 or -1 (@err). */
static int parse_us(const char *what, double ns, unsigned int max, unsigned int *us,
		    char *err, size_t errlen)
{
	if (ns != (double)(unsigned long long)(ns / 1e3) * 1e3) {
		snprintf(err, errlen, "%s is not a whole number of microseconds", what);
		return -1;
	}
	if (ns / 1e3 > max) {
		snprintf(err, errlen, "%s is above %uus", what, max);
		return -1;
	}
	*us = (unsigned int)(ns / 1e3);
	return 0;
}

/* --ldist MIN,MAX (bare: us). 0 or -1 (said why). */
static int parse_ldist(char *arg, struct rec_opts *o)
{
	unsigned int lo, hi;
	double a, b;
	char err[160];

	if (wult_time_range_parse(arg, WULT_TIME_BARE_US, WULT_TIME_ZERO, &a, &b, err,
				  sizeof(err)) ||
	    parse_us("MAX", b, WULT_LDIST_LIMIT_US, &hi, err, sizeof(err)) ||
	    parse_us("MIN", a, WULT_LDIST_LIMIT_US, &lo, err, sizeof(err))) {
		fprintf(stderr, "wult record: bad --ldist '%s': %s\n", arg, err);
		return -1;
	}
	if (!hi) {
		fprintf(stderr, "wult record: bad --ldist '%s': MAX must be above 0\n", arg);
		return -1;
	}
	o->ldist_min = lo;
	o->ldist_max = hi;
	return 0;
}

static int parse_method(const char *arg, struct rec_opts *o)
{
	if (!strcmp(arg, "hrt")) {
		o->method = WULT_SOURCE_HRT;
	} else if (!strcmp(arg, "tdt")) {
		o->method = WULT_SOURCE_TDT;
	} else if (!strcmp(arg, "ipi")) {
		o->method = WULT_SOURCE_IPI;
	} else if (!strcmp(arg, "nic")) {
		o->method = WULT_SOURCE_NIC;
	} else {
		fprintf(stderr, "wult record: bad --method '%s': hrt, tdt, ipi or nic\n", arg);
		return -1;
	}
	return 0;
}

/*
 * The method's event terms: none for hrt, so older modules still work;
 * ipi's launcher and nic's device as their config2 terms, the device as
 * (domain << 16) | (bus << 8) | devfn.
 */
static int method_terms(struct rec_opts *o)
{
	unsigned int dom = 0, bus, dev, fn;
	char end;

	if (o->launcher >= 0 && o->method != WULT_SOURCE_IPI) {
		fprintf(stderr, "wult record: --launcher is for --method ipi\n");
		return -1;
	}
	if (o->wake_task && o->method != WULT_SOURCE_IPI) {
		fprintf(stderr, "wult record: --wake-task is for --method ipi\n");
		return -1;
	}
	if (o->method == WULT_SOURCE_NIC) {
		if (!o->device) {
			fprintf(stderr, "wult record: --method nic needs --device BDF\n");
			return -1;
		}
		if (sscanf(o->device, "%x:%x:%x.%u%c", &dom, &bus, &dev, &fn, &end) != 4 &&
		    (dom = 0, sscanf(o->device, "%x:%x.%u%c", &bus, &dev, &fn, &end) != 3)) {
			fprintf(stderr, "wult record: bad --device '%s': [DOMAIN:]BUS:DEV.FN\n",
				o->device);
			return -1;
		}
		if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7) {
			fprintf(stderr, "wult record: bad --device '%s': out of range\n",
				o->device);
			return -1;
		}
		snprintf(o->term, sizeof(o->term), ",source=%u,device=0x%x",
			 WULT_SOURCE_NIC, (dom << 16) | (bus << 8) | (dev << 3) | fn);
		return 0;
	}
	if (o->device) {
		fprintf(stderr, "wult record: --device is for --method nic\n");
		return -1;
	}
	if (o->method == WULT_SOURCE_IPI) {
		int n = snprintf(o->term, sizeof(o->term), ",source=%u",
				 WULT_SOURCE_IPI);

		if (o->launcher >= 0)
			n += snprintf(o->term + n, sizeof(o->term) - n,
				      ",launcher=%ld", o->launcher);
		if (o->wake_task)
			snprintf(o->term + n, sizeof(o->term) - n, ",waketask=1");
	} else if (o->method != WULT_SOURCE_HRT)
		snprintf(o->term, sizeof(o->term), ",source=%u", o->method);
	return 0;
}

/*
 * WULT_PROGRESS: "lines" for plain progress lines even on a terminal, for
 * a terminal that only relays to something else (vm-run's guest writes
 * to a serial port, a tty, whatever vm-run's own output is); "auto" or
 * unset: the terminal test alone. 0 or -1 (said why).
 */
static int progress_env(struct rec_opts *o)
{
	const char *v = getenv("WULT_PROGRESS");

	if (!v || !*v || !strcmp(v, "auto"))
		return 0;
	if (!strcmp(v, "lines")) {
		o->progress_lines = 1;
		return 0;
	}
	fprintf(stderr, "wult record: bad WULT_PROGRESS '%s': lines or auto\n", v);
	return -1;
}

/* -C: perf's CPU list syntax, checked here to say what is wrong. 0 or -1. */
static int parse_cpus(const char *arg)
{
	static unsigned char set[REC_MAX_CPUS];
	char err[160];

	if (wult_cpulist_parse(arg, set, REC_MAX_CPUS, err, sizeof(err)) < 0) {
		fprintf(stderr, "wult record: bad --cpus: %s\n", err);
		return -1;
	}
	return 0;
}

/* --capture[=T]: a window (bare: ms, its old unit), whole ms. 0 or -1. */
static int parse_capture(const char *arg, struct rec_opts *o)
{
	double ns;

	o->capture_ms = CAPTURE_DEF_MS;
	if (!arg)
		return 0;
	if (wult_time_parse(arg, 1e6, 0, &ns, NULL, 0) || ns > CAPTURE_MAX_MS * 1e6 ||
	    ns != (double)(unsigned long long)(ns / 1e6) * 1e6) {
		fprintf(stderr, "wult record: bad --capture '%s': a window of 1-%u ms, "
			"whole ms (a number without a unit: ms)\n", arg, CAPTURE_MAX_MS);
		return -1;
	}
	o->capture_ms = (unsigned int)(ns / 1e6);
	return 0;
}

/*
 * The argv tokens of the option getopt_long() just returned with its value
 * (-o, -H, --ssh-opts), which a remote recording keeps on the controller
 * (record_remote.c). 0 or -1 (too many, said).
 */
static int note_local(int c, char **argv, struct rec_opts *o)
{
	/* A separate value is the token before optind, else it is attached. */
	int i, first = optarg == argv[optind - 1] ? optind - 2 : optind - 1;
	const char *t = argv[first];

	if (o->nr_local + 2 > REC_MAX_LOCAL) {
		fprintf(stderr, "wult record: too many -o, -H and --ssh-opts options\n");
		return -1;
	}
	if (t[0] == '-' && t[1] != '-' && t[1] != c)
		o->local_mixed = t;
	for (i = first; i < optind; i++)
		o->local_idx[o->nr_local++] = i;
	return 0;
}

/* The options with a value. 0 or -1 (said why). */
static int parse_valued(int c, char *arg, struct rec_opts *o)
{
	unsigned long long v;
	char err[160];

	switch (c) {
	case 'l':
		return parse_ldist(arg, o);
	case OPT_METHOD:
		return parse_method(arg, o);
	case OPT_LAUNCHER:
		if (parse_uint(arg, wult_cfg_launcher_max(), &v)) {
			fprintf(stderr, "wult record: bad --launcher '%s': a CPU number\n", arg);
			return -1;
		}
		o->launcher = (long)v;
		return 0;
	case 'c':
		if (parse_uint(arg, ~0ULL, &v) || !v) {
			fprintf(stderr, "wult record: bad --count '%s'\n", arg);
			return -1;
		}
		o->count = v;
		return 0;
	case 't':
		if (parse_time(arg, &o->time_limit, err, sizeof(err))) {
			fprintf(stderr, "wult record: bad --time-limit '%s': %s (e.g. 10, 10s, "
				"2m)\n", arg, err);
			return -1;
		}
		return 0;
	case 'e':
		if (o->nr_user_ev == REC_MAX_USER_EV) {
			fprintf(stderr, "wult record: too many -e events\n");
			return -1;
		}
		o->user_ev[o->nr_user_ev++] = arg;
		return 0;
	default:	/* --mmap-pages, -m */
		if (parse_uint(arg, 1 << 20, &v) || !v || (v & (v - 1))) {
			fprintf(stderr, "wult record: --mmap-pages must be a "
				"power of 2, got '%s'\n", arg);
			return -1;
		}
		o->pages = v;
		return 0;
	}
}

int rec_opts_parse(int argc, char **argv, struct rec_opts *o)
{
	static const struct option lopts[] = {
		{ "cpus", required_argument, NULL, 'C' },
		{ "cpu", required_argument, NULL, 'C' },	/* the old name */
		{ "ldist", required_argument, NULL, 'l' },
		{ "method", required_argument, NULL, OPT_METHOD },
		{ "launcher", required_argument, NULL, OPT_LAUNCHER },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "count", required_argument, NULL, 'c' },
		{ "time-limit", required_argument, NULL, 't' },
		{ "event", required_argument, NULL, 'e' },
		{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
		{ "no-branches", no_argument, NULL, OPT_NO_BRANCHES },
		{ "wake-task", no_argument, NULL, OPT_WAKE_TASK },
		{ "output", required_argument, NULL, 'o' },
		{ "mmap-pages", required_argument, NULL, OPT_MMAP },
		{ "quiet", no_argument, NULL, 'q' },
		{ "states", required_argument, NULL, OPT_STATES },
		{ "deepest-state", required_argument, NULL, OPT_DEEPEST },
		{ "idle-governor", required_argument, NULL, OPT_GOVERNOR },
		{ "stop-on", required_argument, NULL, OPT_STOP_ON },
		{ "capture", optional_argument, NULL, OPT_CAPTURE },
		{ "host", required_argument, NULL, 'H' },
		{ "ssh-opts", required_argument, NULL, OPT_SSH_OPTS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->ldist_min = WULT_LDIST_DEF_MIN_US;
	o->ldist_max = WULT_LDIST_DEF_MAX_US;
	o->output = "wult.data";
	o->pages = 256;
	o->launcher = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "C:l:c:t:e:o:m:qhH:", lopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			if (parse_cpus(optarg))
				return -1;
			o->cpus = optarg;
			break;
		case 'l': case OPT_METHOD: case OPT_LAUNCHER: case 'c': case 't': case 'e':
		case 'm': case OPT_MMAP:
			if (c == 'm')
				fprintf(stderr, "wult record: -m is --mmap-pages here (perf record's "
					"letter, kept for scripts); in wult, -m means metrics: spell "
					"it --mmap-pages\n");
			if (parse_valued(c, optarg, o))
				return -1;
			break;
		case OPT_NO_BRANCHES:
			o->no_branches = 1;
			break;
		case OPT_NO_COUNTERS:
			o->no_counters = 1;
			break;
		case OPT_WAKE_TASK:
			o->wake_task = 1;
			break;
		case 'o': case 'H': case OPT_SSH_OPTS:
			if (note_local(c, argv, o))
				return -1;
			if (c == 'o') {
				o->output = optarg;
				o->output_set = 1;
			} else if (c == 'H') {
				o->hosts = optarg;
			} else {
				o->ssh_opts = optarg;
			}
			break;
		case 'q':
			o->quiet = 1;
			break;
		case OPT_STATES:
			o->states = optarg;
			break;
		case OPT_DEEPEST:
			o->deepest = optarg;
			break;
		case OPT_GOVERNOR:
			o->governor = optarg;
			break;
		case OPT_DEVICE:
			o->device = optarg;
			break;
		case OPT_STOP_ON:
			o->stop_on = optarg;
			break;
		case OPT_CAPTURE:
			/* --capture T as --capture=T: wult record takes no operand. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (parse_capture(optarg, o))
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wult record: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (method_terms(o) || progress_env(o))
		return -1;
	if (o->states && o->deepest) {
		fprintf(stderr, "wult record: --states and --deepest-state exclude each other\n");
		return -1;
	}
	if (o->capture_ms && !o->stop_on) {
		fprintf(stderr, "wult record: --capture needs --stop-on (the datapoint to "
			"capture before)\n");
		return -1;
	}
	if (o->ssh_opts && !o->hosts) {
		fprintf(stderr, "wult record: --ssh-opts is for -H (recording on other hosts)\n");
		return -1;
	}
	if (o->capture_ms && o->hosts) {
		fprintf(stderr, "wult record: --capture is not available with -H (the capture "
			"would stay on the host)\n");
		return -1;
	}
	if (o->capture_ms && !strcmp(o->output, "-")) {
		fprintf(stderr, "wult record: --capture needs an output file (the capture "
			"goes beside it), not -o -\n");
		return -1;
	}
	return 0;
}
