// SPDX-License-Identifier: GPL-2.0
/*
 * wult tsc: is the TSC fit for latency measurement here, and how do its
 * ticks turn into ns? Prints the CPU flags and clocksource, the calibrated
 * rate against the kernel's, the conversion parameters and how long they
 * last, and the cross-CPU evaluation. Exits 1 when the TSC is unfit.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/tsc.h>

#include "cmds.h"

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
} num_opts[] = {
	{ "probes", offsetof(struct tsc_args, eval.probes), "CAS probes per window" },
	{ "min-triples", offsetof(struct tsc_args, eval.min_triples),
	  "usable base-cpu-base triples per CPU for a window to count" },
	{ "max-triple-ticks", offsetof(struct tsc_args, eval.max_triple_ticks),
	  "a triple wider than this was disturbed" },
	{ "windows", offsetof(struct tsc_args, eval.good_windows), "windows to keep" },
	{ "max-windows", offsetof(struct tsc_args, eval.max_windows), "windows to try" },
	{ "max-ms", offsetof(struct tsc_args, eval.max_ms),
	  "start no window after this many ms (0: no limit)" },
	{ "switch-rounds", offsetof(struct tsc_args, eval.switch_rounds),
	  "CPU-switching passes over all CPUs" },
	{ "max-shift-ns", offsetof(struct tsc_args, eval.max_shift_ns),
	  "largest cross-CPU shift fit for latency measurement" },
	{ "max-pace-ppm", offsetof(struct tsc_args, eval.max_pace_ppm),
	  "largest rate difference between CPUs" },
	{ "calib-windows", offsetof(struct tsc_args, calib.windows),
	  "calibration measurements" },
	{ "calib-us", offsetof(struct tsc_args, calib.window_us),
	  "length of each, in us" },
};

#define NUM_OPTS	(sizeof(num_opts) / sizeof(num_opts[0]))
#define O_CPUS		((int)NUM_OPTS)
#define O_HELP		'h'

static unsigned int *num_field(struct tsc_args *a, size_t i)
{
	return (unsigned int *)((char *)a + num_opts[i].off);
}

static void tsc_usage(FILE *f)
{
	struct tsc_args def = { 0 };
	size_t i;

	wult_tsc_eval_opts_init(&def.eval);
	wult_tsc_calib_opts_init(&def.calib);
	fprintf(f,
		"usage: wult tsc [options]\n"
		"\n"
		"Evaluate the TSC on the CPUs of this thread's affinity mask (or --cpus)\n"
		"and print its conversion parameters. Exit status: 0 fit, 1 unfit (the\n"
		"reasons are printed), 2 usage or system error, 3 could not conclude\n"
		"(the shift bound is too loose on a busy host: retry).\n"
		"\n"
		"options:\n"
		"  --cpus LIST           CPUs to evaluate, e.g. 0-3,6 (default: affinity mask)\n");
	for (i = 0; i < NUM_OPTS; i++)
		fprintf(f, "  --%-16s N  %s (default %u)\n", num_opts[i].name, num_opts[i].help,
			*num_field(&def, i));
	fprintf(f, "  -h, --help            this text\n");
}

/* "0-3,6" into set; 0 or -EINVAL. */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	char *end;
	long a, b;

	CPU_ZERO(set);
	while (*s) {
		a = strtol(s, &end, 10);
		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -EINVAL;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= CPU_SETSIZE)
				return -EINVAL;
			s = end;
		}
		for (; a <= b; a++)
			CPU_SET((int)a, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return CPU_COUNT(set) ? 0 : -EINVAL;
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
		       "switching", e.hz, e.pace_ppm);
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

/* Options into args and cpus (*cpusp set when --cpus given): -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct tsc_args *args, cpu_set_t *cpus,
		      cpu_set_t **cpusp)
{
	struct option lopts[NUM_OPTS + 3];
	size_t i;
	int opt;

	for (i = 0; i < NUM_OPTS; i++)
		lopts[i] = (struct option){ num_opts[i].name, required_argument, NULL, (int)i };
	lopts[i++] = (struct option){ "cpus", required_argument, NULL, O_CPUS };
	lopts[i++] = (struct option){ "help", no_argument, NULL, O_HELP };
	lopts[i] = (struct option){ NULL, 0, NULL, 0 };

	wult_tsc_eval_opts_init(&args->eval);
	wult_tsc_calib_opts_init(&args->calib);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		if (opt == O_HELP) {
			tsc_usage(stdout);
			return EXIT_FIT;
		}
		if (opt == O_CPUS) {
			if (parse_cpus(optarg, cpus)) {
				fprintf(stderr, "wult tsc: bad CPU list '%s'\n", optarg);
				return EXIT_ERROR;
			}
			*cpusp = cpus;
			continue;
		}
		if (opt < 0 || opt >= (int)NUM_OPTS) {
			tsc_usage(stderr);
			return EXIT_ERROR;
		}
		if (parse_uint(optarg, num_field(args, (size_t)opt))) {
			fprintf(stderr, "wult tsc: bad number '%s' for --%s\n", optarg,
				num_opts[opt].name);
			return EXIT_ERROR;
		}
	}
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
		       ((double)cal.hz - info.kernel_khz * 1e3) / (info.kernel_khz * 1e3) * 1e6);
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
