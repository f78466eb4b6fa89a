// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming statistics: exact to the ns where latencies live, bounded
 * memory everywhere.
 *
 * A latency run produces millions of datapoints whose values fall into a
 * narrow range. Counting each nanosecond value instead of keeping the
 * values makes every percentile exact while memory follows the covered
 * range, not the count. A wide range (SilentTime and LDist reach 50 ms) would
 * make a per-ns histogram large, so values are counted two ways:
 *
 *   exact:  |v| < WULT_STATS_EXACT (2^22 ns, ~4.2 ms): one counter per ns,
 *           in leaves of 1024 ns. A leaf's counters are bytes in one 8 MiB
 *           anonymous mapping (untouched pages cost nothing). Once an
 *           object's values spread over megabytes of counters (SilentTime,
 *           see flush()), the mapping asks for huge pages where the system
 *           allows them: a touched 2 MiB then costs 2 MiB, and spares the
 *           TLB misses of random increments over 4 MiB, 7x faster; a
 *           narrow object (a latency, the governor's whole-us SilentTimes)
 *           keeps 4 KiB pages, so a few KiB of counters do not cost 2 MiB
 *           each. A leaf whose counter would pass 255 moves to an
 *           array of u64 (8 KiB, mapped), so no count wraps.
 *   beyond: |v| >= WULT_STATS_EXACT: the values themselves, up to
 *           WULT_STATS_KEEP of them (latency outliers are few), in 32 bits
 *           (+-2.1 s) in an array sorted when queried (mmap'ed, doubled as
 *           it fills: at most 128 KiB). Every such value is also counted in
 *           log-linear buckets, 2048 per power of two (each 2^-11 of its
 *           octave wide), up to +-2^38 ns (values beyond are clamped and
 *           counted in `clamped`); once an object holds more than
 *           WULT_STATS_KEEP of them (SilentTime, LDist of tens of ms) or
 *           one beyond 32 bits, the array is dropped
 *           and the buckets answer: a bucket stands for its middle, within
 *           2^-12 (0.025%) of every value in it. 512 KiB, calloc'ed,
 *           touched pages only.
 *
 * So percentiles are exact (numpy's linear interpolation between order
 * statistics) unless more than WULT_STATS_KEEP values lie beyond 4.2 ms,
 * and then within 0.025% where the order statistics are beyond; count,
 * min, max, mean and stddev are always exact. Memory
 * per object: at most 8 MiB of byte counters (1 KiB per touched 1024-ns
 * leaf, or 2 MiB per touched huge page), plus 8 KiB per leaf holding a value seen 256 times or more (only
 * the narrow body of a latency distribution), plus the log buckets' pages
 * touched (at most 512 KiB), plus the kept values beyond (at most 128 KiB,
 * freed when they pass the budget).
 *
 * Adding a value of the exact part appends it to a batch; a batch is
 * counted in partition order (see flush()). Once an object has spilled,
 * values beyond are batched too (flush_log()): nothing is allocated for
 * them any more, so no failure is deferred. Count, extremes and moments of
 * the exact part come from the counters when asked for (exactly, in 128-bit
 * integers), not per value; values beyond keep exact sums as they come.
 * Every allocation failure is kept (st->err) and returned by every later
 * query.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <wult/stats.h>
#include "internal/stats.h"

#define BATCH		16384				/* values counted at once */
#define PART_SHIFT	14				/* 16 KiB of counters */
#define NPART		(EXACT_N >> PART_SHIFT)
#define OUT_MIN		1024				/* first array of values beyond */
#define LBATCH		4096				/* values beyond counted at once */

int wult_stats_new(struct wult_stats **out)
{
	struct wult_stats *st = calloc(1, sizeof(*st));

	*out = NULL;
	if (!st)
		return -ENOMEM;
	st->c8 = mmap(NULL, EXACT_N, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (st->c8 == MAP_FAILED)
		st->c8 = NULL;
	st->wide = calloc(NLEAVES, sizeof(*st->wide));
	st->lsum = calloc(NLEAVES, sizeof(*st->lsum));
	st->pos = calloc(NLOG, sizeof(*st->pos));
	st->neg = calloc(NLOG, sizeof(*st->neg));
	st->batch = malloc(BATCH * sizeof(*st->batch));
	st->tmp = malloc(BATCH * sizeof(*st->tmp));
	st->lbatch = malloc(LBATCH * sizeof(*st->lbatch));
	if (!st->c8 || !st->wide || !st->lsum || !st->pos || !st->neg || !st->batch ||
	    !st->tmp || !st->lbatch) {
		wult_stats_free(st);
		return -ENOMEM;
	}
	st->llo = NLEAVES;
	st->mem = sizeof(*st) + NLEAVES * (sizeof(*st->wide) + sizeof(*st->lsum)) +
		  2 * BATCH * sizeof(*st->batch) + LBATCH * sizeof(*st->lbatch);
	*out = st;
	return 0;
}

void wult_stats_free(struct wult_stats *st)
{
	uint32_t i;

	if (!st)
		return;
	if (st->c8)
		munmap(st->c8, EXACT_N);
	for (i = 0; st->wide && i < NLEAVES; i++)
		if (st->wide[i])
			munmap(st->wide[i], LEAF_N * sizeof(*st->wide[i]));
	free(st->wide);
	free(st->lsum);
	free(st->pos);
	free(st->neg);
	free(st->batch);
	free(st->tmp);
	free(st->lbatch);
	if (st->out)
		munmap(st->out, st->ocap * sizeof(*st->out));
	free(st);
}

/* ---- where a value is counted ---- */

/* The log bucket of |v| >= WULT_STATS_EXACT (clamped below 2^38). */
static inline uint32_t log_idx(uint64_t a)
{
	unsigned int e = 63 - __builtin_clzll(a);

	return (e - OCT_LO) * SUB_N + ((a >> (e - SUB_BITS)) & (SUB_N - 1));
}

/* Moves leaf @l's byte counters to u64 ones: a count is about to pass 255. */
static int promote(struct wult_stats *st, uint32_t l)
{
	uint64_t *w = mmap(NULL, LEAF_N * sizeof(*w), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *c = st->c8 + ((size_t)l << LEAF_BITS);
	unsigned int i;

	if (w == MAP_FAILED)
		return st->err = -ENOMEM;
	for (i = 0; i < LEAF_N; i++)
		w[i] = c[i];
	st->wide[l] = w;
	st->mem += LEAF_N * sizeof(*w);
	/* The bytes stay mapped but are never touched again. */
	return 0;
}

/* Leaf @l gets its first count. */
static inline void leaf_used(struct wult_stats *st, uint32_t l)
{
	st->mem += LEAF_N;
	if (l < st->llo)
		st->llo = l;
	if (l > st->lhi)
		st->lhi = l;
}

/* Counts @cnt times the value at index @i of the exact part. */
static int count_exact(struct wult_stats *st, uint64_t i, uint64_t cnt)
{
	uint32_t l = i >> LEAF_BITS;

	if (!st->wide[l] && st->c8[i] + cnt > 0xff && promote(st, l))
		return -ENOMEM;
	if (!st->lsum[l])
		leaf_used(st, l);
	st->lsum[l] += cnt;
	if (st->wide[l])
		st->wide[l][i & (LEAF_N - 1)] += cnt;
	else
		st->c8[i] += cnt;
	return 0;
}

/* Past the budget the buckets alone answer: the kept values go. */
static void spill(struct wult_stats *st)
{
	if (st->out) {
		munmap(st->out, st->ocap * sizeof(*st->out));
		st->mem -= st->ocap * sizeof(*st->out);
	}
	st->out = NULL;
	st->ocap = 0;
	st->spilled = 1;
}

/*
 * Room for @cnt more values beyond: 1, 0 when they pass the budget (the
 * object has spilled), or -ENOMEM. The array doubles in fresh mappings
 * (freed at once when spilled, never left in the heap).
 */
static int out_room(struct wult_stats *st, uint64_t cnt)
{
	uint64_t need = st->nlog + cnt, cap = st->ocap ? st->ocap : OUT_MIN;
	int32_t *o;

	if (st->spilled)
		return 0;
	if (need > WULT_STATS_KEEP) {
		spill(st);
		return 0;
	}
	if (need <= st->ocap)
		return 1;
	while (cap < need)
		cap *= 2;
	o = mmap(NULL, cap * sizeof(*o), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (o == MAP_FAILED)
		return st->err = -ENOMEM;
	if (st->out) {
		memcpy(o, st->out, st->nlog * sizeof(*o));
		munmap(st->out, st->ocap * sizeof(*st->out));
	}
	st->mem += (cap - st->ocap) * sizeof(*o);
	st->out = o;
	st->ocap = cap;
	return 1;
}

/* The slow path: a value beyond the exact part, @cnt times. 0 or -ENOMEM. */
static int count_log(struct wult_stats *st, int64_t v, uint64_t cnt)
{
	int64_t hv = v > WULT_STATS_MAX ? WULT_STATS_MAX : v < WULT_STATS_MIN ? WULT_STATS_MIN : v;
	int room = 0;
	uint64_t i;

	if (v > INT32_MAX || v < INT32_MIN)	/* no latency: kept in 32 bits */
		spill(st);
	else
		room = out_room(st, cnt);

	if (room < 0)
		return room;
	for (i = 0; room && i < cnt; i++)
		st->out[st->nlog + i] = (int32_t)v;
	st->osorted = 0;
	if (hv != v)
		st->clamped += cnt;
	if (!st->nlog || v < st->lmin)
		st->lmin = v;
	if (!st->nlog || v > st->lmax)
		st->lmax = v;
	st->nlog += cnt;
	st->ls1 += (__int128)v * cnt;
	st->ls2 += (unsigned __int128)((__int128)v * v) * cnt;
	if (hv > 0)
		st->pos[log_idx(hv)] += cnt;
	else
		st->neg[log_idx(-(uint64_t)hv)] += cnt;
	return 0;
}

/*
 * Counts the batch of values beyond, which only an object that has spilled
 * (SilentTime and LDist of tens of ms: most of their values) has: each is
 * a bucket increment and exact sums, without count_log()'s checks.
 */
static int flush_log(struct wult_stats *st)
{
	const int64_t *b = st->lbatch;
	unsigned int i, n = st->nlbatch;
	int64_t v, hv, mn, mx;
	__int128 s1 = 0;
	unsigned __int128 s2 = 0;
	uint64_t clamped = 0;

	mn = st->nlog ? st->lmin : INT64_MAX;
	mx = st->nlog ? st->lmax : INT64_MIN;
	st->nlog += n;
	st->nlbatch = 0;
	for (i = 0; i < n; i++) {
		v = b[i];
		hv = v > WULT_STATS_MAX ? WULT_STATS_MAX : v < WULT_STATS_MIN ? WULT_STATS_MIN : v;
		clamped += hv != v;
		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
		s1 += v;
		s2 += (unsigned __int128)((__int128)v * v);
		if (hv > 0)
			st->pos[log_idx(hv)]++;
		else
			st->neg[log_idx(-(uint64_t)hv)]++;
	}
	st->lmin = mn;
	st->lmax = mx;
	st->ls1 += s1;
	st->ls2 += s2;
	st->clamped += clamped;
	return st->err;
}

/*
 * One count at index @i. @c8, @wide, @lsum: @st's arrays, passed by the
 * caller's loop: every byte counter's increment may alias @st (a char
 * store), so read from it they were loaded again for each value.
 */
static inline void count_one(struct wult_stats *st, uint8_t *c8, uint64_t *const *wide,
			     uint64_t *lsum, uint32_t i)
{
	uint32_t l = i >> LEAF_BITS;

	if (wide[l]) {
		wide[l][i & (LEAF_N - 1)]++;
	} else if (c8[i] == 0xff) {
		count_exact(st, i, 1);	/* a failure stays in st->err */
		return;
	} else {
		if (!lsum[l])
			leaf_used(st, l);
		c8[i]++;
	}
	lsum[l]++;
}

/*
 * Whether the batch may span more than eight partitions, from every 8th
 * value: the range was kept per wult_stats_add() before (two compares and
 * stores per value, 8 of its instructions), and a full pass here cost
 * 3-5. It only chooses how to count, never what: a spread batch missed
 * here is counted as it comes, a narrow one taken for spread is found
 * dense by flush()'s tally.
 */
static int batch_spread(const uint32_t *b, unsigned int n)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	unsigned int i;

	for (i = 0; i < n; i += 8) {
		lo = b[i] < lo ? b[i] : lo;
		hi = b[i] > hi ? b[i] : hi;
	}
	return n && (hi >> PART_SHIFT) - (lo >> PART_SHIFT) > 8;
}

/*
 * Counts the batch. Spread over megabytes of counters (SilentTime), the
 * increments would miss the caches and the TLB on nearly every value: a
 * batch spanning more than eight 16 KiB partitions, unless at most eight
 * hold 15/16 of it, is first put in partition order (one counting pass,
 * one scatter), so they walk memory in order, and the counters are fetched
 * ahead.
 */
static int __attribute__((noinline)) flush(struct wult_stats *st)
{
	uint32_t cnt[NPART + 1], c4[4][NPART + 1], *b = st->batch, dense = 0, ndense = 0;
	uint8_t *c8 = st->c8;
	uint64_t *const *wide = st->wide, *lsum = st->lsum;
	unsigned int i, n = st->nbatch;
	int spread = batch_spread(b, n);

	if (spread) {
		/*
		 * Four tallies, summed after: a wake latency's batch lands in
		 * one partition, and one tally's increments would each wait
		 * for the previous store (a third of this function's time).
		 */
		memset(c4, 0, sizeof(c4));
		for (i = 0; i + 4 <= n; i += 4) {
			c4[0][(b[i] >> PART_SHIFT) + 1]++;
			c4[1][(b[i + 1] >> PART_SHIFT) + 1]++;
			c4[2][(b[i + 2] >> PART_SHIFT) + 1]++;
			c4[3][(b[i + 3] >> PART_SHIFT) + 1]++;
		}
		for (; i < n; i++)
			c4[0][(b[i] >> PART_SHIFT) + 1]++;
		for (i = 0; i <= NPART; i++)
			cnt[i] = c4[0][i] + c4[1][i] + c4[2][i] + c4[3][i];
		for (i = 1; i <= NPART; i++) {
			if (cnt[i] > n / 32) {
				dense += cnt[i];
				ndense++;
			}
			cnt[i] += cnt[i - 1];
		}
		/*
		 * A narrow body with a few outliers (a wake latency: microseconds
		 * and a tail to hundreds of them) stays in the caches: counted as
		 * it comes, the scatter would cost more than it saves.
		 */
		spread = ndense > 8 || dense < n - n / 16;
	}
	if (spread) {
		/*
		 * Random increments over megabytes: TLB misses cost the most.
		 * Asked before the first such batch is counted, so its pages
		 * come huge (a range already touched would stay in 4 KiB).
		 */
		if (!st->huge) {
			madvise(st->c8, EXACT_N, MADV_HUGEPAGE);
			st->huge = 1;
		}
		for (i = 0; i < n; i++)
			st->tmp[cnt[b[i] >> PART_SHIFT]++] = b[i];
		b = st->tmp;
	}
	if (b == st->tmp) {
		/* Spread: the counters miss the caches, fetch ahead. */
		for (i = 0; i < n; i++) {
			if (i + 16 < n)
				__builtin_prefetch(&c8[b[i + 16]], 1);
			count_one(st, c8, wide, lsum, b[i]);
		}
	} else {
		for (i = 0; i < n; i++)
			count_one(st, c8, wide, lsum, b[i]);
	}
	st->nbatch = 0;
	return st->err;
}

static int cmp32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* The kept values beyond in order, and how many are negative. */
static void sort_out(struct wult_stats *st)
{
	uint32_t i;

	qsort(st->out, st->nlog, sizeof(*st->out), cmp32);
	for (i = 0; i < st->nlog && st->out[i] < 0; i++)
		;
	st->oneg = i;
	st->osorted = 1;
}

/* Queries see every value: count the batch and sort the kept values
 * first (the struct is logically const). 0, or the allocation failure that
 * left values uncounted.
 */
int stats_sync(const struct wult_stats *st)
{
	struct wult_stats *w = (struct wult_stats *)st;
	int ret = st->nlbatch ? flush_log(w) : 0;

	if (st->out && !st->osorted)
		sort_out(w);
	return ret ?: st->nbatch ? flush(w) : st->err;
}

/* wult_stats_add() of a value beyond the exact part. */
static int __attribute__((noinline)) add_beyond(struct wult_stats *st, int64_t val)
{
	if (!st->spilled) {
		int ret = count_log(st, val, 1);

		st->n += !ret;
		return ret;
	}
	/* Spilled: nothing to allocate, no failure to report here. */
	st->n++;
	st->lbatch[st->nlbatch++] = val;
	return st->nlbatch == LBATCH ? flush_log(st) : st->err;
}

/*
 * The hot path: a value of the exact part joins the batch; count, extremes
 * and moments of the exact part come from the counters when asked for, not
 * per value.
 */
int wult_stats_add(struct wult_stats *st, int64_t val)
{
	uint64_t i = (uint64_t)val + WULT_STATS_EXACT;

	if (i >= EXACT_N)
		return add_beyond(st, val);
	st->n++;
	st->batch[st->nbatch++] = i;
	return st->nbatch == BATCH ? flush(st) : 0;
}

int wult_stats_add_n(struct wult_stats *st, int64_t val, uint64_t cnt)
{
	uint64_t i = (uint64_t)val + WULT_STATS_EXACT;
	int ret = stats_sync(st);

	if (ret || !cnt)
		return ret;
	if (cnt > WULT_STATS_MAX_COUNT - st->n)
		return -EOVERFLOW;
	ret = i >= EXACT_N ? count_log(st, val, cnt) : count_exact(st, i, cnt);
	if (ret)
		return ret;
	st->n += cnt;
	return 0;
}

/* @src's values beyond join @dst's kept ones, or @dst spills. */
static int merge_out(struct wult_stats *dst, const struct wult_stats *src)
{
	int room;

	if (src->spilled) {
		spill(dst);
		return 0;
	}
	if (!src->nlog)
		return 0;
	room = out_room(dst, src->nlog);
	if (room > 0) {
		memcpy(dst->out + dst->nlog, src->out, src->nlog * sizeof(*src->out));
		dst->osorted = 0;
	}
	return room < 0 ? room : 0;
}

/*
 * Byte leaves add 16 counters at a time, in GCC's generic vectors (SSE2 on
 * x86-64, whatever the target has elsewhere): a byte at a time, the adds
 * were 5 instructions a counter and most of `wult report`'s work after its
 * pass (SilentTime's three states into "all": 71M of 93M instructions in
 * the merges on 1M datapoints, callgrind). Wrapping sums, so a sum that
 * passes 255 shows as smaller than the counter it was added to.
 */
typedef uint8_t u8x16 __attribute__((vector_size(16)));

/* Adds leaf @sc to @dc as bytes: 0, or -1 (@dc as it was) when a sum would
 * pass 255. */
static int merge_bytes(uint8_t *dc, const uint8_t *sc)
{
	u8x16 a, b, s, over = { 0 };
	unsigned int i;

	for (i = 0; i < LEAF_N; i += sizeof(a)) {
		memcpy(&a, dc + i, sizeof(a));
		memcpy(&b, sc + i, sizeof(b));
		s = a + b;
		over |= (u8x16)(s < a);
	}
	for (i = 0; i < sizeof(over); i++)
		if (over[i])
			return -1;
	for (i = 0; i < LEAF_N; i += sizeof(a)) {
		memcpy(&a, dc + i, sizeof(a));
		memcpy(&b, sc + i, sizeof(b));
		a += b;
		memcpy(dc + i, &a, sizeof(a));
	}
	return 0;
}

/*
 * Adds @src's leaf @l to @dst's, a leaf at a time (count_exact() per
 * counter was most of a merge): byte leaves add as bytes when no sum
 * passes 255, else @dst's leaf becomes u64 counters first.
 */
static int merge_leaf(struct wult_stats *dst, const struct wult_stats *src, uint32_t l)
{
	const uint8_t *sc = src->c8 + ((size_t)l << LEAF_BITS);
	uint8_t *dc = dst->c8 + ((size_t)l << LEAF_BITS);
	unsigned int i;
	uint64_t *dw;

	if (!dst->wide[l] && !src->wide[l] && !merge_bytes(dc, sc))
		goto done;
	if (!dst->wide[l] && promote(dst, l))
		return -ENOMEM;
	dw = dst->wide[l];
	for (i = 0; i < LEAF_N; i++)
		dw[i] += leaf_count(src, l, i);
done:
	if (!dst->lsum[l])
		leaf_used(dst, l);
	dst->lsum[l] += src->lsum[l];
	return 0;
}

/* Adds @src's counters, log-part sums and kept values to @dst's: exact
 * whatever they hold, as no value is re-derived from a bucket.
 */
int wult_stats_merge(struct wult_stats *dst, const struct wult_stats *src)
{
	uint32_t l, i;
	int ret;

	ret = stats_sync(dst) ?: stats_sync(src);
	if (ret)
		return ret;
	if (src->n > WULT_STATS_MAX_COUNT - dst->n)
		return -EOVERFLOW;
	ret = merge_out(dst, src);
	if (ret)
		return ret;
	for (l = src->llo; l <= src->lhi; l++)
		if (src->lsum[l] && (ret = merge_leaf(dst, src, l)))
			return ret;
	/* Buckets count values beyond only: none without one (and adding
	 * zeros would fault in 512 KiB of @dst's).
	 */
	for (i = 0; src->nlog && i < NLOG; i++) {
		dst->pos[i] += src->pos[i];
		dst->neg[i] += src->neg[i];
	}
	if (src->nlog && (!dst->nlog || src->lmin < dst->lmin))
		dst->lmin = src->lmin;
	if (src->nlog && (!dst->nlog || src->lmax > dst->lmax))
		dst->lmax = src->lmax;
	dst->nlog += src->nlog;
	dst->ls1 += src->ls1;
	dst->ls2 += src->ls2;
	dst->clamped += src->clamped;
	dst->n += src->n;
	return 0;
}

uint64_t wult_stats_count(const struct wult_stats *st)
{
	return st->n;
}

const char *wult_stats_error(const struct wult_stats *st)
{
	switch (st->err) {
	case 0:
		return "";
	case -ENOMEM:
		return "out of memory: values were left out of the statistics";
	case -EOVERFLOW:
		return "more values than the statistics count (2^62)";
	default:
		return "statistics failed";
	}
}

size_t wult_stats_mem(const struct wult_stats *st)
{
	return st->mem;
}
