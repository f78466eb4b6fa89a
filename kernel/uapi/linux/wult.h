/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * wult: the one contract between wult.ko and user space.
 *
 * Each datapoint is delivered as the raw payload of a perf sample of the
 * "wult" PMU (PERF_SAMPLE_RAW) and as the wult:datapoint tracepoint. Both
 * carry the same bytes: an 8-byte common header (struct trace_entry: type,
 * flags, preempt_count, pid) followed by struct wult_dp. The tracepoint's
 * format file therefore decodes either. Readers should decode through that
 * format (fields may be appended in later versions); this struct describes
 * version WULT_DP_VERSION.
 *
 * Time base: ltime, tbi, tai and tintr are nanoseconds of the clock of the
 * delayed-event source that made the datapoint (wult_dp.source): for
 * WULT_SOURCE_HRT CLOCK_MONOTONIC (ktime_get()), the clock the hrtimer
 * expires on; for WULT_SOURCE_TDT the TSC, converted as
 * cycles * 1000000 / tsc_khz (so ns since the TSC's reset), the clock of
 * the TSC deadline; for WULT_SOURCE_IPI the TSC too (LTime read on the
 * launcher CPU, the others on the measured one); for WULT_SOURCE_NIC the
 * TSC likewise, LTime being the device-clock value the interrupt was armed
 * at, converted to the TSC (within ltime_err). Only differences of these
 * four are meaningful, and only within one datapoint's source. Version 1
 * records have no source field: they are WULT_SOURCE_HRT. The overhead
 * stamps and tsc_delta are TSC cycles; convert with tsc_khz: ns = cycles * 1e6 / tsc_khz
 * (error below 1 ns per 1000 cycles for tsc_khz above 1 GHz, plus the kernel's
 * tsc_khz calibration error, typically below 50 ppm).
 */
#ifndef _UAPI_LINUX_WULT_H
#define _UAPI_LINUX_WULT_H

#include <linux/types.h>

#define WULT_DP_VERSION		4	/* 2: source appended; 3: ltime_err; 4: ttask */

/* Size of the common header (struct trace_entry) before struct wult_dp. */
#define WULT_DP_HDR_SIZE	8

/*
 * The "wult" PMU's config terms, one X(name, word, lo, hi) line each: the
 * term "name" is bits lo-hi of perf_event_attr's word (config, config1 or
 * config2). sysfs format/<name> says "<word>:<lo>-<hi>" ("<word>:<lo>" for
 * one bit); the kernel's accessors and checks, libwult's decoding and the
 * Python mirror (scripts/perf/wult_perf.py, tests/host/test_cfg_terms.sh)
 * follow this list. config2 is the source's own: each source reads it its
 * way and refuses what it does not take, so its terms overlap where their
 * sources differ. A new term: Documentation/kernel.md, "Adding a term".
 */
#define WULT_CFG_TERMS(X)						\
	X(ldist_min, config, 0, 15)	/* us, the smallest LDist */	\
	X(ldist_max, config, 16, 31)	/* us; 0: WULT_LDIST_DEF_MAX_US */ \
	X(kind, config, 32, 39)		/* enum wult_kind */		\
	X(source, config, 40, 43)	/* enum wult_source_id */	\
	X(state, config, 48, 55)	/* idle state index */		\
	X(band_lo, config1, 0, 31)	/* us, inclusive */		\
	X(band_hi, config1, 32, 63)	/* us, exclusive; 0: no bound */ \
	X(launcher, config2, 0, 15)	/* ipi: the launcher CPU */	\
	X(noshadow, config2, 16, 16)	/* ipi: no shadow timer */	\
	X(waketask, config2, 17, 17)	/* ipi: the wake wakes a task */ \
	X(device, config2, 0, 31)	/* nic: (domain << 16) | (bus << 8) | devfn */

/* The index of each perf_event_attr config word, as terms name them. */
#define WULT_CFG_WORD_config	0
#define WULT_CFG_WORD_config1	1
#define WULT_CFG_WORD_config2	2
#define WULT_CFG_WORDS		3

/* The bits lo-hi, at bit 0. */
#define WULT_CFG_BITS(lo, hi)	(~0ULL >> (63 - (hi) + (lo)))

/*
 * Per term: wult_cfg_<name>(w), its value in its word's value w;
 * wult_cfg_<name>_put(v), v in place in its word; wult_cfg_<name>_word(),
 * its word's index; wult_cfg_<name>_max(), its largest value.
 */
#define WULT_CFG_ACCESSORS(name, word, lo, hi)				\
static inline __u64 wult_cfg_##name(__u64 w)				\
{									\
	return (w >> (lo)) & WULT_CFG_BITS(lo, hi);			\
}									\
static inline __u64 wult_cfg_##name##_put(__u64 v)			\
{									\
	return (v & WULT_CFG_BITS(lo, hi)) << (lo);			\
}									\
static inline unsigned int wult_cfg_##name##_word(void)		\
{									\
	return WULT_CFG_WORD_##word;					\
}									\
static inline __u64 wult_cfg_##name##_max(void)			\
{									\
	return WULT_CFG_BITS(lo, hi);					\
}

WULT_CFG_TERMS(WULT_CFG_ACCESSORS)
#undef WULT_CFG_ACCESSORS

/* Every bit of config word @word (WULT_CFG_WORD_*) some term uses. */
static inline __u64 wult_cfg_known(unsigned int word)
{
	__u64 m = 0;

#define WULT_CFG_KNOWN_BITS(name, w, lo, hi)				\
	if (word == WULT_CFG_WORD_##w)					\
		m |= WULT_CFG_BITS(lo, hi) << (lo);
	WULT_CFG_TERMS(WULT_CFG_KNOWN_BITS)
#undef WULT_CFG_KNOWN_BITS
	return m;
}

/*
 * The delayed-event sources, one X(ID, name, value) line each: the
 * "source" term's value (enum wult_source_id, also wult_dp.source) and
 * the name the kernel, wult record --method, wult report and the Python
 * mirror use for it. A new source: Documentation/kernel.md, "Adding a
 * source".
 */
#define WULT_SOURCES(X)							\
	X(HRT, hrt, 0)	/* high resolution timer, CLOCK_MONOTONIC */	\
	X(TDT, tdt, 1)	/* local APIC TSC deadline, TSC */		\
	X(IPI, ipi, 2)	/* a wake sent from a launcher CPU, TSC */	\
	X(NIC, nic, 3)	/* a PCI device's clock, TSC; needs the device term */

/* The delayed-event source a datapoint was made with (wult_dp.source). */
enum wult_source_id {
#define WULT_SOURCE_ID(id, name, value) WULT_SOURCE_##id = value,
	WULT_SOURCES(WULT_SOURCE_ID)
#undef WULT_SOURCE_ID
	WULT_SOURCE_MAX
};

/* A source's name ("hrt"...), or NULL for an id no source has. */
static inline const char *wult_source_name(unsigned int id)
{
	static const char *const names[WULT_SOURCE_MAX] = {
#define WULT_SOURCE_NAME(id, name, value) \
		[value] = #name,
		WULT_SOURCES(WULT_SOURCE_NAME)
#undef WULT_SOURCE_NAME
	};

	return id < WULT_SOURCE_MAX ? names[id] : 0;
}

/* What a wult event counts or samples; selected by the "kind" format term. */
enum wult_kind {
	WULT_KIND_DATAPOINTS = 0,	/* one count (and sample) per datapoint */
	WULT_KIND_WAKE_SUM = 1,		/* counting only: + TAI - LTime, ns */
	WULT_KIND_INTR_SUM = 2,		/* counting only: + TIntr - LTime, ns */
	WULT_KIND_BRANCHES = 3,		/* one wult:wake_branches record per datapoint */
	WULT_KIND_IDLE_TIME = 4,	/* counting only: ns in idle state "state" */
	WULT_KIND_IDLE_ENTRIES = 5,	/* counting only: entries of idle state "state" */
	WULT_KIND_WAKE_BAND = 6,	/* datapoints with TAI - LTime in the band */
	WULT_KIND_INTR_BAND = 7,	/* datapoints with TIntr - LTime in the band */
	WULT_KIND_IDLE_IRQ_TIME = 8,	/* counting only: ns in interrupts taken in
					 * idle state "state" (part of its idle_time)
					 */
	WULT_KIND_IDLE_IRQS = 9,	/* counting only: those interrupts */
	WULT_KIND_EXIT_SUM = 10,	/* counting only: + TIntr - TAI, ns, of the
					 * datapoints of state "state" whose
					 * interrupt ran after the idle exit
					 */
	WULT_KIND_EXIT_N = 11,		/* counting only: those datapoints */
	WULT_KIND_MAX,
};

#define WULT_LDIST_DEF_MIN_US	0	/* 0 us */
#define WULT_LDIST_DEF_MAX_US	4000	/* 4 ms */
#define WULT_LDIST_LIMIT_US	50000	/* 50 ms */
/*
 * A CPU's LDist floor (debugfs stats floor_ns, floor_n) is known, and an
 * event whose LDist max is below it refused (EINVAL), once it was measured
 * over this many arm-to-idle intervals. Documentation/kernel.md.
 */
#define WULT_FLOOR_MIN_N	100

/* Idle states the accounting kinds and the histograms know (CPUIDLE_STATE_MAX). */
#define WULT_IDLE_STATES	10

/*
 * wult.ko's latency histograms: one debugfs folder per metric (the names,
 * in this order, for the kernel and for "wult hist").
 */
enum wult_hist_metric {
	WULT_HM_WAKE,		/* TAI - LTime, ns */
	WULT_HM_INTR,		/* TIntr - LTime, ns */
	WULT_HM_SILENT,		/* LTime - TBI, ns */
	WULT_HM_TAI_INTR,	/* TIntr - TAI, ns: half its bins below zero */
	WULT_HM_MAX,
};

#define WULT_HM_NAMES { "wake_latency", "intr_latency", "silent_time", "tai_to_intr" }

/* wult_dp.flags (hex: BIT() does not exist in user space) */
#define WULT_DPF_MPERF		0x1U /* mperf_delta is valid */
#define WULT_DPF_SMI		0x2U /* smi_cnt is valid */
#define WULT_DPF_NMI		0x4U /* nmi_cnt is valid */
#define WULT_DPF_TSC_STABLE	0x8U /* TSC constant, nonstop, stable: TSC
				      * fields convert exactly with tsc_khz
				      */
#define WULT_DPF_TDT_EMULATED	0x10U /* tdt: LTime computed, not read from
				       * the TSC deadline MSR (tdt=emulated,
				       * or a timer-stop state)
				       */
#define WULT_DPF_FLAG_WAKE	0x20U /* ipi: the wake was a need_resched write
				       * to a polling CPU, no interrupt: tintr
				       * is when the queued call ran after the
				       * idle exit, IntrLatency does not exist
				       */
#define WULT_DPF_SHADOW		0x40U /* ipi: the governor saw a shadow timer
				       * at the launch time (else it chose
				       * without knowing of the launch)
				       */
#define WULT_DPF_TASK		0x80U /* ipi waketask: the wake was a
				       * wake_up_process() of a kernel thread
				       * bound to the CPU; ttask is when it ran
				       */

/*
 * The datapoint's fields, the one list everything else is made from:
 * X(type, name, version) for each field in payload order, type being the
 * kernel's u64/s32/u32 (struct wult_dp uses __u64/__s32/__u32). The
 * struct below, the wult:datapoint tracepoint's entries and assignments
 * (wult_trace.h), its layout checks (wult_trace.c), libwult's field table
 * (lib/datapoint/dpdec.c) and its built-in format
 * (lib/datapoint/dpdec_format.c) expand it.
 *
 * wake_latency and intr_latency are derived, for ftrace hist triggers and
 * event filters, which cannot key on an expression: the raw latencies, not
 * overhead-compensated; decoders compute their own. ltime_err (version 3;
 * version 2 had the same bytes "reserved", 0) bounds the error of LTime's
 * conversion from a device's clock to the time base (WULT_SOURCE_NIC); 0
 * where LTime is read in it. ttask (version 4): when the task an ipi
 * waketask wake woke ran (WULT_DPF_TASK), its first TSC read after
 * schedule() returned, in the time base above; 0 where there is no task
 * (RunLatency does not exist).
 *
 * Appending a field is one line, above the list's end. It also needs:
 * WULT_DP_VERSION raised and the field's version its value, the field set
 * in the engine, Documentation/kernel.md's payload section, scripts/perf/wult_perf.py's
 * struct (tests/host/test_dp_fields.sh fails until it matches), and a
 * metric in lib/datapoint/metrics.c if readers should see it. Fields are
 * never reordered or removed: readers of older payloads depend on the
 * offsets.
 */
#define WULT_DP_FIELDS(X)						\
	X(u64, ltime, 1)	/* ns: launch time, the timer's expiry */	\
	X(u64, tbi, 1)		/* ns: time before idle (last idle entry) */ \
	X(u64, tai, 1)		/* ns: time after idle (idle exit probe) */ \
	X(u64, tintr, 1)	/* ns: time in the timer interrupt handler */ \
	X(u64, ldist, 1)	/* ns: launch distance, ltime - arm time */ \
	X(u64, ai_ts1, 1)	/* TSC: after-idle probe entry */	\
	X(u64, ai_ts2, 1)	/* TSC: after-idle probe end (TAI between) */ \
	X(u64, intr_ts1, 1)	/* TSC: timer interrupt handler entry */ \
	X(u64, intr_ts2, 1)	/* TSC: handler end (TIntr between) */	\
	X(u64, tsc_delta, 1)	/* TSC cycles from TBI to TAI */	\
	X(u64, mperf_delta, 1)	/* MPERF cycles, TBI to TAI (WULT_DPF_MPERF) */ \
	X(u32, cpu, 1)		/* CPU measured */			\
	X(s32, req_cstate, 1)	/* requested idle state index (cpu_idle) */ \
	X(u32, intr_off, 1)	/* 1: TAI taken before the interrupt ran */ \
	X(u32, flags, 1)	/* WULT_DPF_* */			\
	X(u32, smi_cnt, 1)	/* SMIs, TBI to datapoint (WULT_DPF_SMI) */ \
	X(u32, nmi_cnt, 1)	/* NMIs, TBI to datapoint (WULT_DPF_NMI) */ \
	X(u32, tsc_khz, 1)	/* kernel's TSC frequency, kHz */	\
	X(u32, seq, 1)		/* per-CPU datapoint sequence number */	\
	X(u64, wake_latency, 1)	/* ns: TAI - LTime (WakeLatencyRaw), derived */ \
	X(u64, intr_latency, 1)	/* ns: TIntr - LTime (IntrLatencyRaw), derived */ \
	X(u32, source, 2)	/* enum wult_source_id: the time base above */ \
	X(u32, ltime_err, 3)	/* ns: bound on LTime's conversion error */ \
	X(u64, ttask, 4)	/* ns: when the woken task ran (WULT_DPF_TASK) */ \
	/* (new fields above this line, each with its version) */

#define WULT_DP_MEMBER(type, name, version)	__##type name;

struct wult_dp {
	WULT_DP_FIELDS(WULT_DP_MEMBER)
};

/*
 * Branch context of a wake (events of kind WULT_KIND_BRANCHES and the
 * wult:wake_branches tracepoint): the last-branch records (LBR) as they were at
 * the first code wult ran after the wake, in the timer interrupt handler
 * (IntrOff = 0) or in the idle exit probe (IntrOff = 1). Delivered once per
 * datapoint, just before it, with the datapoint's cpu and seq. Like
 * datapoints, each record starts with the 8-byte common header.
 */
#define WULT_BR_MAX		32	/* entries in wult_branches.from/to */

/* wult_branches.flags */
#define WULT_BRF_INTR		0x1U /* taken in the timer interrupt handler */
#define WULT_BRF_ARCH		0x2U /* architectural LBR (else model-specific) */
#define WULT_BRF_FAKE		0x4U /* synthetic, module parameter lbr=fake */
#define WULT_BRF_OFF		0x8U /* LBR was not recording: nr is 0 */
#define WULT_BRF_PMI		0x10U /* a PMI came during the read: nr is 0 */

struct wult_branches {
	__u64 ltime;		/* ns: the datapoint's LTime */
	__u32 cpu;		/* the datapoint's CPU */
	__u32 seq;		/* the datapoint's seq */
	__u32 nr;		/* valid entries in from/to, youngest first */
	__u32 flags;		/* WULT_BRF_* */
	__u64 from[WULT_BR_MAX];	/* branch source addresses */
	__u64 to[WULT_BR_MAX];		/* branch target addresses */
};

#endif /* _UAPI_LINUX_WULT_H */
