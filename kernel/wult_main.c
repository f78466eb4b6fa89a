// SPDX-License-Identifier: GPL-2.0
/*
 * wult: wake up latency tracer as a perf PMU.
 *
 * Module init and exit, and the choice of delayed-event source. See
 * Documentation/kernel.md for the design, the payload and the counters.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include "wult_debugfs.h"
#include "wult_engine.h"
#include "wult_lbr.h"
#include "wult_pmu.h"
#include "wult_source.h"

static const struct wult_source *const wult_sources[] = {
	&wult_hrt_source,
};

static char *source = "hrt";
module_param(source, charp, 0444);
MODULE_PARM_DESC(source, "delayed-event source: hrt (default)");

static char *lbr = "auto";
module_param(lbr, charp, 0444);
MODULE_PARM_DESC(lbr, "branch records: auto (the CPU's LBR, default), off, fake (synthetic, for tests)");

static int __init wult_init(void)
{
	const struct wult_source *src = NULL;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(wult_sources); i++)
		if (!strcmp(source, wult_sources[i]->name))
			src = wult_sources[i];
	if (!src) {
		pr_err("wult: unknown source '%s'\n", source);
		return -EINVAL;
	}

	if (!wult_trace_type())
		pr_warn("wult: wult:datapoint not registered, raw samples have type 0\n");
	if (wult_lbr_init(lbr)) {
		pr_err("wult: unknown lbr mode '%s' (auto, off, fake)\n", lbr);
		return -EINVAL;
	}

	ret = wult_engine_init(src);
	if (ret)
		return ret;
	wult_debugfs_init();
	/* Last: from here on perf can create events. */
	ret = wult_pmu_init();
	if (ret) {
		wult_debugfs_exit();
		wult_engine_exit();
	}
	return ret;
}

/* Module refcounting keeps us loaded while any wult event exists. */
static void __exit wult_exit(void)
{
	wult_pmu_exit();
	wult_debugfs_exit();
	wult_engine_exit();
}

module_init(wult_init);
module_exit(wult_exit);

MODULE_DESCRIPTION("wult: idle state wake latency measurement as a perf PMU");
MODULE_LICENSE("GPL");
