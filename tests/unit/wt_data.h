/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where tests/data is: $WULT_TEST_DATA, else tests/data from the current
 * directory (the top of the tree), else relative to the test binary
 * (build/san/tests/test_x -> ../../../tests/data).
 */
#ifndef WULT_TESTS_WT_DATA_H
#define WULT_TESTS_WT_DATA_H

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline const char *wt_data_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	if (getenv("WULT_TEST_DATA")) {
		snprintf(dir, sizeof(dir), "%s", getenv("WULT_TEST_DATA"));
		return dir;
	}
	if (!access("tests/data/wult_datapoint.format", R_OK)) {
		strcpy(dir, "tests/data");
		return dir;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(dir, sizeof(dir), "%s/../../../tests/data", dirname(exe));
	} else {
		strcpy(dir, "tests/data");
	}
	return dir;
}

/*
 * The intel wult fixtures: $WULT_INTEL_FIXTURES, else the copy in
 * tests/data/intel-wult (see its README.md for provenance and license).
 */
static inline const char *wt_intel_fixtures(void)
{
	static char dir[PATH_MAX + 16];

	if (getenv("WULT_INTEL_FIXTURES"))
		return getenv("WULT_INTEL_FIXTURES");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "%s/intel-wult", wt_data_dir());
	return dir;
}

#endif
