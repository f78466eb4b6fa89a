/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the "wult" perf PMU, the engine's delivery channel. */
#ifndef _WULT_PMU_H
#define _WULT_PMU_H

/**
 * wult_pmu_init() - register the "wult" PMU
 *
 * Process context, at module load, after the engine and the sources:
 * from here on perf can create events. Sets the engine's delivery
 * callback (wult_deliver_set()).
 *
 * Return: 0 or the errno of the registration.
 */
int wult_pmu_init(void);

/**
 * wult_pmu_exit() - unregister the PMU and the delivery callback
 *
 * Process context, at module unload, when no event exists.
 */
void wult_pmu_exit(void);

/**
 * wult_pmu_type() - the PMU's perf type
 *
 * For events created from the kernel (wult_measure.c).
 *
 * Return: the type perf gave the PMU at registration.
 */
int wult_pmu_type(void);

#endif /* _WULT_PMU_H */
