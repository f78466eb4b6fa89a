/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult datapoint decoding: raw payloads (trace_entry + struct wult_dpdec) are
 * decoded through the wult:datapoint format with libtraceevent, so payloads
 * of older and newer layouts decode as long as the format comes with them,
 * then turned into intel wult's metrics (see wult/metrics.h).
 *
 *	wult_dpdec_new(&dp);
 *	wult_dpdec_load_pd(dp, pd, err, len);	(or _load_format_file)
 *	for each sample: if (wult_dpdec_is_wult(dp, s)) wult_dpdec_decode(dp, s, &pt);
 */
#ifndef WULT_DPDEC_H
#define WULT_DPDEC_H

#include <stddef.h>

#include <wult/metrics.h>
#include <wult/perfdata.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

struct wult_dpdec;

/* Below this running/enabled ratio a counter's scaled value is flagged
 * (metric "Scaled" = 1).
 */
#define WULT_DP_SCALE_THRESHOLD	0.99

#define WULT_DP_FORMAT_PATH	"/sys/kernel/tracing/events/wult/datapoint/format"

int wult_dpdec_new(struct wult_dpdec **out);
void wult_dpdec_free(struct wult_dpdec *dp);
/* Loads the wult:datapoint format from its text. 0 or -EINVAL (@err). */
int wult_dpdec_load_format(struct wult_dpdec *dp, const char *text, size_t len,
			char *err, size_t errlen);
/* ... from a file: the module's installed copy or tracefs' (WULT_DP_FORMAT_PATH). */
int wult_dpdec_load_format_file(struct wult_dpdec *dp, const char *path, char *err, size_t errlen);
/* ... from a perf.data file's TRACING_DATA; also learns the counter names
 * of the file's attrs. -ENOENT when the file has no wult:datapoint format.
 */
int wult_dpdec_load_pd(struct wult_dpdec *dp, const struct wult_pd *pd, char *err, size_t errlen);
/* The payload fields wult decodes that the loaded format lacks (an old or
 * damaged format), comma-separated into @buf; returns their number.
 */
int wult_dpdec_missing_fields(const struct wult_dpdec *dp, char *buf, size_t len);
/* Registers the counter with sample id @id as @name ("msr/tsc/", "msr/aperf/",
 * "cstate_core/c6-residency/", ...); group reads of it become metrics.
 */
int wult_dpdec_add_counter(struct wult_dpdec *dp, uint64_t id, const char *name);
/* Names requested-state indexes (the cpuidle state names), index order. */
int wult_dpdec_set_cstate_names(struct wult_dpdec *dp, const char *const *names, unsigned int n);
/* Reads them from /sys/devices/system/cpu/cpu@cpu/cpuidle/state*\/name. */
int wult_dpdec_load_cstate_names_sysfs(struct wult_dpdec *dp, unsigned int cpu);

/* Where wult_dpdec_name_states() took the state names from. */
enum wult_dpdec_names {
	WULT_DPDEC_NAMES_FILE,		/* the recording's (its cpuidle names, else its
				 * system description's) */
	WULT_DPDEC_NAMES_SYSFS,		/* this machine's cpuidle, CPU @cpu */
	WULT_DPDEC_NAMES_DEFAULT,	/* POLL, C1, then stateN */
};

/*
 * The one rule every consumer names requested states by: the names the
 * recording carries (loaded by wult_dpdec_load_pd()), else those of its
 * system description unless made up by wult synth (a pipe-mode recording,
 * which has no WULT_CSTATES feature; in pipe mode call this once
 * the stream's features are in: at its first sample), else this machine's
 * cpuidle names when the data was recorded here (@pd's HOSTNAME is this
 * machine's) or comes live (@pd NULL: a dlfilter, wult record), else the
 * defaults: index 0 polls, 1 is the default idle (HLT = C1 on x86).
 * Names given with wult_dpdec_set_cstate_names() replace all of this.
 */
enum wult_dpdec_names wult_dpdec_name_states(struct wult_dpdec *dp, const struct wult_pd *pd,
					     unsigned int cpu);
/* The name datapoints of requested state @idx get (wult_dpdec_decode()),
 * valid as long as @dp; NULL beyond the 64 states it names.
 */
const char *wult_dpdec_cstate_name(const struct wult_dpdec *dp, unsigned int idx);
/* Is @s a wult datapoint: a RAW payload of the wult format's size or more,
 * and, for a tracepoint attr, of the wult:datapoint id?
 */
int wult_dpdec_is_wult(const struct wult_dpdec *dp, const struct wult_pd_sample *s);
/* Decodes one payload into @pt. 0, or -EINVAL when the payload is shorter
 * than the format. Strings in @pt live as long as @dp.
 */
int wult_dpdec_decode_raw(struct wult_dpdec *dp, const void *raw, size_t size,
		       struct wult_point *pt);
/* Same for a sample, adding counter metrics from its group read. */
int wult_dpdec_decode(struct wult_dpdec *dp, const struct wult_pd_sample *s, struct wult_point *pt);
/*
 * A reader that wants a few metrics of each datapoint (what one decoding
 * millions wants): @out gets the metrics of @metrics (WULT_METRIC_BIT()
 * bits) in ascending order, one double each, as wult_dpdec_decode() would
 * give them, *@state ReqCState's name; nothing else is computed or stored.
 * -EAGAIN where this path does not apply (a format other than payload v1,
 * or counters registered): use wult_dpdec_decode(); -EINVAL as it.
 */
int wult_dpdec_decode_set(struct wult_dpdec *dp, const struct wult_pd_sample *s,
			  uint64_t metrics, double *out, const char **state);
/* The same for @n samples' RAW data (wult_pd_next_raws()), row by row
 * into @out (@stride doubles apart) and @state: those that decode, in
 * order (a payload shorter than the format is skipped). How many did, or
 * -EAGAIN exactly when wult_dpdec_decodes_sets() is 0. @metrics equal to
 * WULT_METRICS_SUMMARY decode fastest. */
int wult_dpdec_decode_raws(struct wult_dpdec *dp, const void *const *raw, const uint32_t *size,
			   unsigned int n, uint64_t metrics, unsigned int stride, double *out,
			   const char **state);
/* 1 when wult_dpdec_decode_set() applies to every payload (it returns
 * -EAGAIN on none), 0 when it applies to none. */
int wult_dpdec_decodes_sets(const struct wult_dpdec *dp);
/*
 * The metrics (WULT_METRIC_BIT() set) the decoder fills: those of the
 * loaded format's fields, plus, @with_counters (decoding samples with
 * wult_dpdec_decode()), those of the registered counters. Others stay NaN
 * on every datapoint, so a filter or report must not ask for them.
 */
uint64_t wult_dpdec_metrics(const struct wult_dpdec *dp, int with_counters);
/*
 * The wult:datapoint format text of payload version WULT_DP_VERSION (as
 * wult.ko's tracefs format file), for inputs that carry none.
 */
const char *wult_dpdec_builtin_format(void);
/* The name of a datapoint's method (WULT_M_SOURCE): "hrt", "tdt", "unknown". */
const char *wult_dpdec_source_name(unsigned int source);
/* Every method's name, for a message: "hrt, tdt, ipi, nic". */
const char *wult_dpdec_source_list(void);

#pragma GCC visibility pop

#endif
