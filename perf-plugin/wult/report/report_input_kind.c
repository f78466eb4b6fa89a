// SPDX-License-Identifier: GPL-2.0
/*
 * What the input kinds of report_input.h share (their error, the check of
 * the metrics asked for, description lines): below both the kinds and
 * report_input.c, which picks them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_input_kind.h"

void rpt_src_err(struct rpt_src *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

/*
 * What this input is asked for (filters, --hist, --plots and, with @time,
 * --metrics) must be metrics its decoder fills (@bits): any other is NaN
 * on every datapoint, and a filter on it would drop everything without a
 * word.
 */
int rpt_src_check_metrics(struct rpt_src *s, uint64_t bits, int time)
{
	const struct rpt_opts *o = s->o;
	struct wult_metric_set set;
	const char *why;
	unsigned int i, m;

	for (m = 0; m < WULT_M_NR; m++) {
		if (bits & WULT_METRIC_BIT(m))
			continue;
		why = o->hist && o->hist_metric == m ? "--hist" : NULL;
		for (i = 0; time && i < o->ntime && !why; i++)
			why = o->time[i] == m ? "--metrics" : NULL;
		for (i = 0; i < o->ninc && !why; i++)
			why = wult_filter_reads(o->inc[i], m) ? "--include" : NULL;
		for (i = 0; i < o->nexc && !why; i++)
			why = wult_filter_reads(o->exc[i], m) ? "--exclude" : NULL;
		for (i = 0; o->html_out && i < o->nplot && !why; i++)
			why = o->plot[i] == m ? "--plots" : NULL;
		for (i = 0; o->html_out && i < o->nplot_x && !why; i++)
			why = o->plot_x[i] == m ? "--plot-x" : NULL;
		if (!why)
			continue;
		wult_metric_set_init(&set, bits);
		rpt_src_err(s, "%s uses %s, which this input does not provide (available: %s)", why,
			wult_metric_desc(m)->name, set.names);
		return -EINVAL;
	}
	return 0;
}

void rpt_desc_add(struct rpt_file *f, const char *fmt, ...)
{
	char *line = NULL, *nd = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (asprintf(&nd, "%s  %s\n", f->desc ? f->desc : "", line) >= 0) {
		free(f->desc);
		f->desc = nd;
	}
	free(line);
}

int rpt_meta_str(char **dst, const char *v)
{
	*dst = v ? strdup(v) : NULL;
	return v && !*dst ? -ENOMEM : 0;
}
