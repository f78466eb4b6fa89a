// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the filter parser, and evaluation of what compiles. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wult/filter.h>
#include <wult/metrics.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wult_filter *f;
	struct wult_point pt;
	char err[128], *expr;
	int i;

	expr = malloc(size + 1);
	if (!expr)
		return 0;
	memcpy(expr, data, size);
	expr[size] = '\0';
	if (!wult_filter_compile(expr, wult_metrics_resolve, NULL, &f, err, sizeof(err))) {
		wult_point_clear(&pt);
		wult_filter_eval(f, pt.v);
		for (i = 0; i < WULT_M_NR; i++)
			pt.v[i].num = i * 1000.0;
		pt.v[WULT_M_REQ_CSTATE].str = "C1";
		wult_filter_eval(f, pt.v);
		wult_filter_free(f);
	}
	free(expr);
	return 0;
}
