// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the measurement engine.
 *
 * wult measures how long a CPU takes to wake up from an idle state. While
 * at least one wult perf event is active on a CPU, that CPU runs this loop:
 *
 *   idle entry  (cpu_idle probe): arm a delayed event at LTime = now + LDist,
 *               LDist uniformly random in the events' range; take TBI.
 *   the event's interrupt:        take TIntr.
 *   idle exit   (cpu_idle probe): take TAI.
 *
 * and emits one datapoint per armed event. Which of TIntr and TAI comes
 * first depends on the idle state: states that wake up with interrupts
 * masked (cpuidle mwait states) return to the exit probe before the handler
 * runs (IntrOff = 1); "sti; hlt" (default_idle_call()) and polling states
 * take the interrupt inside the idle state, before the exit probe
 * (IntrOff = 0). WakeLatency = TAI - LTime, IntrLatency = TIntr - LTime.
 *
 * While branch contexts are wanted (a branches event on the CPU, or the
 * wult:wake_branches tracepoint), the LBR is read by the first of the two
 * after the wake and emitted just before the datapoint it belongs to.
 *
 * A datapoint is dropped, and counted, when it cannot be trusted: the event
 * fired while the CPU was busy (not_idle), another interrupt woke the CPU
 * before ours (stale_tai) or the times are out of order (invalid). An idle
 * exit before LTime (early_wake) keeps the event armed and retakes TBI at
 * the next idle entry.
 *
 * All state of a CPU lives in one struct wult_cpu reached through
 * wult_cpu(); it is only touched on its own CPU with IRQs off (probes,
 * the event's interrupt, perf add/del), so it needs no lock. Nothing here
 * sleeps or takes a sleeping lock: it is PREEMPT_RT safe.
 */
#include <linux/bits.h>
#include <linux/cpuidle.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <asm/cpufeature.h>
#include <asm/hardirq.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <trace/events/power.h>

#include "wult_engine.h"
#include "wult_lbr.h"
#include "wult_pmu.h"
#include "wult_source.h"
#include "wult_trace.h"

struct wult_cpu {
	bool active;		/* measuring this CPU: the probes' first test */
	bool armed;		/* event armed, its interrupt not handled yet */
	bool in_idle;		/* idle entry seen, exit not yet */
	bool woken;		/* exited idle after LTime, interrupt pending */
	bool fired;		/* interrupt handled inside idle, exit pending */
	bool want_br;		/* a branches event is active on this CPU */
	bool have_br;		/* brrec holds this wake's branch context */
	u32 poll_mask;		/* idle states polling with IRQs on */
	u64 ldist_min;		/* ns */
	u64 ldist_max;		/* ns */
	/* Snapshots at TBI. */
	u64 tsc_bi;
	u64 exit_tsc;		/* TSC at the exit probe's entry */
	u64 mperf_bi;
	u64 smi_bi;
	unsigned int nmi_bi;
	unsigned long irqs_bi;
	u32 seq;
	struct rnd_state rnd;
	struct wult_rec rec;	/* the datapoint being assembled */
	struct wult_br_rec brrec;	/* its branch context */
	struct wult_stats stats;
};

static DEFINE_PER_CPU(struct wult_cpu, wult_cpus);

static inline struct wult_cpu *wult_cpu(void)
{
	return this_cpu_ptr(&wult_cpus);
}

static const struct wult_source *wult_src;
static bool wult_has_mperf;
static bool wult_has_smi;
static bool wult_has_lbr;

static DEFINE_MUTEX(wult_probe_lock);
static unsigned int wult_probe_users;	/* wult events in existence */

/*
 * Interrupts this CPU handled: device IRQs plus every x86 system vector
 * that can end an idle period (NMIs are counted apart, in the datapoint).
 */
static unsigned long wult_irq_count(void)
{
	const irq_cpustat_t *s = this_cpu_ptr(&irq_stat);
	unsigned long n = this_cpu_ptr(&kstat)->irqs_sum;

	n += s->apic_timer_irqs + s->irq_spurious_count + s->x86_platform_ipis;
	n += s->apic_irq_work_irqs + s->irq_resched_count + s->irq_call_count;
	n += s->irq_tlb_count;
#ifdef CONFIG_X86_THERMAL_VECTOR
	n += s->irq_thermal_count;
#endif
	return n;
}

static u64 wult_read_msr(u32 msr)
{
	u64 val = 0;

	rdmsrl_safe(msr, &val);
	return val;
}

/* Uniform in [ldist_min, ldist_max] without a division. */
static u64 wult_pick_ldist(struct wult_cpu *wc)
{
	u64 span = wc->ldist_max - wc->ldist_min + 1;

	return wc->ldist_min + (((u64)prandom_u32_state(&wc->rnd) * span) >> 32);
}

static void wult_emit(struct wult_cpu *wc, bool intr_off)
{
	struct wult_dp *dp = &wc->rec.dp;
	struct wult_br_rec *brrec = NULL;
	unsigned int failed;

	if (dp->ltime <= dp->tbi || dp->tai < dp->ltime || dp->tintr < dp->ltime) {
		wc->stats.invalid++;
		return;
	}

	dp->cpu = smp_processor_id();
	dp->intr_off = intr_off;
	dp->flags = wult_has_mperf ? WULT_DPF_MPERF : 0;
	dp->flags |= WULT_DPF_NMI;
	dp->nmi_cnt = this_cpu_read(irq_stat.__nmi_count) - wc->nmi_bi;
	if (wult_has_smi) {
		dp->flags |= WULT_DPF_SMI;
		dp->smi_cnt = wult_read_msr(MSR_SMI_COUNT) - wc->smi_bi;
	} else {
		dp->smi_cnt = 0;
	}
	dp->tsc_khz = tsc_khz;
	dp->seq = wc->seq++;
	dp->wake_latency = dp->tai - dp->ltime;
	dp->intr_latency = dp->tintr - dp->ltime;

	/* The branch context goes first, so readers can attach it as they go. */
	if (wc->have_br) {
		struct wult_branches *br = &wc->brrec.br;

		wc->have_br = false;
		br->ltime = dp->ltime;
		br->cpu = dp->cpu;
		br->seq = dp->seq;
		wc->stats.branches++;
		if (br->flags & WULT_BRF_OFF)
			wc->stats.branches_off++;
		trace_wake_branches(br);
		brrec = &wc->brrec;
	}

	wc->stats.emitted++;
	trace_datapoint(dp);
	failed = wult_pmu_deliver(&wc->rec, brrec);
	wc->stats.delivery_failed += failed;
}

/*
 * The wake's branch context, read at the first code wult runs after it and
 * between that code's overhead stamps, which the reported latencies
 * already discount.
 */
static void wult_take_branches(struct wult_cpu *wc, bool in_intr)
{
	wc->have_br = wc->want_br || (wult_has_lbr && trace_wake_branches_enabled());
	if (!wc->have_br)
		return;
	wult_lbr_read(&wc->brrec.br);
	if (in_intr)
		wc->brrec.br.flags |= WULT_BRF_INTR;
}

/*
 * Idle entry, IRQs off: snapshot the counters, arm if needed, take TBI.
 * Arming is the slow part; doing it last but one keeps the arm-to-TBI gap,
 * which LDist must exceed for a valid datapoint, as short as possible.
 */
static noinline void wult_idle_enter(struct wult_cpu *wc, unsigned int state)
{
	struct wult_dp *dp = &wc->rec.dp;

	dp->req_cstate = state;
	wc->irqs_bi = wult_irq_count();
	wc->nmi_bi = this_cpu_read(irq_stat.__nmi_count);
	if (wult_has_smi)
		wc->smi_bi = wult_read_msr(MSR_SMI_COUNT);
	if (wult_has_mperf)
		wc->mperf_bi = wult_read_msr(MSR_IA32_MPERF);

	if (!wc->armed) {
		u64 ldist = wult_pick_ldist(wc);
		u64 ltime = ktime_get_ns() + ldist;

		if (wult_src->arm(ltime))
			return;
		wc->armed = true;
		wc->fired = false;
		wc->woken = false;
		wc->have_br = false;
		wc->stats.armed++;
		dp->ldist = ldist;
		dp->ltime = ltime;
	} else if (wc->woken) {
		/*
		 * Exited idle after LTime, but our interrupt did not come while
		 * the CPU was busy: something else woke it. Measure again.
		 */
		wc->woken = false;
		wc->stats.early_wake++;
	}

	/* TBI last: nothing but the idle state itself after it. */
	dp->tbi = ktime_get_ns();
	wc->tsc_bi = rdtsc_ordered();
	wc->in_idle = true;
}

/* Is @state one that polls with IRQs on until need_resched? */
static bool wult_state_polls(struct wult_cpu *wc, int state)
{
	return (u32)state < 32 && (wc->poll_mask & BIT(state));
}

/* Did anything but our event interrupt the idle period so far? */
static bool wult_interrupted(struct wult_cpu *wc)
{
	return wult_irq_count() != wc->irqs_bi ||
	       this_cpu_read(irq_stat.__nmi_count) != wc->nmi_bi;
}

/*
 * Idle exit, IRQs off. Unless our handler already ran, any interrupt
 * handled since TBI (idle states that return with IRQs on run it before
 * this probe) means the CPU was not woken by ours.
 */
static void wult_idle_exit_irqoff(struct wult_cpu *wc, struct wult_dp *dp,
				  u64 ts1, u64 tai)
{
	dp->tai = tai;
	dp->ai_ts1 = ts1;
	dp->tsc_delta = ts1 - wc->tsc_bi;
	if (wult_has_mperf)
		dp->mperf_delta = wult_read_msr(MSR_IA32_MPERF) - wc->mperf_bi;

	if (wc->fired) {
		/*
		 * Interrupt first (IntrOff = 0): the datapoint is complete. With
		 * IRQs on, the interrupt may also have hit this probe after TAI.
		 */
		wc->fired = false;
		/*
		 * A poll that ended before our handler set need_resched was
		 * ended by something else: this TAI is not ours.
		 */
		if (tai < dp->tintr && wult_state_polls(wc, dp->req_cstate)) {
			wc->stats.stale_tai++;
			return;
		}
		dp->ai_ts2 = rdtsc_ordered();
		wult_emit(wc, tai < dp->tintr);
		return;
	}
	if (!wc->armed)
		return;	/* dropped by the interrupt handler */

	/*
	 * Not our wake-up: too early, another interrupt came, or a polling
	 * state ended before our handler set need_resched (a remote wakeup
	 * sets it without an IPI on a polling CPU). Keep the event armed and
	 * retake TBI at the next idle entry.
	 */
	if (tai < dp->ltime || wult_interrupted(wc) ||
	    wult_state_polls(wc, dp->req_cstate)) {
		wc->stats.early_wake++;
		return;
	}
	/* Exit first (IntrOff = 1): the interrupt completes the datapoint. */
	wult_take_branches(wc, false);
	wc->woken = true;
	dp->ai_ts2 = rdtsc_ordered();
}

/* Idle exit: exit_tsc and @tai were taken first thing in the probe. */
static noinline void wult_idle_exit(u64 tai)
{
	struct wult_cpu *wc = wult_cpu();
	struct wult_dp *dp = &wc->rec.dp;
	unsigned long flags;

	/* 6.1's default_idle_call() runs this probe with IRQs on. */
	local_irq_save(flags);
	if (wc->active && wc->in_idle) {
		wc->in_idle = false;
		wult_idle_exit_irqoff(wc, dp, wc->exit_tsc, tai);
	}
	local_irq_restore(flags);
}

/*
 * Kept tiny and untraced, with the work out of line: unmeasured CPUs pay one
 * compare and branch, and TAI is read a dozen instructions after entry.
 */
static notrace void wult_idle_probe(void *data, unsigned int state,
				    unsigned int cpu)
{
	if (!this_cpu_read(wult_cpus.active))
		return;
	if (state != PWR_EVENT_EXIT) {
		wult_idle_enter(wult_cpu(), state);
		return;
	}
	/* TAI as early as possible: the probe's own cost is after it. */
	this_cpu_write(wult_cpus.exit_tsc, rdtsc_ordered());
	wult_idle_exit(ktime_get_ns());
}

/*
 * Our interrupt came inside the idle period: was the CPU already leaving
 * idle for another reason, making the coming TAI not ours? A halting state
 * ends at its first interrupt, so ours must be the only one since TBI. A
 * polling state handles interrupts and keeps polling until need_resched,
 * which we set unless someone else already did.
 */
static bool wult_woken_by_other(struct wult_cpu *wc, int state)
{
	if (wult_state_polls(wc, state)) {
		if (need_resched())
			return true;
		set_tsk_need_resched(current);
		set_preempt_need_resched();
		return false;
	}
	return wult_irq_count() - wc->irqs_bi != 1 ||
	       this_cpu_read(irq_stat.__nmi_count) != wc->nmi_bi;
}

/* The delayed event's interrupt, on the measured CPU. */
static void wult_engine_intr(void)
{
	u64 ts1 = rdtsc_ordered();
	u64 tintr = ktime_get_ns();
	struct wult_cpu *wc = wult_cpu();
	struct wult_dp *dp = &wc->rec.dp;

	if (!wc->active || !wc->armed)
		return;
	wc->armed = false;
	if (!wc->woken)
		wult_take_branches(wc, true);

	dp->tintr = tintr;
	dp->intr_ts1 = ts1;

	if (wc->woken) {
		wc->woken = false;
		dp->intr_ts2 = rdtsc_ordered();
		wult_emit(wc, true);
	} else if (wc->in_idle) {
		if (wult_woken_by_other(wc, dp->req_cstate)) {
			wc->stats.stale_tai++;
			return;
		}
		wc->fired = true;
		dp->intr_ts2 = rdtsc_ordered();
	} else {
		wc->stats.not_idle++;
	}
}

/*
 * Idle states that poll with IRQs on and only end on need_resched. Without
 * a cpuidle driver, state 0 is cpu_idle_poll() (idle=poll).
 */
static u32 wult_poll_states(void)
{
	struct cpuidle_driver *drv = cpuidle_get_driver();
	u32 mask = 0;
	int i;

	if (!drv)
		return BIT(0);
	for (i = 0; i < drv->state_count && i < 32; i++)
		if (drv->states[i].flags & CPUIDLE_FLAG_POLLING)
			mask |= BIT(i);
	return mask;
}

void wult_engine_start(u64 ldist_min, u64 ldist_max, bool branches)
{
	struct wult_cpu *wc = wult_cpu();

	lockdep_assert_irqs_disabled();
	wc->ldist_min = ldist_min;
	wc->ldist_max = ldist_max;
	wc->want_br = branches;
	if (wc->active)
		return;	/* a retune: an armed event keeps its LTime */
	wc->poll_mask = wult_poll_states();
	wc->armed = false;
	wc->in_idle = false;
	wc->woken = false;
	wc->fired = false;
	wc->have_br = false;
	WRITE_ONCE(wc->active, true);
}

void wult_engine_stop(void)
{
	struct wult_cpu *wc = wult_cpu();

	lockdep_assert_irqs_disabled();
	if (!wc->active)
		return;
	WRITE_ONCE(wc->active, false);
	if (wc->armed)
		wult_src->cancel();
	/* A fired event still waiting for its idle exit ends here too. */
	if (wc->armed || wc->fired)
		wc->stats.cancelled++;
	wc->armed = false;
	wc->fired = false;
}

/*
 * The cpu_idle probe exists while wult events do: registered with the first
 * (event_init, process context), unregistered with the last (the event's
 * destroy), so that no CPU pays for it when nothing is measured. While it
 * exists, unmeasured CPUs pay the call and one compare per idle transition.
 */
int wult_engine_get(void)
{
	int ret = 0;

	mutex_lock(&wult_probe_lock);
	if (!wult_probe_users)
		ret = register_trace_cpu_idle(wult_idle_probe, NULL);
	if (!ret)
		wult_probe_users++;
	mutex_unlock(&wult_probe_lock);
	return ret;
}

unsigned int wult_engine_users(void)
{
	return READ_ONCE(wult_probe_users);
}

void wult_engine_put(void)
{
	mutex_lock(&wult_probe_lock);
	if (!--wult_probe_users) {
		unregister_trace_cpu_idle(wult_idle_probe, NULL);
		/* The caller may free what the probe uses: let it finish. */
		tracepoint_synchronize_unregister();
	}
	mutex_unlock(&wult_probe_lock);
}

/* Lockless snapshot for debugfs: 64-bit loads do not tear on x86-64. */
void wult_engine_stats(unsigned int cpu, struct wult_stats *stats)
{
	const struct wult_stats *s = &per_cpu_ptr(&wult_cpus, cpu)->stats;

	stats->armed = READ_ONCE(s->armed);
	stats->emitted = READ_ONCE(s->emitted);
	stats->early_wake = READ_ONCE(s->early_wake);
	stats->not_idle = READ_ONCE(s->not_idle);
	stats->stale_tai = READ_ONCE(s->stale_tai);
	stats->invalid = READ_ONCE(s->invalid);
	stats->cancelled = READ_ONCE(s->cancelled);
	stats->delivery_failed = READ_ONCE(s->delivery_failed);
	stats->branches = READ_ONCE(s->branches);
	stats->branches_off = READ_ONCE(s->branches_off);
}

const char *wult_engine_source_name(void)
{
	return wult_src->name;
}

int wult_engine_init(const struct wult_source *src)
{
	u64 val;

	wult_has_mperf = boot_cpu_has(X86_FEATURE_APERFMPERF) &&
			 !rdmsrl_safe(MSR_IA32_MPERF, &val);
	wult_has_smi = !rdmsrl_safe(MSR_SMI_COUNT, &val);
	wult_has_lbr = wult_lbr_available();

	/* Seeded here: get_random_u32() may sleep on PREEMPT_RT. */
	prandom_seed_full_state(&wult_cpus.rnd);

	wult_src = src;
	return src->init(wult_engine_intr);
}

void wult_engine_exit(void)
{
	/* Events hold a module reference: none exists, nor does the probe. */
	wult_src->exit();
}
