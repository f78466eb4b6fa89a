/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Branch contexts of wakes: the raw payloads of wult/branches/ samples and
 * wult:wake_branches records (trace_entry + struct wult_branches, see
 * <linux/wult.h>), and their tally per requested state.
 *
 * The payload has a fixed layout: entries are an array sized by
 * WULT_BR_MAX, and nr says how many are valid, youngest first.
 */
#ifndef WULT_BR_H
#define WULT_BR_H

#include <stddef.h>
#include <stdint.h>
#include <linux/wult.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

/* Decodes @raw (@size bytes, header included) into @out: 0, or -EINVAL
 * when the payload is too short or nr exceeds WULT_BR_MAX.
 */
int wult_br_decode(const void *raw, size_t size, struct wult_branches *out);

/*
 * A tally of distinct branch contexts, each the youngest @depth entries
 * (from and to addresses): how often each was seen.
 */
struct wult_br_tally;

/* @depth: entries that make a context, 1..WULT_BR_MAX; @max_ctx: distinct
 * contexts kept, later new ones are counted as "other". 0 or -errno.
 */
int wult_br_tally_new(unsigned int depth, unsigned int max_ctx, struct wult_br_tally **out);
void wult_br_tally_free(struct wult_br_tally *t);
/* Counts @br's context. 0 or -ENOMEM. */
int wult_br_tally_add(struct wult_br_tally *t, const struct wult_branches *br);
/* Contexts counted, those with no entries (LBR off), those past max_ctx. */
uint64_t wult_br_tally_total(const struct wult_br_tally *t);
uint64_t wult_br_tally_empty(const struct wult_br_tally *t);
uint64_t wult_br_tally_other(const struct wult_br_tally *t);
/* Distinct contexts kept. */
unsigned int wult_br_tally_nr(struct wult_br_tally *t);
/* The @i-th most frequent context (ties in order of first appearance): its
 * count, and its entries through @from, @to and @nr (nr <= depth). 0 past
 * the end.
 */
uint64_t wult_br_tally_get(struct wult_br_tally *t, unsigned int i, const uint64_t **from,
			   const uint64_t **to, unsigned int *nr);

#pragma GCC visibility pop

#endif
