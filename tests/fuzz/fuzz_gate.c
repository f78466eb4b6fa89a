// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the --fail-if condition parser, and evaluation of what
 * parses. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wult/gate.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const stats[] = {
	"count", "min", "median", "p90", "p99", "p99.9", "p99.99", "p99.999", "max", "mean",
	"stddev",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wult_gate g;
	char err[128], *expr;

	expr = malloc(size + 1);
	if (!expr)
		return 0;
	memcpy(expr, data, size);
	expr[size] = '\0';
	if (!wult_gate_parse(expr, stats, sizeof(stats) / sizeof(stats[0]), &g, err,
			     sizeof(err))) {
		/* What parsed is whole: a NUL-terminated state, a known statistic. */
		if (!memchr(g.state, '\0', sizeof(g.state)) || !g.state[0] ||
		    g.stat >= sizeof(stats) / sizeof(stats[0]) || !isfinite(g.value))
			abort();
		wult_gate_holds(&g, 1.0);
		wult_gate_holds(&g, NAN);
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort();
	}
	free(expr);
	return 0;
}
