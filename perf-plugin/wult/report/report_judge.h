/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report, the judgements on the counted inputs: --fail-if (report_gate.c),
 * declared against measured latencies and --suggest (report_declared.c),
 * the governor's picks (report_governor.c), the methods compared
 * (report_methods.c).
 */
#ifndef WULT_REPORT_JUDGE_H
#define WULT_REPORT_JUDGE_H

#include "report.h"

/* ---- report_gate.c: --fail-if ---- */
/* Parses condition @expr into o->gate. 0, or -EINVAL (said why). */
int rpt_gate_add(struct rpt_opts *o, const char *expr);
/* Whether every condition's state is in some input: 0, or RPT_EXIT_USAGE
 * with the unknown state said. */
int rpt_gate_check(const struct rpt_opts *o, struct rpt_file *const *files,
		   unsigned int nfiles);
/* Evaluates the conditions on every input, saying each one's result on
 * stderr: RPT_EXIT_GATE when one held, else RPT_EXIT_EMPTY when one had no
 * value (unless --allow-empty), else 0. */
int rpt_gate_eval(const struct rpt_opts *o, struct rpt_file *const *files,
		  unsigned int nfiles);

/* ---- report_declared.c: declared against measured, --suggest ---- */
/* Flags: p99.99 above the declared exit latency, or below this fraction
 * of it. */
#define RPT_DECL_FAR_BELOW	0.5
#define RPT_SUGGEST_PCT		99.99	/* --suggest's percentile by default */
enum rpt_decl_src {
	RPT_DECL_NONE,		/* unknown: the input carries no description */
	RPT_DECL_RECORDED,	/* the recording's system description */
	RPT_DECL_SYSFS,		/* this machine's cpuidle sysfs (--declared-sysfs) */
};
struct rpt_decl_row {
	const struct rpt_group *g;
	const char *name;		/* the state's name in the description */
	double lat_us, res_us;		/* declared; NaN: unknown */
	double v[4];			/* measured ns: median, p99, p99.99, max */
	double ratio;			/* p99.99 / declared latency; NaN */
	const char *flag;		/* NULL, "exceeds", "far-below" */
};
struct rpt_decl {
	enum rpt_decl_src src;
	const char *src_text;		/* where the declared values come from */
	const char *driver;		/* the cpuidle driver, NULL: unknown */
	enum wult_metric metric;	/* measured: WakeLatency */
	int mi;				/* its index in o->time, -1: not reported */
	int synthetic;
	unsigned int n;
	struct rpt_decl_row *rows;
};
/* The measured stats beside the declared ones of @f's states. 0 or -ENOMEM. */
int rpt_decl_new(const struct rpt_opts *o, const struct rpt_file *f, struct rpt_decl **out);
void rpt_decl_free(struct rpt_decl *d);
/* The text block; nothing when the declared values are unknown, unless
 * @always. */
void rpt_decl_print(FILE *out, const struct rpt_opts *o, const struct rpt_file *f,
		    const struct rpt_decl *d, int always);
/* --suggest: latencies to declare, the intel_idle.table= string, PM QoS. */
void rpt_suggest_print(FILE *out, const struct rpt_opts *o, const struct rpt_file *f,
		       const struct rpt_decl *d);
/* The exit latency to declare for row @r (us): the measured
 * o->suggest_pct percentile rounded up; NaN: none. */
double rpt_suggest_us(const struct rpt_decl *d, const struct rpt_decl_row *r);
/* The intel_idle.table= value into @buf; how many states it sets. */
unsigned int rpt_suggest_table(const struct rpt_decl *d, char *buf, size_t len);
/* The text report's declared-against-measured block of each input (when
 * known; with --suggest always) and --suggest's. */
void rpt_decl_print_all(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
			unsigned int nfiles);
/* Option @which of --info, --suggest, --suggest-pct P, --declared-sysfs
 * (0-3) into @o. 0, or -EINVAL (said why). */
int rpt_decl_opt(int which, const char *arg, struct rpt_opts *o);

/* ---- report_governor.c: the governor's picks judged ---- */
/* Adds a kept datapoint's SilentTime (ns) to @g's band of LDist @ldist (ns).
 * 0 or -ENOMEM. */
int rpt_gov_add(struct rpt_group *g, double ldist, double silent);
void rpt_gov_free(struct rpt_group *g);
/* The picks of one LDist band (or of all): counts, and what they cost. */
struct rpt_gov_cell {
	uint64_t n, shallow, right, deep;
	double idle_ns;		/* the idle periods (SilentTime) summed */
	double lost_ns;		/* ... of the too-shallow picks: residency lost */
	double added_us;	/* declared exit latency added by too-deep picks */
};
struct rpt_gov {
	const char *governor;	/* the description's, NULL: unknown */
	double qos_us;		/* PM QoS CPU latency limit, NaN: unknown */
	uint64_t unjudged;	/* datapoints of states the description lacks */
	struct rpt_gov_cell band[RPT_GOV_BANDS + 1];	/* the last: every band */
};
/* @f's model: 0, -ENOENT (no description, or no SilentTime and LDist) or
 * -ENOMEM. */
int rpt_gov_new(const struct rpt_file *f, struct rpt_gov *g);
/* Each input's governor block (only those with a description). */
void rpt_gov_print_all(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		       unsigned int nfiles);
/* The state index of group @name in description @sd ("C6", "stateN", with
 * --per-cpu "CPU1 C6": *@cpu becomes its CPU), or -1 (report_declared.c). */
int rpt_decl_state_index(const struct wult_sysdesc *sd, const char *name, int *cpu);

/* ---- report_methods.c: the methods compared (pre-wake) ---- */
/* With inputs of different methods: per state, the timer's wake against
 * the device's or IPI's. Nothing when the inputs' methods do not differ. */
void rpt_methods_print(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		       unsigned int nfiles);
/* Whether @files hold a timer-only input and a device- or IPI-only one. */
int rpt_methods_differ(struct rpt_file *const *files, unsigned int nfiles);
/* 1: @f's datapoints are all by timer (hrt, tdt); 2: all by a device or
 * IPI (nic, ipi); 0: neither or mixed. */
int rpt_methods_kind(const struct rpt_file *f);

#endif
