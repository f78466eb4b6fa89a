// SPDX-License-Identifier: GPL-2.0
/*
 * wult record's options: the usage text, the option table and the checks
 * of each value and of the options together. A new option is an entry of
 * rec_opts_parse()'s table (opts.h: a flag, a string or a callback) and
 * a field of struct rec_opts.
 */
#include <errno.h>
#include <getopt.h>	/* optind, optarg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/wult.h>
#include <wult/args.h>
#include <wult/dpdec.h>

#include "opts.h"
#include "record_opts.h"

/* The CPU numbers -C may name (NR_CPUS of the largest kernel configs). */
#define REC_MAX_CPUS	8192

/* --capture's window (ms): a wake's story is rarely longer. */
#define CAPTURE_DEF_MS	10
#define CAPTURE_MAX_MS	1000

/* The long-only options parse_valued() takes, by the code it knows them by. */
enum {
	OPT_METHOD = 256,
	OPT_LAUNCHER,
	OPT_MMAP,
};

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
	unsigned int id;

	/* The uapi header's source list. */
	for (id = 0; id < WULT_SOURCE_MAX; id++) {
		if (wult_source_name(id) && !strcmp(arg, wult_source_name(id))) {
			o->method = id;
			return 0;
		}
	}
	fprintf(stderr, "wult record: bad --method '%s': %s\n", arg, wult_dpdec_source_list());
	return -1;
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

/* What the callbacks fill, and the argv a few of them look at. */
struct rec_ctx {
	struct rec_opts *o;
	int argc;
	char **argv;
};

static int cpus_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)opt;
	if (parse_cpus(arg))
		return -1;
	((struct rec_ctx *)ctx)->o->cpus = arg;
	return 0;
}

/* The options parse_valued() checks: its code is the letter, or opt->data's. */
static int valued_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	int c = opt->key ? opt->key : *(const int *)opt->data;

	if (c == 'm')
		fprintf(stderr, "wult record: -m is --mmap-pages here (perf record's letter, kept "
			"for scripts); in wult, -m means metrics: spell it --mmap-pages\n");
	return parse_valued(c, (char *)arg, ((struct rec_ctx *)ctx)->o);
}

static int opt_method = OPT_METHOD, opt_launcher = OPT_LAUNCHER, opt_mmap = OPT_MMAP;

/* -o, -H, --ssh-opts: their tokens stay on the controller with -H. */
static int local_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rec_ctx *c = ctx;
	struct rec_opts *o = c->o;

	if (note_local(opt->key, c->argv, o))
		return -1;
	if (opt->key == 'o') {
		o->output = arg;
		o->output_set = 1;
	} else if (opt->key == 'H') {
		o->hosts = arg;
	} else {
		o->ssh_opts = arg;
	}
	return 0;
}

static int capture_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct rec_ctx *c = ctx;

	(void)opt;
	/* --capture T as --capture=T: wult record takes no operand. */
	if (!arg && optind < c->argc && c->argv[optind][0] != '-')
		arg = c->argv[optind++];
	return parse_capture(arg, c->o);
}

#define DEF(x)	WULT_OPT_STR(x)

int rec_opts_parse(int argc, char **argv, struct rec_opts *o)
{
	struct rec_ctx ctx = { o, argc, argv };
	const struct wult_opt opts[] = {
		WULT_OPT_CALLBACK('C', "cpus", "CPUS", cpus_opt, NULL,
				  "CPUs to measure, perf syntax (1,3 or 0-3);\n"
				  "default CPU 1 when it exists, else 0 (--cpu is\n"
				  "an old name of it)"),
		WULT_OPT_CALLBACK(0, "cpu", "CPUS", cpus_opt, NULL, NULL),
		WULT_OPT_CALLBACK('l', "ldist", "MIN,MAX", valued_opt, NULL,
				  "launch distance range, whole microseconds, e.g.\n"
				  "100us,1ms (default " DEF(WULT_LDIST_DEF_MIN_US) "us,"
				  DEF(WULT_LDIST_DEF_MAX_US) "us; at most " DEF(WULT_LDIST_LIMIT_US)
				  "us); MAX\n"
				  "must not be below the CPUs' LDist floor (measured\n"
				  "first)"),
		WULT_OPT_CALLBACK(0, "method", "M", valued_opt, &opt_method,
				  "delayed-event source: hrt (default: a high\n"
				  "resolution timer), tdt (the local APIC's TSC\n"
				  "deadline, where the APIC has that mode), ipi\n"
				  "(a wake sent from a launcher CPU, as a remote\n"
				  "scheduler wakeup: an IPI, or to a polling CPU a\n"
				  "need_resched write without interrupt) or nic (a\n"
				  "PCI device's clock and interrupt; needs --device;\n"
				  "the device leaves its driver while measured and\n"
				  "gets it back after)"),
		WULT_OPT_CALLBACK(0, "launcher", "N", valued_opt, &opt_launcher,
				  "ipi: the CPU that sends the wakes (default CPU 0,\n"
				  "or, measuring CPU 0, one the kernel picks)"),
		WULT_OPT_FLAG(0, "wake-task", &o->wake_task,
			      "ipi: the wake is a wake_up_process() of a kernel\n"
			      "thread bound to the measured CPU; datapoints add\n"
			      "RunLatency, when it runs (not on PREEMPT_RT)"),
		WULT_OPT_STRING(0, "device", "BDF", &o->device,
				"the nic method's PCI device, [DOMAIN:]BUS:DEV.FN\n"
				"(as lspci -D shows it); rtl8139 only for now"),
		WULT_OPT_CALLBACK('c', "count", "N", valued_opt, NULL,
				  "stop after N datapoints (all CPUs together)"),
		WULT_OPT_CALLBACK('t', "time-limit", "T", valued_opt, NULL,
				  "stop after T (e.g. 500ms, 10s, 2m, 1h; a number\n"
				  "without a unit: seconds)"),
		WULT_OPT_CALLBACK('e', "event", "EVENT", valued_opt, NULL,
				  "also count EVENT in the group: pmu/term=val,.../\n"
				  "or a generic name (cycles, cpu-clock, ...);\n"
				  "repeatable"),
		WULT_OPT_FLAG(0, "no-counters", &o->no_counters,
			      "do not add the discovered counters (nor the idle\n"
			      "accounting)"),
		WULT_OPT_FLAG(0, "no-branches", &o->no_branches,
			      "no branch context (LBR) even where it can be read"),
		WULT_OPT_CALLBACK('o', "output", "FILE", local_opt, NULL,
				  "output file (default wult.data); an existing one\n"
				  "is kept as FILE.old, as perf record does; '-' is\n"
				  "standard output, in perf's pipe mode"),
		WULT_OPT_CALLBACK(0, "mmap-pages", "N", valued_opt, &opt_mmap,
				  "ring buffer pages per CPU, a power of 2 (default\n"
				  "256; -m N, perf record's letter, is kept for\n"
				  "scripts: in wult, -m means metrics)"),
		WULT_OPT_CALLBACK('m', NULL, "N", valued_opt, NULL, NULL),
		WULT_OPT_FLAG('q', "quiet", &o->quiet, "no progress reports and no summary"),
		WULT_OPT_STRING(0, "states", "NAMES", &o->states,
				"enable only these idle states of the measured CPUs\n"
				"(cpuidle names, comma-separated, e.g. POLL,C6)\n"
				"while recording; restored afterwards"),
		WULT_OPT_STRING(0, "deepest-state", "NAME", &o->deepest,
				"enable NAME and the shallower idle states,\n"
				"disable the deeper ones while recording"),
		WULT_OPT_STRING(0, "idle-governor", "NAME", &o->governor,
				"switch the cpuidle governor to NAME (one of\n"
				"cpuidle/available_governors) while recording"),
		WULT_OPT_STRING(0, "stop-on", "EXPR", &o->stop_on,
				"stop at the first datapoint matching EXPR (wult\n"
				"report's filter language: 'WakeLatency > 200us')"),
		WULT_OPT_CALLBACK_OPTARG(0, "capture", "T", capture_opt, NULL,
					 "with --stop-on: trace the measured CPUs' interrupts,\n"
					 "softirqs, timers, scheduling and idle in a tracefs\n"
					 "instance and keep the T (default " DEF(CAPTURE_DEF_MS)
					 "ms, at most\n" DEF(CAPTURE_MAX_MS) "ms; a number "
					 "without a unit: ms, as before)\n"
					 "before the stop's datapoint in FILE.capture (wult\n"
					 "report shows it); --capture T works too"),
		WULT_OPT_CALLBACK('H', "host", "HOSTS", local_opt, NULL,
				  "record on these systems instead, over ssh:\n"
				  "[USER@]HOST[:PORT], comma-separated; each runs\n"
				  "'wult record -o -' with the other options, and\n"
				  "its perf.data is written here as it comes, to\n"
				  "HOST.data (HOST-PORT.data with a port), or to -o\n"
				  "FILE with one host"),
		WULT_OPT_CALLBACK(0, "ssh-opts", "OPTS", local_opt, NULL,
				  "more options for ssh, split at spaces (e.g.\n"
				  "'-i KEY -o StrictHostKeyChecking=no')"),
		WULT_OPT_HELP(),
		WULT_OPT_END(),
	};
	const struct wult_optset set = {
		.head = "usage: wult record [options]\n"
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
			"\n",
		.opts = opts,
		.tail = "\n"
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
		.col = 25,
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->ldist_min = WULT_LDIST_DEF_MIN_US;
	o->ldist_max = WULT_LDIST_DEF_MAX_US;
	o->output = "wult.data";
	o->pages = 256;
	o->launcher = -1;
	ret = wult_opts_start(&set, argc, argv, &ctx);
	if (ret)
		return ret == WULT_OPTS_HELP ? 1 : -1;
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
