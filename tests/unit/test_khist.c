// SPDX-License-Identifier: GPL-2.0
/* wult.ko's histogram files: parsing, refusals, percentiles from the bins. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <wult/khist.h>

#include "wt.h"

/* As the module prints it: two states, one empty; 6 samples, 1 overflow. */
static const char good[] =
	"#CPU: 1\n#Metric: wake_latency\n#Bin width: 1 microseconds\n"
	"#Datapoints of other states: 0\n"
	"#State: POLL\n#Minimum latency: 0 microseconds\n#Average latency: 0 microseconds\n"
	"#Maximum latency: 0 microseconds\n#Total samples: 0\n"
	"#There are 0 samples lower than 0 microseconds.\n"
	"#There are 0 samples greater or equal than 10240 microseconds.\n"
	"#Exact: count 0 sum 0 min 0 max 0 nanoseconds\n#usecs\t         samples\n"
	"#State: C1 \n#Minimum latency: 3 microseconds\n#Average latency: 1719 microseconds\n"
	"#Maximum latency: 10300 microseconds\n#Total samples: 6\n"
	"#There are 0 samples lower than 0 microseconds.\n"
	"#There are 1 samples greater or equal than 10240 microseconds.\n"
	"#Exact: count 6 sum 10318500 min 3100 max 10300000 nanoseconds\n"
	"#usecs\t         samples\n"
	"    3\t               2\n    5\t               1\n  100\t               2\n";

static void t_good(void)
{
	const struct wult_khist_state *s;
	struct wult_khist *h;
	char err[128] = "";
	int64_t us = 0;

	WT_EQ(wult_khist_parse(good, strlen(good), &h, err, sizeof(err)), 0);
	if (!h)
		return;
	WT_EQ(wult_khist_bin_us(h), 1);
	WT_EQ(wult_khist_nstates(h), 2);
	WT_CHECK(wult_khist_state(h, 2) == NULL, "past the end");
	s = wult_khist_state(h, 0);
	WT_CHECK(!strcmp(s->name, "POLL"), "%s", s->name);
	WT_EQ(s->count, 0);
	WT_EQ(wult_khist_percentile(s, 50, &us), -EINVAL);
	s = wult_khist_state(h, 1);
	WT_CHECK(!strcmp(s->name, "C1"), "trailing blank kept: '%s'", s->name);
	WT_EQ(s->count, 6);
	WT_EQ(s->sum_ns, 10318500);
	WT_EQ(s->min_ns, 3100);
	WT_EQ(s->max_ns, 10300000);
	WT_EQ(s->over, 1);
	WT_EQ(s->over_us, 10240);
	WT_EQ(s->nbins, 3);
	/* Ranks ceil(p * 6 / 100): 1 -> 3 us, 3 -> 5 us, 4, 5 -> 100 us, 6 -> over. */
	WT_EQ(wult_khist_percentile(s, 0, &us), 0);
	WT_EQ(us, 3);
	WT_EQ(wult_khist_percentile(s, 33.4, &us), 0);
	WT_EQ(us, 5);
	WT_EQ(wult_khist_percentile(s, 50, &us), 0);
	WT_EQ(us, 5);
	WT_EQ(wult_khist_percentile(s, 50.1, &us), 0);
	WT_EQ(us, 100);
	WT_EQ(wult_khist_percentile(s, 83.3, &us), 0);
	WT_EQ(us, 100);
	WT_EQ(wult_khist_percentile(s, 99, &us), WULT_KHIST_OVER);
	WT_EQ(us, 10240);
	WT_EQ(s->under, 0);
	WT_EQ(s->under_us, 0);
	WT_EQ(wult_khist_percentile(s, 100.5, &us), -EINVAL);
	WT_EQ(wult_khist_percentile(s, -1, &us), -EINVAL);
	wult_khist_free(h);
}

/*
 * tai_to_intr as the module prints it with hist_bins=8: bins [-4, 4) us,
 * 7 samples: 1 below -4 us, rows -3 (2), -1 (1), 0 (1), 3 (1), 1 >= 4 us.
 */
static const char bipolar[] =
	"#CPU: 1\n#Metric: tai_to_intr\n#Bin width: 1 microseconds\n"
	"#State: C1\n#Minimum latency: -9 microseconds\n#Average latency: -1 microseconds\n"
	"#Maximum latency: 5 microseconds\n#Total samples: 7\n"
	"#There are 1 samples lower than -4 microseconds.\n"
	"#There are 1 samples greater or equal than 4 microseconds.\n"
	"#Exact: count 7 sum -9800 min -9500 max 5000 nanoseconds\n"
	"#usecs\t         samples\n"
	"   -3\t               2\n   -1\t               1\n    0\t               1\n"
	"    3\t               1\n";

static void t_bipolar(void)
{
	/* Ranks ceil(p * 7 / 100): 1 under, 2-3 -> -3, 4 -> -1, 5 -> 0, 6 -> 3, 7 over. */
	static const struct { double p; int where; int64_t us; } want[] = {
		{ 0, WULT_KHIST_UNDER, -4 }, { 14.2, WULT_KHIST_UNDER, -4 },
		{ 14.3, WULT_KHIST_IN_BINS, -3 }, { 42.8, WULT_KHIST_IN_BINS, -3 },
		{ 50, WULT_KHIST_IN_BINS, -1 }, { 71.4, WULT_KHIST_IN_BINS, 0 },
		{ 85.7, WULT_KHIST_IN_BINS, 3 }, { 90, WULT_KHIST_OVER, 4 },
	};
	const struct wult_khist_state *s;
	struct wult_khist *h;
	char err[128] = "";
	int64_t us = 0;
	size_t i;

	WT_EQ(wult_khist_parse(bipolar, strlen(bipolar), &h, err, sizeof(err)), 0);
	if (!h)
		return;
	s = wult_khist_state(h, 0);
	WT_EQ(s->count, 7);
	WT_EQ(s->sum_ns, -9800);
	WT_EQ(s->min_ns, -9500);
	WT_EQ(s->max_ns, 5000);
	WT_EQ(s->under, 1);
	WT_EQ(s->under_us, -4);
	WT_EQ(s->over, 1);
	WT_EQ(s->over_us, 4);
	WT_EQ(s->nbins, 4);
	WT_EQ(s->bin_us[0], -3);
	WT_EQ(s->bin_us[1], -1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		WT_EQ(wult_khist_percentile(s, want[i].p, &us), want[i].where);
		WT_CHECK(us == want[i].us, "p%g: %lld us, wanted %lld", want[i].p,
			 (long long)us, (long long)want[i].us);
	}
	wult_khist_free(h);
}

/* @text must be refused with -EINVAL and a reason containing @why. */
static void refused(const char *text, const char *why)
{
	struct wult_khist *h = NULL;
	char err[160] = "";
	int ret = wult_khist_parse(text, strlen(text), &h, err, sizeof(err));

	WT_CHECK(ret == -EINVAL && h == NULL && strstr(err, why),
		 "'%s': ret %d, err '%s', wanted '%s'", text, ret, err, why);
	wult_khist_free(h);
}

static void t_bad(void)
{
	static const char head[] = "#State: C1\n#Total samples: 2\n"
		"#Exact: count 2 sum 5000 min 2000 max 3000 nanoseconds\n";
	char buf[512];

	refused("    3\t2\n", "line 1");
	refused("#State: C1\nabc\n", "line 2");
	refused("#State: C1\n3\t2\t7\n", "line 2");
	refused("#State: C1\n3\t99999999999999999999\n", "line 2");
	refused("#Bin width: 0 microseconds\n", "line 1");
	refused("#State: C1\n5\t1\n5\t1\n", "line 3");	/* bins must ascend */
	refused("#State: C1\n#Exact: count 2 sum 1 min 9 max 1 nanoseconds\n", "line 2");
	refused("#State: C1\n#Total samples: 1\n1\t1\n", "no #Total samples or #Exact");
	snprintf(buf, sizeof(buf), "%s1\t1\n", head);
	refused(buf, "differ from the total 2");
	snprintf(buf, sizeof(buf), "%s#There are 1 samples greater or equal than 9 microseconds.\n"
		 "1\t2\n", head);
	refused(buf, "differ from the total 2");
	/* Underflow counts too; bins stay between the flows; signs parse once. */
	snprintf(buf, sizeof(buf), "%s#There are 1 samples lower than -4 microseconds.\n"
		 "-3\t2\n", head);
	refused(buf, "(2 + 1 + 0) differ from the total 2");
	snprintf(buf, sizeof(buf), "%s#There are 0 samples lower than -4 microseconds.\n"
		 "-5\t2\n", head);
	refused(buf, "bin rows outside [-4, 0) us");
	snprintf(buf, sizeof(buf), "%s#There are 0 samples greater or equal than 4 microseconds.\n"
		 "4\t2\n", head);
	refused(buf, "bin rows outside [0, 4) us");
	refused("#State: C1\n#Total samples: 0\n#Exact: count 0 sum 0 min 0 max 0 nanoseconds\n"
		"#There are 0 samples lower than 5 microseconds.\n"
		"#There are 0 samples greater or equal than 4 microseconds.\n",
		"the overflow starts (4 us) below the underflow (5 us)");
	refused("#Bin width: 2 microseconds\n#State: C1\n#Total samples: 0\n"
		"#Exact: count 0 sum 0 min 0 max 0 nanoseconds\n"
		"#There are 0 samples lower than -9223372036854775808 microseconds.\n"
		"#There are 0 samples greater or equal than 9223372036854775807 microseconds.\n",
		"is more than 1000000 bins");
	refused("#State: C1\n#Total samples: 0\n#Exact: count 0 sum 0 min 0 max 0 nanoseconds\n"
		"#There are 0 samples lower than -1000001 microseconds.\n", "is more than 1000000 bins");
	refused("#State: C1\n--3\t2\n", "line 2");
	refused("#State: C1\n- 3\t2\n", "line 2");
	refused("#State: C1\n3\t-2\n", "line 2");
	refused("#State: C1\n-9223372036854775809\t2\n", "line 2");
	refused("#State: C1\n#Exact: count 1 sum 1 min -9223372036854775809 max 1 nanoseconds\n",
		"line 2");
	memset(buf, 'x', sizeof(buf) - 1);
	buf[0] = '#';
	buf[sizeof(buf) - 1] = '\0';
	refused(buf, "line 1");	/* longer than any line the module writes */
}

/* An empty file (CPU never measured, only headers) has no states. */
static void t_empty(void)
{
	static const char text[] = "#CPU: 0\n#Metric: wake_latency\n#Bin width: 2 microseconds\n";
	static const char nul[] = "#State: X\n#Total samples: 1\n"
		"#Exact: count 1 sum 7 min 7 max 7 nanoseconds\n0\t1\0\n";
	struct wult_khist *h;

	WT_EQ(wult_khist_parse(text, strlen(text), &h, NULL, 0), 0);
	WT_EQ(wult_khist_nstates(h), 0);
	WT_EQ(wult_khist_bin_us(h), 2);
	wult_khist_free(h);
	/* A NUL inside @len is refused; a last line without newline is read. */
	WT_EQ(wult_khist_parse(nul, sizeof(nul) - 1, &h, NULL, 0), -EINVAL);
	WT_EQ(wult_khist_parse(nul, strlen(nul), &h, NULL, 0), 0);
	WT_EQ(wult_khist_state(h, 0)->bin_n[0], 1);
	wult_khist_free(h);
}

int main(void)
{
	t_good();
	t_bipolar();
	t_bad();
	t_empty();
	return wt_done();
}
