// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: wult.ko's histogram files (wult/khist.h), unipolar and
 * bipolar (negative rows, underflow), parsed, and every state's
 * percentiles read back.
 */
#include <stdint.h>

#include <wult/khist.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double pcts[] = { 0, 1, 50, 99.9, 100 };
	const struct wult_khist_state *s;
	struct wult_khist *h;
	uint64_t sum = 0;
	int64_t us;
	char err[128];
	size_t i, j;

	if (wult_khist_parse((const char *)data, size, &h, err, sizeof(err)))
		return 0;
	for (i = 0; i < wult_khist_nstates(h); i++) {
		s = wult_khist_state(h, i);
		for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++)
			if (wult_khist_percentile(s, pcts[j], &us) >= 0)
				sum += (uint64_t)us;
		sum += s->under ^ (uint64_t)s->under_us;
		for (j = 0; j < s->nbins; j++)
			sum += (uint64_t)s->bin_us[j] ^ s->bin_n[j];
	}
	wult_khist_free(h);
	return sum == 1 ? 0 : 0;	/* sum keeps the reads */
}
