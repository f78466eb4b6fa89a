// SPDX-License-Identifier: GPL-2.0
/*
 * wult: probes on kernel tracepoints, found by name and registered as a set
 * (wult_probes.h). One rule for every set: a probe is registered only if
 * its tracepoint was found, flagged once registered, and unregistering
 * waits for the probes still running, whoever the caller is.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "wult_probes.h"

struct wult_probes_table {
	struct wult_probe *p;
	unsigned int n;
};

static void wult_probes_match(struct tracepoint *tp, void *priv)
{
	const struct wult_probes_table *t = priv;
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(tp->name, t->p[i].name))
			t->p[i].tp = tp;
}

void wult_probes_find(struct wult_probe *p, unsigned int n)
{
	struct wult_probes_table t = { .p = p, .n = n };

	for_each_kernel_tracepoint(wult_probes_match, &t);
}

int wult_probes_register(struct wult_probe *p, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (!p[i].tp)
			continue;
		ret = tracepoint_probe_register(p[i].tp, p[i].func, NULL);
		if (ret) {
			wult_probes_unregister(p, i);
			return ret;
		}
		p[i].registered = true;
	}
	return 0;
}

void wult_probes_unregister(struct wult_probe *p, unsigned int n)
{
	while (n--) {
		if (!p[n].registered)
			continue;
		tracepoint_probe_unregister(p[n].tp, p[n].func, NULL);
		p[n].registered = false;
	}
	tracepoint_synchronize_unregister();
}
