// SPDX-License-Identifier: GPL-2.0
/*
 * wult record --states NAMES, --deepest-state NAME and --idle-governor
 * NAME: the measured CPUs' idle states and the cpuidle governor chosen
 * through cpuidle's sysfs for the recording and put back after it, on
 * every way out of record() (lib/cpuidle/cpuidle.c). A SIGKILL
 * leaves the restore record, which the next wult record restores from
 * before anything else.
 *
 * WULT_CPUIDLE_SYSFS and WULT_CPUIDLE_RECORD move the sysfs tree and the
 * record (tests use a fake tree; a system whose /run is not writable may
 * keep the record elsewhere). The record's directory is created when it
 * is missing: /run is a tmpfs mounted by the init system, absent from
 * minimal systems (an initramfs, some containers, vm-run's guests).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <wult/cpuidle.h>

#include "record_cstates.h"

struct rec_cstates {
	struct wult_cpuidle *idle;
};

static const char *sysfs_root(void)
{
	const char *r = getenv("WULT_CPUIDLE_SYSFS");

	return r && *r ? r : WULT_CPUIDLE_ROOT;
}

static const char *record_path(void)
{
	const char *r = getenv("WULT_CPUIDLE_RECORD");

	return r && *r ? r : WULT_CPUIDLE_RECORD;
}

/*
 * The directory of the restore record @record, created (mode 0755, whatever
 * the umask) when it does not exist; only that one level, so that a
 * mistyped WULT_CPUIDLE_RECORD does not grow a tree. 0, or 1 said why.
 */
static int record_dir(const char *record, const char *opt, int quiet)
{
	char dir[4096];
	char *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", record);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;	/* the working directory */
	if (slash == dir)
		slash++;	/* "/NAME": the root */
	*slash = '\0';
	if (!stat(dir, &st) || errno != ENOENT)
		return 0;	/* there, or its own error when written */
	if (mkdir(dir, 0755) && errno != EEXIST) {
		int e = errno;

		fprintf(stderr, "wult record: %s: cannot create %s for the restore record %s: "
			"%s%s\n", opt, dir, record, strerror(e),
			e == EACCES || e == EPERM ? " (run as root)" :
			" (WULT_CPUIDLE_RECORD moves the record)");
		return 1;
	}
	/* Other programs expect /run readable by all. */
	if (chmod(dir, 0755)) {
		fprintf(stderr, "wult record: %s: cannot set %s to mode 0755: %s\n", opt, dir,
			strerror(errno));
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "wult record: created %s (mode 0755) for the restore record %s\n",
			dir, record);
	return 0;
}

/* cpuidle's current driver is "none" when the kernel has no driver. */
static int no_driver(void)
{
	char path[512], name[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpuidle/current_driver", sysfs_root());
	f = fopen(path, "r");
	if (f) {
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
	}
	return !strncmp(name, "none", 4);
}

int rec_cstates_recover(int need)
{
	char err[768];
	int pid, ret = wult_cpuidle_recover(record_path(), &pid, err, sizeof(err));

	if (ret == 1)
		fprintf(stderr, "wult record: restored the idle states that a killed wult "
			"record (pid %d) had changed (%s)\n", pid, record_path());
	if (ret >= 0)
		return 0;
	if (ret == -EBUSY) {
		if (!need)
			return 0;	/* another run's states: not ours to touch */
		fprintf(stderr, "wult record: wult record pid %d has changed the idle states "
			"(%s): wait for it to end before choosing states\n", pid,
			record_path());
		return 1;
	}
	fprintf(stderr, "wult record: %s%s\n", err, need ? "" : " (left as it is)");
	return need ? 1 : 0;
}

int rec_cstates_set(const char *only, const char *deepest, const char *governor,
		    const int *cpus, unsigned int n, int quiet, struct rec_cstates **out)
{
	const char *opt = only ? "--states" : deepest ? "--deepest-state" : "--idle-governor";
	struct rec_cstates *c;
	char err[768], desc[1024];
	int ret;

	*out = NULL;
	if (!only && !deepest && !governor)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;
	ret = wult_cpuidle_open(sysfs_root(), cpus, n, &c->idle, err, sizeof(err));
	if (!ret && (only || deepest))
		ret = only ? wult_cpuidle_only(c->idle, only, err, sizeof(err)) :
		      wult_cpuidle_deepest(c->idle, deepest, err, sizeof(err));
	if (!ret && governor) {
		opt = "--idle-governor";
		ret = wult_cpuidle_governor(c->idle, governor, err, sizeof(err));
	}
	if (ret) {
		fprintf(stderr, "wult record: %s: %s\n", opt, err);
		wult_cpuidle_free(c->idle);
		free(c);
		return ret == -EINVAL ? 2 : 1;
	}
	if (record_dir(record_path(), opt, quiet)) {
		wult_cpuidle_free(c->idle);
		free(c);
		return 1;
	}
	ret = wult_cpuidle_apply(c->idle, record_path(), err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult record: %s: %s%s\n", opt, err, ret == -EACCES ||
			ret == -EPERM ? " (run as root)" : "");
		wult_cpuidle_free(c->idle);
		free(c);
		return 1;
	}
	if (!quiet) {
		wult_cpuidle_describe(c->idle, desc, sizeof(desc));
		fprintf(stderr, "wult record: idle states for the recording: %s\n", desc);
		if (strcmp(record_path(), WULT_CPUIDLE_RECORD))
			fprintf(stderr, "wult record: their restore record: %s "
				"(WULT_CPUIDLE_RECORD)\n", record_path());
		/* Without a driver cpuidle is bypassed: no governor chooses. */
		if (governor && !only && !deepest && no_driver())
			fprintf(stderr, "wult record: note: no cpuidle driver, so the "
				"governor has nothing to choose\n");
	}
	*out = c;
	return 0;
}

int rec_cstates_check(const char *only, const char *deepest, const char *governor,
		      const int *cpus, unsigned int n, char *err, size_t errlen)
{
	const char *opt = only ? "--states" : deepest ? "--deepest-state" : "--idle-governor";
	struct wult_cpuidle *idle;
	char why[768];
	int ret;

	if (!only && !deepest && !governor)
		return 0;
	ret = wult_cpuidle_open(sysfs_root(), cpus, n, &idle, why, sizeof(why));
	if (!ret && (only || deepest))
		ret = only ? wult_cpuidle_only(idle, only, why, sizeof(why)) :
		      wult_cpuidle_deepest(idle, deepest, why, sizeof(why));
	if (!ret && governor) {
		opt = "--idle-governor";
		ret = wult_cpuidle_governor(idle, governor, why, sizeof(why));
	}
	wult_cpuidle_free(idle);
	if (ret)
		snprintf(err, errlen, "%s: %s", opt, why);
	return !ret ? 0 : ret == -EINVAL ? 2 : 1;
}

int rec_cstates_restore(struct rec_cstates *c, int quiet)
{
	char err[768];
	int ret;

	if (!c)
		return 0;
	ret = wult_cpuidle_restore(c->idle, err, sizeof(err));
	if (ret)
		fprintf(stderr, "wult record: %s; the restore record %s is kept: the next "
			"wult record puts the rest back\n", err, record_path());
	else if (!quiet)
		fprintf(stderr, "wult record: idle states restored\n");
	wult_cpuidle_free(c->idle);
	free(c);
	return ret ? 1 : 0;
}
