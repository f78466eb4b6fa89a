// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: wult.ko's counters file (wult/kstats.h). The first
 * byte picks the CPU; every parsed line goes through the delta, the sum,
 * the yield sentence and the LDist check.
 */
#include <stdint.h>

#include <wult/kstats.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wult_kstats a, b, d, sum = { 0 };
	uint64_t min_us = 0;
	char err[128], msg[512];
	int cpu;

	if (!size)
		return 0;
	cpu = data[0] % 8;
	if (wult_kstats_parse((const char *)data + 1, size - 1, cpu, &a, err,
			      sizeof(err)))
		return 0;
	if (wult_kstats_parse((const char *)data + 1, size - 1, cpu + 1, &b, err,
			      sizeof(err)))
		b = a;
	wult_kstats_delta(&d, &a, &b);
	wult_kstats_add(&sum, &a);
	wult_kstats_add(&sum, &d);
	wult_kstats_low_yield(&d, msg, sizeof(msg));
	wult_kstats_low_yield(&sum, msg, 16);
	wult_kstats_ldist_unreachable(&a, data[0], &min_us);
	return 0;
}
