// SPDX-License-Identifier: GPL-2.0
/*
 * cfg_terms: the "wult" PMU's config terms and sources as the C side makes
 * them from the uapi lists (WULT_CFG_TERMS, WULT_SOURCES), one line each:
 * "term NAME WORD LO HI" read back through the generated accessors (where
 * wult_cfg_NAME_put() puts an all-ones value, in which word), and
 * "source ID NAME" from wult_source_name(). tests/host/test_cfg_terms.sh
 * holds the Python mirror (scripts/perf/wult_perf.py), the sysfs format
 * strings the kernel makes of them, and Documentation/kernel.md's config
 * table to these.
 */
#include <stdio.h>

#include <linux/wult.h>

static const char *const words[WULT_CFG_WORDS] = { "config", "config1", "config2" };

int main(void)
{
	unsigned int id;

#define LINE(name, word, lo, hi)						\
	do {									\
		unsigned long long m = wult_cfg_##name##_put(~0ULL);		\
		unsigned int l = __builtin_ctzll(m);				\
										\
		printf("term %s %s %u %u\n", #name,				\
		       words[wult_cfg_##name##_word()], l,			\
		       l + __builtin_popcountll(m) - 1);			\
		if (wult_cfg_##name(m) != wult_cfg_##name##_max() ||		\
		    (m & ~wult_cfg_known(wult_cfg_##name##_word())))		\
			printf("bad %s\n", #name);				\
	} while (0);
	WULT_CFG_TERMS(LINE)
#undef LINE
	for (id = 0; id < WULT_SOURCE_MAX; id++)
		printf("source %u %s\n", id, wult_source_name(id) ? wult_source_name(id) : "-");
	return 0;
}
