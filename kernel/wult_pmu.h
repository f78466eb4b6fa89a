/* SPDX-License-Identifier: GPL-2.0 */
/* wult: the "wult" perf PMU, the engine's delivery channel. */
#ifndef _WULT_PMU_H
#define _WULT_PMU_H

struct wult_br_rec;
struct wult_rec;

int wult_pmu_init(void);
void wult_pmu_exit(void);
/* The PMU's perf type, for events created from the kernel. */
int wult_pmu_type(void);

/*
 * IRQs off, on the measured CPU: hand @rec, and @brrec (its branch context,
 * may be NULL) to branches events, to every active event of this CPU whose
 * LDist range holds it. Returns the number of failed deliveries.
 */
unsigned int wult_pmu_deliver(struct wult_rec *rec, struct wult_br_rec *brrec);

#endif /* _WULT_PMU_H */
