// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the registry of delayed-event sources.
 *
 * One row per enum wult_source_id, the PMU's "source" config term. A
 * source whose init() fails is left out, not the module: a system without
 * the device a source needs still measures with the others, and the PMU
 * refuses the missing one's events (-ENODEV, wult_source_present()). It
 * also keeps each CPU to one source at a time (wult_source_claim()).
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/percpu.h>
#include <linux/printk.h>

#include "../trace/wult_refusal.h"
#include "../uapi/linux/wult.h"
#include "wult_source.h"

/* The uapi header's list: source "x" is wult_x_source. */
static const struct wult_source *const wult_sources[WULT_SOURCE_MAX] = {
#define WULT_SOURCE_ROW(id, name, value) \
	[WULT_SOURCE_##id] = &wult_##name##_source,
	WULT_SOURCES(WULT_SOURCE_ROW)
#undef WULT_SOURCE_ROW
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

/*
 * A CPU is measured with one source at a time: wult events in existence,
 * per CPU and source, so that an event of another source is refused when
 * it is opened (EBUSY) rather than never scheduled.
 */
static DEFINE_MUTEX(wult_claim_lock);
static DEFINE_PER_CPU(unsigned int [WULT_SOURCE_MAX], wult_claims);

int wult_source_claim(int cpu, const struct wult_source *src)
{
	unsigned int *users = per_cpu(wult_claims, cpu);
	int i, other = -1;

	mutex_lock(&wult_claim_lock);
	for (i = 0; i < WULT_SOURCE_MAX; i++)
		if (i != src->id && users[i])
			other = i;
	if (other < 0)
		users[src->id]++;
	mutex_unlock(&wult_claim_lock);
	if (other < 0)
		return 0;
	return wult_refuse_quiet(-EBUSY, "CPU%d is measured with %s already: one source per CPU",
				 cpu, wult_source_name(other));
}

void wult_source_release(int cpu, const struct wult_source *src)
{
	mutex_lock(&wult_claim_lock);
	per_cpu(wult_claims, cpu)[src->id]--;
	mutex_unlock(&wult_claim_lock);
}

void wult_sources_init(void)
{
	int i, ret;

	for (i = 0; i < WULT_SOURCE_MAX; i++) {
		if (!wult_sources[i])
			continue;	/* an id no source of this build has */
		ret = wult_sources[i]->init();
		wult_present[i] = !ret;
		if (ret)
			pr_info("wult: source %s not available (%d)\n",
				wult_source_name(i), ret);
	}
}

void wult_sources_exit(void)
{
	int i;

	for (i = 0; i < WULT_SOURCE_MAX; i++) {
		if (wult_sources[i] && wult_present[i])
			wult_sources[i]->exit();
		wult_present[i] = false;
	}
}
