// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: intel wult datapoints.csv import, then export. */
#include <stdint.h>
#include <stdio.h>

#include <wult/csv.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum wult_metric cols[] = {
		WULT_M_WAKE_LATENCY, WULT_M_REQ_CSTATE, WULT_M_CC0, WULT_M_LTIME,
	};
	struct wult_csv_reader *r;
	struct wult_csv_writer *w;
	struct wult_point pt;
	char err[256];
	FILE *f, *out;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (!wult_csv_open_stream(f, "fuzz.csv", data[0] & 1, &r, err, sizeof(err))) {
		out = fopen("/dev/null", "w");
		if (out && !wult_csv_writer_new(out, cols, 4, &w)) {
			while (wult_csv_next(r, &pt) > 0)
				wult_csv_writer_add(w, &pt);
			wult_csv_writer_close(w);
		}
		if (out)
			fclose(out);
		wult_csv_close(r);
	}
	fclose(f);
	return 0;
}
