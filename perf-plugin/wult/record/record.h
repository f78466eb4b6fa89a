/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's checks of what wult.ko's counters say (record_yield.c):
 * an LDist range below a CPU's floor is refused before recording, and a
 * recording in which fewer than half of the armed datapoints were valid
 * is warned about, with the main drop reasons. And the idle states chosen
 * for the recording (record_cstates.c).
 */
#ifndef WULT_RECORD_H
#define WULT_RECORD_H

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

/* ---- record_fallback.c: datapoints of disabled idle states ---- */
struct rec_fallback;

/* For CPUs 0..@max_cpu; NULL on ENOMEM (nothing is counted then). */
struct rec_fallback *rec_fallback_new(int max_cpu);
void rec_fallback_free(struct rec_fallback *f);
/* One datapoint's raw payload (trace_entry, then struct wult_dp). */
void rec_fallback_add(struct rec_fallback *f, unsigned int cpu, const void *raw,
		      unsigned int raw_size);
/* At the end, states as recorded: a warning per CPU and disabled state seen. */
void rec_fallback_end(const struct rec_fallback *f);

/* ---- record_cstates.c: --states, --deepest-state, --idle-governor ---- */
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

/* Puts the states back and frees @c (NULL: nothing). 0, or 1 (said). */
int rec_cstates_restore(struct rec_cstates *c, int quiet);

/* ---- record_capture.c: --stop-on and --capture ---- */
struct rec_stop;
struct rec_capture;

/* Compiles --stop-on @expr against the loaded module's datapoint format,
 * states named as CPU @cpu's. 0, 1 (no format: said), 2 (bad @expr: said). */
int rec_stop_new(const char *expr, unsigned int cpu, struct rec_stop **out);
/* Decodes a datapoint's payload: 1 when it is the first to match. */
int rec_stop_check(struct rec_stop *s, const void *raw, unsigned int size);
int rec_stop_hit(const struct rec_stop *s);
/* Says which datapoint stopped the recording (nothing if none did). */
void rec_stop_say(const struct rec_stop *s, const char *expr);
void rec_stop_free(struct rec_stop *s);

/* Removes tracefs instances that killed wult records left. */
void rec_capture_cleanup(void);
/* Creates and starts the instance for @cpus. 0, or 1 (said). */
int rec_capture_start(const int *cpus, int n, unsigned int window_ms, int quiet,
		      struct rec_capture **out);
/* After a stop: the window before @s's datapoint written to @path. 0 or 1. */
int rec_capture_save(struct rec_capture *c, const struct rec_stop *s, const char *path);
/* Removes the instance and frees @c (NULL: nothing). */
void rec_capture_end(struct rec_capture *c);

#endif
