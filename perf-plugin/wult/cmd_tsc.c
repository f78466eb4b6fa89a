// SPDX-License-Identifier: GPL-2.0
/*
 * wult tsc: is the TSC fit for latency measurement here, and how do its
 * ticks turn into ns? Prints the CPU flags and clocksource, the calibrated
 * rate against the kernel's, the conversion parameters and how long they
 * last, and the cross-CPU evaluation. Exits 1 when the TSC is unfit.
 */
#include <errno.h>
#include <getopt.h>	/* optind */
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/args.h>
#include <wult/tsc.h>

#include "cmds.h"
#include "opts.h"

#define SECS_PER_YEAR	(365.25 * 24 * 3600)

/* Exit statuses, documented in wult-tsc.md. */
enum {
	EXIT_FIT = 0,
	EXIT_UNFIT = 1,
	EXIT_ERROR = 2,
	EXIT_UNDECIDED = 3,
};

struct tsc_args {
	struct wult_tsc_eval_opts eval;
	struct wult_tsc_calib_opts calib;
};

/* The numeric options: each sets one unsigned field of struct tsc_args. */
static const struct num_opt {
	const char *name;
	size_t off;
	const char *help;
	double unit_ns;		/* a time's bare unit, in ns; 0: a count */
} num_opts[] = {
	{ "probes", offsetof(struct tsc_args, eval.probes), "CAS probes per window", 0 },
	{ "min-triples", offsetof(struct tsc_args, eval.min_triples),
	  "usable base-cpu-base triples per CPU for a window to count", 0 },
	{ "max-triple-ticks", offsetof(struct tsc_args, eval.max_triple_ticks),
	  "a triple wider than this was disturbed", 0 },
	{ "windows", offsetof(struct tsc_args, eval.good_windows), "windows to keep", 0 },
	{ "max-windows", offsetof(struct tsc_args, eval.max_windows), "windows to try", 0 },
	{ "max-ms", offsetof(struct tsc_args, eval.max_ms),
	  "start no window after this long (0: no limit)", 1e6 },
	{ "switch-rounds", offsetof(struct tsc_args, eval.switch_rounds),
	  "CPU-switching passes over all CPUs", 0 },
	{ "max-shift-ns", offsetof(struct tsc_args, eval.max_shift_ns),
	  "largest cross-CPU shift fit for latency measurement", 1 },
	{ "max-pace-ppm", offsetof(struct tsc_args, eval.max_pace_ppm),
	  "largest rate difference between CPUs", 0 },
	{ "calib-windows", offsetof(struct tsc_args, calib.windows),
	  "calibration measurements", 0 },
	{ "calib-us", offsetof(struct tsc_args, calib.window_us),
	  "length of each", 1e3 },
};

#define NUM_OPTS	(sizeof(num_opts) / sizeof(num_opts[0]))
static unsigned int *num_field(struct tsc_args *a, size_t i)
{
	return (unsigned int *)((char *)a + num_opts[i].off);
}

/* @v rounded as %.2f prints it, without the sign of a negative zero ("-0.00"). */
static double ppm2(double v)
{
	v = round(v * 100) / 100;
	return v == 0 ? 0 : v;
}

/* perf's CPU list syntax into @set; 0 or -EINVAL (said why). */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	static unsigned char want[CPU_SETSIZE];
	char err[160];
	int i;

	if (wult_cpulist_parse(s, want, CPU_SETSIZE, err, sizeof(err)) < 0) {
		fprintf(stderr, "wult tsc: bad --cpus: %s\n", err);
		return -EINVAL;
	}
	CPU_ZERO(set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (want[i])
			CPU_SET(i, set);
	return 0;
}

/* A time option's value in its bare unit (@unit_ns ns), whole. 0 or -EINVAL. */
static int parse_num_time(const char *s, double unit_ns, unsigned int *v)
{
	double ns, x;

	if (wult_time_parse(s, unit_ns, WULT_TIME_ZERO, &ns, NULL, 0))
		return -EINVAL;
	x = ns / unit_ns;
	if (x != (double)(unsigned int)x)
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}

static int parse_uint(const char *s, unsigned int *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 0);
	if (errno || end == s || *end || x > UINT32_MAX || s[0] == '-')
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}

static const char *yes_no(int x)
{
	return x ? "yes" : "NO";
}

static void print_conv(const char *name, const struct wult_tsc_conv *c)
{
	double wrap = wult_tsc_conv_secs_to_wrap(c, wult_tsc_read());

	printf("%s: mult %" PRIu64 "/2^64 + %" PRIu64 " ns per tick, zero %" PRId64 " ns,\n"
	       "    rate %" PRIu64 " Hz, ", name, c->frac, c->whole, (int64_t)c->zero, c->hz);
	if (c->exact_ticks >= c->max_ticks)
		printf("exact floor of its rate over its whole range,\n");
	else
		printf("exact floor up to %.3g s of ticks (floor or floor + 1 beyond),\n",
		       (double)c->exact_ticks / (double)c->hz);
	printf("    wraps in %.0f s (%.1f years)\n", wrap, wrap / SECS_PER_YEAR);
}

static void print_shift(int64_t lo, int64_t hi)
{
	if (lo == INT64_MIN || hi == INT64_MAX)
		printf(" %21s", "-");
	else
		printf(" [%9" PRId64 ",%9" PRId64 "]", lo, hi);
}

static int report(const struct wult_tsc_eval *ev)
{
	struct wult_tsc_eval_summary s;
	struct wult_tsc_eval_cpu e;
	enum wult_tsc_verdict v;
	char why[1024];
	unsigned int i;

	wult_tsc_eval_summary(ev, &s);
	printf("\ncross-CPU evaluation, base CPU %d, %u CPUs, %.1f ms:\n", s.base_cpu, s.ncpus,
	       s.duration_ns / 1e6);
	printf("  CAS windows: %u kept, %u disturbed, %u with backward steps (%lu steps)\n",
	       s.windows_kept, s.windows_disturbed, s.windows_violating, s.violations);
	printf("  threads: %s\n", s.realtime ? "SCHED_FIFO" : "SCHED_OTHER (SCHED_FIFO not permitted)");
	printf("  CPU switching: %lu backward steps\n", s.switch_violations);
	printf("  %4s %21s %8s %8s %21s %9s %12s %9s\n", "cpu", "CAS shift [lo,hi]", "bound",
	       "triples", "switching [lo,hi]", "bound by", "rate Hz", "pace ppm");
	for (i = 0; i < s.ncpus; i++) {
		wult_tsc_eval_cpu(ev, i, &e);
		printf("  %4d", e.cpu);
		print_shift(e.shift_lo, e.shift_hi);
		printf(" %8" PRIu64 " %8lu", e.shift_bound, e.triples);
		print_shift(e.switch_lo, e.switch_hi);
		printf(" %9s %12" PRIu64 " %+9.2f\n", !i ? "-" : e.method == WULT_TSC_BY_CAS ? "CAS" :
		       "switching", e.hz, ppm2(e.pace_ppm));
	}
	printf("  shift bound: %" PRIu64 " ticks (%" PRIu64 " ns) by %s; TSC advancing: %s; "
	       "max rate difference %.2f ppm\n", s.shift_bound, s.shift_bound_ns,
	       wult_tsc_method_name(s.method), yes_no(s.advancing), s.max_pace_ppm);
	v = wult_tsc_eval_verdict(ev, why, sizeof(why));
	if (v == WULT_TSC_FIT) {
		printf("\nverdict: TSC fit for latency measurement: %s\n", why);
		return EXIT_FIT;
	}
	if (v == WULT_TSC_UNDECIDED) {
		printf("\nverdict: could not conclude: %s (retry on a quieter machine)\n", why);
		return EXIT_UNDECIDED;
	}
	printf("\nverdict: TSC UNFIT for latency measurement: %s\n", why);
	return EXIT_UNFIT;
}

/* A numeric option's help: its default and unit, below its name when that
 * is too long to share the line (the layout wult tsc always had). */
static void num_help(char *buf, size_t len, const struct num_opt *o, unsigned int def)
{
	snprintf(buf, len, "%s%s (default %u%s)", strlen(o->name) + 10 > 22 ? "\n" : "",
		 o->help, def,
		 o->unit_ns == 1e6 ? "ms" : o->unit_ns == 1e3 ? "us" : o->unit_ns ? "ns" : "");
}

/* What the options fill. */
struct tsc_ctx {
	struct tsc_args *args;
	cpu_set_t *cpus;
	cpu_set_t **cpusp;	/* set to cpus when --cpus is given */
};

static int cpus_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct tsc_ctx *c = ctx;

	(void)opt;
	if (parse_cpus(arg, c->cpus))
		return -1;
	*c->cpusp = c->cpus;
	return 0;
}

/* A numeric option; opt->data its num_opts[] entry. */
static int num_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	const struct num_opt *n = opt->data;
	unsigned int *v = num_field(((struct tsc_ctx *)ctx)->args, (size_t)(n - num_opts));

	if (n->unit_ns ? parse_num_time(arg, n->unit_ns, v) : parse_uint(arg, v)) {
		fprintf(stderr, "wult tsc: bad %s '%s' for --%s\n", n->unit_ns ? "time (a whole "
			"number of the option's unit)" : "number", arg, n->name);
		return -1;
	}
	return 0;
}

/* Options into args and cpus (*cpusp set when --cpus given): -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct tsc_args *args, cpu_set_t *cpus,
		      cpu_set_t **cpusp)
{
	struct tsc_ctx ctx = { args, cpus, cpusp };
	struct wult_opt opts[NUM_OPTS + 3];
	char help[NUM_OPTS][160];
	struct tsc_args def = { 0 };
	struct wult_optset set = {
		.head = "usage: wult tsc [options]\n"
			"\n"
			"Evaluate the TSC on the CPUs of this thread's affinity mask (or --cpus)\n"
			"and print its conversion parameters.\n"
			"\n",
		.opts = opts,
		.tail = "\n"
			"Times take a unit: ns, us, ms or s; a number without one is in the unit\n"
			"the option's name ends with (--max-ms 2s is --max-ms 2000).\n"
			"\n"
			"Exit status: 0 fit, 1 unfit (the reasons are printed), 2 usage or\n"
			"system error, 3 could not conclude (the shift bound is too loose on a\n"
			"busy host: retry).\n",
		.col = 24,
	};
	size_t i;
	int ret;

	wult_tsc_eval_opts_init(&def.eval);
	wult_tsc_calib_opts_init(&def.calib);
	opts[0] = (struct wult_opt)WULT_OPT_CALLBACK('C', "cpus", "LIST", cpus_opt, NULL,
						     "CPUs to evaluate, perf syntax, e.g. 0-3,6\n"
						     "(default: the affinity mask)");
	for (i = 0; i < NUM_OPTS; i++) {
		num_help(help[i], sizeof(help[i]), &num_opts[i], *num_field(&def, i));
		opts[i + 1] = (struct wult_opt)WULT_OPT_CALLBACK(0, num_opts[i].name,
								 num_opts[i].unit_ns ? "T" : "N",
								 num_opt, (void *)&num_opts[i],
								 help[i]);
	}
	opts[i + 1] = (struct wult_opt)WULT_OPT_HELP();
	opts[i + 2] = (struct wult_opt)WULT_OPT_END();

	wult_tsc_eval_opts_init(&args->eval);
	wult_tsc_calib_opts_init(&args->calib);
	ret = wult_opts_start(&set, argc, argv, &ctx);
	if (ret)
		return ret == WULT_OPTS_HELP ? EXIT_FIT : EXIT_ERROR;
	if (optind < argc) {
		fprintf(stderr, "wult tsc: unexpected argument '%s'\n", argv[optind]);
		return EXIT_ERROR;
	}
	return -1;
}

/*
 * Flags, calibration and conversion: they do not need the CPUs running
 * together, so they are reported even when a busy machine keeps the
 * cross-CPU evaluation from concluding. 0 or the exit status.
 */
static int print_rates(const struct tsc_args *args)
{
	struct wult_tsc_calib cal;
	struct wult_tsc_conv conv;
	struct wult_tsc_info info;
	char msg[256];

	if (wult_tsc_info_get(&info, msg, sizeof(msg))) {
		fprintf(stderr, "wult tsc: %s\n", msg);
		return EXIT_ERROR;
	}
	printf("CPU flags: constant_tsc %s, nonstop_tsc %s, tsc_known_freq %s, rdtscp %s\n",
	       yes_no(info.constant_tsc), yes_no(info.nonstop_tsc), yes_no(info.tsc_known_freq),
	       yes_no(info.rdtscp));
	if (!info.rdtscp)
		printf("  without rdtscp the cross-CPU probes read lfence;rdtsc: ordered, but with "
		       "no check that the thread stayed on its CPU (pinned, so it should)\n");
	printf("kernel clocksource: %s%s\n", info.clocksource,
	       strcmp(info.clocksource, "tsc") ? " (the kernel does not time itself with the TSC)" : "");
	if (info.kernel_khz)
		printf("kernel TSC rate: %" PRIu64 " kHz (%s)\n", info.kernel_khz,
		       info.kernel_khz_source);
	else
		printf("kernel TSC rate: not stated\n");

	if (wult_tsc_calibrate(&args->calib, &cal, msg, sizeof(msg))) {
		fprintf(stderr, "wult tsc: calibration failed: %s\n", msg);
		return EXIT_ERROR;
	}
	printf("calibrated rate: %" PRIu64 " Hz against CLOCK_MONOTONIC_RAW (%u windows kept, "
	       "%u rejected, spread %.2f ppm, %.0f ms)", cal.hz, cal.windows, cal.rejected,
	       cal.spread_ppm, cal.duration_ns / 1e6);
	if (info.kernel_khz)
		printf(", %+.2f ppm from the kernel's",
		       ppm2(((double)cal.hz - info.kernel_khz * 1e3) / (info.kernel_khz * 1e3) * 1e6));
	printf("\n");

	if (!wult_tsc_conv_from_hz(&conv, cal.hz, msg, sizeof(msg)))
		print_conv("conversion (calibrated)", &conv);
	if (info.kernel_khz && !wult_tsc_conv_from_khz(&conv, info.kernel_khz, msg, sizeof(msg)))
		print_conv("conversion (kernel tsc_khz)", &conv);
	if (!wult_tsc_conv_from_perf_self(&conv, msg, sizeof(msg)))
		print_conv("conversion (perf sample time)", &conv);
	else
		printf("conversion (perf sample time): unavailable: %s\n", msg);
	return 0;
}

int wult_cmd_tsc(int argc, char **argv)
{
	struct tsc_args args = { 0 };
	struct wult_tsc_eval *ev;
	cpu_set_t cpus, *cpusp = NULL;
	char msg[256];
	int ret;

	ret = parse_args(argc, argv, &args, &cpus, &cpusp);
	if (ret >= 0)
		return ret;
	ret = print_rates(&args);
	if (ret)
		return ret;
	ret = wult_tsc_eval_run(cpusp, &args.eval, &ev, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "wult tsc: evaluation failed: %s\n", msg);
		return EXIT_ERROR;
	}
	ret = report(ev);
	wult_tsc_eval_free(ev);
	return ret;
}
