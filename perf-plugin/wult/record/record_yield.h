/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's checks of what wult.ko's counters say (record_yield.c):
 * an LDist range below a CPU's floor is refused before recording, and a
 * recording in which fewer than half of the armed datapoints were valid
 * is warned about, with the main drop reasons.
 */
#ifndef WULT_RECORD_YIELD_H
#define WULT_RECORD_YIELD_H

struct rec_yield;

/*
 * The counters of @cpus (@nr of them) as they are now. NULL when the
 * module's stats file cannot be read (said once on stderr: nothing is
 * checked then) or on ENOMEM.
 */
struct rec_yield *rec_yield_new(const int *cpus, int nr);
void rec_yield_free(struct rec_yield *y);

/*
 * Refuses an LDist range whose max (us) is below a measured CPU's floor:
 * 0, or 1 after saying which CPU, the floor and the fix. Where a floor is
 * not known yet and @ldist_max_us is short enough to matter, it is first
 * measured for at most 3 s with the default range and source @source_term
 * (",source=N" or ""); the counts then start after it.
 */
int rec_yield_check_ldist(struct rec_yield *y, unsigned int ldist_min_us,
			  unsigned int ldist_max_us, const char *source_term);

/*
 * While recording: says once, when at least a few hundred events ended,
 * that fewer than half were valid. @nl: start with a newline (a progress
 * line is on the terminal).
 */
void rec_yield_poll(struct rec_yield *y, int nl);

/* At the end: says so if fewer than half of all were valid. */
void rec_yield_end(struct rec_yield *y);

#endif
