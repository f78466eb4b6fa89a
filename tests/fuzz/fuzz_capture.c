// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: a stop-on capture file (wult_capture_parse(): the
 * header, ftrace's text lines, the pairing and the summary). */
#include <stdint.h>
#include <stdlib.h>

#include <wult/capture.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct wult_capture_item *it;
	struct wult_capture_sum s;
	struct wult_capture *c;
	char err[128];
	unsigned int i, n;

	if (wult_capture_parse((const char *)data, size, &c, err, sizeof(err)))
		return 0;
	n = wult_capture_items(c, &it);
	for (i = 0; i < n; i++) {
		/* Items come sorted, each ends after it starts. */
		if ((i && it[i - 1].start > it[i].start) || it[i].end < it[i].start ||
		    it[i].kind >= WULT_CAP_NR)
			abort();
	}
	wult_capture_summarize(c, &s);
	wult_capture_free(c);
	return 0;
}
