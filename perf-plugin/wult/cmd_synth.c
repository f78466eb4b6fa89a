// SPDX-License-Identifier: GPL-2.0
/*
 * wult synth: write a perf.data file of synthetic wult datapoints with
 * known distributions (for tests and benchmarks). Stock `perf script`
 * reads it as wult:datapoint tracepoint samples.
 */
#include <errno.h>
#include <getopt.h>	/* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <wult/args.h>
#include <wult/dpdec.h>
#include <wult/synth.h>

#include "cmds.h"
#include "opts.h"

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

/* wult synth's options as parsed, and the reason of the last refusal. */
struct synth_args {
	struct wult_synth_opts o;
	const char *out;
	char err[512];
};

/* A refused value, said with the option's long name. -EINVAL. */
static int bad_value(const struct wult_opt *opt, const char *arg, const char *err)
{
	fprintf(stderr, "wult synth: bad value '%s' for --%s%s%s\n", arg, opt->name,
		*err ? ": " : "", err);
	return -EINVAL;
}

/* -c, -s: any count into the uint64_t at opt->data. */
static int u64_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)ctx;
	return parse_uint(arg, UINT64_MAX, opt->data) ? bad_value(opt, arg, "") : 0;
}

/* --nr-cpus, --nr-cstates, --tsc-khz, --round: an unsigned int (its limit,
 * and whether 0 is allowed, by the field). */
static int uint_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct wult_synth_opts *o = &((struct synth_args *)ctx)->o;
	unsigned int *dst = opt->data;
	uint64_t v = 0;
	int ret;

	if (dst == &o->ncpus)
		ret = parse_nonzero(arg, 4096, &v);
	else if (dst == &o->ncstates)
		ret = parse_nonzero(arg, 64, &v);
	else if (dst == &o->tsc_khz)
		ret = parse_nonzero(arg, UINT32_MAX, &v);
	else
		ret = parse_uint(arg, UINT32_MAX, &v);
	*dst = v;
	return ret ? bad_value(opt, arg, "") : 0;
}

/* --wake, --ldist: a time range; opt->data its MIN's field. */
static int range_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct synth_args *a = ctx;
	uint64_t *lo = opt->data;
	uint64_t *hi = lo == &a->o.wake_min ? &a->o.wake_max : &a->o.ldist_max;

	a->err[0] = '\0';
	return parse_range(arg, lo, hi, a->err, sizeof(a->err)) ? bad_value(opt, arg, a->err) : 0;
}

/* --tail FRAC,MAX. */
static int tail_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct synth_args *a = ctx;
	const char *comma = strchr(arg, ',');

	a->err[0] = '\0';
	a->o.tail_frac = strtod(arg, NULL);
	return !comma || a->o.tail_frac < 0 || a->o.tail_frac > 1 ||
	       parse_time(comma + 1, &a->o.tail_max, a->err, sizeof(a->err)) ?
	       bad_value(opt, arg, a->err) : 0;
}

/* --source NAME, as libwult's dpdec names the sources. */
static int source_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct wult_synth_opts *o = &((struct synth_args *)ctx)->o;

	for (o->source = 0; o->source < WULT_SOURCE_MAX; o->source++)
		if (!strcmp(arg, wult_dpdec_source_name(o->source)))
			return 0;
	return bad_value(opt, arg, wult_dpdec_source_list());
}

/* --state-offset T,... */
static int offset_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct synth_args *a = ctx;

	a->err[0] = '\0';
	return parse_offsets(arg, &a->o, a->err, sizeof(a->err)) ?
	       bad_value(opt, arg, a->err) : 0;
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
	/* wult record's default: `wult synth && wult report` works. */
	struct synth_args a = { .out = "wult.data" };
	struct wult_synth_opts *o = &a.o;
	const struct wult_opt opts[] = {
		WULT_OPT_STRING('o', "output", "FILE", &a.out, "perf.data to write (default "
				"wult.data, as wult\nrecord, so that `wult report` reads it; an\n"
				"existing non-empty FILE is kept as FILE.old)"),
		WULT_OPT_CALLBACK('c', "count", "N", u64_opt, &o->count,
				  "datapoints (default 1000)"),
		WULT_OPT_CALLBACK('s', "seed", "N", u64_opt, &o->seed,
				  "random seed (default 1): same seed, same file"),
		WULT_OPT_CALLBACK(0, "nr-cpus", "N", uint_opt, &o->ncpus,
				  "how many CPUs the datapoints cycle over, 0..N-1\n"
				  "(default 1; --cpus N is an old name of it)"),
		WULT_OPT_CALLBACK(0, "nr-cstates", "N", uint_opt, &o->ncstates,
				  "how many requested idle states, indexes 0..N-1\n"
				  "(default 3; --cstates N is an old name of it)"),
		/* The old names, kept for scripts. */
		WULT_OPT_CALLBACK(0, "cpus", "N", uint_opt, &o->ncpus, NULL),
		WULT_OPT_CALLBACK(0, "cstates", "N", uint_opt, &o->ncstates, NULL),
		WULT_OPT_STRING(0, "cstate-names", "NAMES", &o->cstate_names,
				"the states' names, comma-separated, index 0\n"
				"first (e.g. POLL,C1,C6), stored as wult record\n"
				"stores a machine's (default: none, the report\n"
				"says POLL, C1, state2, ...)"),
		WULT_OPT_CALLBACK(0, "tsc-khz", "N", uint_opt, &o->tsc_khz,
				  "TSC frequency in kHz (default 2000000)"),
		WULT_OPT_CALLBACK(0, "wake", "MIN,MAX", range_opt, &o->wake_min,
				  "raw wake latency, uniform (default 1us,20us)"),
		WULT_OPT_CALLBACK(0, "tail", "FRAC,MAX", tail_opt, NULL,
				  "fraction with a wake latency up to MAX\n"
				  "(default 0.001,500us)"),
		WULT_OPT_CALLBACK(0, "ldist", "MIN,MAX", range_opt, &o->ldist_min,
				  "launch distance, uniform (default 1us,4ms)"),
		WULT_OPT_CALLBACK(0, "round", "N", uint_opt, &o->round,
				  "samples per FINISHED_ROUND, 0 for none (1000)"),
		WULT_OPT_CALLBACK(0, "source", "NAME", source_opt, NULL,
				  "the method the datapoints say: hrt (default),\n"
				  "tdt, ipi or nic"),
		WULT_OPT_CALLBACK(0, "state-offset", "T,...", offset_opt, NULL,
				  "wake latency added to state index 0, 1,\n"
				  "... (e.g. 0,0,56us: index 2's wakes 56 us longer)"),
		WULT_OPT_HELP(),
		WULT_OPT_END(),
	};
	const struct wult_optset set = {
		.head = "usage: wult synth [options]\n\n",
		.opts = opts,
		.tail = "\nTimes take a unit: ns, us, ms or s; a number without one is in\n"
			"microseconds, as in every wult command (wult synth took nanoseconds\n"
			"before: give old scripts' values a unit).\n",
		.col = 24,
	};
	const char *out;
	int ret;

	wult_synth_defaults(o);
	ret = wult_opts_start(&set, argc, argv, &a);
	if (ret)
		return ret == WULT_OPTS_HELP ? 0 : 2;
	if (optind < argc) {
		fprintf(stderr, "wult synth: unexpected argument '%s'\n", argv[optind]);
		wult_opts_usage(&set, stderr);
		return 2;
	}
	out = a.out;
	if (check_names(o))
		return 2;
	if (keep_old(out))
		return 1;
	ret = wult_synth_write(o, out, a.err, sizeof(a.err));
	if (ret) {
		fprintf(stderr, "wult synth: %s\n", a.err);
		return 1;
	}
	fprintf(stderr, "wult synth: wrote %s\n", strcmp(out, "-") ? out : "standard output");
	return 0;
}
