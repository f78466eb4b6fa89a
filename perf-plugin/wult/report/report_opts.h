/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report's options (report_opts.c): the option table, from which the
 * parsing and the usage text both come, and the checks of each value.
 */
#ifndef WULT_REPORT_OPTS_H
#define WULT_REPORT_OPTS_H

#include "report.h"

/* What the command line says beside struct rpt_opts. */
struct rpt_args {
	const char *inputs[RPT_MAX_FILES];	/* -i and the FILE operands */
	unsigned int ninputs;
	int raw;		/* --raw, until rpt_opts_finish() applies it */
	int metrics;		/* -m given: its list is what is asked for */
	const char *hist_shape;	/* --hist-linear or --hist-buckets given */
	const char *plots;	/* --plots or --plot-x given */
	/* For the options that may take the next argument as their value. */
	struct rpt_opts *o;
	int argc;
	char **argv;
};

/*
 * @o (defaults first) and @a from @argv; the FILE operands are left from
 * optind on. 0, WULT_OPTS_HELP (the usage printed), or RPT_EXIT_USAGE
 * (said why). rpt_opts_free() @o in every case.
 */
int rpt_opts_parse(int argc, char **argv, struct rpt_opts *o, struct rpt_args *a);
/* The time metrics the options ask for besides -m (--raw, --hist,
 * --fail-if, WakeLatency without -m), added to @o's. */
void rpt_opts_finish(struct rpt_opts *o, const struct rpt_args *a);
void rpt_opts_free(struct rpt_opts *o);

#endif
