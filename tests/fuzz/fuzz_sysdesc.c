// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the system description's parser (wult_sysdesc_parse(),
 * what wult report reads from a perf.data's WULT_SYSDESC feature). What
 * parses must format back to a text that parses to the same entries, and
 * its lookups must stay inside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wult/sysdesc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wult_sysdesc *sd, *back;
	const char *k, *v, *k2, *v2;
	char err[256], *text;
	unsigned int i;

	if (wult_sysdesc_parse((const char *)data, size, &sd, err, sizeof(err)))
		return 0;
	if (wult_sysdesc_format(sd, &text)) {
		wult_sysdesc_free(sd);
		return 0;
	}
	if (wult_sysdesc_parse(text, strlen(text), &back, err, sizeof(err)))
		abort();	/* our own text form must parse */
	if (wult_sysdesc_nr(back) != wult_sysdesc_nr(sd))
		abort();
	for (i = 0; !wult_sysdesc_entry(sd, i, &k, &v); i++) {
		if (wult_sysdesc_entry(back, i, &k2, &v2) || strcmp(k, k2) || strcmp(v, v2))
			abort();
		if (wult_sysdesc_get(sd, k) != v)
			abort();
	}
	(void)wult_sysdesc_state(sd, 3, 1, "latency_us");
	free(text);
	wult_sysdesc_free(back);
	wult_sysdesc_free(sd);
	return 0;
}
