/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: a sweep's model, shared by its axes and product
 * (sweep/sweep.c) and its manifest (sweep/sweep_manifest.c).
 */
#ifndef WULT_INTERNAL_SWEEP_H
#define WULT_INTERNAL_SWEEP_H

#include <stddef.h>

#include <wult/sweep.h>

struct sw_value {
	char *text;		/* as given: "C2+C3" */
	char *arg;		/* the record option's value: "C2,C3" */
};

struct sw_axis {
	enum wult_sweep_axis id;
	struct sw_value *v;
	unsigned int n;
};

struct sw_point {
	char *moniker, *file;
	unsigned int *vi;	/* each axis's value index */
	enum wult_sweep_status status;
	int code;		/* record's exit status, -signal when killed */
};

struct wult_sweep {
	struct sw_axis ax[WULT_SWEEP_NR_AXES];
	unsigned int nax;
	struct sw_point *pt;
	unsigned int npt;
	char *host;		/* NULL: recorded here */
	char **ropts;		/* the record options after "--" */
	unsigned int nropts;
};

/* pt->file from pt->moniker. 0 or -ENOMEM. */
int sw_point_file(struct sw_point *pt);
/* A status by its manifest name, or -1. */
int sw_status_lookup(const char *name);
/* Value @val of axis @a into its record option's value (as when given). */
int sw_value_arg(enum wult_sweep_axis a, const char *val, char **arg, char *err,
		 size_t errlen);

#endif
