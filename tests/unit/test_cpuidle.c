// SPDX-License-Identifier: GPL-2.0
/*
 * Idle-state selection (lib/cpuidle/cpuidle.c) on a fake cpuidle sysfs tree in a
 * temporary directory: the plans of --states and --deepest-state, the
 * restore record written before any change, the values put back, and the
 * recovery from a record a killed run left; the cpuidle governor switched
 * and put back the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wult/cpuidle.h>

#include "wt.h"

static char root[256], record[300];
static const char *const names[] = { "POLL", "C1", "C1E", "C6" };

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* root/cpuN/cpuidle/stateK/{name,disable} for CPUs 0 and 1, CPU 2 without
 * states (no driver), and root/cpuidle/'s governor files. */
static void make_tree(void)
{
	char path[512], line[16];
	int cpu, k;

	mkdir(root, 0755);
	snprintf(path, sizeof(path), "%s/cpu2", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpuidle", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpuidle/available_governors", root);
	put(path, "ladder menu \n");	/* the kernel's trailing space */
	snprintf(path, sizeof(path), "%s/cpuidle/current_governor", root);
	put(path, "menu\n");
	for (cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d", root, cpu);
		mkdir(path, 0755);
		strcat(path, "/cpuidle");
		mkdir(path, 0755);
		for (k = 0; k < 4; k++) {
			snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d", root, cpu, k);
			mkdir(path, 0755);
			snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d/name", root, cpu, k);
			snprintf(line, sizeof(line), "%s\n", names[k]);
			put(path, line);
			snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d/disable", root,
				 cpu, k);
			/* CPU 1's C1E was disabled by hand: it must come back so. */
			put(path, cpu == 1 && k == 2 ? "1\n" : "0\n");
		}
	}
}

/* The "disable" values of @cpu as a string, "0010". */
static const char *disabled(int cpu)
{
	static char out[8];
	char path[512], v[8];
	FILE *f;
	int k;

	for (k = 0; k < 4; k++) {
		snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d/disable", root, cpu, k);
		f = fopen(path, "r");
		out[k] = f && fgets(v, sizeof(v), f) ? v[0] : '?';
		if (f)
			fclose(f);
	}
	out[4] = '\0';
	return out;
}

static int exists(const char *path)
{
	return !access(path, F_OK);
}

static void states(void)
{
	static const int cpus[] = { 0, 1 };
	struct wult_cpuidle *c;
	char err[512], desc[512];

	WT_EQ(wult_cpuidle_open(root, cpus, 2, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_only(c, "POLL,C6", err, sizeof(err)), 0);
	wult_cpuidle_describe(c, desc, sizeof(desc));
	WT_CHECK(!strcmp(desc, "CPU 0: POLL C6 enabled, C1 C1E disabled; CPU 1: POLL C6 "
			 "enabled, C1 C1E disabled"), "'%s'", desc);
	WT_EQ(wult_cpuidle_apply(c, record, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(disabled(0), "0110") && !strcmp(disabled(1), "0110"), "%s %s",
		 disabled(0), disabled(1));
	WT_CHECK(exists(record), "the restore record is written before the values");
	WT_EQ(wult_cpuidle_restore(c, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(disabled(0), "0000") && !strcmp(disabled(1), "0010"), "%s %s",
		 disabled(0), disabled(1));
	WT_CHECK(!exists(record), "the record is removed once restored");
	wult_cpuidle_free(c);
}

static void deepest(void)
{
	static const int cpus[] = { 1 };
	struct wult_cpuidle *c;
	char err[512];

	WT_EQ(wult_cpuidle_open(root, cpus, 1, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_deepest(c, "C1E", err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_apply(c, record, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(disabled(1), "0001"), "%s", disabled(1));
	WT_EQ(wult_cpuidle_restore(c, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(disabled(1), "0010"), "%s", disabled(1));
	wult_cpuidle_free(c);
}

static void errors(void)
{
	static const int cpus[] = { 0, 7 };
	struct wult_cpuidle *c;
	char err[512];

	/* A CPU without states opens (a governor may still be chosen), but
	 * its states cannot be planned. */
	WT_EQ(wult_cpuidle_open(root, cpus, 2, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_only(c, "C1", err, sizeof(err)), -ENOENT);
	WT_CHECK(strstr(err, "CPU 7 has no cpuidle states") != NULL, "'%s'", err);
	WT_EQ(wult_cpuidle_deepest(c, "C1", err, sizeof(err)), -ENOENT);
	wult_cpuidle_free(c);
	WT_EQ(wult_cpuidle_open(root, cpus, 1, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_only(c, "C1,C7", err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "CPU 0 has no idle state 'C7' (it has POLL, C1, C1E, C6)") != NULL,
		 "'%s'", err);
	WT_EQ(wult_cpuidle_only(c, "C1,,C6", err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "empty state name") != NULL, "'%s'", err);
	WT_EQ(wult_cpuidle_deepest(c, "C3", err, sizeof(err)), -EINVAL);
	/* A record that cannot be written: nothing is changed. */
	WT_EQ(wult_cpuidle_only(c, "C1", err, sizeof(err)), 0);
	WT_CHECK(wult_cpuidle_apply(c, "/nonexistent/dir/rec", err, sizeof(err)) < 0,
		 "unwritable record");
	WT_CHECK(strstr(err, "restore record") != NULL, "'%s'", err);
	WT_CHECK(!strcmp(disabled(0), "0000"), "%s", disabled(0));
	wult_cpuidle_free(c);
}

/* A run killed after applying leaves the record; the next run restores. */
static void recover(void)
{
	static const int cpus[] = { 0 };
	struct wult_cpuidle *c;
	char err[512], path[600];
	int pid;

	WT_EQ(wult_cpuidle_recover(record, &pid, err, sizeof(err)), 0);	/* none */
	WT_EQ(wult_cpuidle_open(root, cpus, 1, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_only(c, "C6", err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_apply(c, record, err, sizeof(err)), 0);
	wult_cpuidle_free(c);	/* "killed": nothing put back */
	WT_CHECK(!strcmp(disabled(0), "1110"), "%s", disabled(0));
	/* Its writer is this process: not a live other run. */
	WT_EQ(wult_cpuidle_recover(record, &pid, err, sizeof(err)), 1);
	WT_EQ(pid, getpid());
	WT_CHECK(!strcmp(disabled(0), "0000"), "%s", disabled(0));
	WT_CHECK(!exists(record), "record removed");
	/* A record naming a file that is not a cpuidle "disable": refused, kept. */
	put(record, "wult cpuidle restore 1\npid 1\n/etc/passwd 0\n");
	WT_EQ(wult_cpuidle_recover(record, &pid, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "not a cpuidle disable file") != NULL, "'%s'", err);
	WT_CHECK(exists(record), "a bad record is kept");
	put(record, "wult cpuidle restore 1\npid 1\n/sys/cpu0/cpuidle/state0/../../../../etc/x"
	    "/disable 0\n");
	WT_EQ(wult_cpuidle_recover(record, &pid, err, sizeof(err)), -EINVAL);
	put(record, "something else\n");
	WT_EQ(wult_cpuidle_recover(record, &pid, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "is not a wult restore record") != NULL, "'%s'", err);
	snprintf(path, sizeof(path), "wult cpuidle restore 1\npid %d\n", (int)getppid());
	put(record, path);
	/* A live writer that is not wult (the test's parent): not alive as
	 * a writer, so restored (nothing to write). */
	WT_EQ(wult_cpuidle_recover(record, &pid, err, sizeof(err)), 1);
}

static const char *gov(void)
{
	static char v[32];
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpuidle/current_governor", root);
	f = fopen(path, "r");
	v[0] = '\0';
	if (f) {
		if (fgets(v, sizeof(v), f))
			v[strcspn(v, "\n")] = '\0';
		fclose(f);
	}
	return v;
}

static void governor(void)
{
	static const int cpus[] = { 1 }, nodrv[] = { 2 };
	struct wult_cpuidle *c;
	char err[512], desc[512], path[512];
	int pid;

	/* With states: both in the record, both put back. */
	WT_EQ(wult_cpuidle_open(root, cpus, 1, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_governor(c, "teo", err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "no cpuidle governor 'teo' (this kernel has: ladder menu") != NULL,
		 "'%s'", err);
	WT_EQ(wult_cpuidle_governor(c, "ladder", err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_deepest(c, "C1", err, sizeof(err)), 0);
	wult_cpuidle_describe(c, desc, sizeof(desc));
	WT_CHECK(!strcmp(desc, "CPU 1: POLL C1 enabled, C1E C6 disabled; governor ladder "
			 "(was menu)"), "'%s'", desc);
	WT_EQ(wult_cpuidle_apply(c, record, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(gov(), "ladder") && !strcmp(disabled(1), "0011"), "%s %s", gov(),
		 disabled(1));
	WT_EQ(wult_cpuidle_restore(c, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(gov(), "menu") && !strcmp(disabled(1), "0010"), "%s %s", gov(),
		 disabled(1));
	wult_cpuidle_free(c);

	/* Alone, on a CPU without a driver; "killed", then recovered. */
	WT_EQ(wult_cpuidle_open(root, nodrv, 1, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_governor(c, "ladder", err, sizeof(err)), 0);
	wult_cpuidle_describe(c, desc, sizeof(desc));
	WT_CHECK(!strcmp(desc, "governor ladder (was menu)"), "'%s'", desc);
	WT_EQ(wult_cpuidle_apply(c, record, err, sizeof(err)), 0);
	wult_cpuidle_free(c);
	WT_CHECK(!strcmp(gov(), "ladder"), "%s", gov());
	WT_EQ(wult_cpuidle_recover(record, &pid, err, sizeof(err)), 1);
	WT_CHECK(!strcmp(gov(), "menu"), "%s", gov());
	WT_CHECK(!exists(record), "record removed");

	/* The current one: said unchanged, nothing written. */
	WT_EQ(wult_cpuidle_open(root, nodrv, 1, &c, err, sizeof(err)), 0);
	WT_EQ(wult_cpuidle_governor(c, "menu", err, sizeof(err)), 0);
	wult_cpuidle_describe(c, desc, sizeof(desc));
	WT_CHECK(!strcmp(desc, "governor menu (unchanged)"), "'%s'", desc);

	/* A kernel that shows the governor read-only (before 5.8 without
	 * cpuidle_sysfs_switch there is no current_governor at all). */
	snprintf(path, sizeof(path), "%s/cpuidle/current_governor", root);
	chmod(path, 0444);
	WT_EQ(wult_cpuidle_governor(c, "ladder", err, sizeof(err)), -EOPNOTSUPP);
	WT_CHECK(strstr(err, "does not let the cpuidle governor be switched") != NULL, "'%s'",
		 err);
	unlink(path);
	WT_EQ(wult_cpuidle_governor(c, "ladder", err, sizeof(err)), -EOPNOTSUPP);
	WT_CHECK(strstr(err, "cpuidle_sysfs_switch") != NULL, "'%s'", err);
	put(path, "menu\n");
	wult_cpuidle_free(c);
}

static void record_lines(void)
{
	char line[128], err[256];
	const char *path, *v;

	snprintf(line, sizeof(line), "/sys/devices/system/cpu/cpu1/cpuidle/state2/disable 1\n");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(path, "/sys/devices/system/cpu/cpu1/cpuidle/state2/disable") &&
		 !strcmp(v, "1"), "'%s' %s", path, v);
	snprintf(line, sizeof(line), "/sys/devices/system/cpu/cpuidle/current_governor menu");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(path, "/sys/devices/system/cpu/cpuidle/current_governor") &&
		 !strcmp(v, "menu"), "'%s' %s", path, v);
	snprintf(line, sizeof(line), "/s/cpuidle/current_governor Menu");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), -EINVAL);
	snprintf(line, sizeof(line), "/s/cpuidle/current_governor 0123456789abcdef");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), -EINVAL);
	snprintf(line, sizeof(line), "/s/cpuidle/state0/current_governor/disable menu");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), -EINVAL);
	snprintf(line, sizeof(line), "/a/cpuidle/state2/disable 2");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), -EINVAL);
	snprintf(line, sizeof(line), "/a/cpuidle/state2/name 0");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), -EINVAL);
	snprintf(line, sizeof(line), "/a/cpuidle/state2/disable");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "not 'PATH VALUE'") != NULL, "'%s'", err);
	snprintf(line, sizeof(line), "/a/cpuidle/state2/disable 0x");
	WT_EQ(wult_cpuidle_record_line(line, &path, &v, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	char cmd[300];

	snprintf(root, sizeof(root), "/tmp/wult-test-cpuidle.%d", (int)getpid());
	snprintf(record, sizeof(record), "%s/restore", root);
	make_tree();
	states();
	deepest();
	errors();
	recover();
	governor();
	record_lines();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		WT_SKIP("temporary tree not removed");
	return wt_done();
}
