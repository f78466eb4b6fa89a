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
#include <sys/stat.h>

#include <wult/args.h>
#include <wult/dpdec.h>
#include <wult/synth.h>

#include "cmds.h"

static void synth_usage(FILE *f)
{
	fprintf(f,
		"usage: wult synth [options]\n\n"
		"  -o, --output FILE     perf.data to write (default wult.data, as wult\n"
		"                        record, so that `wult report` reads it; an\n"
		"                        existing non-empty FILE is kept as FILE.old)\n"
		"  -c, --count N         datapoints (default 1000)\n"
		"  -s, --seed N          random seed (default 1): same seed, same file\n"
		"      --nr-cpus N       how many CPUs the datapoints cycle over, 0..N-1\n"
		"                        (default 1; --cpus N is an old name of it)\n"
		"      --nr-cstates N    how many requested idle states, indexes 0..N-1\n"
		"                        (default 3; --cstates N is an old name of it)\n"
		"      --cstate-names NAMES  the states' names, comma-separated, index 0\n"
		"                        first (e.g. POLL,C1,C6), stored as wult record\n"
		"                        stores a machine's (default: none, the report\n"
		"                        says POLL, C1, state2, ...)\n"
		"      --tsc-khz N       TSC frequency in kHz (default 2000000)\n"
		"      --wake MIN,MAX    raw wake latency, uniform (default 1us,20us)\n"
		"      --tail FRAC,MAX   fraction with a wake latency up to MAX\n"
		"                        (default 0.001,500us)\n"
		"      --ldist MIN,MAX   launch distance, uniform (default 1us,4ms)\n"
		"      --round N         samples per FINISHED_ROUND, 0 for none (1000)\n"
		"      --source NAME     the method the datapoints say: hrt (default),\n"
		"                        tdt, ipi or nic\n"
		"      --state-offset T,...  wake latency added to state index 0, 1,\n"
		"                        ... (e.g. 0,0,56us: index 2's wakes 56 us longer)\n"
		"  -h, --help            this text\n\n"
		"Times take a unit: ns, us, ms or s; a number without one is in\n"
		"microseconds, as in every wult command (wult synth took nanoseconds\n"
		"before: give old scripts' values a unit).\n");
}

/* A time ("50us"; bare: microseconds) in ns; 0 or -EINVAL. */
static int parse_time(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	double v;
	int ret = wult_time_parse(s, WULT_TIME_BARE_US, WULT_TIME_ZERO, &v, err, errlen);

	if (!ret)
		*ns = (uint64_t)(v + 0.5);
	return ret;
}

static int parse_range(const char *s, uint64_t *lo, uint64_t *hi, char *err, size_t errlen)
{
	double a, b;
	int ret = wult_time_range_parse(s, WULT_TIME_BARE_US, WULT_TIME_ZERO, &a, &b, err,
					errlen);

	if (!ret) {
		*lo = (uint64_t)(a + 0.5);
		*hi = (uint64_t)(b + 0.5);
	}
	return ret;
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return end == s || *end || errno || *out > max || s[0] == '-' ? -EINVAL : 0;
}

enum { O_CPUS = 256, O_CSTATES, O_TSC, O_WAKE, O_TAIL, O_LDIST, O_ROUND, O_NAMES, O_SOURCE,
	O_OFFSET };

/* --state-offset T,T,...: one time per state index. 0 or -EINVAL. */
static int parse_offsets(const char *arg, struct wult_synth_opts *o, char *err, size_t errlen)
{
	char buf[64];
	const char *p = arg;
	unsigned int i;
	size_t len;

	for (i = 0; *p; i++) {
		len = strcspn(p, ",");
		if (i == WULT_SYNTH_MAX_OFFSETS || !len || len >= sizeof(buf)) {
			snprintf(err, errlen, i == WULT_SYNTH_MAX_OFFSETS ? "more than %d states" :
				 "an empty or too long time", WULT_SYNTH_MAX_OFFSETS);
			return -EINVAL;
		}
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (parse_time(buf, &o->state_offset[i], err, errlen))
			return -EINVAL;
		p += len + (p[len] == ',');
	}
	return i ? 0 : -EINVAL;
}

/* A non-zero @v below @max into @dst. 0 or -EINVAL. */
static int parse_nonzero(const char *arg, uint64_t max, uint64_t *v)
{
	int ret = parse_uint(arg, max, v);

	return ret ?: (*v ? 0 : -EINVAL);
}

/* One option with a value (not -o). 0 or -EINVAL (@err: why, for a time). */
static int synth_opt(int c, const char *arg, struct wult_synth_opts *o, char *err,
		     size_t errlen)
{
	const char *comma;
	uint64_t v = 0;
	int ret;

	switch (c) {
	case 'c':
		return parse_uint(arg, UINT64_MAX, &o->count);
	case 's':
		return parse_uint(arg, UINT64_MAX, &o->seed);
	case O_CPUS:
		ret = parse_nonzero(arg, 4096, &v);
		o->ncpus = v;
		return ret;
	case O_NAMES:
		o->cstate_names = arg;
		return 0;
	case O_SOURCE:
		for (o->source = 0; o->source < WULT_SOURCE_MAX; o->source++)
			if (!strcmp(arg, wult_dpdec_source_name(o->source)))
				return 0;
		snprintf(err, errlen, "hrt, tdt, ipi or nic");
		return -EINVAL;
	case O_OFFSET:
		return parse_offsets(arg, o, err, errlen);
	case O_CSTATES:
		ret = parse_nonzero(arg, 64, &v);
		o->ncstates = v;
		return ret;
	case O_TSC:
		ret = parse_nonzero(arg, UINT32_MAX, &v);
		o->tsc_khz = v;
		return ret;
	case O_WAKE:
		return parse_range(arg, &o->wake_min, &o->wake_max, err, errlen);
	case O_LDIST:
		return parse_range(arg, &o->ldist_min, &o->ldist_max, err, errlen);
	case O_TAIL:
		comma = strchr(arg, ',');
		o->tail_frac = strtod(arg, NULL);
		return !comma || o->tail_frac < 0 || o->tail_frac > 1 ||
		       parse_time(comma + 1, &o->tail_max, err, errlen) ? -EINVAL : 0;
	default:	/* O_ROUND */
		ret = parse_uint(arg, UINT32_MAX, &v);
		o->round = v;
		return ret;
	}
}

/*
 * --cstate-names: one non-empty, distinct name per index, no more than
 * --nr-cstates (a name for an index no datapoint has would be a lie of
 * the file). 0 or -1 (said why).
 */
static int check_names(const struct wult_synth_opts *o)
{
	const char *list = o->cstate_names, *p = list, *q;
	unsigned int n;
	size_t len;

	for (n = 0; list; n++) {
		len = strcspn(p, ",");
		if (!len || len > 32) {
			fprintf(stderr, "wult synth: --cstate-names '%s': index %u's name is "
				"%s\n", list, n, len ? "over 32 characters" : "empty");
			return -1;
		}
		for (q = list; q < p; q += strcspn(q, ",") + 1)
			if (strcspn(q, ",") == len && !strncmp(q, p, len)) {
				fprintf(stderr, "wult synth: --cstate-names '%s': '%.*s' names two "
					"indexes\n", list, (int)len, p);
				return -1;
			}
		if (!p[len])
			break;
		p += len + 1;
	}
	if (list && n + 1 > o->ncstates) {
		fprintf(stderr, "wult synth: --cstate-names: %u names for %u states "
			"(--nr-cstates)\n", n + 1, o->ncstates);
		return -1;
	}
	return 0;
}

/* As wult record (and perf record): an existing non-empty output is kept
 * as OUTPUT.old, said, rather than replaced. 0 or -1 (said why). */
static int keep_old(const char *path)
{
	struct stat sb;
	char *old;
	int ret = 0;

	if (!strcmp(path, "-") || stat(path, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size)
		return 0;
	if (asprintf(&old, "%s.old", path) < 0) {
		fprintf(stderr, "wult synth: out of memory\n");
		return -1;
	}
	if (rename(path, old)) {
		fprintf(stderr, "wult synth: cannot rename %s to %s: %s\n", path, old,
			strerror(errno));
		ret = -1;
	} else {
		fprintf(stderr, "wult synth: kept the existing %s as %s\n", path, old);
	}
	free(old);
	return ret;
}

int wult_cmd_synth(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "count", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "nr-cpus", required_argument, NULL, O_CPUS },
		{ "nr-cstates", required_argument, NULL, O_CSTATES },
		/* The old names, kept for scripts. */
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "cstates", required_argument, NULL, O_CSTATES },
		{ "tsc-khz", required_argument, NULL, O_TSC },
		{ "wake", required_argument, NULL, O_WAKE },
		{ "tail", required_argument, NULL, O_TAIL },
		{ "ldist", required_argument, NULL, O_LDIST },
		{ "round", required_argument, NULL, O_ROUND },
		{ "cstate-names", required_argument, NULL, O_NAMES },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "state-offset", required_argument, NULL, O_OFFSET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct wult_synth_opts o;
	/* wult record's default: `wult synth && wult report` works. */
	const char *out = "wult.data";
	char err[512];
	int c, ret, li;

	wult_synth_defaults(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:c:s:h", lopts, &li)) != -1) {
		if (c < 256)
			li = c == 'c' ? 1 : 2;	/* the short options' long names */
		if (c == 'o') {
			out = optarg;
			continue;
		}
		if (c == 'h') {
			synth_usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':') {
			synth_usage(stderr);
			return 2;
		}
		err[0] = '\0';
		if (synth_opt(c, optarg, &o, err, sizeof(err))) {
			fprintf(stderr, "wult synth: bad value '%s' for --%s%s%s\n", optarg,
				lopts[li].name, *err ? ": " : "", err);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wult synth: unexpected argument '%s'\n", argv[optind]);
		synth_usage(stderr);
		return 2;
	}
	if (check_names(&o))
		return 2;
	if (keep_old(out))
		return 1;
	ret = wult_synth_write(&o, out, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult synth: %s\n", err);
		return 1;
	}
	fprintf(stderr, "wult synth: wrote %s\n", strcmp(out, "-") ? out : "standard output");
	return 0;
}
