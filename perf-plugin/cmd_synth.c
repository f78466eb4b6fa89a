// SPDX-License-Identifier: GPL-2.0
/*
 * wult synth: write a perf.data file of synthetic wult datapoints with
 * known distributions (for tests and benchmarks). Stock `perf script`
 * reads it as wult:datapoint tracepoint samples.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/synth.h>

#include "cmds.h"

static void synth_usage(FILE *f)
{
	fprintf(f,
		"usage: wult synth [options]\n\n"
		"  -o, --output FILE     perf.data to write (default synth.data)\n"
		"  -c, --count N         datapoints (default 1000)\n"
		"  -s, --seed N          random seed (default 1): same seed, same file\n"
		"      --cpus N          CPUs the datapoints cycle over (default 1)\n"
		"      --cstates N       requested idle state indexes 0..N-1 (default 3)\n"
		"      --tsc-khz N       TSC frequency in kHz (default 2000000)\n"
		"      --wake MIN,MAX    raw wake latency, uniform (default 1us,20us)\n"
		"      --tail FRAC,MAX   fraction with a wake latency up to MAX\n"
		"                        (default 0.001,500us)\n"
		"      --ldist MIN,MAX   launch distance, uniform (default 1us,4ms)\n"
		"      --round N         samples per FINISHED_ROUND, 0 for none (1000)\n"
		"  -h, --help            this text\n\n"
		"Times take a unit: ns, us, ms or s (no unit: ns).\n");
}

/* "50us" -> 50000; 0 or -EINVAL */
static int parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *u; double m; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].u)) {
			*ns = (uint64_t)(v * units[i].m + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	char buf[64], *comma;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	comma = strchr(buf, ',');
	if (!comma)
		return -EINVAL;
	*comma = '\0';
	if (parse_time(buf, lo) || parse_time(comma + 1, hi) || *lo > *hi)
		return -EINVAL;
	return 0;
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return end == s || *end || errno || *out > max || s[0] == '-' ? -EINVAL : 0;
}

int wult_cmd_synth(int argc, char **argv)
{
	enum { O_CPUS = 256, O_CSTATES, O_TSC, O_WAKE, O_TAIL, O_LDIST, O_ROUND };
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "cstates", required_argument, NULL, O_CSTATES },
		{ "tsc-khz", required_argument, NULL, O_TSC },
		{ "wake", required_argument, NULL, O_WAKE },
		{ "tail", required_argument, NULL, O_TAIL },
		{ "ldist", required_argument, NULL, O_LDIST },
		{ "round", required_argument, NULL, O_ROUND },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct wult_synth_opts o;
	const char *out = "synth.data";
	char err[512], *comma;
	uint64_t v;
	int c, ret, li;

	wult_synth_defaults(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:c:s:h", lopts, &li)) != -1) {
		ret = 0;
		if (c < 256)
			li = c == 'c' ? 1 : 2;	/* the short options' long names */
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			ret = parse_uint(optarg, UINT64_MAX, &o.count);
			break;
		case 's':
			ret = parse_uint(optarg, UINT64_MAX, &o.seed);
			break;
		case O_CPUS:
			ret = parse_uint(optarg, 4096, &v);
			o.ncpus = v;
			ret = ret ?: (v ? 0 : -EINVAL);
			break;
		case O_CSTATES:
			ret = parse_uint(optarg, 64, &v);
			o.ncstates = v;
			ret = ret ?: (v ? 0 : -EINVAL);
			break;
		case O_TSC:
			ret = parse_uint(optarg, UINT32_MAX, &v);
			o.tsc_khz = v;
			ret = ret ?: (v ? 0 : -EINVAL);
			break;
		case O_WAKE:
			ret = parse_range(optarg, &o.wake_min, &o.wake_max);
			break;
		case O_LDIST:
			ret = parse_range(optarg, &o.ldist_min, &o.ldist_max);
			break;
		case O_TAIL:
			comma = strchr(optarg, ',');
			o.tail_frac = strtod(optarg, NULL);
			ret = !comma || o.tail_frac < 0 || o.tail_frac > 1 ||
			      parse_time(comma + 1, &o.tail_max) ? -EINVAL : 0;
			break;
		case O_ROUND:
			ret = parse_uint(optarg, UINT32_MAX, &v);
			o.round = v;
			break;
		case 'h':
			synth_usage(stdout);
			return 0;
		default:
			synth_usage(stderr);
			return 2;
		}
		if (ret) {
			fprintf(stderr, "wult synth: bad value '%s' for --%s\n", optarg,
				lopts[li].name);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wult synth: unexpected argument '%s'\n", argv[optind]);
		synth_usage(stderr);
		return 2;
	}
	ret = wult_synth_write(&o, out, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult synth: %s\n", err);
		return 1;
	}
	return 0;
}
