// SPDX-License-Identifier: GPL-2.0
/*
 * --fail-if conditions (lib/stats/gate.c): what parses into what, and that every
 * malformed part is refused with a message naming it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <wult/gate.h>

#include "wt.h"

/* wult report's statistics, in its order (report_print.c). */
static const char *const stats[] = {
	"count", "min", "median", "p90", "p99", "p99.9", "p99.99", "p99.999", "max", "mean",
	"stddev",
};
#define NSTATS	(sizeof(stats) / sizeof(stats[0]))

static int parse(const char *expr, struct wult_gate *g, char *err, size_t len)
{
	err[0] = '\0';
	return wult_gate_parse(expr, stats, NSTATS, g, err, len);
}

static void good(void)
{
	struct wult_gate g;
	char err[256];

	WT_EQ(parse("C3.p99.9 WakeLatency > 150us", &g, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(g.state, "C3"), "'%s'", g.state);
	WT_CHECK(!strcmp(stats[g.stat], "p99.9"), "'%s'", stats[g.stat]);
	WT_EQ(g.metric, WULT_M_WAKE_LATENCY);
	WT_EQ(g.op, WULT_GATE_GT);
	WT_CHECK(g.value == 150000, "%g", g.value);
	/* Longest statistic wins where names share a prefix. */
	WT_EQ(parse("C6.p99.999 IntrLatency>=2ms", &g, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(stats[g.stat], "p99.999") && g.op == WULT_GATE_GE && g.value == 2e6,
		 "%s %g", stats[g.stat], g.value);
	/* A state with spaces and dots (--per-cpu groups), blanks anywhere. */
	WT_EQ(parse("  CPU1 C1.E.max   SilentTime<=  1.5e1ns ", &g, err, sizeof(err)), 0);
	WT_CHECK(!strcmp(g.state, "CPU1 C1.E"), "'%s'", g.state);
	WT_CHECK(g.op == WULT_GATE_LE && g.value == 15, "%d %g", g.op, g.value);
	/* No unit on a time: microseconds, as the filters; seconds too. */
	WT_EQ(parse("all.median WakeLatency == 7", &g, err, sizeof(err)), 0);
	WT_CHECK(g.value == 7000 && g.op == WULT_GATE_EQ, "%g", g.value);
	WT_EQ(parse("all.mean LDist != 0.001s", &g, err, sizeof(err)), 0);
	WT_CHECK(g.value == 1e6 && g.op == WULT_GATE_NE, "%g", g.value);
	/* A unit after a blank, as the filters take it. */
	WT_EQ(parse("all.max WakeLatency > 150 us", &g, err, sizeof(err)), 0);
	WT_CHECK(g.value == 150000, "%g", g.value);
	/* Counter metrics take their own unit, i.e. none. */
	WT_EQ(parse("POLL.mean CC0% < -5", &g, err, sizeof(err)), 0);
	WT_CHECK(g.metric == WULT_M_CC0 && g.op == WULT_GATE_LT && g.value == -5, "%g", g.value);
	/* A count is datapoints: no unit, not microseconds. */
	WT_EQ(parse("all.count WakeLatency < 1000", &g, err, sizeof(err)), 0);
	WT_CHECK(g.value == 1000, "%g", g.value);
}

/* @expr is refused, the message holding @part. */
static void bad(const char *expr, const char *part)
{
	struct wult_gate g;
	char err[256];
	int ret = parse(expr, &g, err, sizeof(err));

	WT_CHECK(ret == -EINVAL, "'%s': %d", expr, ret);
	WT_CHECK(strstr(err, part) != NULL, "'%s': message '%s' lacks '%s'", expr, err, part);
}

static void malformed(void)
{
	bad("", "no STATE.STAT");
	bad("WakeLatency > 1us", "no STATE.STAT");
	bad("C3.p95 WakeLatency > 1us", "unknown statistic 'p95'");
	bad("C3.p95 WakeLatency > 1us", "p99.999");	/* the list of good ones */
	bad("C3. WakeLatency > 1us", "unknown statistic ''");
	bad(".max WakeLatency > 1us", "no state before '.max'");
	bad("C3.max Wakelatency > 1us", "unknown metric 'Wakelatency'");
	bad("C3.max ReqCState > 1", "'ReqCState' is not a numeric metric");
	bad("C3.max", "no metric");
	bad("C3.max WakeLatency", "is not an operator");
	bad("C3.max WakeLatency => 1us", "'=>' is not an operator");
	bad("C3.max WakeLatency = 1us", "not an operator");
	bad("C3.max WakeLatency >", "is not a number");
	bad("C3.max WakeLatency > us", "'us' is not a number");
	bad("C3.max WakeLatency > 0x10", "unknown unit 'x10'");
	bad("C3.max WakeLatency > inf", "'inf' is not a number");
	bad("C3.max WakeLatency > nan", "is not a number");
	bad("C3.max WakeLatency > 1e999", "out of range");
	bad("C3.max WakeLatency > 150 us x", "'x' after the value");
	bad("C3.max WakeLatency > 150 parsecs", "unknown unit 'parsecs'");
	bad("C3.max WakeLatency > 150uss", "unknown unit 'uss'");
	bad("C3.max WakeLatency > 150us && 1", "'&& 1' after the value");
	bad("C3.mean CPUFreq > 100MHz", "CPUFreq takes no unit");
	bad("C3.count WakeLatency > 100us", "a count of WakeLatency takes no unit");
	bad("C3.mean CC6% > 5%", "takes no unit");
	bad("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.max "
	    "WakeLatency > 1", "longer than 63 bytes");
}

static void holds(void)
{
	struct wult_gate g;
	char err[256];

	parse("all.max WakeLatency > 150us", &g, err, sizeof(err));
	WT_CHECK(wult_gate_holds(&g, 150001), "above");
	WT_CHECK(!wult_gate_holds(&g, 150000), "equal is not above");
	WT_CHECK(!wult_gate_holds(&g, NAN), "no value never holds");
	parse("all.max WakeLatency <= 150us", &g, err, sizeof(err));
	WT_CHECK(wult_gate_holds(&g, 150000) && !wult_gate_holds(&g, 150000.5), "<=");
	parse("all.max WakeLatency != 150us", &g, err, sizeof(err));
	WT_CHECK(wult_gate_holds(&g, 1) && !wult_gate_holds(&g, 150000), "!=");
	WT_CHECK(!wult_gate_holds(&g, NAN), "NaN != x does not hold either");
	WT_CHECK(!strcmp(wult_gate_op_str(WULT_GATE_GE), ">="), "op string");
}

int main(void)
{
	good();
	malformed();
	holds();
	return wt_done();
}
