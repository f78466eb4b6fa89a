// SPDX-License-Identifier: GPL-2.0
/* Branch contexts: payload decoding and the tally of distinct contexts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <wult/br.h>

#include "wt.h"

/* A payload as the module writes it: 8-byte header, then the struct. */
static size_t mk_raw(uint8_t *raw, const struct wult_branches *br)
{
	memset(raw, 0xab, WULT_DP_HDR_SIZE);
	memcpy(raw + WULT_DP_HDR_SIZE, br, sizeof(*br));
	return WULT_DP_HDR_SIZE + sizeof(*br);
}

/* A context of @nr entries: from = base + i, to = base + 0x100 + i. */
static void mk_br(struct wult_branches *br, uint64_t base, unsigned int nr)
{
	unsigned int i;

	memset(br, 0, sizeof(*br));
	br->nr = nr;
	for (i = 0; i < nr; i++) {
		br->from[i] = base + i;
		br->to[i] = base + 0x100 + i;
	}
}

static void test_decode(void)
{
	uint8_t raw[WULT_DP_HDR_SIZE + sizeof(struct wult_branches) + 8];
	struct wult_branches in, out;
	size_t n;

	WT_EQ(sizeof(struct wult_branches), 24 + 2 * 8 * WULT_BR_MAX);
	mk_br(&in, 0xffffffff81000000ULL, 3);
	in.ltime = 123456789;
	in.cpu = 7;
	in.seq = 42;
	in.flags = WULT_BRF_INTR | WULT_BRF_FAKE;
	n = mk_raw(raw, &in);
	WT_EQ(wult_br_decode(raw, n, &out), 0);
	WT_EQ(out.ltime, 123456789);
	WT_EQ(out.cpu, 7);
	WT_EQ(out.seq, 42);
	WT_EQ(out.nr, 3);
	WT_EQ(out.flags, WULT_BRF_INTR | WULT_BRF_FAKE);
	WT_EQ(out.from[2], 0xffffffff81000002ULL);
	WT_EQ(out.to[0], 0xffffffff81000100ULL);
	/* A longer payload (fields appended later) still decodes. */
	WT_EQ(wult_br_decode(raw, n + 8, &out), 0);
	WT_EQ(wult_br_decode(raw, n - 1, &out), -EINVAL);
	WT_EQ(wult_br_decode(NULL, n, &out), -EINVAL);
	in.nr = WULT_BR_MAX + 1;
	n = mk_raw(raw, &in);
	WT_EQ(wult_br_decode(raw, n, &out), -EINVAL);
}

static void test_tally_counts(void)
{
	struct wult_br_tally *t;
	struct wult_branches a, b, c, e;
	const uint64_t *from, *to;
	unsigned int nr, i;

	WT_EQ(wult_br_tally_new(0, 10, &t), -EINVAL);
	WT_EQ(wult_br_tally_new(WULT_BR_MAX + 1, 10, &t), -EINVAL);
	WT_EQ(wult_br_tally_new(2, 0, &t), -EINVAL);
	WT_EQ(wult_br_tally_new(2, 10, &t), 0);

	mk_br(&a, 0x1000, 4);
	mk_br(&b, 0x2000, 1);
	mk_br(&c, 0x1000, 4);
	c.from[3] = 0x9999;	/* differs past depth 2: the same context as a */
	mk_br(&e, 0, 0);
	WT_EQ(wult_br_tally_add(t, &b), 0);		/* b first seen, once */
	for (i = 0; i < 3; i++)
		WT_EQ(wult_br_tally_add(t, &a), 0);
	WT_EQ(wult_br_tally_add(t, &c), 0);
	WT_EQ(wult_br_tally_add(t, &e), 0);
	WT_EQ(wult_br_tally_total(t), 6);
	WT_EQ(wult_br_tally_empty(t), 1);
	WT_EQ(wult_br_tally_other(t), 0);
	WT_EQ(wult_br_tally_nr(t), 2);
	WT_EQ(wult_br_tally_get(t, 0, &from, &to, &nr), 4);
	WT_EQ(nr, 2);
	WT_EQ(from[0], 0x1000);
	WT_EQ(from[1], 0x1001);
	WT_EQ(to[1], 0x1101);
	WT_EQ(wult_br_tally_get(t, 1, &from, &to, &nr), 1);
	WT_EQ(nr, 1);
	WT_EQ(from[0], 0x2000);
	WT_EQ(wult_br_tally_get(t, 2, &from, &to, &nr), 0);

	/* Adding after a sort (which moved the contexts) still finds them. */
	for (i = 0; i < 5; i++)
		WT_EQ(wult_br_tally_add(t, &b), 0);
	WT_EQ(wult_br_tally_nr(t), 2);
	WT_EQ(wult_br_tally_get(t, 0, &from, &to, &nr), 6);
	WT_EQ(from[0], 0x2000);
	WT_EQ(wult_br_tally_get(t, 1, &from, &to, &nr), 4);
	wult_br_tally_free(t);
}

/* Many distinct contexts: the table grows, ties keep first-seen order,
 * and contexts past max_ctx are counted as other.
 */
static void test_tally_many(void)
{
	struct wult_br_tally *t;
	struct wult_branches br;
	const uint64_t *from, *to;
	unsigned int nr, i, ok = 1;

	WT_EQ(wult_br_tally_new(WULT_BR_MAX, 5000, &t), 0);
	for (i = 0; i < 6000; i++) {
		mk_br(&br, 0x10000 * (uint64_t)i, WULT_BR_MAX);
		if (wult_br_tally_add(t, &br))
			ok = 0;
	}
	WT_CHECK(ok, "6000 adds");
	mk_br(&br, 0x10000 * 4999ULL, WULT_BR_MAX);	/* the last kept one again */
	WT_EQ(wult_br_tally_add(t, &br), 0);
	WT_EQ(wult_br_tally_total(t), 6001);
	WT_EQ(wult_br_tally_nr(t), 5000);
	WT_EQ(wult_br_tally_other(t), 1000);
	WT_EQ(wult_br_tally_get(t, 0, &from, &to, &nr), 2);
	WT_EQ(from[0], 0x10000 * 4999ULL);
	WT_EQ(nr, WULT_BR_MAX);
	WT_EQ(to[WULT_BR_MAX - 1], 0x10000 * 4999ULL + 0x100 + WULT_BR_MAX - 1);
	for (i = 1; i < 5000; i++)
		if (wult_br_tally_get(t, i, &from, &to, &nr) != 1 ||
		    from[0] != 0x10000 * (uint64_t)(i - 1))
			ok = 0;
	WT_CHECK(ok, "contexts seen once keep their first-seen order");
	wult_br_tally_free(t);
	wult_br_tally_free(NULL);
}

int main(void)
{
	test_decode();
	test_tally_counts();
	test_tally_many();
	return wt_done();
}
