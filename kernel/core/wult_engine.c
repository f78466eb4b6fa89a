// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the measurement engine.
 *
 * wult measures how long a CPU takes to wake up from an idle state. While
 * at least one wult perf event is active on a CPU, that CPU runs this loop:
 *
 *   datapoint ends (or the event starts): arm a delayed event at
 *               LTime = now + LDist, LDist uniformly random in the events'
 *               range, before the CPU selects its next idle state, so the
 *               governor sees LTime like any timer (now: the handler's
 *               clock read, TIntr, when armed in our interrupt by a
 *               source with arm_at());
 *   idle entry  (cpu_idle probe): take TBI;
 *   the event's interrupt:        take TIntr;
 *   idle exit   (cpu_idle probe): take TAI;
 *
 * and emits one datapoint per armed event that passes the rules of
 * wult_rules.h. Which of TIntr and TAI comes first depends on the idle
 * state: states that wake up with interrupts masked (mwait states) return
 * to the exit probe before the handler runs (IntrOff = 1); "sti; hlt" and
 * polling states take the interrupt inside the idle state, before the exit
 * probe (IntrOff = 0). WakeLatency = TAI - LTime, IntrLatency = TIntr - LTime.
 *
 * While branch contexts are wanted (a branches event on the CPU, or the
 * wult:wake_branches tracepoint), the LBR is read by the first of the two
 * after the wake and emitted just before the datapoint it belongs to.
 *
 * A datapoint is dropped, and counted, when it cannot be trusted: the event
 * fired before the CPU went idle (not_idle), something else ended the idle
 * period (stale_tai), another interrupt or an NMI came between its two
 * halves (other_intr), the idle period ended after LTime but something
 * else may have woken the CPU (other_wake), a TSC-clocked source's times
 * come from a TSC the kernel marked unstable (tsc_unstable), or the times
 * are out of order (invalid). An idle exit that is not our wake
 * (early_wake) keeps the event armed and retakes TBI at the next idle
 * entry. The shortest time from an arm to the next
 * idle entry is the CPU's LDist floor (wult_rules.h), which the PMU
 * enforces.
 *
 * A source whose wake also wakes a task (ipi waketask, its hold() op)
 * has each valid datapoint held, the next one armed as usual, until that
 * task runs and calls wult_engine_task_ran() with its TSC read (ttask):
 * the held datapoint goes out then, or without ttask when the next one is
 * emitted first; at the stop it is cancelled. Emitting and holding are
 * wult_deliver.c's: the histograms, the tracepoints and the PMU's callback.
 *
 * What ends a datapoint arms the next (wult_rule_next()): at once, or,
 * when our interrupt found the CPU running a task, after a hold-off, so
 * that a busy CPU does not take an interrupt every LDist; nothing while
 * every event of the CPU is stopped. A failed arm is counted and retried
 * at the next idle exit.
 *
 * What runs at every wake is notrace, as the probes are: ftrace's entry
 * call, a nop while nothing traces it, is still an instruction per
 * function, about 15 a wake (Documentation/bench.md).
 *
 * All state of a CPU lives in one struct wult_cpu reached through
 * wult_cpu(); it is only touched on its own CPU with IRQs off (probes,
 * the event's interrupt, perf add/del), so it needs no lock. Nothing here
 * sleeps or takes a sleeping lock: it is PREEMPT_RT safe.
 */
#include <linux/cpuidle.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <trace/events/power.h>

#include "../accounting/wult_hist.h"
#include "../accounting/wult_irqs.h"
#include "../accounting/wult_lbr.h"
#include "../accounting/wult_mstate.h"
#include "../sources/wult_source.h"
#include "../trace/wult_trace.h"
#include "wult_deliver.h"
#include "wult_engine.h"
#include "wult_engine_int.h"
#include "wult_rules.h"

DEFINE_PER_CPU(struct wult_cpu, wult_cpus);

static inline struct wult_cpu *wult_cpu(void)
{
	return this_cpu_ptr(&wult_cpus);
}

bool wult_has_mperf;
bool wult_has_smi;
bool wult_has_lbr;
u32 wult_dp_flags;
bool wult_tsc_steady;

atomic_t wult_engine_fail_arms = ATOMIC_INIT(0);

/*
 * An MSR that wult_engine_init() read successfully (SMI count, MPERF):
 * the bare instruction, inline. rdmsrl_safe() was a paravirt call, its
 * error path and the read_msr tracepoint's test, about 27 instructions a
 * read and two reads a datapoint. A fault would still be fixed up
 * (__rdmsr()'s exception entry: a warning and 0).
 */
static __always_inline u64 wult_read_msr(u32 msr)
{
	return __rdmsr(msr);
}

/*
 * Uniform in [ldist_min, ldist_max] without a division, from the high half
 * of xorshift64 (Marsaglia, 2003; the state is never 0): inline, a few
 * instructions where prandom_u32_state() took a call and about 50.
 */
static u64 wult_pick_ldist(struct wult_cpu *wc)
{
	u64 span = wc->ldist_max - wc->ldist_min + 1;
	u64 x = wc->rnd;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	wc->rnd = x;
	return wc->ldist_min + (((x >> 32) * span) >> 32);
}

/*
 * The LDist floor (wult_rules.h): the arm-to-TBI time of the datapoint
 * that just ended, if it reached exactly one idle entry (a re-entry after
 * an early wake retook TBI). Counted here, off the idle paths.
 */
static void wult_floor_take(struct wult_cpu *wc)
{
	struct wult_stats *s = &wc->stats;

	if (wc->entries != 1)
		return;
	WRITE_ONCE(s->floor_cyc, wult_floor_update(s->floor_cyc, s->floor_n,
						   wc->tsc_bi - wc->arm_tsc));
	wult_stats_inc(&s->floor_n);
}

/* A datapoint armed or waiting for its second half, or a hold-off. */
static bool wult_in_flight(const struct wult_cpu *wc)
{
	return wc->armed || wc->fired || wc->holdoff;
}

/* Ends the current datapoint's state; the floor takes its interval. */
static void wult_end(struct wult_cpu *wc)
{
	wc->in_idle = false;
	wc->woken = false;
	wc->fired = false;
	wc->have_br = false;
	wc->armed = false;
	wc->flag_wake = false;
	wult_floor_take(wc);
	wc->entries = 0;
	wc->nowait = 0;
}

/*
 * The arm after the draw: dated from @base (TSC, 0: now), and with @at
 * (a constant in each call, so each caller gets its own copy: a source
 * without arm_at() pays one test for it, tdt's wake) at TIntr + LDist
 * by the source's arm_at() instead of from now by its arm().
 */
static __always_inline void wult_arm_dated(struct wult_cpu *wc, u64 ldist,
					   u64 base, bool at)
{
	struct wult_dp *dp = &wc->rec.dp;
	u64 lead = 0, armed;
	int ret;

	wc->arm_tsc = rdtsc_ordered();
	/* After our interrupt inside idle, or in it: dated from its handler. */
	if (base && tsc_khz) {
		lead = mul_u64_u32_div(wc->arm_tsc - base, USEC_PER_SEC, tsc_khz);
		wc->arm_tsc = base;
	}
	/*
	 * The LDist recorded is the one armed, clamps included: with arm_at()
	 * an LDist already past (lead, the handler's path, beyond it) arms at
	 * TIntr + lead, about now, which fires at once as arm(0) does.
	 */
	armed = wult_rule_armed_ldist(ldist, lead, wc->src->min_ldist, &ldist);
	/*
	 * While 0 (always but in tests), one load. LTime goes into the
	 * datapoint at once (not through a local, which would cost a stack
	 * canary): it is not read unless the arm succeeded.
	 */
	if (atomic_add_unless(&wult_engine_fail_arms, -1, 0)) {
		ret = -EIO;
	} else if (at) {
		dp->ltime = dp->tintr + ldist;
		ret = wc->src->arm_at(dp->ltime);
	} else {
		ret = wc->src->arm(armed, &dp->ltime);
	}
	if (ret) {
		/* Retried at the next idle exit (wult_rule_rearm_at_exit()). */
		wult_stats_inc(&wc->stats.arm_failed);
		return;
	}
	wc->armed = true;
	wult_stats_inc(&wc->stats.armed);
	dp->ldist = ldist;
}

/*
 * Arms the next datapoint's event. Called when the previous one ended, so
 * before the CPU picks its next idle state: the governor sees LTime as the
 * next timer event and LDist decides which state is measured, as on a
 * system woken by a timer. Nothing while no event of the CPU is started.
 */
static notrace void wult_arm(struct wult_cpu *wc)
{
	u64 ldist, base = wc->arm_base;

	wc->arm_base = 0;
	wult_end(wc);
	if (wc->paused)
		return;
	ldist = wult_pick_ldist(wc);
	/*
	 * To tell an expiry inside the interrupt that armed it. Our
	 * interrupt's handler read the count already, IRQs off since.
	 */
	wc->arm_in_irq = in_hardirq();
	if (wc->arm_in_irq)
		wc->arm_irqs = wc->in_intr ? wc->intr_irqs : wult_irqs();
	/*
	 * In our interrupt's handler, a source with arm_at() (hrt) is armed
	 * at LTime = TIntr + LDist, dated from the handler's clock read
	 * (its TSC stamp, intr_ts1, just before it) rather than a new read.
	 */
	if (wc->src->arm_at && wc->in_intr && tsc_khz)
		wult_arm_dated(wc, ldist, wc->rec.dp.intr_ts1, true);
	else
		wult_arm_dated(wc, ldist, base, false);
}

/*
 * Our interrupt found the CPU busy, or expired inside the interrupt that
 * armed it (wult_rule_next()): the next datapoint is armed @ns from now,
 * by the expiry of the same source, which is not a datapoint. Out of
 * line, so that its local's stack canary stays out of wult_engine_intr().
 */
static noinline void wult_hold_off(struct wult_cpu *wc, u64 ns)
{
	u64 ltime;

	wult_end(wc);
	if (wc->src->arm(ns, &ltime)) {
		wult_stats_inc(&wc->stats.arm_failed);
		return;
	}
	wc->holdoff = true;
	wult_stats_inc(&wc->stats.held_off);
}

/*
 * The four times to ns of the source's clock (uapi/linux/wult.h). TSC
 * times become cycles * 10^6 / tsc_khz; this runs after every stamp.
 */
static void wult_to_ns(struct wult_cpu *wc, struct wult_dp *dp)
{
	dp->source = wc->src->id;
	if (wc->src->clock != WULT_CLOCK_TSC)
		return;
	dp->ltime = mul_u64_u32_div(dp->ltime, USEC_PER_SEC, tsc_khz);
	dp->tbi = mul_u64_u32_div(dp->tbi, USEC_PER_SEC, tsc_khz);
	dp->tai = mul_u64_u32_div(dp->tai, USEC_PER_SEC, tsc_khz);
	dp->tintr = mul_u64_u32_div(dp->tintr, USEC_PER_SEC, tsc_khz);
}

/* A datapoint ends here, emitted or dropped: the next one is armed. */
static void wult_drop(struct wult_cpu *wc, enum wult_verdict v)
{
	switch (v) {
	case WULT_STALE_TAI:
		wult_stats_inc(&wc->stats.stale_tai);
		break;
	case WULT_OTHER_INTR:
		wult_stats_inc(&wc->stats.other_intr);
		break;
	case WULT_OTHER_WAKE:
		wult_stats_inc(&wc->stats.other_wake);
		break;
	case WULT_TSC_UNSTABLE:
		wult_stats_inc(&wc->stats.tsc_unstable);
		break;
	case WULT_NO_WAIT:
		wult_stats_inc(&wc->stats.no_wait);
		break;
	case WULT_NOT_IDLE:
		wult_stats_inc(&wc->stats.not_idle);
		break;
	default:
		wult_stats_inc(&wc->stats.invalid);
		break;
	}
	wult_arm(wc);
}

void wult_engine_task_ran(u64 tsc)
{
	struct wult_cpu *wc = wult_cpu();
	u64 ns = 0;

	lockdep_assert_irqs_disabled();
	if (!wc->active)
		return;
	if (wc->src->clock == WULT_CLOCK_TSC && tsc_khz)
		ns = mul_u64_u32_div(tsc, USEC_PER_SEC, tsc_khz);
	wult_deliver_task_ran(&wc->stats, ns);
}

/*
 * Does anything read this datapoint's fields beyond the checks? Not while
 * the CPU's events all count datapoints in an LDist range (no sample, no
 * band, state or sum kind: wult_engine_start()'s @fields), no histogram
 * is kept, nobody listens to wult:datapoint and there is no branch
 * context: a perf stat of wult/datapoints/ or a debugfs measure run.
 */
static __always_inline bool wult_fields_wanted(const struct wult_cpu *wc)
{
	return wc->want_fields || wc->have_br || wult_hist_on ||
	       trace_datapoint_enabled();
}

static notrace void wult_emit(struct wult_cpu *wc, bool intr_off)
{
	struct wult_dp *dp = &wc->rec.dp;
	struct wult_br_rec *brrec = NULL;
	bool full, tsc_clock, unstable;

	/* The source's times in the time base of TBI and TAI, first. */
	dp->flags = wult_dp_flags;
	dp->ltime_err = 0;
	if (wc->src->timebase && !wc->src->timebase(dp)) {
		wult_drop(wc, WULT_INVALID);
		return;
	}
	/* LTime passed before the CPU went idle: its expiry was just late. */
	if (dp->ltime <= dp->tbi) {
		wult_drop(wc, WULT_NOT_IDLE);
		return;
	}
	if (dp->tai < dp->ltime || dp->tintr < dp->ltime) {
		wult_drop(wc, WULT_INVALID);
		return;
	}
	/*
	 * The watchdog may have marked the TSC unstable since the last one:
	 * a rule for TSC-clocked times, else only the datapoint's flag.
	 */
	full = wult_fields_wanted(wc);
	tsc_clock = wc->src->clock == WULT_CLOCK_TSC;
	unstable = (tsc_clock || full) && check_tsc_unstable();
	if (!wult_rule_tsc_times_ok(tsc_clock, unstable)) {
		wult_drop(wc, WULT_TSC_UNSTABLE);
		return;
	}
	/*
	 * Every check is above: a datapoint only counted is valid or not
	 * exactly as one sampled. Its fields are for readers that are not
	 * there (with tdt's conversions to ns, about 50 instructions a
	 * wake, Documentation/bench.md); its sequence number still
	 * advances, so a reader that comes sees the ones it missed as a gap.
	 */
	if (!full) {
		wc->seq++;
		wult_deliver_count(&wc->stats, &wc->rec);
		wult_arm(wc);
		return;
	}
	wult_to_ns(wc, dp);

	dp->cpu = smp_processor_id();
	dp->intr_off = intr_off;
	if (wult_rule_tsc_stable(wult_tsc_steady, wult_tsc_steady, unstable))
		dp->flags |= WULT_DPF_TSC_STABLE;
	if (wc->src->dp_flags)
		dp->flags |= wc->src->dp_flags();
	if (wc->flag_wake)
		dp->flags |= WULT_DPF_FLAG_WAKE;
	dp->nmi_cnt = wult_delta32(wult_nmis(), wc->nmis_bi);
	if (wult_has_smi)
		dp->smi_cnt = wult_read_msr(MSR_SMI_COUNT) - wc->smi_bi;
	else
		dp->smi_cnt = 0;
	dp->mperf_delta = wult_has_mperf ?
		wult_rule_mperf_delta(wc->mperf_ai - wc->mperf_bi,
				      wc->mperf_lead_bi, wc->mperf_lead_ai) : 0;
	dp->tsc_khz = tsc_khz;
	dp->seq = wc->seq++;
	dp->wake_latency = dp->tai - dp->ltime;
	dp->intr_latency = dp->tintr - dp->ltime;
	dp->ttask = 0;

	/* The branch context goes first, so readers can attach it as they go. */
	if (wc->have_br) {
		struct wult_branches *br = &wc->brrec.br;

		wc->have_br = false;
		br->ltime = dp->ltime;
		br->cpu = dp->cpu;
		br->seq = dp->seq;
		brrec = &wc->brrec;
	}

	/* One held for a task that has not run goes out first, without it. */
	if (wc->src->hold && wc->src->hold())
		wult_deliver_hold(&wc->stats, &wc->rec, brrec);
	else
		wult_deliver(&wc->stats, &wc->rec, brrec);
	/* After the delivery, so that its cost is not taken from LDist. */
	wult_arm(wc);
}

/*
 * The wake's branch context, read at the first code wult runs after it and
 * between that code's overhead stamps, which the reported latencies
 * already discount. Out of line: wult_take_branches() tests inline
 * whether anyone wants it (not in a plain measurement).
 */
static noinline void wult_read_branches(struct wult_cpu *wc, bool in_intr)
{
	wult_lbr_read(&wc->brrec.br);
	if (in_intr)
		wc->brrec.br.flags |= WULT_BRF_INTR;
}

static __always_inline void wult_take_branches(struct wult_cpu *wc, bool in_intr)
{
	wc->have_br = wc->want_br || (wult_has_lbr && trace_wake_branches_enabled());
	if (wc->have_br)
		wult_read_branches(wc, in_intr);
}

/*
 * Does @state poll with IRQs on until need_resched? Asked of the driver at
 * each idle entry, where it cannot go away (unregistering waits for the
 * CPUs in idle): drivers come and go while a CPU is measured. Without a
 * driver, state 0 is cpu_idle_poll() (idle=poll).
 */
static bool wult_state_polls(unsigned int state)
{
	struct cpuidle_driver *drv = cpuidle_get_driver();

	if (!drv)
		return state == 0;
	return state < drv->state_count &&
	       (drv->states[state].flags & CPUIDLE_FLAG_POLLING);
}

/*
 * Idle entry, IRQs off: snapshot the counters and take TBI, last, so that
 * nothing but the idle state itself follows it. An exit seen before our
 * interrupt that did not lead to it (the CPU is back before the interrupt
 * came) was not our wake: measure this idle period instead.
 */
static __always_inline void wult_idle_enter(struct wult_cpu *wc,
					    unsigned int state)
{
	struct wult_dp *dp = &wc->rec.dp;

	if (!wc->armed)
		return;
	if (wc->woken) {
		wc->woken = false;
		wult_stats_inc(&wc->stats.early_wake);
	}
	wc->entries++;
	dp->req_cstate = state;
	wc->polls = wult_state_polls(state);
	wc->irqs_bi = wult_irqs();
	wc->nmis_bi = wult_nmis();
	if (wult_has_smi)
		wc->smi_bi = wult_read_msr(MSR_SMI_COUNT);
	wc->ltime_ok = !wc->src->at_idle || wc->src->at_idle(&dp->ltime);

	if (wc->src->clock == WULT_CLOCK_TSC) {
		wc->tsc_bi = rdtsc_ordered();
		dp->tbi = wc->tsc_bi;
	} else {
		dp->tbi = ktime_get_ns();
		wc->tsc_bi = rdtsc_ordered();
	}
	/* Beside the TSC stamp; how far, for wult_rule_mperf_delta(). */
	if (wult_has_mperf) {
		wc->mperf_bi = wult_read_msr(MSR_IA32_MPERF);
		wc->mperf_lead_bi = rdtsc_ordered() - wc->tsc_bi;
	}
	wc->in_idle = true;
}

/*
 * LTime of a source launched from another CPU is known once it launched:
 * into @dp, or false while it has not.
 */
static bool wult_launched(struct wult_cpu *wc, struct wult_dp *dp)
{
	return !wc->src->launched || wc->src->launched(&dp->ltime);
}

/* Idle exit, IRQs off, after our interrupt (IntrOff = 0). */
static void wult_exit_after_intr(struct wult_cpu *wc, struct wult_dp *dp)
{
	enum wult_verdict v;

	wc->fired = false;
	v = wult_rule_exit_after_intr(dp->tai, dp->tintr,
				      wult_delta32(wult_irqs(), wc->irqs_mark),
				      wult_delta32(wult_nmis(), wc->nmis_mark));
	if (v != WULT_KEEP) {
		wult_drop(wc, v);
		return;
	}
	dp->ai_ts2 = rdtsc_ordered();
	wult_emit(wc, false);
}

/*
 * Rule N at an exit before LTime: did its state return with no cause? The
 * pending vectors (8 APIC reads) are read only when nothing else shows one.
 */
static bool wult_no_cause(struct wult_cpu *wc, u32 irqs, u32 nmis)
{
	bool resched = need_resched();

	return wult_rule_no_cause(wc->polls, wc->exit_irqs_on, irqs, nmis,
				  resched, 0) &&
	       wult_rule_no_cause(false, false, 0, 0, resched,
				  wult_irqs_pending());
}

/*
 * Idle exit, IRQs off, our interrupt not handled yet (IntrOff = 1?). The
 * pending vectors are read only for a candidate (LTime passed): the read
 * is 8 APIC accesses, between ai_ts1 and ai_ts2 like the rest.
 */
static void wult_exit_first(struct wult_cpu *wc, struct wult_dp *dp)
{
	u32 irqs = wult_irqs(), nmis = wult_nmis();
	bool launched = wult_launched(wc, dp);
	bool early = !launched || dp->tai < dp->ltime;
	bool resched = !early && need_resched();
	int pending = early ? 1 : wult_irqs_pending();
	enum wult_verdict v;

	/* A source that wakes as the scheduler does may end a poll by need_resched. */
	wc->flag_wake = wc->src->launched &&
			wult_rule_flag_wake(resched, pending,
					    wult_delta32(irqs, wc->irqs_bi),
					    wult_delta32(nmis, wc->nmis_bi));
	if (!launched)
		v = WULT_EARLY_WAKE;	/* not launched yet: not our wake */
	else if (wc->flag_wake)
		v = wc->ltime_ok ? WULT_KEEP : WULT_OTHER_WAKE;
	else
		v = wult_rule_exit_first(dp->tai, dp->ltime, wc->polls,
					 wc->exit_irqs_on,
					 wult_delta32(irqs, wc->irqs_bi),
					 wult_delta32(nmis, wc->nmis_bi),
					 wc->ltime_ok, resched, pending);
	if (v == WULT_EARLY_WAKE) {
		/*
		 * Rule N: a state that returned with no cause did not wait.
		 * The pending vectors are read only when nothing else shows
		 * a cause, off the datapoint (TBI is retaken).
		 */
		if (launched && (u32)dp->req_cstate < 32 &&
		    wult_no_cause(wc, wult_delta32(irqs, wc->irqs_bi),
				  wult_delta32(nmis, wc->nmis_bi)))
			wc->nowait |= BIT(dp->req_cstate);
		/* Keep the event armed; TBI is retaken at the next entry. */
		wult_stats_inc(&wc->stats.early_wake);
		if (wc->src->early_exit)
			wc->src->early_exit();
		return;
	}
	if (v == WULT_KEEP && (u32)dp->req_cstate < 32 &&
	    (wc->nowait & BIT(dp->req_cstate)))
		v = WULT_NO_WAIT;
	if (v != WULT_KEEP) {
		wult_drop(wc, v);
		return;
	}
	wc->irqs_mark = irqs;
	wc->nmis_mark = nmis;
	wult_take_branches(wc, false);
	wc->woken = true;
	dp->ai_ts2 = rdtsc_ordered();
}

/*
 * Idle exit: exit_tsc and @tai were taken first thing in the probe. Inline
 * in wult_idle_exit_acct(), as wult_idle_enter() is in its caller: one
 * call level less per idle entry and exit.
 */
static __always_inline void wult_idle_exit(u64 tai)
{
	struct wult_cpu *wc = wult_cpu();
	struct wult_dp *dp = &wc->rec.dp;
	unsigned long flags;
	bool irqs_on;

	/*
	 * MPERF after TAI, not before it (which would delay TAI); the C0 time
	 * it counted past the exit stamp is taken off (wult_rule_mperf_delta()).
	 */
	if (wult_has_mperf) {
		wc->mperf_ai = wult_read_msr(MSR_IA32_MPERF);
		wc->mperf_lead_ai = rdtsc_ordered() - wc->exit_tsc;
	}
	/*
	 * 6.1's default_idle_call() runs this probe with IRQs on. One read
	 * of the flags, and IRQs disabled only then: irqs_disabled() and
	 * local_irq_save() were two more reads and a disable every exit (on
	 * 6.1 each a paravirt call, about 8 instructions a wake).
	 */
	local_save_flags(flags);
	irqs_on = !irqs_disabled_flags(flags);
	wc->exit_irqs_on = irqs_on;
	if (irqs_on)
		local_irq_disable();
	if (wc->active && wc->in_idle) {
		wc->in_idle = false;
		/* A TSC source's TAI is the TSC read first thing. */
		dp->tai = wc->src->clock == WULT_CLOCK_TSC ? wc->exit_tsc : tai;
		dp->ai_ts1 = wc->exit_tsc;
		dp->tsc_delta = wc->exit_tsc - wc->tsc_bi;
		if (wc->fired)
			wult_exit_after_intr(wc, dp);
		else if (wc->armed)
			wult_exit_first(wc, dp);
	}
	/* Where datapoints are armed anyway: the retry of a failed arm. */
	if (wc->active && wult_rule_rearm_at_exit(!wc->paused, wult_in_flight(wc)))
		wult_arm(wc);
	if (irqs_on)
		local_irq_enable();
}

/*
 * The idle accounting (wult_mstate.h) of a measured CPU, out of line so
 * that the probe keeps no frame: its period starts after our entry work
 * and ends at our first exit stamp, the window cpuidle's own time covers.
 */
static noinline notrace void wult_idle_enter_acct(unsigned int state)
{
	wult_idle_enter(wult_cpu(), state);
	wult_mstate_idle(state);
}

static noinline notrace void wult_idle_exit_acct(u64 tai)
{
	wult_idle_exit(tai);
	wult_mstate_exit_at(this_cpu_read(wult_cpus.exit_tsc));
}

/*
 * Kept tiny and untraced, with the work out of line: unmeasured CPUs pay one
 * compare and branch, and TAI is read a dozen instructions after entry.
 */
notrace void wult_idle_probe(void *data, unsigned int state, unsigned int cpu)
{
	u8 active = this_cpu_read(wult_cpus.active);

	if (!active) {
		wult_mstate_idle(state);	/* idle accounting only */
		return;
	}
	if (state != PWR_EVENT_EXIT) {
		wult_idle_enter_acct(state);
		return;
	}
	/*
	 * TAI as early as possible: the probe's own cost is after it. A TSC
	 * source's TAI is this read, so only the others pay for the second
	 * clock (about 50 instructions a wake).
	 */
	this_cpu_write(wult_cpus.exit_tsc, rdtsc_ordered());
	if (active == WULT_TAI_KTIME)
		wult_idle_exit_acct(ktime_get_ns());
	else
		wult_idle_exit_acct(0);
}

/*
 * Our interrupt inside the idle period: a polling state ends on
 * need_resched, which we set unless someone else already did. Whether
 * the idle task advertises polling is read here, not from the state's
 * flags: an IRQs-on mwait state does, without CPUIDLE_FLAG_POLLING.
 */
static void wult_intr_in_idle(struct wult_cpu *wc, struct wult_dp *dp)
{
	bool polls = wc->polls;
	bool polling = test_thread_flag(TIF_POLLING_NRFLAG);
	bool resched = need_resched();
	u32 irqs = wc->intr_irqs, nmis = wult_nmis();
	enum wult_verdict v;

	v = wult_rule_intr_in_idle(polls, polling, resched,
				   wult_delta32(irqs, wc->irqs_bi),
				   wult_delta32(nmis, wc->nmis_bi), wc->ltime_ok);
	if (v != WULT_KEEP) {
		wult_drop(wc, v);
		return;
	}
	if (polls) {
		set_tsk_need_resched(current);
		set_preempt_need_resched();
	}
	wc->irqs_mark = irqs;
	wc->nmis_mark = nmis;
	wc->fired = true;
	dp->intr_ts2 = rdtsc_ordered();
	/* The exit probe arms the next event: dated from here (irq_exit). */
	wc->arm_base = dp->intr_ts2;
}

/*
 * Our interrupt found the CPU out of idle: arm the next datapoint at once
 * or after a hold-off.
 */
static void wult_intr_not_idle(struct wult_cpu *wc)
{
	bool idle_task = is_idle_task(current);
	bool same = wc->arm_in_irq && wc->intr_irqs == wc->arm_irqs;

	if (wult_rule_next(!wc->paused, true, idle_task, same) !=
	    WULT_NEXT_HOLD_OFF) {
		wult_drop(wc, WULT_NOT_IDLE);
		return;
	}
	wult_stats_inc(&wc->stats.not_idle);
	wult_hold_off(wc, wult_rule_holdoff_ns(idle_task));
}

/* Our interrupt of an armed datapoint: its second half, or a drop. */
static void wult_engine_intr_datapoint(struct wult_cpu *wc, struct wult_dp *dp)
{
	if (wc->woken) {
		u32 irqs = wult_delta32(wc->intr_irqs, wc->irqs_mark);
		u32 nmis = wult_delta32(wult_nmis(), wc->nmis_mark);
		enum wult_verdict v;

		wc->woken = false;
		if (wc->flag_wake)
			v = wult_rule_run_after_flag(irqs, nmis);
		else
			v = wult_rule_intr_after_exit(irqs, nmis);
		if (v != WULT_KEEP) {
			wult_drop(wc, v);
			return;
		}
		dp->intr_ts2 = rdtsc_ordered();
		wult_emit(wc, true);
	} else if (wc->in_idle) {
		wult_take_branches(wc, true);
		wult_intr_in_idle(wc, dp);
	} else {
		wult_intr_not_idle(wc);
	}
}

/*
 * The delayed event's interrupt, on the measured CPU. The source took
 * @ts1 (TSC) and @tintr first thing in its handler.
 */
notrace void wult_engine_intr(u64 ts1, u64 tintr)
{
	struct wult_cpu *wc = wult_cpu();
	struct wult_dp *dp = &wc->rec.dp;

	if (!wc->active)
		return;
	if (wc->holdoff) {
		wc->holdoff = false;
		wult_arm(wc);
		return;
	}
	if (!wc->armed || !wult_launched(wc, dp))
		return;
	wc->armed = false;
	dp->tintr = tintr;
	dp->intr_ts1 = ts1;
	/* Read once for this interrupt's rules and the next arm. */
	wc->intr_irqs = wult_irqs();
	wc->in_intr = true;
	wult_engine_intr_datapoint(wc, dp);
	wc->in_intr = false;
}

void wult_engine_lost(void)
{
	struct wult_cpu *wc = wult_cpu();

	lockdep_assert_irqs_disabled();
	if (!wc->active)
		return;
	if (wc->holdoff) {
		wc->holdoff = false;
		wult_arm(wc);
	} else if (wc->armed) {
		wult_drop(wc, WULT_OTHER_WAKE);
	}
}

void wult_engine_start(const struct wult_source *src, u64 ldist_min,
		       u64 ldist_max, bool branches, bool fields, bool started)
{
	struct wult_cpu *wc = wult_cpu();

	lockdep_assert_irqs_disabled();
	wc->ldist_min = ldist_min;
	wc->ldist_max = ldist_max;
	wc->want_br = branches;
	/*
	 * @fields covers the branch events too (wult_ev_reads_fields()); a
	 * held datapoint is read when its task runs (wult_deliver.c).
	 */
	wc->want_fields = fields || src->hold;
	/*
	 * Stopping only stops arming: what is in flight ends as usual, so
	 * that perf's back-to-back ->stop and ->start (period changes,
	 * frequency adjustment at each tick) lose nothing.
	 */
	wc->paused = !started;
	if (wc->active) {
		/* A retune: an armed event keeps its LTime; a resume arms. */
		if (started && !wult_in_flight(wc))
			wult_arm(wc);
		return;
	}
	WRITE_ONCE(wc->src, src);
	/* Pairs with wult_engine_source(): src is set before active. */
	smp_store_release(&wc->active, src->clock == WULT_CLOCK_TSC ?
			  WULT_TAI_TSC : WULT_TAI_KTIME);
	wult_arm(wc);
}

void wult_engine_stop(void)
{
	struct wult_cpu *wc = wult_cpu();

	lockdep_assert_irqs_disabled();
	if (!wc->active)
		return;
	WRITE_ONCE(wc->active, 0);
	/* Its task has not run yet: the datapoint ends here, unemitted. */
	if (wult_deliver_cancel())
		wult_stats_inc(&wc->stats.cancelled);
	if (wc->armed || wc->holdoff)
		wc->src->cancel();
	/* An event fired but still waiting for its idle exit ends here too. */
	if (wc->armed || wc->fired)
		wult_stats_inc(&wc->stats.cancelled);
	wc->armed = false;
	wc->holdoff = false;
	wc->paused = false;
	wc->fired = false;
	wc->woken = false;
	wc->in_idle = false;
	wc->entries = 0;
	wc->nowait = 0;
	wc->arm_base = 0;
}

const struct wult_source *wult_engine_source(unsigned int cpu)
{
	const struct wult_cpu *wc = per_cpu_ptr(&wult_cpus, cpu);

	/* Pairs with wult_engine_start(). */
	return smp_load_acquire(&wc->active) ? READ_ONCE(wc->src) : NULL;
}
