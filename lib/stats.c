// SPDX-License-Identifier: GPL-2.0
/*
 * Exact streaming statistics.
 *
 * A latency run produces millions of datapoints, but their values fall into
 * a narrow range (a few microseconds to a few milliseconds). Counting each
 * nanosecond value in a histogram instead of keeping the values makes every
 * percentile exact while memory follows the covered range, not the count.
 *
 * Layout: a value v is biased to u = v - WULT_STATS_MIN (39 bits) and split
 * into top (19 bits) / mid (10 bits) / leaf (10 bits) indexes:
 *   top:  2^19 mid pointers, 4 MiB, allocated with the object (calloc, so
 *         untouched parts stay zero pages and cost no RSS);
 *   mid:  one per touched 2^20 ns (~1.05 ms) range: 1024 per-leaf totals
 *         (8 KiB) and a 4 MiB anonymous mapping of u32 counts, of which
 *         only the touched pages are ever backed;
 *   leaf: one 4 KiB page of that mapping per touched 1024 ns range.
 * Memory bound: 4 MiB + 8 KiB * min(n, R / 2^20) + 4 KiB * min(n, R / 2^10)
 * for n values spread over a range of R ns; e.g. values over 0..4 ms take at
 * most ~4 MiB + 40 KiB + 16 MiB whatever n is, plus the batch: 32 KiB, or
 * 1 MiB for values spread over more than a millisecond.
 * Counts are 64-bit: each is a u32 in the mapping plus, for the rare
 * value seen 2^32 times or more, a high word in a second mapping made when
 * the first count carries (see count_carry()).
 *
 * Every allocation failure is kept (st->err): from then on every query
 * returns it, as the histogram lacks values.
 *
 * Values are batched and a wide batch is radix-sorted before it is counted,
 * so the increments walk memory in order (see flush()). Queries flush the
 * batch first.
 *
 * Percentiles walk the totals (top to mid to leaf), so a query costs
 * O(2^19 + 2^10 + 2^10) steps regardless of n.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <wult/stats.h>

#define LEAF_BITS	10
#define MID_BITS	10
#define TOP_BITS	19
#define LEAF_N		(1U << LEAF_BITS)
#define MID_N		(1U << MID_BITS)
#define TOP_N		(1U << TOP_BITS)
#define MID_SPAN	((size_t)LEAF_N * MID_N)	/* values one mid covers */
#define BATCH_MIN	4096
#define BATCH_MAX	65536
/* A batch spanning less than this many ns is applied unsorted: its counts
 * stay in the caches anyway. A wider one grows the batch to BATCH_MAX (then
 * several values share each page) and is sorted.
 */
#define SORT_SPAN	(1U << 20)

struct mid {
	uint64_t total;
	uint64_t sum[MID_N];	/* total count of each leaf */
	uint32_t *counts;	/* MID_SPAN counts, mmap'ed: leaves are its pages */
	uint32_t *hi;		/* their high words, NULL until one carries */
	uint8_t leaf_hi[MID_N];	/* the leaf has a non-zero high word */
};

struct wult_stats {
	uint64_t n, clamped;
	int64_t min, max;
	int64_t shift;		/* first value: sums are of v - shift */
	__int128 s1;		/* sum of (v - shift), exact */
	unsigned __int128 s2;	/* sum of (v - shift)^2, exact below 2^62 */
	size_t mem;
	int err;		/* a flush failed: the histogram lacks values */
	struct mid **top;
	uint32_t ti_lo, ti_end;	/* the mids in use are in [ti_lo, ti_end) */
	/* Values not yet in the histogram (biased), and sort scratch. */
	unsigned int nbuf, cap;
	unsigned int nexact;	/* buf[0..nexact) are biased and in the moments */
	uint64_t blo, bhi;	/* their extremes */
	uint64_t *buf, *tmp;
};

struct wult_stats *wult_stats_new(void)
{
	struct wult_stats *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->top = calloc(TOP_N, sizeof(*st->top));
	if (!st->top) {
		free(st);
		return NULL;
	}
	st->cap = BATCH_MIN;
	st->buf = malloc(st->cap * sizeof(*st->buf));
	if (!st->buf) {
		free(st->top);
		free(st);
		return NULL;
	}
	st->mem = sizeof(*st) + TOP_N * sizeof(*st->top) + st->cap * sizeof(*st->buf);
	st->ti_lo = TOP_N;
	return st;
}

void wult_stats_free(struct wult_stats *st)
{
	uint32_t i;

	if (!st)
		return;
	for (i = st->ti_lo; i < st->ti_end; i++) {
		struct mid *m = st->top[i];

		if (!m)
			continue;
		munmap(m->counts, MID_SPAN * sizeof(uint32_t));
		if (m->hi)
			munmap(m->hi, MID_SPAN * sizeof(uint32_t));
		free(m);
	}
	free(st->top);
	free(st->buf);
	free(st->tmp);
	free(st);
}

static uint32_t *map_counts(void)
{
	/* Untouched pages of the mapping cost no memory: a leaf's page is
	 * backed when its first value is counted.
	 */
	void *p = mmap(NULL, MID_SPAN * sizeof(uint32_t), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static struct mid *get_mid(struct wult_stats *st, uint32_t ti)
{
	struct mid *m = st->top[ti];

	if (m)
		return m;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->counts = map_counts();
	if (!m->counts) {
		free(m);
		return NULL;
	}
	st->top[ti] = m;
	st->mem += sizeof(*m);
	if (ti < st->ti_lo)
		st->ti_lo = ti;
	if (ti + 1 > st->ti_end)
		st->ti_end = ti + 1;
	return m;
}

/* Adds @carry to the high word of count @i (its low word wrapped). */
static int count_carry(struct wult_stats *st, struct mid *m, size_t i, uint64_t carry)
{
	if (!m->hi) {
		m->hi = map_counts();
		if (!m->hi)
			return -ENOMEM;
	}
	if (!m->leaf_hi[i / LEAF_N])
		st->mem += LEAF_N * sizeof(uint32_t);
	m->leaf_hi[i / LEAF_N] = 1;
	m->hi[i] += (uint32_t)carry;
	return 0;
}

static inline uint64_t count_at(const struct mid *m, size_t i)
{
	uint64_t c = m->counts[i];

	return m->leaf_hi[i / LEAF_N] ? c | (uint64_t)m->hi[i] << 32 : c;
}

static int hist_add(struct wult_stats *st, uint64_t u, uint64_t cnt)
{
	uint32_t ti = u >> (LEAF_BITS + MID_BITS);
	uint32_t mi = (u >> LEAF_BITS) & (MID_N - 1);
	size_t i = u & (MID_SPAN - 1);
	struct mid *m = get_mid(st, ti);
	uint64_t lo;
	int ret;

	if (!m)
		return -ENOMEM;
	lo = (uint64_t)m->counts[i] + (uint32_t)cnt;
	if ((lo >> 32) + (cnt >> 32)) {
		ret = count_carry(st, m, i, (lo >> 32) + (cnt >> 32));
		if (ret)
			return ret;
	}
	if (!m->sum[mi])
		st->mem += LEAF_N * sizeof(uint32_t);
	m->counts[i] = (uint32_t)lo;
	m->sum[mi] += cnt;
	m->total += cnt;
	return 0;
}

/* LSD radix sort of @n values below 2^@bits, 8 bits a pass. */
static void radix_sort(uint64_t *a, uint64_t *tmp, unsigned int n, unsigned int bits)
{
	unsigned int shift, i;

	for (shift = 0; shift < bits; shift += 8) {
		unsigned int cnt[257] = { 0 };

		for (i = 0; i < n; i++)
			cnt[((a[i] >> shift) & 0xff) + 1]++;
		for (i = 1; i < 257; i++)
			cnt[i] += cnt[i - 1];
		for (i = 0; i < n; i++)
			tmp[cnt[(a[i] >> shift) & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
}

/*
 * Moves the batch into the histogram. Random increments over a wide range
 * (SilentTime spans milliseconds: megabytes of counts) miss the caches and
 * the TLB on nearly every value; sorted, they walk memory in order.
 */
static void add_exact(struct wult_stats *st, int64_t v, uint64_t cnt);
static uint64_t bias(struct wult_stats *st, int64_t v, uint64_t cnt);

/*
 * The exact moments of the raw values buf[from..n), which are then biased
 * in place; widens [*lop, *hip] to the biased values' extremes.
 */
static void batch_exact(struct wult_stats *st, unsigned int from, unsigned int n,
			uint64_t *lop, uint64_t *hip)
{
	uint64_t lo = *lop, hi = *hip;
	int64_t mn, mx, bmn = INT64_MAX, bmx = INT64_MIN, sh;
	__int128 s1 = 0;
	unsigned __int128 s2 = 0;
	unsigned int i;

	if (from >= n)
		return;
	if (!st->n)
		st->min = st->max = st->shift = (int64_t)st->buf[from];
	mn = st->min;
	mx = st->max;
	sh = st->shift;
	for (i = from; i < n; i++) {
		int64_t v = (int64_t)st->buf[i], d;

		/* Differences of in-range values fit 64 bits; others take the
		 * slow exact path.
		 */
		if (v > WULT_STATS_MAX || v < WULT_STATS_MIN || sh > WULT_STATS_MAX ||
		    sh < WULT_STATS_MIN) {
			st->s1 += s1;
			st->s2 += s2;
			s1 = s2 = 0;
			st->min = mn;
			st->max = mx;
			add_exact(st, v, 1);
			mn = st->min;
			mx = st->max;
			st->buf[i] = bias(st, v, 1);
			if (st->buf[i] < lo)
				lo = st->buf[i];
			if (st->buf[i] > hi)
				hi = st->buf[i];
			continue;
		}
		bmn = v < bmn ? v : bmn;
		bmx = v > bmx ? v : bmx;
		d = v - sh;
		s1 += d;
		s2 += (unsigned __int128)((__int128)d * d);
		st->buf[i] = (uint64_t)v - (uint64_t)WULT_STATS_MIN;
		st->n++;
	}
	if (bmn <= bmx) {
		/* Biasing is monotonic: the extremes give the batch's span. */
		mn = bmn < mn ? bmn : mn;
		mx = bmx > mx ? bmx : mx;
		if ((uint64_t)bmn - (uint64_t)WULT_STATS_MIN < lo)
			lo = (uint64_t)bmn - (uint64_t)WULT_STATS_MIN;
		if ((uint64_t)bmx - (uint64_t)WULT_STATS_MIN > hi)
			hi = (uint64_t)bmx - (uint64_t)WULT_STATS_MIN;
	}
	*lop = lo;
	*hip = hi;
	st->min = mn;
	st->max = mx;
	st->s1 += s1;
	st->s2 += s2;
}

/* A wide batch: a bigger one, sorted in @tmp. -ENOMEM is kept (st->err). */
static int grow_batch(struct wult_stats *st)
{
	uint64_t *nb = realloc(st->buf, BATCH_MAX * sizeof(*nb));

	if (!nb)
		return st->err = -ENOMEM;
	st->buf = nb;
	st->tmp = malloc(BATCH_MAX * sizeof(*st->tmp));
	if (!st->tmp)
		return st->err = -ENOMEM;
	st->mem += (2 * BATCH_MAX - st->cap) * sizeof(*nb);
	st->cap = BATCH_MAX;
	return 0;
}

static int flush(struct wult_stats *st, int all)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned int i, n = st->nbuf, bits;
	struct mid *m = NULL;
	uint32_t mti = UINT32_MAX;
	int ret = 0;

	if (n == st->nexact)
		return st->err;
	if (st->nexact) {
		/* A grown batch: its first part is biased already. */
		lo = st->blo;
		hi = st->bhi;
	}
	batch_exact(st, st->nexact, n, &lo, &hi);
	st->nexact = n;
	st->blo = lo;
	st->bhi = hi;
	if (hi - lo >= SORT_SPAN && st->cap < BATCH_MAX && !st->err) {
		ret = grow_batch(st);
		if (!ret && !all)
			return 0;	/* fill the bigger batch */
	}
	if (hi - lo >= SORT_SPAN && st->tmp) {
		for (i = 0; i < n; i++)
			st->buf[i] -= lo;
		bits = 64 - __builtin_clzll(hi - lo);
		radix_sort(st->buf, st->tmp, n, bits);
		for (i = 0; i < n; i++)
			st->buf[i] += lo;
	}
	for (i = 0; i < n; i++) {
		uint64_t u = st->buf[i];
		uint32_t ti = u >> (LEAF_BITS + MID_BITS), mi;

		if (ti != mti) {
			m = get_mid(st, ti);
			mti = ti;
			if (!m) {
				ret = -ENOMEM;
				mti = UINT32_MAX;
				continue;
			}
		}
		mi = (u >> LEAF_BITS) & (MID_N - 1);
		if (!m->sum[mi])
			st->mem += LEAF_N * sizeof(uint32_t);
		if (!++m->counts[u & (MID_SPAN - 1)] &&
		    count_carry(st, m, u & (MID_SPAN - 1), 1)) {
			m->counts[u & (MID_SPAN - 1)]--;	/* keep the 2^32 - 1 */
			ret = -ENOMEM;
			continue;
		}
		m->sum[mi]++;
		m->total++;
	}
	st->nbuf = st->nexact = 0;
	if (ret && !st->err)
		st->err = ret;
	return st->err;
}

/* Queries see every value: flush first (the struct is logically const).
 * 0, or the allocation failure that left values out of the histogram.
 */
static int sync_hist(const struct wult_stats *st)
{
	return flush((struct wult_stats *)st, 1);
}

static void add_exact(struct wult_stats *st, int64_t v, uint64_t cnt)
{
	__int128 d;

	if (!st->n) {
		st->min = st->max = st->shift = v;
	} else {
		if (v < st->min)
			st->min = v;
		if (v > st->max)
			st->max = v;
	}
	st->n += cnt;
	d = (__int128)v - st->shift;
	st->s1 += d * cnt;
	st->s2 += (unsigned __int128)(d * d) * cnt;
}

static uint64_t bias(struct wult_stats *st, int64_t v, uint64_t cnt)
{
	int64_t hv = v;

	if (hv > WULT_STATS_MAX)
		hv = WULT_STATS_MAX;
	else if (hv < WULT_STATS_MIN)
		hv = WULT_STATS_MIN;
	if (hv != v)
		st->clamped += cnt;
	return (uint64_t)hv - (uint64_t)WULT_STATS_MIN;
}

int wult_stats_add(struct wult_stats *st, int64_t val)
{
	/* Raw now; moments, clamping and counting happen per batch. One at
	 * a time, n cannot reach WULT_STATS_MAX_COUNT in any real run (2^62
	 * values at 10^9 a second take 146 years).
	 */
	st->buf[st->nbuf++] = (uint64_t)val;
	if (st->nbuf == st->cap)
		return flush(st, 0);
	return 0;
}

int wult_stats_add_n(struct wult_stats *st, int64_t val, uint64_t cnt)
{
	int ret = flush(st, 1);
	uint64_t u;

	if (ret || !cnt)
		return ret;
	if (cnt > WULT_STATS_MAX_COUNT - st->n)
		return -EOVERFLOW;
	u = bias(st, val, 0);
	ret = hist_add(st, u, cnt);
	if (ret)
		return st->err = ret;
	if (u != (uint64_t)val - (uint64_t)WULT_STATS_MIN)
		st->clamped += cnt;
	add_exact(st, val, cnt);
	return 0;
}

static int merge_one(int64_t val, uint64_t cnt, void *ctx)
{
	return wult_stats_add_n(ctx, val, cnt);
}

int wult_stats_merge(struct wult_stats *dst, const struct wult_stats *src)
{
	int64_t smin, smax;
	int ret;

	/* The histogram holds clamped values: restore the exact extremes. */
	ret = sync_hist(src);
	smin = src->min;
	smax = src->max;
	ret = ret ?: flush(dst, 1);
	if (!ret && src->n > WULT_STATS_MAX_COUNT - dst->n)
		ret = -EOVERFLOW;
	ret = ret ?: wult_stats_foreach(src, merge_one, dst);
	if (ret || !src->n)
		return ret;
	if (smin < dst->min)
		dst->min = smin;
	if (smax > dst->max)
		dst->max = smax;
	return 0;
}

int wult_stats_error(const struct wult_stats *st)
{
	return st->err;
}

uint64_t wult_stats_count(const struct wult_stats *st)
{
	return st->n + st->nbuf - st->nexact;
}

size_t wult_stats_mem(const struct wult_stats *st)
{
	return st->mem;
}

/* The value of 0-based rank @k (k < n) in sorted order. */
static int64_t at_rank(const struct wult_stats *st, uint64_t k)
{
	uint32_t ti, mi, li;

	for (ti = st->ti_lo; ti < st->ti_end; ti++) {
		const struct mid *m = st->top[ti];

		if (!m)
			continue;
		if (k >= m->total) {
			k -= m->total;
			continue;
		}
		for (mi = 0; mi < MID_N; mi++) {
			if (k >= m->sum[mi]) {
				k -= m->sum[mi];
				continue;
			}
			for (li = 0; li < LEAF_N; li++) {
				uint64_t c = count_at(m, (size_t)mi * LEAF_N + li);

				if (k < c) {
					uint64_t u = ((uint64_t)ti << (LEAF_BITS + MID_BITS)) |
						     ((uint64_t)mi << LEAF_BITS) | li;

					return (int64_t)(u + (uint64_t)WULT_STATS_MIN);
				}
				k -= c;
			}
		}
	}
	return st->max;	/* not reached while the totals are consistent */
}

double wult_stats_percentile(const struct wult_stats *st, double pct)
{
	double h, frac;
	uint64_t lo;
	int64_t a, b;

	if (sync_hist(st) || !st->n || isnan(pct))
		return NAN;
	if (pct < 0)
		pct = 0;
	if (pct > 100)
		pct = 100;
	/* numpy's default ('linear'): position (n - 1) * p between ranks. */
	h = (double)(st->n - 1) * pct / 100.0;
	lo = (uint64_t)h;
	if (lo >= st->n - 1)
		return (double)at_rank(st, st->n - 1);
	frac = h - (double)lo;
	a = at_rank(st, lo);
	if (frac == 0)
		return (double)a;
	b = at_rank(st, lo + 1);
	return (double)a + frac * (double)(b - a);
}

int wult_stats_summary(const struct wult_stats *st, struct wult_stats_summary *sum)
{
	long double n, s1, s2, var;
	int ret = sync_hist(st);

	n = st->n;
	s1 = st->s1;
	s2 = st->s2;
	memset(sum, 0, sizeof(*sum));
	sum->count = st->n;
	sum->clamped = st->clamped;
	if (st->n) {
		sum->min = st->min;
		sum->max = st->max;
	}
	if (!st->n || ret) {
		sum->mean = sum->stddev = NAN;
		sum->median = sum->p90 = sum->p99 = NAN;
		sum->p99_9 = sum->p99_99 = sum->p99_999 = NAN;
		return ret;
	}
	sum->mean = (double)(st->shift + s1 / n);
	if (st->n > 1) {
		var = (s2 - s1 * s1 / n) / (n - 1);
		sum->stddev = var > 0 ? (double)sqrtl(var) : 0;
	}
	sum->median = wult_stats_percentile(st, 50);
	sum->p90 = wult_stats_percentile(st, 90);
	sum->p99 = wult_stats_percentile(st, 99);
	sum->p99_9 = wult_stats_percentile(st, 99.9);
	sum->p99_99 = wult_stats_percentile(st, 99.99);
	sum->p99_999 = wult_stats_percentile(st, 99.999);
	return 0;
}

int wult_stats_foreach(const struct wult_stats *st,
		       int (*fn)(int64_t val, uint64_t cnt, void *ctx), void *ctx)
{
	uint32_t ti, mi, li;
	int ret = sync_hist(st);

	if (ret)
		return ret;
	for (ti = st->ti_lo; ti < st->ti_end; ti++) {
		const struct mid *m = st->top[ti];

		if (!m)
			continue;
		for (mi = 0; mi < MID_N; mi++) {
			if (!m->sum[mi])
				continue;
			for (li = 0; li < LEAF_N; li++) {
				uint64_t u, c = count_at(m, (size_t)mi * LEAF_N + li);

				if (!c)
					continue;
				u = ((uint64_t)ti << (LEAF_BITS + MID_BITS)) |
				    ((uint64_t)mi << LEAF_BITS) | li;
				ret = fn((int64_t)(u + (uint64_t)WULT_STATS_MIN), c, ctx);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}
