/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult TSC: reading the x86 time stamp counter with a stated ordering,
 * deciding whether it can be trusted across the CPUs we measure on, and
 * turning ticks into nanoseconds with one multiply, no division, and no
 * drift over the whole 64-bit range.
 *
 * Typical use (Documentation/tsc.md has the details):
 *
 *	struct wult_tsc_calib cal;
 *	struct wult_tsc_conv conv;
 *	char msg[256];
 *
 *	wult_tsc_calibrate(NULL, &cal, msg, sizeof(msg));
 *	wult_tsc_conv_from_hz(&conv, cal.hz, msg, sizeof(msg));
 *	ns = wult_tsc_conv_ns(&conv, wult_tsc_read_ordered());
 *
 * Every function that can fail returns 0 or a negative errno and, when
 * msg is not NULL, writes a NUL-terminated explanation into msg[len].
 * Nothing here prints, exits or keeps global state.
 */
#ifndef WULT_TSC_H
#define WULT_TSC_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

/* ---- reading ------------------------------------------------------------
 *
 * Linux programs TSC_AUX with (numa_node << 12) | cpu, so the CPU id of a
 * rdtscp is its low 12 bits.
 */
#define WULT_TSC_AUX_CPU_MASK	0xfffu

/*
 * Plain rdtsc. No ordering: the CPU may read the counter before earlier
 * instructions finish or after later ones start. Cheapest; use it only where
 * a few dozen cycles of skew do not matter (e.g. spreading samples).
 */
static inline uint64_t wult_tsc_read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * lfence; rdtsc. The read happens after every earlier instruction has
 * completed locally (lfence is dispatch-serialising on Intel, and on AMD once
 * the kernel sets the LFENCE-serialising MSR bit, as Linux does). Later
 * instructions may still start before the read. This is what the kernel's
 * rdtsc_ordered() does; use it to stamp "after X happened".
 */
static inline uint64_t wult_tsc_read_ordered(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * rdtscp. The read waits until all earlier instructions have executed and
 * earlier loads are globally visible; later instructions may start before
 * it. Also returns the CPU the read was taken on (from TSC_AUX), so a
 * migration between choosing a CPU and reading its counter is detectable.
 */
static inline uint64_t wult_tsc_read_cpu(unsigned int *cpu)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	*cpu = aux & WULT_TSC_AUX_CPU_MASK;
	return ((uint64_t)hi << 32) | lo;
}

/*
 * rdtscp; lfence. Ordered on both sides: earlier instructions have executed
 * before the read and later ones (e.g. a store publishing the value) do not
 * start until it is done. The evaluation's probes use this.
 */
static inline uint64_t wult_tsc_read_fenced(unsigned int *cpu)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	*cpu = aux & WULT_TSC_AUX_CPU_MASK;
	return ((uint64_t)hi << 32) | lo;
}

/* ---- what the CPU and the kernel say ------------------------------------ */

struct wult_tsc_info {
	int rdtscp;			/* rdtscp with Linux's TSC_AUX: cpuid and cpuinfo */
	int constant_tsc;		/* rate does not follow P-states */
	int nonstop_tsc;		/* keeps counting in deep C-states */
	int tsc_known_freq;		/* kernel took the rate from cpuid/hypervisor */
	char clocksource[32];		/* clocksource0/current_clocksource */
	uint64_t kernel_khz;		/* the kernel's tsc_khz, 0 if not found */
	const char *kernel_khz_source;	/* where kernel_khz came from (static) */
};

int wult_tsc_info_get(struct wult_tsc_info *info, char *msg, size_t len);

/*
 * The kernel's TSC rate in kHz: from the perf mmap page of a self-monitoring
 * event (the kernel's own cyc2ns, exact), else the boot log ("tsc: Refined
 * TSC clocksource calibration" / "tsc: Detected ... MHz"), else cpuid leaf
 * 0x15. -ENOENT when none states it. *source (optional) names the origin.
 */
int wult_tsc_kernel_khz(uint64_t *khz, const char **source, char *msg, size_t len);

/* ---- conversion ----------------------------------------------------------
 *
 * ns = zero + ticks * whole + floor(ticks * frac / 2^64)     (modulo 2^64)
 *
 * i.e. floor(ticks * M / 2^64) + zero with M = whole * 2^64 + frac, the ns
 * per tick as a 64.64 fixed-point number. For a TSC above 1 GHz whole is 0
 * and, with zero 0 (every conversion built from a rate), it is one
 * 64 x 64 -> 128-bit multiply keeping the high half: no division, no
 * shift. Documentation/tsc.md proves what follows.
 *
 * From a rate hz, frac is rounded up (ceil(2^64 * (1e9 mod hz) / hz)), so
 * for every ticks in [0, max_ticks] (the whole 64-bit range for a GHz TSC)
 * the result is floor(ticks * 1e9 / hz) or one more, never anything else:
 * it is exact when ticks * 1e9 / hz is an integer and within 1 ns otherwise,
 * with no drift however large ticks grows. It is exactly the floor for every
 * ticks <= exact_ticks. The difference of two conversions at most
 * exact_ticks apart, anywhere in the range, is the exact interval's floor or
 * one more, the same two values exact floors give.
 *
 * From a perf mmap page the rate time_mult / 2^time_shift is a binary
 * fraction that frac holds without rounding: the result equals perf's own
 * formula for every 64-bit ticks value.
 *
 * The struct is public so the conversion can be inlined on hot paths; fill
 * it only through the constructors.
 */
struct wult_tsc_conv {
	uint64_t frac;		/* fractional ns per tick, in units of 2^-64 */
	uint64_t whole;		/* whole ns per tick: 0 for a TSC above 1 GHz */
	uint64_t zero;		/* ns added, modulo 2^64 (perf's time_zero) */
	int slow;		/* whole or zero is not 0 */
	uint64_t hz;		/* rate the parameters stand for (rounded for perf) */
	uint64_t max_ticks;	/* last ticks value converted without overflow */
	uint64_t exact_ticks;	/* the result is exactly the floor up to here */
};

static inline uint64_t wult_tsc_conv_ns(const struct wult_tsc_conv *c, uint64_t ticks)
{
	uint64_t ns = (uint64_t)(((unsigned __int128)ticks * c->frac) >> 64);

	/* A loop-invariant branch, so a calibrated GHz TSC pays one test for it. */
	if (__builtin_expect(c->slow, 0))
		ns += c->zero + ticks * c->whole;
	return ns;
}

/* From a rate in Hz (e.g. a calibration) or kHz (the kernel's tsc_khz). */
int wult_tsc_conv_from_hz(struct wult_tsc_conv *c, uint64_t hz, char *msg, size_t len);
int wult_tsc_conv_from_khz(struct wult_tsc_conv *c, uint64_t khz, char *msg, size_t len);

/*
 * From a perf mmap page (cap_user_time and cap_user_time_zero set), so that
 * wult_tsc_conv_ns() of a TSC stamp equals the perf sample time the kernel
 * would give it. Read under the page's seqlock. The kernel rewrites the
 * page when it changes its TSC parameters; call again after such events.
 * -EOPNOTSUPP when the page does not offer TSC time or uses the short-clock
 * (cap_user_time_short) form, which x86 TSC never does.
 */
int wult_tsc_conv_from_perf(struct wult_tsc_conv *c,
			    const volatile struct perf_event_mmap_page *pg,
			    char *msg, size_t len);

/* The same, from a dummy perf event on the calling thread (needs perf_event_open). */
int wult_tsc_conv_from_perf_self(struct wult_tsc_conv *c, char *msg, size_t len);

/* Seconds from the TSC value now until the conversion (or the TSC) wraps. */
double wult_tsc_conv_secs_to_wrap(const struct wult_tsc_conv *c, uint64_t now);

/* ---- calibration against CLOCK_MONOTONIC_RAW ---------------------------- */

struct wult_tsc_calib_opts {
	unsigned int windows;		/* measurements (default 9) */
	unsigned int window_us;		/* length of each (default 20000) */
	unsigned int reject_ppm;	/* floor of the outlier band (default 5) */
};

struct wult_tsc_calib {
	uint64_t hz;			/* mean of the windows kept */
	double spread_ppm;		/* max deviation of a kept window */
	unsigned int windows;		/* kept */
	unsigned int rejected;		/* outliers dropped */
	uint64_t duration_ns;
};

void wult_tsc_calib_opts_init(struct wult_tsc_calib_opts *opts);

/* opts may be NULL for the defaults; zero fields also take the default. */
int wult_tsc_calibrate(const struct wult_tsc_calib_opts *opts,
		       struct wult_tsc_calib *res, char *msg, size_t len);

/* ---- reliability evaluation --------------------------------------------- */

/* Defaults from wult_tsc_eval_opts_init(); Documentation/tsc.md explains each. */
struct wult_tsc_eval_opts {
	unsigned int probes;		/* CAS probes per window: 8192 */
	unsigned int min_triples;	/* usable triples per CPU and window: 32 */
	unsigned int max_triple_ticks;	/* wider triples were disturbed: 20000 */
	unsigned int good_windows;	/* undisturbed windows to collect: 4 */
	unsigned int max_windows;	/* windows to try: 1000 */
	unsigned int switch_rounds;	/* CPU-switching passes: 64 */
	unsigned int max_pace_ppm;	/* rate difference tolerated: 100 */
	unsigned int max_shift_ns;	/* shift tolerated for latency work: 1000 */
	unsigned int max_ms;		/* no new window after this, 0 never: 2000 */
};

/* Which method gave the tightest bound on the shift. */
enum wult_tsc_method {
	WULT_TSC_BY_NONE,		/* one CPU: nothing to bound */
	WULT_TSC_BY_CAS,		/* CAS-ordered probes: tens of ns */
	WULT_TSC_BY_SWITCHING,		/* CPU switching: tens of us on a VM */
};

/* Per CPU; shifts are TSC(cpu) - TSC(base cpu) in ticks. */
struct wult_tsc_eval_cpu {
	int cpu;
	int64_t shift_lo, shift_hi;	/* CAS probes: shift lies in [lo, hi] */
	uint64_t shift_bound;		/* tighter of max(|lo|, |hi|) of the two methods */
	enum wult_tsc_method method;	/* the one that gave it */
	unsigned long triples;		/* usable triples in the windows kept */
	int64_t switch_lo, switch_hi;	/* same, from CPU switching (loose) */
	uint64_t hz;			/* rate over the evaluation vs raw clock */
	double pace_ppm;		/* hz relative to the base CPU's */
};

struct wult_tsc_eval_summary {
	int base_cpu;
	unsigned int ncpus;
	uint64_t shift_bound;		/* worst CPU, ticks */
	uint64_t shift_bound_ns;
	enum wult_tsc_method method;	/* what bounded the worst CPU */
	unsigned long violations;	/* TSC went backwards between probes */
	unsigned long switch_violations;
	unsigned int windows_kept;	/* enough tight triples on every CPU */
	unsigned int windows_disturbed;	/* ended early, too few triples or migrated */
	unsigned int windows_violating;	/* windows with backward steps */
	int realtime;			/* its threads ran SCHED_FIFO (when permitted) */
	double max_pace_ppm;
	int advancing;			/* every CPU's TSC moved forward */
	uint64_t duration_ns;
	struct wult_tsc_info info;
};

struct wult_tsc_eval;

void wult_tsc_eval_opts_init(struct wult_tsc_eval_opts *opts);

/*
 * Evaluate the TSC on the CPUs in cpus (NULL: the calling thread's affinity
 * mask). The base CPU is the lowest. Does not change the caller's affinity.
 * A busy or overcommitted host does not make it fail: the bounds are then
 * looser (CPU switching instead of CAS probes) and the verdict may be
 * WULT_TSC_UNDECIDED.
 */
int wult_tsc_eval_run(const cpu_set_t *cpus, const struct wult_tsc_eval_opts *opts,
		      struct wult_tsc_eval **out, char *msg, size_t len);
void wult_tsc_eval_summary(const struct wult_tsc_eval *ev, struct wult_tsc_eval_summary *s);
/* idx in [0, ncpus); -EINVAL outside. */
int wult_tsc_eval_cpu(const struct wult_tsc_eval *ev, unsigned int idx,
		      struct wult_tsc_eval_cpu *out);
enum wult_tsc_verdict {
	WULT_TSC_UNFIT = 0,		/* a problem was shown: why lists each */
	WULT_TSC_FIT = 1,		/* why says how tight the shift is, and by what */
	WULT_TSC_UNDECIDED = 2,		/* nothing wrong shown, but the shift bound is too
					 * loose to call it fit (busy host): retry */
};

/* Test for == WULT_TSC_FIT: WULT_TSC_UNDECIDED is not 0 either. */
enum wult_tsc_verdict wult_tsc_eval_verdict(const struct wult_tsc_eval *ev, char *why, size_t len);
/* "CAS-ordered probes", "CPU switching", "a single CPU". */
const char *wult_tsc_method_name(enum wult_tsc_method m);
void wult_tsc_eval_free(struct wult_tsc_eval *ev);

#pragma GCC visibility pop

#endif
