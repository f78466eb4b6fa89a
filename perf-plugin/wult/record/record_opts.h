/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's options (record_opts.c): the usage text, the option
 * table and the checks of each value and of the options together.
 */
#ifndef WULT_RECORD_OPTS_H
#define WULT_RECORD_OPTS_H

#include "record_events.h"	/* REC_MAX_EVENTS, REC_MAX_USER_EV */

/* -o, -H and --ssh-opts tokens remembered (each option takes up to two). */
#define REC_MAX_LOCAL	16

/* wult record's options, as parsed (defaults set). */
struct rec_opts {
	const char *cpus;
	unsigned int ldist_min, ldist_max;	/* us */
	unsigned int method;			/* enum wult_source_id */
	const char *device;			/* --device BDF (nic) */
	long launcher;				/* --launcher, -1: the kernel's */
	int wake_task;				/* --wake-task (ipi) */
	char term[64];				/* the method's event terms */
	unsigned long long count;		/* 0: no limit */
	double time_limit;			/* s, 0: no limit */
	const char *user_ev[REC_MAX_EVENTS];
	unsigned int nr_user_ev;
	int no_counters, no_branches, quiet;
	int progress_lines;			/* WULT_PROGRESS=lines */
	const char *states, *deepest;		/* --states, --deepest-state */
	const char *governor;			/* --idle-governor */
	const char *stop_on;			/* --stop-on EXPR */
	unsigned int capture_ms;		/* --capture[=MS], 0: no */
	const char *output;
	int output_set;				/* -o given */
	unsigned int pages;
	/* -H, --ssh-opts: record on these hosts instead (record_remote.c) */
	const char *hosts, *ssh_opts;
	/*
	 * The argv indexes of -o, -H and --ssh-opts and their values, which
	 * stay on the controller; @local_mixed: a cluster of short options
	 * holding one of them with others (-qo FILE), which cannot be split.
	 */
	int local_idx[REC_MAX_LOCAL];
	unsigned int nr_local;
	const char *local_mixed;
};

/*
 * @o from wult record's @argv: 0, 1 for --help (the usage printed on
 * standard output), -1 for a usage error (said on standard error).
 */
int rec_opts_parse(int argc, char **argv, struct rec_opts *o);

#endif
