// SPDX-License-Identifier: GPL-2.0
/*
 * The governor judged. wult armed every wake, so the idle period that
 * followed each idle entry is known exactly: SilentTime = LTime - TBI,
 * from idle entry to the armed wake. That is the period the governor had
 * to predict when it picked the state (ReqCState). The right pick is the
 * deepest enabled state of the recording's description whose target
 * residency fits that period and whose exit latency fits the PM QoS limit;
 * a shallower pick is too shallow, a deeper one too deep.
 *
 * Costs, per pick: too shallow loses residency, the whole idle period
 * spent in a shallower state than the right one (SilentTime); too deep
 * adds wake latency, the picked state's declared exit latency minus the
 * right one's (a worst case, as declared latencies are).
 *
 * cpuidle's own view beside it: each state's usage, above and below
 * counters over the recording, from the description's start and end
 * values (wult record stores both in file mode).
 *
 * The pass counts SilentTime per state and LDist band in units of
 * RPT_GOV_UNIT ns (whole us, rounded down), exact against whole-us
 * residencies, so the judgement is made once the description is read,
 * without the datapoints (not with --per-cpu: a histogram per CPU, state
 * and band would be too many).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "report_judge.h"

#define MAX_STATES	64

const double rpt_gov_band_us[RPT_GOV_BANDS] = { 0, 10, 100, 1000, 10000 };
const char *const rpt_gov_band_names[RPT_GOV_BANDS + 1] = {
	"<10us", "10-100us", "100us-1ms", "1-10ms", ">=10ms", "all",
};

static unsigned int band_of(double ldist)
{
	unsigned int b;

	for (b = RPT_GOV_BANDS - 1; b > 0; b--)
		if (ldist >= rpt_gov_band_us[b] * 1e3)
			return b;
	return 0;
}

/*
 * One state's SilentTimes in one LDist band, in units: below GOV_DIRECT
 * (65.5 ms) a counter each, in a mapping whose untouched pages cost
 * nothing (the LDists of a real run keep SilentTime below it); the rest in
 * statistics. Counting a datapoint this way costs 33 instructions less than
 * adding it to statistics did (the governor's counting was 9% of a
 * report's time, tests/bench/RESULTS.md). judge() gets the same
 * values and counts in the same order either way: the counters' in
 * ascending order, then the larger ones'.
 */
#define GOV_DIRECT	65536

struct rpt_gov_count {
	uint64_t *c;			/* GOV_DIRECT counters */
	uint32_t hi;			/* one past the highest counted */
	uint64_t n;			/* values counted, both parts */
	struct wult_stats *rest;	/* those from GOV_DIRECT on, NULL: none */
};

static struct rpt_gov_count *gov_new(void)
{
	struct rpt_gov_count *gc = calloc(1, sizeof(*gc));
	void *m;

	if (!gc)
		return NULL;
	m = mmap(NULL, GOV_DIRECT * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		free(gc);
		return NULL;
	}
	gc->c = m;
	return gc;
}

static void gov_free(struct rpt_gov_count *gc)
{
	if (!gc)
		return;
	munmap(gc->c, GOV_DIRECT * sizeof(uint64_t));
	wult_stats_free(gc->rest);
	free(gc);
}

int rpt_gov_add(struct rpt_group *g, double ldist, double silent)
{
	struct rpt_gov_count *gc;
	unsigned int b;
	int64_t u;

	if (isnan(silent) || isnan(ldist) || silent < 0)
		return 0;
	b = band_of(ldist);
	if (!g->gov[b] && !(g->gov[b] = gov_new()))
		return -ENOMEM;
	gc = g->gov[b];
	u = (int64_t)(silent / RPT_GOV_UNIT);
	if (u < GOV_DIRECT) {
		gc->c[u]++;
		if ((uint32_t)u >= gc->hi)
			gc->hi = (uint32_t)u + 1;
	} else if ((!gc->rest && wult_stats_new(&gc->rest)) || wult_stats_add(gc->rest, u)) {
		return -ENOMEM;
	}
	gc->n++;
	return 0;
}

void rpt_gov_free(struct rpt_group *g)
{
	unsigned int b;

	for (b = 0; b < RPT_GOV_BANDS; b++) {
		gov_free(g->gov[b]);
		g->gov[b] = NULL;
	}
}

/* @fn on each counted value, ascending, with its count (wult_stats_foreach()'s way). */
static int gov_foreach(const struct rpt_gov_count *gc,
		       int (*fn)(int64_t val, uint64_t cnt, void *ctx), void *ctx)
{
	uint32_t v;
	int ret;

	for (v = 0; v < gc->hi; v++)
		if (gc->c[v] && (ret = fn(v, gc->c[v], ctx)))
			return ret;
	return gc->rest ? wult_stats_foreach(gc->rest, fn, ctx) : 0;
}

/* What the description says of the states one CPU may pick. */
struct gov_states {
	unsigned int n;
	int ok[MAX_STATES];		/* enabled and within PM QoS */
	int64_t res[MAX_STATES];	/* target residency, RPT_GOV_UNIT ns */
	double lat[MAX_STATES];		/* exit latency, us */
};

static void read_states(const struct wult_sysdesc *sd, int cpu, double qos, struct gov_states *s)
{
	const char *dis;
	unsigned int k;

	for (k = 0; k < MAX_STATES && wult_sysdesc_state(sd, cpu, k, "name"); k++) {
		s->lat[k] = wult_sysdesc_num(wult_sysdesc_state(sd, cpu, k, "latency_us"));
		s->res[k] = (int64_t)(wult_sysdesc_num(wult_sysdesc_state(sd, cpu, k, "residency_us")) *
				      1e3 / RPT_GOV_UNIT);
		dis = wult_sysdesc_state(sd, cpu, k, "disable");
		s->ok[k] = !isnan(s->lat[k]) && !(dis && strcmp(dis, "0")) &&
			   (isnan(qos) || s->lat[k] <= qos);
	}
	s->n = k;
}

/* The deepest state right for an idle period of @v units; -1: none. */
static int right_state(const struct gov_states *s, int64_t v)
{
	int k;

	for (k = (int)s->n - 1; k >= 0; k--)
		if (s->ok[k] && s->res[k] <= v)
			return k;
	return -1;
}

struct judge_ctx {
	const struct gov_states *s;
	int picked;
	struct rpt_gov_cell *c;
};

static int judge(int64_t v, uint64_t cnt, void *arg)
{
	struct judge_ctx *j = arg;
	struct rpt_gov_cell *c = j->c;
	int r = right_state(j->s, v);
	double idle = (double)v * RPT_GOV_UNIT * cnt;

	c->n += cnt;
	c->idle_ns += idle;
	if (r < 0 || j->picked == r) {
		/* no state fits (all beyond PM QoS): any pick is the least bad */
		c->right += cnt;
	} else if (j->picked < r) {
		c->shallow += cnt;
		c->lost_ns += idle;
	} else {
		c->deep += cnt;
		c->added_us += (j->s->lat[j->picked] - j->s->lat[r]) * cnt;
	}
	return 0;
}

static void cell_add(struct rpt_gov_cell *d, const struct rpt_gov_cell *s)
{
	d->n += s->n;
	d->shallow += s->shallow;
	d->right += s->right;
	d->deep += s->deep;
	d->idle_ns += s->idle_ns;
	d->lost_ns += s->lost_ns;
	d->added_us += s->added_us;
}

int rpt_gov_new(const struct rpt_file *f, struct rpt_gov *g)
{
	const struct wult_sysdesc *sd = f->meta.sysdesc;
	struct gov_states *s;
	unsigned int i, b, any = 0;
	int ret = 0;

	memset(g, 0, sizeof(*g));
	if (!sd)
		return -ENOENT;
	for (i = 0; i < f->ngroups; i++)
		for (b = 0; b < RPT_GOV_BANDS; b++)
			any |= f->groups[i]->gov[b] != NULL;
	if (!any)
		return -ENOENT;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	g->governor = wult_sysdesc_get(sd, "cpuidle.governor");
	g->qos_us = wult_sysdesc_num(wult_sysdesc_get(sd, "pmqos.cpu_dma_latency_us"));
	for (i = 0; !ret && i < f->ngroups; i++) {
		const struct rpt_group *gr = f->groups[i];
		int cpu = 0;
		struct judge_ctx j = { .s = s };

		/* The description's first measured CPU, unless --per-cpu names one */
		sscanf(wult_sysdesc_get(sd, "cpuidle.cpus") ?: "0", "%d", &cpu);
		j.picked = rpt_decl_state_index(sd, gr->name, &cpu);
		read_states(sd, cpu, g->qos_us, s);
		for (b = 0; !ret && b < RPT_GOV_BANDS; b++) {
			if (!gr->gov[b])
				continue;
			if (j.picked < 0 || j.picked >= (int)s->n) {
				g->unjudged += gr->gov[b]->n;
				continue;
			}
			j.c = &g->band[b];
			ret = gov_foreach(gr->gov[b], judge, &j);
		}
	}
	for (b = 0; b < RPT_GOV_BANDS; b++)
		cell_add(&g->band[RPT_GOV_BANDS], &g->band[b]);
	free(s);
	return ret;
}

static double pct(uint64_t a, uint64_t n)
{
	return n ? 100.0 * a / n : NAN;
}

static void put_pct(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %7s", "-");
	else
		fprintf(out, " %6.2f%%", v);
}

static void put_us(FILE *out, double v, int width)
{
	if (isnan(v))
		fprintf(out, " %*s", width, "-");
	else
		fprintf(out, " %*.1f", width, v);
}

static void put_count(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %10s", "-");
	else
		fprintf(out, " %10.0f", v);
}

/* A counter's growth over the recording (end - start), NaN: not both. */
static double grew(const struct wult_sysdesc *sd, int cpu, unsigned int k, const char *f)
{
	char a[64], b[64];

	snprintf(a, sizeof(a), "cpu%d.state%u.%s_start", cpu, k, f);
	snprintf(b, sizeof(b), "cpu%d.state%u.%s_end", cpu, k, f);
	return wult_sysdesc_num(wult_sysdesc_get(sd, b)) - wult_sysdesc_num(wult_sysdesc_get(sd, a));
}

/* cpuidle's own counts (usage, above, below) over the recording, per
 * measured CPU and state, from the description's start and end values. */
static void print_counters(FILE *out, const struct wult_sysdesc *sd)
{
	const char *cpus = wult_sysdesc_get(sd, "cpuidle.cpus"), *p = cpus;
	unsigned int k, rows = 0;
	double u, a, b;
	char *end;
	int cpu;

	while (p && *p) {
		cpu = (int)strtol(p, &end, 10);
		if (end == p)
			break;
		p = *end == ',' ? end + 1 : end;
		for (k = 0; k < MAX_STATES && wult_sysdesc_state(sd, cpu, k, "name"); k++) {
			u = grew(sd, cpu, k, "usage");
			if (isnan(u))
				continue;
			if (!rows++)
				fprintf(out, "  cpuidle's own counts over the recording (above: the idle\n"
					"  period was shorter than the state's target residency; below:\n"
					"  long enough for a deeper state):\n"
					"  %-5s %-10s %10s %10s %10s %7s %7s\n", "CPU", "State", "Usage",
					"Above", "Below", "Above%", "Below%");
			a = grew(sd, cpu, k, "above");
			b = grew(sd, cpu, k, "below");
			fprintf(out, "  %-5d %-10s %10.0f", cpu, wult_sysdesc_state(sd, cpu, k, "name"),
				u);
			put_count(out, a);
			put_count(out, b);
			put_pct(out, u > 0 ? 100 * a / u : NAN);
			put_pct(out, u > 0 ? 100 * b / u : NAN);
			fputc('\n', out);
		}
	}
	if (!rows)
		fprintf(out, "  cpuidle's own above/below counts: not in the description (recorded\n"
			"  by an older wult, in pipe mode, or not by wult record)\n");
}

static void print_one(FILE *out, const struct rpt_file *f, const struct rpt_gov *g)
{
	unsigned int b;

	fprintf(out, "\nGovernor judged: %s\n", f->path);
	fprintf(out, "  governor %s; PM QoS ", g->governor ? g->governor : "unknown");
	if (isnan(g->qos_us))
		fprintf(out, "unknown (no state excluded by it)\n");
	else
		fprintf(out, "%.0f us%s\n", g->qos_us, g->qos_us >= 2e9 ? " (no limit)" : "");
	fprintf(out, "  Right: the deepest enabled state whose target residency <= the idle\n"
		"  period (SilentTime: idle entry to the armed wake) and exit latency <= PM\n"
		"  QoS. Lost: the idle time of too-shallow picks, %% of the band's idle time,\n"
		"  and per pick (us). Added: declared exit latency over the right state's,\n"
		"  per too-deep pick (us).\n");
	fprintf(out, "  %-10s %8s %7s %7s %7s %7s %8s %7s\n", "LDist", "Count", "Shallow",
		"Right", "Deep", "Lost%", "Lost/us", "Added");
	for (b = 0; b <= RPT_GOV_BANDS; b++) {
		const struct rpt_gov_cell *c = &g->band[b];

		if (!c->n)
			continue;
		fprintf(out, "  %-10s %8llu", rpt_gov_band_names[b], (unsigned long long)c->n);
		put_pct(out, pct(c->shallow, c->n));
		put_pct(out, pct(c->right, c->n));
		put_pct(out, pct(c->deep, c->n));
		put_pct(out, c->idle_ns > 0 ? 100 * c->lost_ns / c->idle_ns : NAN);
		put_us(out, c->shallow ? c->lost_ns / 1e3 / c->shallow : NAN, 8);
		put_us(out, c->deep ? c->added_us / c->deep : NAN, 7);
		fputc('\n', out);
	}
	if (g->unjudged)
		fprintf(out, "  %llu datapoints not judged: their state is not in the "
			"description\n", (unsigned long long)g->unjudged);
	print_counters(out, f->meta.sysdesc);
}

void rpt_gov_print_all(FILE *out, const struct rpt_opts *o, struct rpt_file *const *files,
		       unsigned int nfiles)
{
	unsigned int j;
	struct rpt_gov g;
	int ret;

	(void)o;
	for (j = 0; j < nfiles; j++) {
		ret = rpt_gov_new(files[j], &g);
		if (ret == -ENOMEM)
			fprintf(stderr, "wult report: out of memory\n");
		if (!ret)
			print_one(out, files[j], &g);
	}
}
