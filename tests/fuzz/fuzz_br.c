// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: branch-context payloads, decoded and tallied. The input
 * is a sequence of payloads; the first byte picks the context depth.
 */
#include <stdint.h>

#include <wult/br.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t rec = WULT_DP_HDR_SIZE + sizeof(struct wult_branches);
	struct wult_br_tally *t;
	struct wult_branches br;
	const uint64_t *from, *to;
	unsigned int i, nr;
	uint64_t sum = 0;
	size_t off;

	if (!size)
		return 0;
	if (wult_br_tally_new(data[0] % WULT_BR_MAX + 1, 64, &t))
		return 0;
	/* Payloads overlap by a stride, so short inputs make many contexts. */
	for (off = 1; off < size; off += 1 + data[off] % 64)
		if (!wult_br_decode(data + off, size - off, &br))
			wult_br_tally_add(t, &br);
	if (size < rec)
		wult_br_decode(data, size, &br);	/* must refuse, not overread */
	/* Sorted reads, then an add that rebuilds the table, then again. */
	for (i = 0; wult_br_tally_get(t, i, &from, &to, &nr); i++)
		sum += nr ? from[nr - 1] ^ to[0] : 0;
	if (!wult_br_decode(data + 1, size - 1, &br))
		wult_br_tally_add(t, &br);
	for (i = 0; wult_br_tally_get(t, i, &from, &to, &nr); i++)
		sum += nr;
	wult_br_tally_free(t);
	return sum == 1 ? 0 : 0;	/* sum keeps the reads */
}
