// SPDX-License-Identifier: GPL-2.0
/*
 * wult: wake up latency tracer as a perf PMU.
 *
 * Module init and exit, the table of delayed-event sources. See
 * Documentation/kernel.md for the design, the payload and the counters.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/string.h>

#include "wult_debugfs.h"
#include "wult_engine.h"
#include "wult_hist.h"
#include "wult_lbr.h"
#include "wult_mstate.h"
#include "wult_pmu.h"
#include "wult_source.h"
#include "wult_tdt.h"

/* Indexed by enum wult_source_id, the PMU's "source" config term. */
static const struct wult_source *const wult_sources[WULT_SOURCE_MAX] = {
	[WULT_SOURCE_HRT] = &wult_hrt_source,
	[WULT_SOURCE_TDT] = &wult_tdt_source,
	[WULT_SOURCE_IPI] = &wult_ipi_source,
	[WULT_SOURCE_NIC] = &wult_nic_source,
};

/* The sources whose init() succeeded: only those are exited. */
static bool wult_present[WULT_SOURCE_MAX];

/*
 * @id comes from the user's event config: clamp it under speculation too,
 * as arch/x86/events/msr.c does, so that a mispredicted bounds check
 * cannot load a pointer from past the table.
 */
const struct wult_source *wult_source_by_id(unsigned int id)
{
	if (id >= WULT_SOURCE_MAX)
		return NULL;
	return wult_sources[array_index_nospec(id, WULT_SOURCE_MAX)];
}

bool wult_source_present(const struct wult_source *src)
{
	return wult_present[src->id];
}

static void wult_sources_exit(void)
{
	int i;

	for (i = 0; i < WULT_SOURCE_MAX; i++) {
		if (wult_sources[i] && wult_present[i])
			wult_sources[i]->exit();
		wult_present[i] = false;
	}
}

/*
 * A source whose init() fails is left out, not the module: a system
 * without the device a source needs still measures with the others.
 */
static void wult_sources_init(void)
{
	int i, ret;

	for (i = 0; i < WULT_SOURCE_MAX; i++) {
		if (!wult_sources[i])
			continue;	/* an id no source of this build has */
		ret = wult_sources[i]->init();
		wult_present[i] = !ret;
		if (ret)
			pr_info("wult: source %s not available (%d)\n",
				wult_sources[i]->name, ret);
	}
}

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
}

module_init(wult_init);
module_exit(wult_exit);

MODULE_DESCRIPTION("wult: idle state wake latency measurement as a perf PMU");
MODULE_LICENSE("GPL");
