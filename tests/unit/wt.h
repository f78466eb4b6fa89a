/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wt: the project's minimal unit-test helpers. A test program calls
 * WT_CHECK() for every assertion and returns wt_done(), which prints the
 * closing line "N passed, N failed, N skipped" and the exit status.
 */
#ifndef WULT_TESTS_WT_H
#define WULT_TESTS_WT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>

static unsigned int wt_passed, wt_failed, wt_skipped;

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

/* Report a check that cannot run here, with the reason; it is counted. */
#define WT_SKIP(why) do {						\
	wt_skipped++;							\
	printf("SKIP %s:%d: %s\n", __FILE__, __LINE__, why);		\
} while (0)

/* xorshift64: the tests' reproducible random numbers (*@s must not be 0). */
static inline uint64_t wt_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline int wt_done(void)
{
	printf("%u passed, %u failed, %u skipped\n", wt_passed, wt_failed,
	       wt_skipped);
	return wt_failed ? 1 : 0;
}

#endif
