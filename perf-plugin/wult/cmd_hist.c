// SPDX-License-Identifier: GPL-2.0
/*
 * wult hist: wult.ko's in-kernel latency histograms
 * (/sys/kernel/debug/wult/hist/), per CPU and requested idle state: a
 * table of exact count, min, avg and max with percentiles from the bins,
 * and a terminal histogram in power-of-two rows (mirrored below zero for
 * tai_to_intr, whose bins are bipolar). No perf.data needed: the kernel
 * kept every datapoint's latency while any wult event measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>	/* optind */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/wult.h>
#include <wult/args.h>
#include <wult/khist.h>

#include "cmds.h"
#include "hist_html.h"
#include "opts.h"

#define HIST_DIR	"/sys/kernel/debug/wult/hist"
#define HIST_EXIT_EMPTY	4	/* no samples: as wult report's nothing to report */
#define HIST_MAX_CPUS	8192	/* NR_CPUS of the largest kernel configs */
#define HIST_MAX_FILE	(64 << 20)
#define BAR_WIDTH	40

/* wult.ko's histogram folders, as the uapi header names them. */
static const char *const metrics[WULT_HM_MAX] = WULT_HM_NAMES;
#define NMETRICS WULT_HM_MAX

static const double pcts[] = { 50, 90, 99, 99.9 };
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

struct hist_opts {
	const char *dir;
	const char *cpus;	/* NULL: every CPU with samples */
	int metric;		/* index in metrics[], -1: all */
	int reset;
	int no_bars;		/* --no-bars: tables only */
	const char *csv;	/* summary CSV to write, or NULL */
	FILE *csvf;		/* open while a round is shown */
	const char *html;	/* wult report's HTML page to write, or NULL */
	struct hist_html *hh;	/* collecting it while a round is shown */
	unsigned int watch;	/* seconds, 0: once */
	unsigned int count;	/* --watch rounds, 0: until interrupted */
};

static int hist_parse_uint(const char *s, unsigned int max, unsigned int *v)
{
	unsigned long x;
	char *end;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (end == s || *end || errno || *s == '-' || x > max)
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}

/* Each histogram's metric as wult report names it (tai_to_intr: no such metric). */
static const char *const report_names[WULT_HM_MAX] = {
	"WakeLatency", "IntrLatency", "SilentTime", "tai_to_intr",
};

/* --watch T: whole seconds, 1s..1d (bare: seconds). 0 or -1 (said why). */
static int hist_parse_watch(const char *s, unsigned int *secs)
{
	double ns;

	if (wult_time_parse(s, 1e9, WULT_TIME_LONG, &ns, NULL, 0) || ns > 86400e9 ||
	    ns != (double)(unsigned long long)(ns / 1e9) * 1e9) {
		fprintf(stderr, "wult hist: bad --watch '%s': want whole seconds, 1s..86400s "
			"(a number without a unit: seconds)\n", s);
		return -1;
	}
	*secs = (unsigned int)(ns / 1e9);
	return 0;
}

static int hist_metric(const char *s)
{
	size_t i;

	if (!strcmp(s, "all"))
		return -1;
	for (i = 0; i < NMETRICS; i++)
		if (!strcmp(s, metrics[i]) || !strcmp(s, report_names[i]))
			return (int)i;
	return -2;
}

/* wult hist's options as parsed, and where -C's CPUs go. */
struct hist_args {
	struct hist_opts *o;
	bool *want;
};

/* -C LIST: perf's CPU list syntax. */
static int cpus_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct hist_args *a = ctx;
	char err[160];

	(void)opt;
	if (wult_cpulist_parse(arg, (unsigned char *)a->want, HIST_MAX_CPUS, err,
			       sizeof(err)) < 0) {
		fprintf(stderr, "wult hist: bad --cpus: %s\n", err);
		return -1;
	}
	a->o->cpus = arg;
	return 0;
}

/* -m M (--metric, its old name). */
static int metric_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	struct hist_opts *o = ((struct hist_args *)ctx)->o;

	(void)opt;
	o->metric = hist_metric(arg);
	if (o->metric < -1) {
		fprintf(stderr, "wult hist: unknown --metrics '%s': WakeLatency, IntrLatency, SilentTime, tai_to_intr or all\n",
			arg);
		return -1;
	}
	return 0;
}

static int watch_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)opt;
	return hist_parse_watch(arg, &((struct hist_args *)ctx)->o->watch);
}

static int count_opt(const struct wult_opt *opt, const char *arg, void *ctx)
{
	(void)opt;
	if (hist_parse_uint(arg, 86400, &((struct hist_args *)ctx)->o->count)) {
		fprintf(stderr, "wult hist: bad --count '%s': want a count, 0..86400\n", arg);
		return -1;
	}
	return 0;
}

/* 0, 1 for --help, -1 on a bad option (said on stderr). */
static int hist_opts_parse(int argc, char **argv, struct hist_opts *o, bool *want)
{
	struct hist_args a = { o, want };
	const struct wult_opt opts[] = {
		WULT_OPT_CALLBACK('C', "cpus", "LIST", cpus_opt, NULL,
				  "CPUs to show, perf syntax, e.g. 0-3,6 (default:\n"
				  "those with samples)"),
		WULT_OPT_CALLBACK('m', "metrics", "M", metric_opt, NULL,
				  "WakeLatency (default), IntrLatency, SilentTime,\n"
				  "tai_to_intr (TIntr - TAI, negative when the interrupt\n"
				  "ran before the CPU left idle) or all; wult.ko's\n"
				  "folder names (wake_latency, ...) and --metric too"),
		WULT_OPT_CALLBACK(0, "metric", "M", metric_opt, NULL, NULL),
		WULT_OPT_FLAG(0, "reset", &o->reset,
			      "clear every histogram of every CPU first (alone:\n"
			      "only that)"),
		WULT_OPT_CALLBACK('w', "watch", "T", watch_opt, NULL,
				  "show them again every T (whole seconds, e.g. 2s, 1m;\n"
				  "a number without a unit: seconds)"),
		WULT_OPT_CALLBACK('n', "count", "N", count_opt, NULL,
				  "with --watch: stop after N rounds (default: never)"),
		WULT_OPT_FLAG(0, "no-bars", &o->no_bars,
			      "tables only, no terminal histograms"),
		WULT_OPT_STRING(0, "csv", "OUT", &o->csv,
				"also write the tables to OUT as CSV (rewritten each\n"
				"round)"),
		WULT_OPT_STRING(0, "html", "OUT", &o->html,
				"also write them as wult report's HTML page, with\n"
				"histogram plots (rewritten each round)"),
		WULT_OPT_STRING(0, "dir", "DIR", &o->dir,
				"histogram directory (default\n" HIST_DIR ")"),
		WULT_OPT_HELP(),
		WULT_OPT_END(),
	};
	const struct wult_optset set = {
		.head = "usage: wult hist [options]\n\n"
			"Show wult.ko's in-kernel latency histograms: per CPU and requested\n"
			"idle state, exact count/min/avg/max and percentiles from the bins.\n\n",
		.opts = opts,
		.tail = "\nThe tables' times are microseconds. A percentile is the lower bound of\n"
			"the bin that holds it; \">=N\" means it lies in the overflow, from N us\n"
			"on, \"<N\" in the underflow, below N us.\n",
		.col = 24,
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->dir = HIST_DIR;
	ret = wult_opts_start(&set, argc, argv, &a);
	if (ret)
		return ret == WULT_OPTS_HELP ? 1 : -1;
	if (optind < argc) {
		fprintf(stderr, "wult hist: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->count && !o->watch) {
		fprintf(stderr, "wult hist: --count needs --watch\n");
		return -1;
	}
	return 0;
}

/* Reads a whole (debugfs) file: 0, -ENOENT, or -errno. */
static int hist_read_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap), *nb;
	ssize_t r;
	int fd;

	if (!b)
		return -ENOMEM;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		free(b);
		return -errno;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= HIST_MAX_FILE) {
				close(fd);
				free(b);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(b, cap);
			if (!nb) {
				close(fd);
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (r < 0) {
		free(b);
		return -EIO;
	}
	*buf = b;
	*len = n;
	return 0;
}

static uint64_t hist_state_total(const struct wult_khist *h)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < wult_khist_nstates(h); i++)
		n += wult_khist_state(h, i)->count;
	return n;
}

/* A percentile as the table and the CSV show it: "-" if none. */
static void hist_fmt_pct(const struct wult_khist_state *s, double p, char *buf, size_t len)
{
	static const char *const where[] = {
		[WULT_KHIST_IN_BINS] = "", [WULT_KHIST_OVER] = ">=", [WULT_KHIST_UNDER] = "<",
	};
	int64_t us;
	int r = wult_khist_percentile(s, p, &us);

	if (r < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%" PRId64, where[r], us);
}

static void hist_print_pct(const struct wult_khist_state *s, double p)
{
	char buf[32];

	hist_fmt_pct(s, p, buf, sizeof(buf));
	printf(" %9s", buf);
}

static void hist_print_table(const struct wult_khist *h)
{
	const struct wult_khist_state *s;
	size_t i, j;

	printf("  %-16s %10s %11s %11s %11s", "State", "Count", "Min", "Avg", "Max");
	for (j = 0; j < NPCTS; j++)
		printf(" %8gth", pcts[j]);
	printf(" %10s %10s\n", "Underflow", "Overflow");
	for (i = 0; i < wult_khist_nstates(h); i++) {
		s = wult_khist_state(h, i);
		printf("  %-16s %10" PRIu64, s->name, s->count);
		if (!s->count) {
			printf("\n");
			continue;
		}
		printf(" %11.3f %11.3f %11.3f", s->min_ns / 1e3,
		       (double)s->sum_ns / (double)s->count / 1e3, s->max_ns / 1e3);
		for (j = 0; j < NPCTS; j++)
			hist_print_pct(s, pcts[j]);
		printf(" %10" PRIu64 " %10" PRIu64 "\n", s->under, s->over);
	}
}

/* Bit length of @v: 0 for 0, k for [2^(k-1), 2^k). */
static unsigned int hist_bits(uint64_t v)
{
	unsigned int k = 0;

	while (v) {
		v >>= 1;
		k++;
	}
	return k;
}

static void hist_bar(const char *label, uint64_t n, uint64_t top)
{
	static const char bar[BAR_WIDTH + 1] = "########################################";
	int w = (int)((n * BAR_WIDTH + top - 1) / top);

	printf("    %-18s %10" PRIu64 " %.*s\n", label, n, w, bar);
}

/*
 * Power-of-two rows of bins' lower bounds (us), in both directions:
 * row[0][k] holds [2^(k-1), 2^k) (k = 0: [0, 1)), row[1][k] its mirror
 * [-2^k, -2^(k-1)) (k = 0: [-1, 0)).
 */
struct hist_rows {
	uint64_t n[2][65];
	unsigned int first[2], last[2];
	bool any[2];
	uint64_t top;
};

static void hist_rows_fill(const struct wult_khist_state *s, struct hist_rows *r)
{
	unsigned int neg, k;
	int64_t lo;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->top = s->under > s->over ? s->under : s->over;
	for (i = 0; i < s->nbins; i++) {
		lo = s->bin_us[i];
		neg = lo < 0;
		/* -(lo + 1) stays in range for INT64_MIN. */
		k = hist_bits(neg ? (uint64_t)-(lo + 1) : (uint64_t)lo);
		r->n[neg][k] += s->bin_n[i];
		if (!r->any[neg] || k < r->first[neg])
			r->first[neg] = k;
		if (!r->any[neg] || k > r->last[neg])
			r->last[neg] = k;
		r->any[neg] = true;
		if (r->n[neg][k] > r->top)
			r->top = r->n[neg][k];
	}
}

/* Row @k's label; @neg: the mirrored row below zero. */
static void hist_row_label(char *buf, size_t len, bool neg, unsigned int k)
{
	uint64_t a = k ? (uint64_t)1 << (k - 1) : 0, b = k ? (uint64_t)1 << k : 1;

	if (neg)
		snprintf(buf, len, "[-%" PRIu64 ", %s%" PRIu64 ")", b, a ? "-" : "", a);
	else
		snprintf(buf, len, "[%" PRIu64 ", %" PRIu64 ")", a, b);
}

/* The samples of one state in power-of-two rows of microseconds. */
static void hist_print_bars(const struct wult_khist_state *s, unsigned int bin_us)
{
	struct hist_rows r;
	char label[48];
	unsigned int k;

	if (!s->count)
		return;
	hist_rows_fill(s, &r);
	printf("  %s (bins of %u us):\n", s->name, bin_us);
	if (s->under) {
		snprintf(label, sizeof(label), "< %" PRId64, s->under_us);
		hist_bar(label, s->under, r.top);
	}
	for (k = r.last[1] + 1; r.any[1] && k-- > r.first[1];) {
		hist_row_label(label, sizeof(label), true, k);
		hist_bar(label, r.n[1][k], r.top);
	}
	for (k = r.first[0]; r.any[0] && k <= r.last[0]; k++) {
		hist_row_label(label, sizeof(label), false, k);
		hist_bar(label, r.n[0][k], r.top);
	}
	if (s->over) {
		snprintf(label, sizeof(label), ">= %" PRId64, s->over_us);
		hist_bar(label, s->over, r.top);
	}
}

static void hist_csv_pct(FILE *f, const struct wult_khist_state *s, double p)
{
	char buf[32];

	hist_fmt_pct(s, p, buf, sizeof(buf));
	fprintf(f, ",%s", strcmp(buf, "-") ? buf : "");
}

/* The table's rows as CSV: one per state, empty cells where undefined. */
static void hist_csv_rows(FILE *f, int cpu, size_t m, const struct wult_khist *h)
{
	const struct wult_khist_state *s;
	size_t i, j;

	for (i = 0; i < wult_khist_nstates(h); i++) {
		s = wult_khist_state(h, i);
		fprintf(f, "%d,%s,%s,%" PRIu64, cpu, metrics[m], s->name, s->count);
		if (s->count)
			fprintf(f, ",%.3f,%.3f,%.3f", s->min_ns / 1e3,
				(double)s->sum_ns / (double)s->count / 1e3, s->max_ns / 1e3);
		else
			fprintf(f, ",,,");
		for (j = 0; j < NPCTS; j++)
			hist_csv_pct(f, s, pcts[j]);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%u\n", s->under, s->over,
			wult_khist_bin_us(h));
	}
}

/* One CPU's histograms of one metric: 0, 1 if not shown, -errno. */
static int hist_show_one(const struct hist_opts *o, int cpu, size_t m, bool listed)
{
	char path[PATH_MAX], err[256];
	struct wult_khist *h;
	char *buf = NULL;
	size_t len = 0, i;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/CPU%d", o->dir, metrics[m], cpu);
	ret = hist_read_file(path, &buf, &len);
	if (ret == -ENOENT && !listed)
		return 1;
	if (ret) {
		fprintf(stderr, "wult hist: %s: %s\n", path, strerror(-ret));
		return ret;
	}
	ret = wult_khist_parse(buf, len, &h, err, sizeof(err));
	free(buf);
	if (ret) {
		fprintf(stderr, "wult hist: %s: %s\n", path,
			ret == -ENOMEM ? strerror(ENOMEM) : err);
		return ret;
	}
	if (!listed && !hist_state_total(h)) {
		wult_khist_free(h);
		return 1;
	}
	printf("CPU%d %s (us)\n", cpu, metrics[m]);
	hist_print_table(h);
	if (o->csvf)
		hist_csv_rows(o->csvf, cpu, m, h);
	if (o->hh && hist_html_add(o->hh, cpu, (int)m, h)) {
		fprintf(stderr, "wult hist: out of memory\n");
		wult_khist_free(h);
		return -ENOMEM;
	}
	if (!o->no_bars)
		for (i = 0; i < wult_khist_nstates(h); i++)
			hist_print_bars(wult_khist_state(h, i), wult_khist_bin_us(h));
	printf("\n");
	wult_khist_free(h);
	return 0;
}

/* Every wanted CPU and metric once: 0, 1 when none had samples, or -errno. */
static int hist_show_all(const struct hist_opts *o, const bool *want)
{
	size_t m, lo = o->metric < 0 ? 0 : (size_t)o->metric;
	size_t hi = o->metric < 0 ? NMETRICS : lo + 1;
	unsigned int shown = 0;
	int cpu, ret;

	for (cpu = 0; cpu < HIST_MAX_CPUS; cpu++) {
		if (o->cpus && !want[cpu])
			continue;
		for (m = lo; m < hi; m++) {
			ret = hist_show_one(o, cpu, m, o->cpus != NULL);
			if (ret < 0)
				return ret;
			shown += !ret;
		}
	}
	if (shown)
		return 0;
	/* A round of --watch may be empty; a one-shot answer of nothing is no
	 * answer (exit 4), said on stderr, its --csv and --html not written. */
	if (o->watch)
		printf("no samples in %s (no CPU measured since the module was loaded or "
		       "reset)\n", o->dir);
	else
		fprintf(stderr, "wult hist: no samples in %s (no CPU measured since the module "
			"was loaded or reset): nothing to show, exit status %d%s\n", o->dir,
			HIST_EXIT_EMPTY, o->csv || o->html ? "; --csv and --html not written" : "");
	return 1;
}

/*
 * A round: the tables, and the CSV written whole to OUT.tmp, then renamed
 * over OUT, so that a reader never sees half a round. 0 or -errno.
 */
static int hist_show_csv(struct hist_opts *o, const bool *want)
{
	char tmp[PATH_MAX];
	int ret, err;

	if (!o->csv)
		return hist_show_all(o, want);
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->csv);
	o->csvf = fopen(tmp, "w");
	if (!o->csvf) {
		ret = -errno;
		fprintf(stderr, "wult hist: cannot write %s: %s\n", tmp, strerror(errno));
		return ret;
	}
	fprintf(o->csvf, "CPU,Metric,State,Count,Min,Avg,Max");
	for (size_t j = 0; j < NPCTS; j++)
		fprintf(o->csvf, ",P%g", pcts[j]);
	fprintf(o->csvf, ",Underflow,Overflow,BinWidth\n");
	ret = hist_show_all(o, want);
	err = ferror(o->csvf);
	if (fclose(o->csvf) || err) {
		fprintf(stderr, "wult hist: error writing %s\n", tmp);
		ret = ret ? ret : -EIO;
	}
	o->csvf = NULL;
	if (!ret && rename(tmp, o->csv)) {
		ret = -errno;
		fprintf(stderr, "wult hist: cannot rename %s to %s: %s\n", tmp, o->csv,
			strerror(errno));
	}
	if (ret)
		unlink(tmp);
	return ret;
}

/*
 * A round, with --html also written as wult report's page through
 * OUT.tmp, renamed over OUT. 0 or -errno.
 */
static int hist_show(struct hist_opts *o, const bool *want)
{
	char tmp[PATH_MAX];
	int ret;

	if (!o->html)
		return hist_show_csv(o, want);
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->html);
	if (hist_html_new(tmp, o->dir, o->metric, &o->hh)) {
		fprintf(stderr, "wult hist: out of memory\n");
		return -ENOMEM;
	}
	ret = hist_show_csv(o, want);
	if (!ret)
		ret = hist_html_write(o->hh);
	hist_html_free(o->hh);
	o->hh = NULL;
	if (!ret && rename(tmp, o->html)) {
		ret = -errno;
		fprintf(stderr, "wult hist: cannot rename %s to %s: %s\n", tmp, o->html,
			strerror(errno));
	}
	if (ret)
		unlink(tmp);
	return ret;
}

/*
 * Why the default folder is missing: wult.ko's debugfs folder without it
 * is a module loaded without hist_bins (histograms are off by default:
 * their update costs every datapoint); no folder, no module or no debugfs.
 */
static const char *hist_missing_why(const char *dir)
{
	if (strcmp(dir, HIST_DIR))
		return "";
	if (!access("/sys/kernel/debug/wult", F_OK))
		return " (wult.ko was loaded without histograms: load it with "
		       "hist_bins=N, e.g. modprobe wult hist_bins=10240)";
	return " (is wult.ko loaded and debugfs mounted on /sys/kernel/debug?)";
}

static int hist_reset(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/reset", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "1\n", 2) != 2) {
		int err = errno;

		fprintf(stderr, "wult hist: cannot reset through %s: %s%s\n", path,
			strerror(err), err == ENOENT ? hist_missing_why(dir) : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int wult_cmd_hist(int argc, char **argv)
{
	bool *want = calloc(HIST_MAX_CPUS, sizeof(*want));
	struct hist_opts o;
	struct stat st;
	unsigned int round;
	int ret;

	if (!want)
		return 2;
	ret = hist_opts_parse(argc, argv, &o, want);
	if (ret) {
		free(want);
		return ret > 0 ? 0 : 2;
	}
	if (o.reset && hist_reset(o.dir)) {
		free(want);
		return 1;
	}
	/* A missing directory is no module, not "no samples". */
	ret = stat(o.dir, &st) ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (ret) {
		fprintf(stderr, "wult hist: %s: %s%s\n", o.dir, strerror(-ret),
			hist_missing_why(o.dir));
		free(want);
		return 1;
	}
	ret = 0;
	if (!o.reset || o.watch) {
		for (round = 1; ; round++) {
			if (o.watch && sleep(o.watch))
				break;
			if (o.watch)
				printf("--- round %u, every %u s\n", round, o.watch);
			ret = hist_show(&o, want);
			fflush(stdout);
			if (ret < 0 || !o.watch || round == o.count)
				break;
		}
	}
	free(want);
	return ret < 0 ? 1 : ret > 0 ? HIST_EXIT_EMPTY : 0;
}
