// SPDX-License-Identifier: GPL-2.0
/*
 * Branch contexts: payload decoding and a tally of distinct contexts.
 *
 * The tally keeps each distinct context once (open addressing on a hash of
 * its addresses), so memory follows how varied the wakes' branch paths are,
 * bounded by max_ctx, never the number of datapoints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <wult/br.h>

int wult_br_decode(const void *raw, size_t size, struct wult_branches *out)
{
	if (!raw || size < WULT_DP_HDR_SIZE + sizeof(*out))
		return -EINVAL;
	memcpy(out, (const uint8_t *)raw + WULT_DP_HDR_SIZE, sizeof(*out));
	if (out->nr > WULT_BR_MAX)
		return -EINVAL;
	return 0;
}

struct ctx {
	uint64_t count;
	unsigned int first;	/* order of first appearance */
	unsigned int nr;
	uint64_t addr[];	/* depth from, then depth to */
};

struct wult_br_tally {
	unsigned int depth, max_ctx;
	uint64_t total, empty, other;
	struct ctx **ctx;	/* in order of first appearance, then sorted */
	unsigned int nctx, cap;
	unsigned int *slot;	/* hash table: ctx index + 1, 0 empty */
	unsigned int nslot;	/* power of two */
	int sorted;
};

int wult_br_tally_new(unsigned int depth, unsigned int max_ctx, struct wult_br_tally **out)
{
	struct wult_br_tally *t;

	if (!depth || depth > WULT_BR_MAX || !max_ctx)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->depth = depth;
	t->max_ctx = max_ctx;
	*out = t;
	return 0;
}

void wult_br_tally_free(struct wult_br_tally *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->nctx; i++)
		free(t->ctx[i]);
	free(t->ctx);
	free(t->slot);
	free(t);
}

/* FNV-1a over the context's words: cheap and spreads addresses well. */
static uint64_t hash(const uint64_t *a, unsigned int n, unsigned int nr)
{
	uint64_t h = 1469598103934665603ULL ^ nr;
	unsigned int i;

	for (i = 0; i < n; i++) {
		h ^= a[i];
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	return h;
}

static int rehash(struct wult_br_tally *t, unsigned int nslot)
{
	unsigned int *slot = calloc(nslot, sizeof(*slot)), i;

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->nctx; i++) {
		const struct ctx *c = t->ctx[i];
		uint64_t h = hash(c->addr, 2 * t->depth, c->nr);

		while (slot[h & (nslot - 1)])
			h++;
		slot[h & (nslot - 1)] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
	return 0;
}

int wult_br_tally_add(struct wult_br_tally *t, const struct wult_branches *br)
{
	unsigned int n = br->nr < t->depth ? br->nr : t->depth, words = 2 * t->depth;
	uint64_t key[2 * WULT_BR_MAX] = { 0 }, h;
	struct ctx *c;

	t->total++;
	if (!n) {
		t->empty++;
		return 0;
	}
	memcpy(key, br->from, n * sizeof(key[0]));
	memcpy(key + t->depth, br->to, n * sizeof(key[0]));
	if (t->nslot < 2 * (t->nctx + 1) && rehash(t, t->nslot ? 2 * t->nslot : 64))
		return -ENOMEM;
	for (h = hash(key, words, n);; h++) {
		unsigned int s = t->slot[h & (t->nslot - 1)];

		if (!s)
			break;
		c = t->ctx[s - 1];
		if (c->nr == n && !memcmp(c->addr, key, words * sizeof(key[0]))) {
			c->count++;
			t->sorted = 0;
			return 0;
		}
	}
	if (t->nctx >= t->max_ctx) {
		t->other++;
		return 0;
	}
	if (t->nctx == t->cap) {
		unsigned int cap = t->cap ? 2 * t->cap : 16;
		struct ctx **p = realloc(t->ctx, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->ctx = p;
		t->cap = cap;
	}
	c = malloc(sizeof(*c) + words * sizeof(c->addr[0]));
	if (!c)
		return -ENOMEM;
	c->count = 1;
	c->first = t->nctx;
	c->nr = n;
	memcpy(c->addr, key, words * sizeof(key[0]));
	t->slot[h & (t->nslot - 1)] = t->nctx + 1;
	t->ctx[t->nctx++] = c;
	t->sorted = 0;
	return 0;
}

uint64_t wult_br_tally_total(const struct wult_br_tally *t)
{
	return t->total;
}

uint64_t wult_br_tally_empty(const struct wult_br_tally *t)
{
	return t->empty;
}

uint64_t wult_br_tally_other(const struct wult_br_tally *t)
{
	return t->other;
}

static int by_count(const void *a, const void *b)
{
	const struct ctx *x = *(struct ctx *const *)a, *y = *(struct ctx *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

unsigned int wult_br_tally_nr(struct wult_br_tally *t)
{
	return t->nctx;
}

uint64_t wult_br_tally_get(struct wult_br_tally *t, unsigned int i, const uint64_t **from,
			   const uint64_t **to, unsigned int *nr)
{
	const struct ctx *c;

	if (!t->sorted) {
		/*
		 * Sorting moves contexts: the next add rebuilds the hash table.
		 * (No contexts: no array, and qsort's base must not be NULL.)
		 */
		if (t->nctx)
			qsort(t->ctx, t->nctx, sizeof(*t->ctx), by_count);
		free(t->slot);
		t->slot = NULL;
		t->nslot = 0;
		t->sorted = 1;
	}
	if (i >= t->nctx)
		return 0;
	c = t->ctx[i];
	*from = c->addr;
	*to = c->addr + t->depth;
	*nr = c->nr;
	return c->count;
}
