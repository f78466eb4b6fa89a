/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's --states, --deepest-state and --idle-governor
 * (record_cstates.c): the idle states chosen for the recording, put back
 * after it.
 */
#ifndef WULT_RECORD_CSTATES_H
#define WULT_RECORD_CSTATES_H

struct rec_cstates;

/*
 * Puts back the idle states of a restore record a killed wult record left
 * (said on stderr). 0, or 1 when states are to be chosen (@need) and that
 * cannot be done safely: the record's writer still runs, or it could not be
 * restored.
 */
int rec_cstates_recover(int need);

/*
 * --states @only (comma-separated names) or --deepest-state @deepest on
 * @cpus (@n of them), and --idle-governor @governor, the values found
 * saved first in a restore record. 0 with *@out NULL when none is asked,
 * 0, 1 when it failed, 2 for a state that a CPU does not have or a
 * governor the kernel does not have (the cause said).
 */
int rec_cstates_set(const char *only, const char *deepest, const char *governor,
		    const int *cpus, unsigned int n, int quiet, struct rec_cstates **out);

/*
 * Whether rec_cstates_set() would accept these values on @cpus, without
 * writing anything (wult sweep checks its points first). 0, 2 for a state
 * or governor the system lacks, 1 when cpuidle cannot be read; @err says
 * which option and why.
 */
int rec_cstates_check(const char *only, const char *deepest, const char *governor,
		      const int *cpus, unsigned int n, char *err, size_t errlen);

/* Puts the states back and frees @c (NULL: nothing). 0, or 1 (said). */
int rec_cstates_restore(struct rec_cstates *c, int quiet);

#endif
