/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measured CPUs' idle states through cpuidle's sysfs
 * (ROOT/cpuN/cpuidle/stateK/{name,disable}, ROOT normally
 * /sys/devices/system/cpu): wult record --states and --deepest-state
 * enable some and disable the others for the recording, --idle-governor
 * switches the cpuidle governor (ROOT/cpuidle/current_governor), and
 * every value is put back afterwards.
 *
 * A run killed with SIGKILL cannot put them back itself, so before the
 * first write the values found are saved in a restore record (a small text
 * file, written to a temporary name, synced and renamed into place) with
 * the writer's pid; the next run finds it and restores from it
 * (wult_cpuidle_recover()) unless that writer still runs. The record is
 * removed once the values are back.
 */
#ifndef WULT_CPUIDLE_H
#define WULT_CPUIDLE_H

#include <stddef.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

#define WULT_CPUIDLE_ROOT	"/sys/devices/system/cpu"
#define WULT_CPUIDLE_RECORD	"/run/wult-cpuidle.restore"
#define WULT_CPUIDLE_MAX_STATES	32

struct wult_cpuidle;

/* Reads the idle states of CPUs @cpus[0..@ncpus-1] under @root (NULL:
 * WULT_CPUIDLE_ROOT). -ENOENT with @err when a CPU has no cpuidle states
 * (no cpuidle driver), other -errno on read errors. */
int wult_cpuidle_open(const char *root, const int *cpus, unsigned int ncpus,
		      struct wult_cpuidle **out, char *err, size_t errlen);

/* Plans: only the states named in @names (comma-separated) enabled, every
 * other state disabled. -EINVAL with @err naming a name no CPU has,
 * -ENOENT when a CPU has no cpuidle states. */
int wult_cpuidle_only(struct wult_cpuidle *c, const char *names, char *err, size_t errlen);

/* Plans: state @name and the shallower ones (lower index) enabled, the
 * deeper ones disabled. -EINVAL with @err when a CPU lacks @name. */
int wult_cpuidle_deepest(struct wult_cpuidle *c, const char *name, char *err, size_t errlen);

/*
 * Plans: the cpuidle governor (system-wide, ROOT/cpuidle/current_governor)
 * switched to @name. -EINVAL with @err listing the kernel's governors when
 * it has no @name, -EOPNOTSUPP when the kernel does not let it be switched
 * (no writable current_governor).
 */
int wult_cpuidle_governor(struct wult_cpuidle *c, const char *name, char *err, size_t errlen);

/* The plan, per CPU: "CPU 1: POLL C1 enabled, C1E C6 disabled; ...", and
 * "governor ladder (was menu)" when one is planned. */
void wult_cpuidle_describe(const struct wult_cpuidle *c, char *buf, size_t len);

/* Saves the values found into the restore record @record, then writes the
 * plan. On a failure what was written is put back and the record removed.
 * 0 or -errno with @err. */
int wult_cpuidle_apply(struct wult_cpuidle *c, const char *record, char *err, size_t errlen);

/* Puts back the values found at open and removes the record. 0, or the
 * first -errno with @err (every value is still tried). */
int wult_cpuidle_restore(struct wult_cpuidle *c, char *err, size_t errlen);

void wult_cpuidle_free(struct wult_cpuidle *c);

/*
 * A restore record left at @record by a run that could not restore: 0 none,
 * 1 restored from it (and removed; *@pid its writer), -EBUSY when its
 * writer (*@pid) still runs (left alone), other -errno with @err (a record
 * that is not one, or a value that could not be written back: the record
 * is kept).
 */
int wult_cpuidle_recover(const char *record, int *pid, char *err, size_t errlen);

/*
 * One "PATH VALUE" line of a restore record (its newline, if any, is cut),
 * checked: PATH a cpuidle "disable" file (".../cpuidle/stateK/.../disable")
 * and VALUE 0 or 1, or PATH the governor (".../cpuidle/current_governor")
 * and VALUE a governor name (1-15 of [a-z0-9_-]); no ".." in PATH. 0 with
 * *@path and *@value inside @line, or -EINVAL with @err.
 */
int wult_cpuidle_record_line(char *line, const char **path, const char **value, char *err,
			     size_t errlen);

#pragma GCC visibility pop

#endif
