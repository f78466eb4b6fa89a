/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the delayed-event source interface.
 *
 * A source arms, on the current CPU, one event that raises an interrupt at
 * a launch time, and says in which clock its times are: LTime (what it
 * actually programmed), TIntr (stamped by the source at the earliest point
 * of its interrupt it can reach, in untraced code, and handed to
 * wult_engine_intr() by a direct call), and the engine's TBI and TAI, which
 * the engine reads in the same clock. The engine knows nothing else of it,
 * so a new source is one new file and one line in wult_sources[]
 * (wult_source.c, the registry). A source with a clock of its own (a device's, see
 * wult_dev.h) converts its times to the engine's time base in its own ops:
 * the engine never tests which source it runs.
 */
#ifndef _WULT_SOURCE_H
#define _WULT_SOURCE_H

#include <linux/hrtimer.h>
#include <linux/types.h>

#include "../uapi/linux/wult.h"

struct wult_dp;

/* The clock of a source's times, hence of the engine's TBI and TAI. */
enum wult_clock {
	WULT_CLOCK_MONO,	/* CLOCK_MONOTONIC ns, ktime_get_ns() */
	WULT_CLOCK_TSC,		/* TSC cycles, rdtsc_ordered() */
};

struct wult_source {
	unsigned int id;	/* enum wult_source_id, in every datapoint;
				 * its name: wult_source_name(id)
				 */
	enum wult_clock clock;
	/*
	 * ns: the shortest distance arm() can program. The engine never asks
	 * for less (wult_rule_armed_ldist()) and records what it armed, so
	 * a source never clamps what it is given. 0: none.
	 */
	u64 min_ldist;
	/*
	 * Prepare every possible CPU. Process context, at module load. A
	 * failure (-ENODEV: nothing to measure with here) leaves the source
	 * out, with one line in the kernel log: the module loads without it
	 * and its events are refused with -ENODEV.
	 */
	int (*init)(void);
	/* Undo a successful init(); no event is armed anywhere by then. */
	void (*exit)(void);
	/*
	 * Can the source measure on this system? 0, or -EOPNOTSUPP from
	 * wult_refuse() saying why (wult_refusal.h). Process context, at
	 * each event's creation; optional.
	 */
	int (*usable)(void);
	/*
	 * A wult event using this source was created on @cpu / destroyed:
	 * take or release what the source needs while it has users there (a
	 * tracepoint probe, a device and its interrupt's affinity to @cpu).
	 * @dev: the event's device term (config2), 0 if none; a source that
	 * takes none refuses anything else. Process context, may sleep;
	 * optional.
	 */
	int (*get)(int cpu, u64 dev);
	void (*put)(int cpu);
	/*
	 * Arm this CPU's event @ldist ns from now; *@ltime: the launch time
	 * in the source's clock, as well as it is known now. IRQs off on the
	 * measured CPU, also from inside the event's own interrupt (through
	 * wult_engine_intr()); must not sleep.
	 */
	int (*arm)(u64 ldist, u64 *ltime);
	/*
	 * Optional: arm this CPU's event at @ltime, from inside the event's
	 * own interrupt, whose handler passed its clock read to
	 * wult_engine_intr() as TIntr in the source's clock (no timebase()).
	 * The engine then dates LTime from that read instead of having arm()
	 * read the clock again (hrt: a ktime_get_ns(), 45 instructions of
	 * every wake, Documentation/bench.md). Same context as arm().
	 */
	int (*arm_at)(u64 ltime);
	/* Disarm this CPU's event if armed, without waiting. IRQs off. */
	void (*cancel)(void);
	/*
	 * At each idle entry while armed, just before TBI, IRQs off: the
	 * hardware holds what was programmed for the coming wake. Update
	 * *@ltime with it, or return false if what is programmed is not this
	 * event (an earlier timer will wake the CPU first). Optional.
	 */
	bool (*at_idle)(u64 *ltime);
	/*
	 * Optional: an idle exit that was not the event's wake (early_wake:
	 * it stays armed and the CPU chooses a state again), IRQs off. Undo
	 * what at_idle() changed that the governor reads.
	 */
	void (*early_exit)(void);
	/*
	 * The time base, at the datapoint's emission (IRQs off, on the
	 * measured CPU), before any check of its times: TBI and TAI were
	 * read in @clock; LTime and TIntr are brought to it here by a source
	 * whose own clock differs (a device's: dp->ltime_err then bounds
	 * the conversion's error), which may also set WULT_DPF_* flags of
	 * its own. False drops the datapoint as invalid. Optional.
	 */
	bool (*timebase)(struct wult_dp *dp);
	/*
	 * Optional, for a source launched from another CPU (ipi), whose LTime
	 * is known only once the launch happened and which wakes the way the
	 * scheduler does: an interrupt, or, to a CPU that polls, only
	 * need_resched, its handler then running after the idle exit outside
	 * any interrupt. On the measured CPU, IRQs off, at each idle exit
	 * while armed and in the handler: false while not launched yet (an
	 * exit is then not its wake), else true with *@ltime.
	 */
	bool (*launched)(u64 *ltime);
	/* Optional: WULT_DPF_* flags the source adds to this CPU's datapoints. */
	u32 (*dp_flags)(void);
	/*
	 * Optional, for a source whose wake also wakes a task on the measured
	 * CPU (ipi waketask): at a valid datapoint's emission, IRQs off, on
	 * the measured CPU, does it wait for that task to run? True: the
	 * engine keeps the datapoint (the next one is armed as usual) until
	 * the task calls wult_engine_task_ran(), or the next datapoint, or
	 * the stop, emits it without a task.
	 */
	bool (*hold)(void);
};

#define WULT_SOURCE_DECL(id, name, value) \
	extern const struct wult_source wult_##name##_source;
WULT_SOURCES(WULT_SOURCE_DECL)
#undef WULT_SOURCE_DECL

/*
 * For a source whose event is an hrtimer, at idle entry (IRQs off, on the
 * timer's CPU): is @t the expiry the CPU's timer hardware is programmed
 * for, its hrtimer base's first? If not, an earlier timer (the tick, say,
 * whose interrupt is the same vector) wakes the CPU first. The hrtimer
 * core keeps that expiry in the per-CPU base, written on this CPU.
 */
static inline bool wult_hrtimer_first(const struct hrtimer *t)
{
	return READ_ONCE(t->base->cpu_base->expires_next) == hrtimer_get_expires(t);
}

/*
 * The expiry (CLOCK_MONOTONIC) the timer hardware of @t's CPU is
 * programmed for, read through @t's base. IRQs off, on @t's CPU.
 */
static inline ktime_t wult_hrtimer_next(const struct hrtimer *t)
{
	return READ_ONCE(t->base->cpu_base->expires_next);
}

/*
 * A source's event as a per-CPU pinned hard hrtimer, armed again from
 * inside its own callback when the engine arms the next datapoint there
 * (our interrupt after the idle exit, a hold-off's expiry): then only the
 * expiry is set, and the callback's return value restarts the timer as a
 * periodic hrtimer's does, which spares hrtimer_start()'s base lock,
 * removal and requeue (about 90 instructions a wake, bench.md). On the
 * timer's CPU, IRQs off.
 */
struct wult_hrtimer {
	struct hrtimer timer;
	bool restart;	/* armed from inside its running callback */
};

#define WULT_HRTIMER_MODE	HRTIMER_MODE_ABS_PINNED_HARD

/*
 * Expire at @ns (CLOCK_MONOTONIC), with no slack. The base runs @t's
 * callback only here, on @t's CPU: a timer of another CPU's that ran here
 * (migrated) is not @t, and is started anew.
 */
static inline void wult_hrtimer_start(struct wult_hrtimer *t, u64 ns)
{
	if (hrtimer_callback_running(&t->timer)) {
		hrtimer_set_expires(&t->timer, ns_to_ktime(ns));
		t->restart = true;
		return;
	}
	hrtimer_start_range_ns(&t->timer, ns_to_ktime(ns), 0, WULT_HRTIMER_MODE);
}

/* Disarm without waiting: a running callback restarts nothing. */
static inline void wult_hrtimer_try_cancel(struct wult_hrtimer *t)
{
	t->restart = false;
	hrtimer_try_to_cancel(&t->timer);
}

/*
 * The callback's return value, its last step: @t is this CPU's timer,
 * which wult_hrtimer_start() marked only if the callback running is its.
 */
static inline enum hrtimer_restart wult_hrtimer_fn_done(struct wult_hrtimer *t)
{
	if (!t->restart)
		return HRTIMER_NORESTART;
	t->restart = false;
	return HRTIMER_RESTART;
}

/**
 * wult_source_by_id() - the source of a "source" config term
 * @id: an enum wult_source_id, from user space: any value
 *
 * Return: the registry's source, or NULL for an id no source has.
 */
const struct wult_source *wult_source_by_id(unsigned int id);

/**
 * wult_source_present() - did @src's init() succeed?
 * @src: a source of the registry
 *
 * Return: false if it did not, and its events are refused (-ENODEV).
 */
bool wult_source_present(const struct wult_source *src);

/**
 * wult_source_claim() - a wult event of @src is being created on @cpu
 * @cpu: the event's CPU
 * @src: its source
 *
 * Process context. A CPU is measured with one source at a time: an event
 * of another source than the CPU's existing events' is refused when it is
 * opened rather than never scheduled.
 *
 * Return: 0, or -EBUSY while @cpu has events of another source.
 */
int wult_source_claim(int cpu, const struct wult_source *src);

/**
 * wult_source_release() - undo a successful wult_source_claim()
 * @cpu: the event's CPU
 * @src: its source
 */
void wult_source_release(int cpu, const struct wult_source *src);

/**
 * wult_source_tsc_usable() - can a TSC-clocked source's times be trusted?
 * @name: the source, for the refusal's reason
 * @cross_cpu: its times come from two CPUs' TSCs (LTime on another CPU)
 *
 * For a source's usable(): the kernel knows the TSC rate (every TSC time
 * is converted with tsc_khz) and has not marked the TSC unstable (or, for
 * @cross_cpu, unsynchronised between CPUs).
 *
 * Return: 0, or -EOPNOTSUPP with the reason kept (wult_refuse()).
 */
int wult_source_tsc_usable(const char *name, bool cross_cpu);

/**
 * wult_sources_init() - init() every source of the registry
 *
 * Process context, at module load. A failure leaves that source out, with
 * one line in the kernel log, not the module.
 */
void wult_sources_init(void);

/**
 * wult_sources_exit() - exit() every source whose init() succeeded
 *
 * Process context, when no event of any source exists any more.
 */
void wult_sources_exit(void);

/**
 * wult_engine_intr() - the delayed event's interrupt reached the engine
 * @tsc: TSC cycles, taken at the earliest point of the interrupt the
 *	source reaches
 * @tintr: TIntr in the source's clock, taken at the same point
 *
 * Called by a source's interrupt handler on the CPU that armed the event,
 * IRQs off. Defined by the engine (wult_engine.c).
 */
void wult_engine_intr(u64 tsc, u64 tintr);

/**
 * wult_engine_lost() - the armed event's interrupt will not come
 *
 * Called by a source that saw its armed event lost (a device's interrupt
 * that did not come by a backstop timer, a device gone), on the measured
 * CPU with IRQs off, the event disarmed: the datapoint ends, counted
 * other_wake (or the hold-off does), and the next one is armed, so that a
 * lost event costs one datapoint, not the CPU's measuring. Defined by the
 * engine (wult_engine.c).
 */
void wult_engine_lost(void);

/*
 * Called by the task a source's wake woke (its hold()), on the measured
 * CPU with IRQs off: @tsc (TSC cycles) was its first read once it ran.
 * Emits the datapoint held for it with ttask, if there is one.
 */
void wult_engine_task_ran(u64 tsc);

#endif /* _WULT_SOURCE_H */
