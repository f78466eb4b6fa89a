// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the sample decoder on its own (wult_pd_sample_parse(),
 * as wult record's live path calls it). The input is the attr's sample_type,
 * read_format, branch_sample_type, sample_regs_user and sample_regs_intr
 * (5 x u64), then the record, its header included.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wult/perfdata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wult_pd_read_value vals[WULT_PD_MAX_GROUP];
	struct wult_pd_attr attr = { 0 };
	struct wult_pd_sample s;
	uint64_t f[5];
	uint8_t *rec;
	char err[256];

	if (size < sizeof(f))
		return 0;
	memcpy(f, data, sizeof(f));
	attr.attr.sample_type = f[0];
	attr.attr.read_format = f[1];
	attr.attr.branch_sample_type = f[2];
	attr.attr.sample_regs_user = f[3];
	attr.attr.sample_regs_intr = f[4];
	/* An exact-size, aligned copy: ASan sees any read past the record. */
	size -= sizeof(f);
	rec = malloc(size ? size : 1);
	if (!rec)
		return 0;
	memcpy(rec, data + sizeof(f), size);
	wult_pd_sample_parse(&attr, rec, size, &s, vals, err, sizeof(err));
	free(rec);
	return 0;
}
