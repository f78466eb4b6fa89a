// SPDX-License-Identifier: GPL-2.0
/*
 * wult: wake up latency tracer as a perf PMU.
 *
 * Module init and exit and the module parameters; the sources' registry
 * is wult_source.c. See Documentation/kernel.md for the design, the
 * payload and the counters.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>

#include "../accounting/wult_hist.h"
#include "../accounting/wult_lbr.h"
#include "../accounting/wult_mstate.h"
#include "../sources/wult_source.h"
#include "../sources/wult_tdt.h"
#include "../trace/wult_debugfs.h"
#include "../trace/wult_refusal.h"
#include "wult_engine.h"
#include "wult_pmu.h"

static char *lbr = "auto";
module_param(lbr, charp, 0444);
MODULE_PARM_DESC(lbr, "branch records: auto (the CPU's LBR, default), off, fake (synthetic, for tests)");

static char *tdt = "auto";
module_param(tdt, charp, 0444);
MODULE_PARM_DESC(tdt, "TSC deadline source: auto (where the local APIC timer is in TSC-deadline mode, default), off, emulated (LTime computed, for VMs without it)");

static int __init wult_init(void)
{
	int ret;

	if (!wult_trace_type())
		pr_warn("wult: wult:datapoint not registered, raw samples have type 0\n");
	if (wult_lbr_init(lbr)) {
		pr_err("wult: unknown lbr mode '%s' (auto, off, fake)\n", lbr);
		return -EINVAL;
	}
	if (wult_tdt_set_mode(tdt)) {
		pr_err("wult: unknown tdt mode '%s' (auto, off, emulated)\n", tdt);
		return -EINVAL;
	}

	ret = wult_engine_init();
	if (ret)
		return ret;
	wult_sources_init();
	wult_hist_init();
	wult_mstate_irq_init();
	/* From here on perf can create events. */
	ret = wult_pmu_init();
	if (ret) {
		wult_sources_exit();
		wult_refusal_exit();
		return ret;
	}
	/* After the PMU: debugfs "measure" creates events of it. */
	wult_debugfs_init();
	return 0;
}

/* Module refcounting keeps us loaded while any wult event exists. */
static void __exit wult_exit(void)
{
	wult_debugfs_exit();
	wult_pmu_exit();
	wult_sources_exit();
	wult_hist_exit();
	wult_refusal_exit();
}

module_init(wult_init);
module_exit(wult_exit);

MODULE_DESCRIPTION("wult: idle state wake latency measurement as a perf PMU");
MODULE_LICENSE("GPL");
