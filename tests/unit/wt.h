/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wt: the project's minimal unit-test helpers. A test program calls
 * WT_CHECK() for every assertion and returns wt_done(), which prints the
 * closing line "N passed, N failed" and the exit status.
 */
#ifndef WULT_TESTS_WT_H
#define WULT_TESTS_WT_H

#include <stdio.h>
#include <string.h>
#include <inttypes.h>

static unsigned int wt_passed, wt_failed;

#define WT_CHECK(cond, ...) do {					\
	if (cond) {							\
		wt_passed++;						\
	} else {							\
		wt_failed++;						\
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

/* Equality of two integers, printing both on failure. */
#define WT_EQ(a, b) WT_CHECK((long long)(a) == (long long)(b),	\
	"%lld != %lld", (long long)(a), (long long)(b))

/* Report a check that cannot run here, with the reason. */
#define WT_SKIP(why) printf("SKIP %s:%d: %s\n", __FILE__, __LINE__, why)

static inline int wt_done(void)
{
	printf("%u passed, %u failed\n", wt_passed, wt_failed);
	return wt_failed ? 1 : 0;
}

#endif
