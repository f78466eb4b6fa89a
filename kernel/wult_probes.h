/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: probes on kernel tracepoints, found by name and registered as a set.
 *
 * Tracepoints a module cannot name (most are not exported) are found at
 * load with for_each_kernel_tracepoint(). A set is registered in its
 * table's order and unregistered in the reverse order, so a table that
 * lists an exit before its entry never sees an entry without its exit.
 * Unregistering waits for running probes (tracepoint_synchronize_unregister()):
 * what they touch may be freed or reused once it returns.
 */
#ifndef _WULT_PROBES_H
#define _WULT_PROBES_H

#include <linux/types.h>

struct tracepoint;

struct wult_probe {
	const char *name;	/* the tracepoint's */
	void *func;		/* its probe, data NULL */
	struct tracepoint *tp;	/* found at load; NULL: this kernel has none */
	bool registered;
};

/**
 * wult_probes_find() - find a table's tracepoints by name
 * @p: the table
 * @n: its entries
 *
 * Module load. Entries whose tracepoint this kernel lacks keep tp NULL.
 */
void wult_probes_find(struct wult_probe *p, unsigned int n);

/**
 * wult_probes_register() - register the probes of the tracepoints found
 * @p: the table
 * @n: its entries
 *
 * Process context. All or none: a failure unregisters those registered.
 *
 * Return: 0 or the errno of the registration that failed.
 */
int wult_probes_register(struct wult_probe *p, unsigned int n);

/**
 * wult_probes_unregister() - unregister them, and wait for running probes
 * @p: the table
 * @n: its entries
 *
 * Process context.
 */
void wult_probes_unregister(struct wult_probe *p, unsigned int n);

#endif /* _WULT_PROBES_H */
