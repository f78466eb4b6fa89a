// SPDX-License-Identifier: GPL-2.0
/*
 * wult record: what wult.ko's per-CPU counters (debugfs wult/stats, read
 * through lib/kstats) say about a recording. The module refuses an event
 * whose LDist max is below the CPU's floor once it knows the floor; here
 * the same rule is applied before anything is opened, so the user gets the
 * fix in microseconds, and the floor is measured first when not known.
 * The counters are CPU-wide: another measurement of the same CPUs at the
 * same time is counted too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include <linux/wult.h>
#include <wult/evparse.h>
#include <wult/kstats.h>

#include "record_yield.h"

#define STATS_PATH	"/sys/kernel/debug/wult/stats"
/* Floors are microseconds (tens in slow VMs): longer ranges are not at risk. */
#define CALIB_BELOW_US	1000
#define CALIB_MAX_MS	3000
/* A mid-run verdict wants this many ended events. */
#define POLL_MIN_ENDED	200

struct rec_yield {
	int nr;
	const int *cpus;
	struct wult_kstats *base;	/* per CPU, at the start */
	int warned;			/* the mid-run warning was given */
};

/* The whole stats file, NUL-terminated; NULL with errno set. */
static char *read_stats(size_t *len)
{
	FILE *f = fopen(STATS_PATH, "r");
	size_t cap = 8192, n = 0;
	char *buf = NULL, *nb;

	if (!f)
		return NULL;
	for (;;) {
		nb = realloc(buf, cap + 1);
		if (!nb) {
			free(buf);
			fclose(f);
			errno = ENOMEM;
			return NULL;
		}
		buf = nb;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The counters of every CPU of @y into @ks; 0 or -1 (said why). */
static int read_all(const struct rec_yield *y, struct wult_kstats *ks)
{
	char err[128];
	size_t len;
	char *buf = read_stats(&len);
	int i, ret = 0;

	if (!buf)
		return -1;
	for (i = 0; i < y->nr && !ret; i++) {
		ret = wult_kstats_parse(buf, len, y->cpus[i], &ks[i], err, sizeof(err));
		if (ret)
			fprintf(stderr, "wult record: %s: %s\n", STATS_PATH, err);
	}
	free(buf);
	return ret ? -1 : 0;
}

struct rec_yield *rec_yield_new(const int *cpus, int nr)
{
	struct rec_yield *y = calloc(1, sizeof(*y));

	if (!y)
		return NULL;
	y->nr = nr;
	y->cpus = cpus;
	y->base = calloc(nr, sizeof(*y->base));
	if (y->base && !read_all(y, y->base))
		return y;
	if (y->base)
		fprintf(stderr, "wult record: cannot read %s (%s): the LDist floor and "
			"the share of valid datapoints are not checked\n", STATS_PATH,
			strerror(errno));
	rec_yield_free(y);
	return NULL;
}

void rec_yield_free(struct rec_yield *y)
{
	if (!y)
		return;
	free(y->base);
	free(y);
}

static int floor_known(const struct wult_kstats *ks)
{
	return ks->floor_n >= WULT_FLOOR_MIN_N;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Measures the floor of the CPUs that have none: a counting wult event of
 * the default range on each, until every floor is known or CALIB_MAX_MS.
 */
static void calibrate(struct rec_yield *y, const char *source_term)
{
	struct perf_event_attr attr;
	char str[96], err[256];
	int i, t, fds[y->nr];

	snprintf(str, sizeof(str), "wult/datapoints%s/", source_term);
	if (wult_ev_parse(str, NULL, &attr, err, sizeof(err)))
		return;
	attr.sample_period = 0;		/* counting: nothing to read */
	for (i = 0, t = 0; i < y->nr; i++) {
		fds[i] = floor_known(&y->base[i]) ? -1 :
			 syscall(SYS_perf_event_open, &attr, -1, y->cpus[i], -1, 0);
		t += fds[i] >= 0;
	}
	if (!t)
		return;	/* refused: opening the recording's events says why */
	for (t = 0; t < CALIB_MAX_MS; t += 50) {
		sleep_ms(50);
		if (read_all(y, y->base))
			break;
		for (i = 0; i < y->nr && floor_known(&y->base[i]); i++)
			;
		if (i == y->nr)
			break;
	}
	for (i = 0; i < y->nr; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int rec_yield_check_ldist(struct rec_yield *y, unsigned int ldist_min_us,
			  unsigned int ldist_max_us, const char *source_term)
{
	uint64_t min_us;
	int i;

	for (i = 0; i < y->nr; i++)
		if (!floor_known(&y->base[i]) && ldist_max_us < CALIB_BELOW_US)
			break;
	if (i < y->nr) {
		calibrate(y, source_term);
		read_all(y, y->base);
	}
	for (i = 0; i < y->nr; i++) {
		const struct wult_kstats *ks = &y->base[i];

		if (!wult_kstats_ldist_unreachable(ks, ldist_max_us, &min_us))
			continue;
		fprintf(stderr, "wult record: --ldist %u,%u: no datapoint can be valid on "
			"CPU %d: its LDist floor, the shortest time from arming the event to "
			"the CPU's idle entry (%llu of them seen), is %llu ns; the minimum "
			"MAX is %llu us: use e.g. --ldist %llu,%llu\n", ldist_min_us,
			ldist_max_us, y->cpus[i], (unsigned long long)ks->floor_n,
			(unsigned long long)ks->floor_ns, (unsigned long long)min_us,
			(unsigned long long)min_us, (unsigned long long)min_us * 10);
		return 1;
	}
	return 0;
}

/* The sum of every CPU's counters since the start; -1 if unreadable. */
static int ended_since(const struct rec_yield *y, struct wult_kstats *sum)
{
	struct wult_kstats now[y->nr], d;
	int i;

	if (read_all(y, now))
		return -1;
	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < y->nr; i++) {
		wult_kstats_delta(&d, &now[i], &y->base[i]);
		wult_kstats_add(sum, &d);
	}
	return 0;
}

void rec_yield_poll(struct rec_yield *y, int nl)
{
	struct wult_kstats sum;
	char msg[1024];

	if (!y || y->warned || ended_since(y, &sum) ||
	    sum.armed < sum.cancelled + POLL_MIN_ENDED)
		return;
	if (wult_kstats_low_yield(&sum, msg, sizeof(msg))) {
		fprintf(stderr, "%swult record: warning: so far %s\n", nl ? "\n" : "", msg);
		y->warned = 1;
	}
}

void rec_yield_end(struct rec_yield *y)
{
	struct wult_kstats sum;
	char msg[1024];

	if (y && !ended_since(y, &sum) &&
	    wult_kstats_low_yield(&sum, msg, sizeof(msg)))
		fprintf(stderr, "wult record: warning: %s\n", msg);
}
