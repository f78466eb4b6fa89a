/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sweep (wult sweep): the Cartesian product of axes of wult record
 * settings (idle states, deepest state, governor, method, LDist, CPUs),
 * each point named by a moniker built from its values and recorded into
 * MONIKER.data, and the manifest (sweep.json) that names the axes and
 * each point's settings, file and outcome, for `wult report DIR`.
 *
 *   AXIS=VALUE,VALUE,...   one point per value along that axis
 *   states=C1,C2+C3        a value's '+' joins items into one set
 *                          (--states C2,C3); cpu likewise (0+2: -C 0,2)
 *   ldist=100-200,1ms-2ms  a range MIN-MAX (--ldist MIN,MAX)
 *
 * The first axis varies slowest. A moniker is AXIS-VALUE parts joined by
 * '_', each value's characters other than [A-Za-z0-9.+-] turned into '_'.
 */
#ifndef WULT_SWEEP_H
#define WULT_SWEEP_H

#include <stddef.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

#define WULT_SWEEP_MANIFEST	"sweep.json"
#define WULT_SWEEP_MAX_POINTS	4096
#define WULT_SWEEP_FORMAT	1	/* the manifest's "wult_sweep" version */

/* The axes, in the order the usage lists them. */
enum wult_sweep_axis {
	WULT_SWEEP_STATES,
	WULT_SWEEP_DEEPEST,
	WULT_SWEEP_GOVERNOR,
	WULT_SWEEP_METHOD,
	WULT_SWEEP_LDIST,
	WULT_SWEEP_CPU,
	WULT_SWEEP_NR_AXES,
};

/* A point's outcome, as the manifest says it. */
enum wult_sweep_status {
	WULT_SWEEP_PENDING,	/* not recorded (yet) */
	WULT_SWEEP_DONE,	/* wult record exited 0 */
	WULT_SWEEP_FAILED,	/* it exited non-zero or was killed */
	WULT_SWEEP_STOPPED,	/* the sweep was stopped during it */
};

struct wult_sweep;

/* An axis by name: its enum value, or -1. */
int wult_sweep_axis_lookup(const char *name, size_t len);
/* Axis @a's name ("states") and the wult record option it sets ("--states"). */
const char *wult_sweep_axis_name(enum wult_sweep_axis a);
const char *wult_sweep_axis_option(enum wult_sweep_axis a);

int wult_sweep_new(struct wult_sweep **out);
void wult_sweep_free(struct wult_sweep *s);

/*
 * Adds axis "NAME=VALUE,...". -EINVAL with @err naming the problem (an
 * unknown axis with the known ones, an axis given twice, an empty or
 * repeated value, a malformed LDist range or CPU list), -ENOMEM.
 */
int wult_sweep_add_axis(struct wult_sweep *s, const char *spec, char *err, size_t errlen);

/*
 * Builds the points (the product of the axes, in order). The number of
 * points, or -EINVAL with @err: no axis, states with deepest-state, more
 * than WULT_SWEEP_MAX_POINTS, two points of one moniker, a moniker too
 * long for a file name.
 */
int wult_sweep_build(struct wult_sweep *s, char *err, size_t errlen);

/* What a sweep is run with, kept in its manifest: the SUT (NULL: here)
 * and the record options given after "--". 0 or -ENOMEM. */
int wult_sweep_set_run(struct wult_sweep *s, const char *host, char *const *ropts,
		       unsigned int nropts);
const char *wult_sweep_host(const struct wult_sweep *s);
unsigned int wult_sweep_nropts(const struct wult_sweep *s);
const char *wult_sweep_ropt(const struct wult_sweep *s, unsigned int i);

unsigned int wult_sweep_naxes(const struct wult_sweep *s);
/* The @i-th axis given, and its values as given. */
enum wult_sweep_axis wult_sweep_axis(const struct wult_sweep *s, unsigned int i);
unsigned int wult_sweep_nvalues(const struct wult_sweep *s, unsigned int i);
const char *wult_sweep_value(const struct wult_sweep *s, unsigned int i, unsigned int v);

unsigned int wult_sweep_npoints(const struct wult_sweep *s);
const char *wult_sweep_moniker(const struct wult_sweep *s, unsigned int p);
/* The point's file in its directory: MONIKER.data. */
const char *wult_sweep_file(const struct wult_sweep *s, unsigned int p);
/* Point @p's value of the @i-th axis, as given. */
const char *wult_sweep_point_value(const struct wult_sweep *s, unsigned int p, unsigned int i);
/*
 * Point @p's wult record options into @argv (two per axis: the option and
 * its value, e.g. "--states" "C2,C3"); how many, at most @max.
 */
unsigned int wult_sweep_point_args(const struct wult_sweep *s, unsigned int p,
				   const char **argv, unsigned int max);
/* A point's outcome: its status and wult record's exit status (or, when
 * killed, minus the signal). */
void wult_sweep_set_status(struct wult_sweep *s, unsigned int p, enum wult_sweep_status st,
			   int code);
enum wult_sweep_status wult_sweep_status(const struct wult_sweep *s, unsigned int p, int *code);
const char *wult_sweep_status_name(enum wult_sweep_status st);

/*
 * The manifest: written to @path through a temporary file, synced and
 * renamed into place, so a reader (or a sweep killed meanwhile) finds
 * the old one or the new one, whole. 0 or -errno with @err.
 */
int wult_sweep_write(const struct wult_sweep *s, const char *path, char *err, size_t errlen);
/*
 * Reads a manifest back: its axes, run and points with their settings and
 * outcomes. -ENOENT (no file), -EINVAL (not a sweep manifest, or one whose
 * points do not match its axes; @err says where), -ENOMEM, -EIO.
 */
int wult_sweep_read(const char *path, struct wult_sweep **out, char *err, size_t errlen);

#pragma GCC visibility pop

#endif
