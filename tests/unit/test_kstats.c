// SPDX-License-Identifier: GPL-2.0
/*
 * wult.ko's counters file (wult/kstats.h): parsing the module's lines,
 * deltas and sums, the low-yield sentence and the LDist floor check.
 */
#include <errno.h>
#include <string.h>

#include <linux/wult.h>
#include <wult/kstats.h>

#include "wt.h"

/* As wult.ko prints it (cpu1: a guest's counters after --ldist 1,30). */
static const char stats[] =
	"cpu0 armed=0 emitted=0 early_wake=0 not_idle=0 stale_tai=0 other_intr=0 invalid=0 cancelled=0 delivery_failed=0 branches=0 branches_off=0 floor_ns=0 floor_n=0\n"
	"cpu1 armed=23989 emitted=15768 early_wake=14 not_idle=8213 stale_tai=6 other_intr=0 invalid=0 cancelled=2 delivery_failed=0 branches=0 branches_off=0 floor_ns=2073 floor_n=20888\n"
	"cpu10 armed=5 emitted=4 new_counter=7\n";

static void test_parse(void)
{
	struct wult_kstats ks;
	char err[128];

	WT_EQ(wult_kstats_parse(stats, strlen(stats), 1, &ks, err, sizeof(err)), 0);
	WT_EQ(ks.armed, 23989);
	WT_EQ(ks.emitted, 15768);
	WT_EQ(ks.early_wake, 14);
	WT_EQ(ks.not_idle, 8213);
	WT_EQ(ks.stale_tai, 6);
	WT_EQ(ks.cancelled, 2);
	WT_EQ(ks.floor_ns, 2073);
	WT_EQ(ks.floor_n, 20888);
	/* cpu1 is not a prefix match of cpu10; unknown keys are skipped. */
	WT_EQ(wult_kstats_parse(stats, strlen(stats), 10, &ks, err, sizeof(err)), 0);
	WT_EQ(ks.armed, 5);
	WT_EQ(ks.floor_n, 0);
	WT_EQ(wult_kstats_parse(stats, strlen(stats), 2, &ks, err, sizeof(err)), -ENOENT);
	WT_CHECK(strstr(err, "CPU 2") != NULL, "%s", err);
	/* The length is respected: no NUL needed, nothing read past it. */
	WT_EQ(wult_kstats_parse(stats, 20, 1, &ks, err, sizeof(err)), -ENOENT);
	WT_EQ(wult_kstats_parse("cpu3 armed=12", 13, 3, &ks, err, sizeof(err)), 0);
	WT_EQ(ks.armed, 12);
	WT_EQ(wult_kstats_parse("cpu3 armed=12", 12, 3, &ks, err, sizeof(err)), 0);
	WT_EQ(ks.armed, 1);
}

static void test_parse_bad(void)
{
	struct wult_kstats ks;
	char err[128];

	WT_EQ(wult_kstats_parse("cpu0 armed=x\n", 13, 0, &ks, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "armed: bad value 'x'") != NULL, "%s", err);
	WT_EQ(wult_kstats_parse("cpu0 armed\n", 11, 0, &ks, err, sizeof(err)), -EINVAL);
	WT_CHECK(strstr(err, "'armed' is not key=value") != NULL, "%s", err);
	WT_EQ(wult_kstats_parse("cpu0 =5\n", 8, 0, &ks, err, sizeof(err)), -EINVAL);
	/* 2^64 does not fit. */
	WT_EQ(wult_kstats_parse("cpu0 emitted=18446744073709551616", 33, 0, &ks,
				err, sizeof(err)), -EINVAL);
	WT_EQ(wult_kstats_parse("cpu0 emitted=18446744073709551615", 33, 0, &ks,
				err, sizeof(err)), 0);
	WT_EQ(ks.emitted == UINT64_MAX, 1);
	WT_EQ(wult_kstats_parse("", 0, 0, &ks, err, sizeof(err)), -ENOENT);
}

static void test_delta_add(void)
{
	struct wult_kstats a = { .armed = 100, .emitted = 90, .not_idle = 7,
				 .floor_ns = 3000, .floor_n = 50 };
	struct wult_kstats b = { .armed = 300, .emitted = 200, .not_idle = 97,
				 .floor_ns = 2000, .floor_n = 500 };
	struct wult_kstats d, sum = { 0 };

	wult_kstats_delta(&d, &b, &a);
	WT_EQ(d.armed, 200);
	WT_EQ(d.emitted, 110);
	WT_EQ(d.not_idle, 90);
	/* The floor is the later reading's, not a difference. */
	WT_EQ(d.floor_ns, 2000);
	WT_EQ(d.floor_n, 500);

	wult_kstats_add(&sum, &a);
	wult_kstats_add(&sum, &b);
	WT_EQ(sum.armed, 400);
	WT_EQ(sum.not_idle, 104);
	/* The largest floor measured: the strictest CPU. */
	WT_EQ(sum.floor_ns, 3000);
	WT_EQ(sum.floor_n, 50);
}

static void test_low_yield(void)
{
	struct wult_kstats d = { .armed = 58667, .emitted = 6, .not_idle = 58600,
				 .stale_tai = 50, .early_wake = 3, .cancelled = 1,
				 .floor_ns = 2073, .floor_n = 900 };
	char msg[512];

	WT_EQ(wult_kstats_low_yield(&d, msg, sizeof(msg)), 1);
	WT_CHECK(strstr(msg, "only 6 of 58666 armed datapoints (0.0%) were valid;") == msg,
		 "%s", msg);
	/* Reasons largest first, the floor and the fix. */
	WT_CHECK(strstr(msg, "; not_idle 58600 (fired before the CPU was idle: LDist too short), "
			"stale_tai 50 (") != NULL, "%s", msg);
	WT_CHECK(strstr(msg, ", early_wake 3 (") != NULL, "%s", msg);
	WT_CHECK(strstr(msg, "other_intr") == NULL, "%s", msg);
	WT_CHECK(strstr(msg, "; LDist floor 2.0 us: raise --ldist well above the floor") != NULL,
		 "%s", msg);

	/* Exactly half is enough; the cancelled event does not count. */
	d = (struct wult_kstats){ .armed = 101, .emitted = 50, .early_wake = 60,
				  .stale_tai = 51, .cancelled = 1 };
	WT_EQ(wult_kstats_low_yield(&d, msg, sizeof(msg)), 0);
	WT_EQ(msg[0], '\0');
	d.emitted = 49;
	WT_EQ(wult_kstats_low_yield(&d, msg, sizeof(msg)), 1);
	WT_CHECK(strstr(msg, "early_wake 60 (") != NULL &&
		 strstr(msg, "keep other work and interrupts off") != NULL, "%s", msg);
	WT_CHECK(strstr(msg, "LDist floor") == NULL, "%s", msg);

	/* Nothing ended: nothing to say. A short buffer stays terminated. */
	d = (struct wult_kstats){ .armed = 1, .cancelled = 1 };
	WT_EQ(wult_kstats_low_yield(&d, msg, sizeof(msg)), 0);
	d = (struct wult_kstats){ .armed = 10, .not_idle = 10 };
	WT_EQ(wult_kstats_low_yield(&d, msg, 8), 1);
	WT_EQ(strlen(msg), 7);
}

static void test_ldist_unreachable(void)
{
	struct wult_kstats ks = { .floor_ns = 2073, .floor_n = WULT_FLOOR_MIN_N };
	uint64_t min_us = 0;

	WT_EQ(wult_kstats_ldist_unreachable(&ks, 1, &min_us), 1);
	WT_EQ(min_us, 3);
	WT_EQ(wult_kstats_ldist_unreachable(&ks, 2, &min_us), 1);
	WT_EQ(wult_kstats_ldist_unreachable(&ks, 3, &min_us), 0);
	WT_EQ(wult_kstats_ldist_unreachable(&ks, 4000, &min_us), 0);
	/* Not known yet: the module would not refuse, neither do we. */
	ks.floor_n = WULT_FLOOR_MIN_N - 1;
	WT_EQ(wult_kstats_ldist_unreachable(&ks, 1, &min_us), 0);
	/* A floor of exactly 2 us: MAX 2 passes, as in wult.ko. */
	ks = (struct wult_kstats){ .floor_ns = 2000, .floor_n = 1000 };
	WT_EQ(wult_kstats_ldist_unreachable(&ks, 2, &min_us), 0);
	WT_EQ(wult_kstats_ldist_unreachable(&ks, 1, &min_us), 1);
	WT_EQ(min_us, 2);
}

int main(void)
{
	test_parse();
	test_parse_bad();
	test_delta_add();
	test_low_yield();
	test_ldist_unreachable();
	return wt_done();
}
