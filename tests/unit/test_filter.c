// SPDX-License-Identifier: GPL-2.0
/* The filter language: parsing, errors with positions, evaluation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <wult/filter.h>
#include <wult/metrics.h>
#include "wt.h"

enum { M_WAKE, M_INTR, M_STATE, M_SMI, M_CC0, M_N };

static const struct { const char *name; enum wult_val_type type; int is_time; } metrics[] = {
	[M_WAKE] = { "WakeLatency", WULT_VAL_NUM, 1 },
	[M_INTR] = { "IntrLatency", WULT_VAL_NUM, 1 },
	[M_STATE] = { "ReqCState", WULT_VAL_STR, 0 },
	[M_SMI] = { "SMICnt", WULT_VAL_NUM, 0 },
	[M_CC0] = { "CC0%", WULT_VAL_NUM, 0 },
};

static int resolve(void *ctx, const char *name, size_t len, struct wult_filter_metric *m)
{
	unsigned int i;

	(void)ctx;
	for (i = 0; i < M_N; i++) {
		if (strlen(metrics[i].name) == len && !strncmp(metrics[i].name, name, len)) {
			m->index = i;
			m->type = metrics[i].type;
			m->is_time = metrics[i].is_time;
			return 0;
		}
	}
	return -ENOENT;
}

static struct wult_val vals[M_N];

static void set(double wake, double intr, const char *state, double smi, double cc0)
{
	vals[M_WAKE].num = wake;
	vals[M_INTR].num = intr;
	vals[M_STATE].str = state;
	vals[M_SMI].num = smi;
	vals[M_CC0].num = cc0;
}

static int run(const char *expr)
{
	struct wult_filter *f;
	char err[128];
	int ret;

	ret = wult_filter_compile(expr, resolve, NULL, &f, err, sizeof(err));
	if (ret) {
		printf("unexpected error for '%s': %s\n", expr, err);
		return -1;
	}
	ret = wult_filter_eval(f, vals);
	wult_filter_free(f);
	return ret;
}

static void bad(const char *expr, const char *want)
{
	struct wult_filter *f = NULL;
	char err[128];
	int ret;

	ret = wult_filter_compile(expr, resolve, NULL, &f, err, sizeof(err));
	WT_CHECK(ret == -EINVAL && !f, "'%s' accepted", expr);
	WT_CHECK(strstr(err, want), "'%s': error '%s' lacks '%s'", expr, err, want);
}

/* wult's resolver over a set: unknown and unavailable metrics are told
 * apart, and the error lists what the set has.
 */
static void metric_sets(void)
{
	struct wult_metric_set set;
	struct wult_filter *f;
	char err[1024];

	wult_metric_set_init(&set, WULT_METRIC_BIT(WULT_M_WAKE_LATENCY) |
			     WULT_METRIC_BIT(WULT_M_REQ_CSTATE) | WULT_METRIC_BIT(WULT_M_CC0));
	WT_EQ(strcmp(set.names, "WakeLatency, ReqCState, CC0%"), 0);
	WT_EQ(wult_filter_compile("CPUFreq > 1000 || WakeLatency > 1us", wult_metrics_resolve,
				  &set, &f, err, sizeof(err)), -EINVAL);
	WT_EQ(strcmp(err, "col 1: this input does not provide metric 'CPUFreq' (available: "
		     "WakeLatency, ReqCState, CC0%)"), 0);
	WT_EQ(wult_filter_compile("Bogus", wult_metrics_resolve, &set, &f, err, sizeof(err)),
	      -EINVAL);
	WT_CHECK(strstr(err, "unknown metric 'Bogus' (available: WakeLatency, ReqCState, CC0%)"),
		 "%s", err);
	WT_EQ(wult_filter_compile("ReqCState == \"C1\" && CC0% > 1", wult_metrics_resolve, &set,
				  &f, err, sizeof(err)), 0);
	WT_CHECK(wult_filter_reads(f, WULT_M_CC0) && wult_filter_reads(f, WULT_M_REQ_CSTATE) &&
		 !wult_filter_reads(f, WULT_M_WAKE_LATENCY), "reads");
	wult_filter_free(f);
	/* No set: every metric resolves; an unknown one lists them all. */
	WT_EQ(wult_filter_compile("Scaled && CPUFreq > 1", wult_metrics_resolve, NULL, &f,
				  err, sizeof(err)), 0);
	wult_filter_free(f);
	WT_EQ(wult_filter_compile("Bogus", wult_metrics_resolve, NULL, &f, err, sizeof(err)),
	      -EINVAL);
	WT_CHECK(strstr(err, "(available: WakeLatency, WakeLatencyRaw,") && strstr(err, "Scaled, Source, RunLatency)"),
		 "%s", err);
}

int main(void)
{
	struct wult_filter *f;
	char err[64];

	set(60000, 70000, "C1", 0, 1.5);
	WT_EQ(run("ReqCState == \"C1\" && WakeLatency > 50us"), 1);
	WT_EQ(run("ReqCState == 'C6' && WakeLatency > 50us"), 0);
	/* A unit after a blank is still the number's unit. */
	WT_EQ(run("WakeLatency > 50 us"), 1);
	WT_EQ(run("WakeLatency > 70 us"), 0);
	WT_EQ(run("WakeLatency < 1 ms and WakeLatency > 59999 ns"), 1);
	WT_EQ(run("ReqCState != \"C6\""), 1);
	WT_EQ(run("WakeLatency > 60us"), 0);
	WT_EQ(run("WakeLatency >= 60us"), 1);
	/* A time metric against a number without a unit: microseconds. */
	WT_EQ(run("WakeLatency == 60"), 1);
	WT_EQ(run("WakeLatency == 60000"), 0);
	WT_EQ(run("WakeLatency > 59.5 && WakeLatency < 60.5"), 1);
	WT_EQ(run("CC0% > 1 && CC0% < 2"), 1);	/* not a time: as written */
	WT_EQ(run("WakeLatency < 0.06ms"), 0);
	WT_EQ(run("WakeLatency <= 6e-5s"), 1);
	WT_EQ(run("WakeLatency < IntrLatency"), 1);
	WT_EQ(run("!(WakeLatency < IntrLatency)"), 0);
	WT_EQ(run("not WakeLatency < IntrLatency or SMICnt"), 0);
	WT_EQ(run("SMICnt || CC0% > 1"), 1);
	WT_EQ(run("!SMICnt"), 1);
	WT_EQ(run("(SMICnt)"), 0);
	WT_EQ(run("WakeLatency > 1us and (ReqCState == \"C6\" || CC0% < 2)"), 1);
	WT_EQ(run("1 < 2 && 3 >= 3"), 1);
	/* A constant on the left is the same comparison, mirrored. */
	WT_EQ(run("50us < WakeLatency"), 1);
	WT_EQ(run("60us <= WakeLatency"), 1);
	WT_EQ(run("60us < WakeLatency"), 0);
	WT_EQ(run("70us > WakeLatency"), 1);
	WT_EQ(run("60 == WakeLatency"), 1);
	WT_EQ(run("60 != WakeLatency"), 0);
	WT_EQ(run("\"C1\" == ReqCState"), 1);
	WT_EQ(run("WakeLatency > -5us"), 1);
	WT_EQ(run("  ( ( WakeLatency>1ns ) )  "), 1);
	/* && binds tighter than ||. */
	WT_EQ(run("SMICnt > 0 && CC0% > 1 || WakeLatency > 0"), 1);
	WT_EQ(run("WakeLatency > 0 || SMICnt > 0 && CC0% > 100"), 1);

	/* Missing values match nothing. */
	set(NAN, 70000, NULL, 0, 1.5);
	WT_EQ(run("WakeLatency > 0"), 0);
	WT_EQ(run("WakeLatency != 0"), 0);
	WT_EQ(run("0 != WakeLatency"), 0);
	WT_EQ(run("WakeLatency < 1s"), 0);
	WT_EQ(run("!(WakeLatency < 1s)"), 1);
	WT_EQ(run("ReqCState != \"C1\""), 0);

	bad("WakeLatency > ", "col 15: unexpected end");
	/* A unit after a blank is still the number's unit, and a word there
	 * that is no unit is called one, not "unexpected 'p'". */
	bad("WakeLatency > 5 parsecs", "col 17: unknown unit 'parsecs'");
	bad("WakeLatency > 50xs", "col 17: unknown unit 'xs'");
	bad("Foo > 1", "col 1: unknown metric 'Foo'");
	bad("(WakeLatency > 1", "col 17: expected ')'");
	bad("WakeLatency = 1", "col 13: '=' is not a comparison");
	bad("ReqCState > \"C1\"", "col 11: names compare only");
	bad("ReqCState == 1", "col 11: cannot compare a name with a number");
	bad("SMICnt > 5us", "col 8: time value compared");
	bad("ReqCState == \"C1", "col 14: unterminated string");
	bad("WakeLatency > 1 1", "col 17: unexpected '1' after");
	bad("5", "col 2: expected a comparison");
	bad("ReqCState", "expected a comparison");
	bad("", "col 1: unexpected end");
	bad("WakeLatency > 1 && #", "col 20: unexpected '#'");
	bad("(WakeLatency > 1) > 2", "col 19: cannot compare a condition");
	bad("WakeLatency > .", "bad number");

	/* Deep nesting is an error, not a stack overflow. */
	{
		char deep[4096];

		memset(deep, '(', 1000);
		strcpy(deep + 1000, "SMICnt");
		bad(deep, "nested too deeply");
		memset(deep, '!', 3000);
		strcpy(deep + 3000, "SMICnt");
		bad(deep, "nested too deeply");
	}
	/* A tiny error buffer truncates, never overflows. */
	WT_CHECK(wult_filter_compile("Foo", resolve, NULL, &f, err, 8) == -EINVAL, "small buf");
	WT_CHECK(strlen(err) == 7, "truncated '%s'", err);
	WT_CHECK(!wult_filter_compile("CC0% > 1", resolve, NULL, &f, err, sizeof(err)), "nvals");
	WT_EQ(wult_filter_nvals(f), M_CC0 + 1);
	wult_filter_free(f);
	metric_sets();
	return wt_done();
}
