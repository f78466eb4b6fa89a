/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult record's --stop-on (the first datapoint that matches stops the
 * recording) and --capture (the trace of the window before it)
 * (record_capture.c).
 */
#ifndef WULT_RECORD_CAPTURE_H
#define WULT_RECORD_CAPTURE_H

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
