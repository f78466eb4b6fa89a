/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the validity rules of a datapoint, as pure functions of what the
 * engine observed. They hold no state and call nothing, so that the unit
 * tests (tests/unit/test_rules.c) run them on crafted values: a guest
 * cannot produce every case (posted interrupts, Hyper-V vectors, counter
 * wraps).
 *
 * A datapoint has two halves: our interrupt and the idle exit (TAI), in
 * either order. Interrupt counts are the CPU's interrupt counters summed
 * modulo 2^32 (each counter is a u32 that may wrap); NMIs are counted
 * apart. Every rule that keeps a datapoint requires that nothing but our
 * interrupt was handled from TBI to the second half.
 */
#ifndef _WULT_RULES_H
#define _WULT_RULES_H

#include "../uapi/linux/wult.h"

enum wult_verdict {
	WULT_KEEP,		/* go on with this datapoint */
	WULT_EARLY_WAKE,	/* not our wake: keep the event armed */
	WULT_STALE_TAI,		/* something else ended the idle period */
	WULT_OTHER_INTR,	/* another interrupt or an NMI between the halves */
	WULT_OTHER_WAKE,	/* an exit after LTime that may not be our wake */
	WULT_TSC_UNSTABLE,	/* TSC times, and the kernel marked the TSC unstable */
	WULT_NO_WAIT,		/* the state was seen returning without waiting */
	/* Drop reasons decided by the engine itself, not by these rules: */
	WULT_NOT_IDLE,		/* LTime came before the CPU was idle */
	WULT_INVALID,		/* times out of order, or LTime unknown */
};

/* Counter delta across a u32 wrap. */
static inline u32 wult_delta32(u32 now, u32 then)
{
	return now - then;
}

/*
 * Our interrupt arrived inside the idle period (first half, IntrOff = 0).
 * A halting state ends at its first interrupt, so ours must be the only one
 * since TBI, and the timer must have been programmed for our event at TBI
 * (@programmed): else the interrupt was raised for an earlier timer (the
 * tick, same vector) and ran ours too because it had expired by then. One
 * whose thread advertises polling (@polling: TIF_POLLING_NRFLAG, read in
 * our handler; an mwait state entered with IRQs on, such as intel_idle's
 * C1 on SKX and ICX) also ends on a remote wakeup, which then only sets
 * need_resched and sends no interrupt: need_resched already set
 * (@resched_set) means that wakeup ended it, or was ending it, when ours
 * came. A polling state (@polls: POLL) handles other interrupts and keeps
 * polling until need_resched: it is ours unless need_resched was already
 * set.
 */
static inline enum wult_verdict
wult_rule_intr_in_idle(bool polls, bool polling, bool resched_set, u32 irqs,
		       u32 nmis, bool programmed)
{
	if (polls)
		return resched_set ? WULT_STALE_TAI : WULT_KEEP;
	if (irqs != 1 || nmis)
		return WULT_STALE_TAI;
	if (!programmed || (polling && resched_set))
		return WULT_OTHER_WAKE;
	return WULT_KEEP;
}

/*
 * The idle exit after our interrupt (second half, IntrOff = 0). @irqs and
 * @nmis count from our handler to TAI. A TAI taken before our handler ran
 * (the exit probe ran with interrupts on and our interrupt hit it) means
 * the CPU was already leaving idle for another reason.
 */
static inline enum wult_verdict
wult_rule_exit_after_intr(u64 tai, u64 tintr, u32 irqs, u32 nmis)
{
	if (tai < tintr)
		return WULT_STALE_TAI;
	return irqs == 0 && nmis == 0 ? WULT_KEEP : WULT_OTHER_INTR;
}

/*
 * The idle exit before our interrupt (first half, IntrOff = 1). It can be
 * our wake only if LTime has passed, no interrupt was handled since TBI,
 * the state does not poll (a poll also ends on a remote wakeup, with no
 * interrupt), and the exit runs with interrupts masked: with interrupts on,
 * a pending interrupt would have been taken before the exit.
 *
 * Past LTime that is still not enough: something else may have woken the
 * CPU inside [LTime - exit latency, LTime], and our interrupt, pending by
 * then, would pass rule D with a WakeLatency too short by up to the exit
 * latency. So the wake must be ours alone: at TBI the CPU's timer was
 * programmed for our event (@programmed: not for an earlier timer, such
 * as the tick, whose interrupt is the same vector as ours), need_resched
 * is not set (@resched: a remote wakeup or a cross-CPU call queued to a
 * CPU that advertises polling, as mwait states do, sets it and sends no
 * interrupt), and exactly one vector is pending in the local APIC
 * (@pending, < 0 when it cannot be read): ours. Nothing pending means no
 * interrupt caused the exit; a second vector, say a device's below ours,
 * may be what woke the CPU, and ours, of higher priority, is handled first.
 */
static inline enum wult_verdict
wult_rule_exit_first(u64 tai, u64 ltime, bool polls, bool irqs_on, u32 irqs,
		     u32 nmis, bool programmed, bool resched, int pending)
{
	if (tai < ltime || polls || irqs_on || irqs || nmis)
		return WULT_EARLY_WAKE;
	if (!programmed || resched || (pending >= 0 && pending != 1))
		return WULT_OTHER_WAKE;
	return WULT_KEEP;
}

/*
 * Rule N: did the state of an idle period wait? An exit before LTime (not
 * our wake) of a state that neither polls nor runs with IRQs on, with
 * nothing handled since TBI (no interrupt, no NMI), need_resched clear
 * (@resched) and nothing pending in the local APIC (@pending, < 0 when it
 * cannot be read), had no cause: the state returned without waiting
 * (acpi_idle's C2 or C3 reading an I/O port that the platform answers at
 * once, as QEMU's does). Such a state cannot be told to have waited for our
 * interrupt either: the engine drops an exit of it past LTime in the same
 * datapoint (no_wait) instead of taking its TAI for our wake.
 */
static inline bool wult_rule_no_cause(bool polls, bool irqs_on, u32 irqs,
				      u32 nmis, bool resched, int pending)
{
	return !polls && !irqs_on && !irqs && !nmis && !resched && pending == 0;
}

/*
 * The idle exit before the handler, for a source that wakes as the
 * scheduler does (ipi: a cross-CPU call, launched from another CPU, whose
 * LTime has passed): to a CPU that advertises polling the kernel sends no
 * interrupt and only sets need_resched, which ends the poll. Such an exit
 * is our wake (WULT_DPF_FLAG_WAKE) if need_resched is set (@resched),
 * nothing is pending in the local APIC (@pending: an interrupt pending
 * would be an interrupt wake, rule C's case) and nothing was handled since
 * TBI. Another remote wakeup inside [LTime, TAI] cannot be told apart, and
 * would be woken by the same write.
 */
static inline bool wult_rule_flag_wake(bool resched, int pending, u32 irqs,
				       u32 nmis)
{
	return resched && pending == 0 && irqs == 0 && nmis == 0;
}

/*
 * Its handler after such an exit, run by the idle loop's flush of the
 * cross-CPU call queue: no interrupt at all since TAI, else an interrupt
 * handler ran it, or something else came between.
 */
static inline enum wult_verdict wult_rule_run_after_flag(u32 irqs, u32 nmis)
{
	return irqs == 0 && nmis == 0 ? WULT_KEEP : WULT_OTHER_INTR;
}

/*
 * Our interrupt after the idle exit (second half, IntrOff = 1): it must be
 * the first interrupt since TAI. @irqs counts ours.
 */
static inline enum wult_verdict wult_rule_intr_after_exit(u32 irqs, u32 nmis)
{
	return irqs == 1 && nmis == 0 ? WULT_KEEP : WULT_OTHER_INTR;
}

/*
 * At idle entry, for a source whose event is not a CPU timer (nic: a
 * device's): LTime holds if no timer is programmed to expire before it.
 * @next: the CPU's first timer expiry; @ltime: the event's latest time,
 * in the same clock. A timer due later cannot wake the CPU before the
 * event; if it expires before the idle exit, its vector is pending
 * beside the event's and rule C drops the datapoint.
 */
static inline bool wult_rule_timer_after(u64 next, u64 ltime)
{
	return next >= ltime;
}

/*
 * A device source's interrupt (nic) is the armed event's only if it came
 * at the event's time or later: @tintr >= @ltime less @err, the bound of
 * LTime's conversion from the device's clock (all TSC cycles). One
 * handled earlier was raised for the previous event: the engine dropped
 * that datapoint at its idle exit, IRQs off (rule C), and armed the next
 * before the pending interrupt could run. Taken for the new event's, it
 * would end it not_idle and leave nothing armed on the device.
 */
static inline bool wult_rule_dev_intr_ours(u64 tintr, u64 ltime, u64 err)
{
	return tintr + err >= ltime;
}

/*
 * The LDist floor of a CPU: the shortest time from arming an event to the
 * CPU's next idle entry (TBI) seen so far, over @n such intervals. The arm
 * is where a datapoint ends (or measuring starts): the rest of the
 * interrupt or exit probe, the idle loop and the governor lie between.
 * A datapoint needs LTime > TBI, that is LDist > arm-to-TBI: an event
 * whose LDist is below the floor fires before the CPU is idle (not_idle),
 * and a range wholly below it never yielded a datapoint on that CPU.
 */
static inline u64 wult_floor_update(u64 floor, u64 n, u64 arm_to_tbi)
{
	return n && floor <= arm_to_tbi ? floor : arm_to_tbi;
}

/*
 * Is an LDist range up to @ldist_max (ns) below the floor? Only once the
 * floor is known, WULT_FLOOR_MIN_N intervals: until then, nothing is.
 */
static inline bool wult_rule_ldist_unreachable(u64 ldist_max, u64 floor, u64 n)
{
	return n >= WULT_FLOOR_MIN_N && ldist_max < floor;
}

/*
 * Hold-offs (ns): instead of arming the next datapoint at once, the
 * source is armed this far ahead for an expiry that only arms it.
 *
 * Our interrupt found the CPU running a task: a busy CPU with a short
 * LDist would otherwise take an interrupt every few microseconds, none of
 * them a datapoint. One ms bounds that to about two interrupts per ms
 * (the hold-off's and the datapoint's) and resumes measuring within a ms
 * of the CPU going idle.
 */
#define WULT_BUSY_HOLDOFF_NS	1000000ULL
/*
 * The event expired inside the very interrupt that armed it (its LDist
 * was shorter than the rest of that handler): re-arming at once lets the
 * hrtimer core run it again in the same interrupt, and after three such
 * passes it reports a hang ("hrtimer: interrupt took"). Just long enough
 * to leave the interrupt.
 */
#define WULT_LOOP_HOLDOFF_NS	20000ULL

/* What ends a datapoint leads to, for the next one. */
enum wult_next {
	WULT_NEXT_ARM,		/* arm it now */
	WULT_NEXT_HOLD_OFF,	/* arm it after wult_rule_holdoff_ns() */
	WULT_NEXT_NONE,		/* arm nothing until an event is started */
};

/*
 * @started: some wult event of the CPU is started (perf's ->stop, as for
 * a stopped, throttled or frequency-adjusted event, keeps an event in the
 * CPU's list but must not let it drive the CPU); @not_idle: the datapoint
 * ended because our interrupt found the CPU out of idle; @idle_task: that
 * interrupt came in the idle task, between two idle periods and about to
 * idle again (a short LDist's normal drop), not busy; @same_intr: it
 * came inside the interrupt that armed the event (no interrupt between).
 */
static inline enum wult_next wult_rule_next(bool started, bool not_idle,
					    bool idle_task, bool same_intr)
{
	if (!started)
		return WULT_NEXT_NONE;
	if (not_idle && (!idle_task || same_intr))
		return WULT_NEXT_HOLD_OFF;
	return WULT_NEXT_ARM;
}

/* The hold-off of a WULT_NEXT_HOLD_OFF, ns. */
static inline u64 wult_rule_holdoff_ns(bool idle_task)
{
	return idle_task ? WULT_LOOP_HOLDOFF_NS : WULT_BUSY_HOLDOFF_NS;
}

/*
 * An idle exit arms the next datapoint if nothing is in flight (armed,
 * fired and waiting for its exit, or held off) while an event is started:
 * after a failed arm, measuring resumes at the CPU's next wake instead of
 * never.
 */
static inline bool wult_rule_rearm_at_exit(bool started, bool in_flight)
{
	return started && !in_flight;
}

/* What tdt's TSC deadline MSR, read at an idle entry, says of the wake. */
enum wult_tdt_ltime {
	WULT_TDT_LTIME_MSR,	/* our deadline: LTime is the MSR's value */
	WULT_TDT_LTIME_COMPUTED, /* local timer off: LTime is the expected one */
	WULT_TDT_LTIME_OTHER,	/* another timer's deadline: no known LTime */
};

/*
 * @dl: the MSR; @expect: the deadline the kernel should have programmed
 * for our event; @tol: how far off (TSC cycles) still counts as ours.
 * While our hrtimer is pending the clock event device is programmed, so a
 * zero MSR means it was shut down (lapic_timer_shutdown() zeroes it) by
 * tick_broadcast_enter(), which runs before the idle entry probe: a
 * timer-stop state, whose wake the broadcast device delivers at the
 * hrtimer's expiry, the deadline expected.
 */
static inline enum wult_tdt_ltime wult_rule_tdt_ltime(u64 dl, u64 expect,
						      u64 tol)
{
	if (!dl)
		return WULT_TDT_LTIME_COMPUTED;
	if (dl + tol < expect || dl > expect + tol)
		return WULT_TDT_LTIME_OTHER;
	return WULT_TDT_LTIME_MSR;
}

/*
 * A TSC-clocked source converts its times with tsc_khz: unusable while
 * the kernel does not know the TSC rate (tsc_khz 0, e.g. calibration
 * failed), where the conversion would divide by zero.
 */
static inline bool wult_rule_tsc_rate_known(u32 tsc_khz)
{
	return tsc_khz != 0;
}

/*
 * TSC cycles convert to ns with one tsc_khz only if the TSC ticks at a
 * constant rate (@constant), in every C-state (@nonstop), and the kernel
 * has not marked it unstable (@unstable: mark_tsc_unstable(), which the
 * clocksource watchdog may call at any time after boot, so this is
 * decided per datapoint, not once at load). Without it a datapoint's
 * overhead stamps and tsc_delta are approximate: it lacks
 * WULT_DPF_TSC_STABLE.
 */
static inline bool wult_rule_tsc_stable(bool constant, bool nonstop,
					bool unstable)
{
	return constant && nonstop && !unstable;
}

/*
 * A source whose times are TSC cycles (@tsc_clock: tdt) cannot measure
 * with a TSC the kernel marked unstable: its LTime, TIntr and TAI would be
 * cycles of an unknown rate, or of a TSC that stopped in the idle state.
 * Such datapoints are dropped (tsc_unstable), and new events refused.
 */
static inline bool wult_rule_tsc_times_ok(bool tsc_clock, bool unstable)
{
	return !tsc_clock || !unstable;
}

/*
 * The LDist to arm the next event with at an idle exit that follows our
 * interrupt inside the idle period (IntrOff = 0), @elapsed ns after that
 * interrupt's handler. The interrupt's irq_exit restarted the governor's
 * idle clock (tick_nohz_irq_exit() sets idle_entrytime, from which
 * tick_nohz_get_sleep_length() measures the sleep), so an event armed
 * later would look @elapsed (the exit path) further away to the governor
 * than LDist. Dated from the handler instead, as on the IntrOff = 1 path
 * where the handler itself arms before irq_exit, it looks LDist away.
 * Already past: 0, it fires at once (not_idle).
 */
static inline u64 wult_rule_arm_ldist(u64 ldist, u64 elapsed)
{
	return ldist > elapsed ? ldist - elapsed : 0;
}

/*
 * What is armed and what is recorded are one: @ldist drawn, @elapsed ns
 * since the arm's date (wult_rule_arm_ldist()), @min the source's
 * shortest distance (a device's timer that needs its value ahead of its
 * clock). Returns the distance to arm from now, never below @min; *@rec:
 * the datapoint's LDist, LTime minus the arm's date, @ldist unless a
 * clamp lengthened it. A source never clamps what it is given.
 */
static inline u64 wult_rule_armed_ldist(u64 ldist, u64 elapsed, u64 min,
					u64 *rec)
{
	u64 d = wult_rule_arm_ldist(ldist, elapsed);

	if (d < min)
		d = min;
	*rec = elapsed + d;
	return d;
}

/*
 * Reading the LBR stops its recording (a read-modify-write of DEBUGCTL or
 * ARCH_LBR_CTL) and restores it after. perf's PMI handler, an NMI that
 * can come in between, rewrites that MSR from perf's own state (LBR off
 * during the handler, then on again, or left off if the event stopped):
 * restoring the value read before would undo it. So the value is restored
 * only if no PMI was counted (@pmis_before, @pmis_after: the CPU's
 * apic_perf_irqs) during the read; otherwise the MSR is left as perf left
 * it, and the entries, maybe recorded again past the freeze, are dropped.
 */
static inline bool wult_rule_lbr_restore(u32 pmis_before, u32 pmis_after)
{
	return pmis_before == pmis_after;
}

/*
 * MPERF counts only in C0, at the TSC's rate on the CPUs that have it, so
 * CC0% = MPERF delta / TSC delta if both span one window: TBI to TAI, the
 * TSC stamps. MPERF is read @lead_bi TSC cycles after TBI's stamp and
 * @lead_ai after TAI's (after TAI's clock read and a call: 50-100 ns),
 * both in C0, so its delta held lead_ai - lead_bi cycles of C0 beyond the
 * TSC window (CC0% about 0.5-1% too high at a 10 us sleep). The delta over
 * the TSC window: the first lead added back, the second taken off.
 */
static inline u64 wult_rule_mperf_delta(u64 mperf_delta, u64 lead_bi,
					u64 lead_ai)
{
	u64 d = mperf_delta + lead_bi;

	return d > lead_ai ? d - lead_ai : 0;
}

#endif /* _WULT_RULES_H */
