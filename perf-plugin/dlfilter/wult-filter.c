// SPDX-License-Identifier: GPL-2.0
/*
 * wult-filter.so: a perf dlfilter keeping only the wult datapoints that
 * match an expression, in the filter language of `wult report --include`
 * (libwult's filter, metrics and decoder, not a second implementation):
 *
 *   perf script -i perf.data --dlfilter wult-filter.so \
 *	--dlarg 'ReqCState == "C1" && WakeLatency > 100us'
 *
 * Several --dlarg words are joined with spaces. A first argument
 * "--format=FILE" names the wult:datapoint format file to decode with;
 * by default it is read from tracefs and, when the module is not loaded
 * here, the format of the payload version this filter was built with is
 * used. Samples of other events pass unchanged. At the end the counts of
 * kept and dropped datapoints go to stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perf/perf_dlfilter.h>

#include <wult/dpdec.h>
#include <wult/filter.h>
#include <wult/metrics.h>

/* perf fills this in before start(); it must not be const. */
struct perf_dlfilter_fns perf_dlfilter_fns;

int start(void **data, void *ctx);
int stop(void *data, void *ctx);
int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx);

struct wult_dlf {
	struct wult_dpdec *dec;
	struct wult_filter *filter;
	unsigned long long kept, dropped, undecodable;
};

static void dlf_free(struct wult_dlf *d)
{
	if (!d)
		return;
	wult_filter_free(d->filter);
	wult_dpdec_free(d->dec);
	free(d);
}

/* Joins the --dlarg words after the optional --format into one string. */
static char *join_args(char **argv, int argc)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int load_format(struct wult_dlf *d, const char *path)
{
	char err[256];
	const char *fmt;

	if (path) {
		if (wult_dpdec_load_format_file(d->dec, path, err, sizeof(err))) {
			fprintf(stderr, "wult-filter: %s\n", err);
			return -1;
		}
		return 0;
	}
	if (access(WULT_DP_FORMAT_PATH, R_OK) == 0 &&
	    !wult_dpdec_load_format_file(d->dec, WULT_DP_FORMAT_PATH, err, sizeof(err)))
		return 0;
	fmt = wult_dpdec_builtin_format();
	if (wult_dpdec_load_format(d->dec, fmt, strlen(fmt), err, sizeof(err))) {
		fprintf(stderr, "wult-filter: built-in format: %s\n", err);
		return -1;
	}
	return 0;
}

int start(void **data, void *ctx)
{
	const char *format = NULL;
	struct wult_metric_set avail;
	struct wult_dlf *d;
	char err[1024], *expr;
	char **argv = NULL;
	int argc = 0;

	if (perf_dlfilter_fns.args)
		argv = perf_dlfilter_fns.args(ctx, &argc);
	if (argc > 0 && !strncmp(argv[0], "--format=", 9)) {
		format = argv[0] + 9;
		argv++;
		argc--;
	}
	if (argc < 1) {
		fprintf(stderr, "wult-filter: no filter expression: pass one with "
			"--dlarg, e.g. --dlarg 'WakeLatency > 100us'\n");
		return -1;
	}
	d = calloc(1, sizeof(*d));
	expr = join_args(argv, argc);
	if (!d || !expr || wult_dpdec_new(&d->dec)) {
		fprintf(stderr, "wult-filter: out of memory\n");
		goto fail;
	}
	if (load_format(d, format))
		goto fail;
	/* State names of this machine, where it has cpuidle. */
	wult_dpdec_name_states(d->dec, NULL, 0);
	/* Only what the payload gives: perf hands a dlfilter no group reads,
	 * so counter metrics (CPUFreq, CCn%, ...) would be NaN and a filter on
	 * them would drop every datapoint.
	 */
	wult_metric_set_init(&avail, wult_dpdec_metrics(d->dec, 0));
	if (wult_filter_compile(expr, wult_metrics_resolve, &avail, &d->filter,
				err, sizeof(err))) {
		fprintf(stderr, "wult-filter: bad expression '%s': %s\n", expr, err);
		goto fail;
	}
	free(expr);
	*data = d;
	return 0;
fail:
	free(expr);
	dlf_free(d);
	return -1;
}

int stop(void *data, void *ctx)
{
	struct wult_dlf *d = data;

	(void)ctx;
	/* perf calls stop() even when start() failed. */
	if (!d)
		return 0;
	fprintf(stderr, "wult-filter: kept %llu, dropped %llu datapoints",
		d->kept, d->dropped);
	if (d->undecodable)
		fprintf(stderr, ", %llu undecodable wult samples dropped",
			d->undecodable);
	fprintf(stderr, "\n");
	dlf_free(d);
	return 0;
}

/* 0 keeps the sample, anything else drops it. */
int filter_event(void *data, const struct perf_dlfilter_sample *sample, void *ctx)
{
	struct wult_dlf *d = data;
	struct wult_point pt;

	(void)ctx;
	if (!sample->event || strncmp(sample->event, "wult", 4))
		return 0;
	/* Branch contexts (wult/branches/, wult:wake_branches) pass as they
	 * are: their datapoint, which follows, is not known yet. */
	if (strstr(sample->event, "branches"))
		return 0;
	if (!sample->raw_data ||
	    wult_dpdec_decode_raw(d->dec, sample->raw_data, sample->raw_size, &pt)) {
		d->undecodable++;
		return 1;
	}
	if (wult_filter_eval(d->filter, pt.v) > 0) {
		d->kept++;
		return 0;
	}
	d->dropped++;
	return 1;
}
