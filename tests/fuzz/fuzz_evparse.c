// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: event strings against the real sysfs PMUs. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <wult/evparse.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr;
	char s[600], err[256];

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	wult_ev_parse(s, NULL, &attr, err, sizeof(err));
	return 0;
}
