// SPDX-License-Identifier: GPL-2.0
/*
 * wult.ko's validity rules (kernel/core/wult_rules.h) on crafted counter values:
 * the cases a guest cannot produce (posted interrupts, Hyper-V vectors,
 * NMIs between the halves, counter wraps) decided by the kernel's own code.
 */
#include <stdbool.h>
#include <stdint.h>

typedef uint32_t u32;
typedef uint64_t u64;
#include "../../kernel/core/wult_rules.h"

#include "wt.h"

/* (a) Every interrupt counts, whatever its vector: the sum moved by one. */
static void test_intr_in_idle(void)
{
	/* Halting state: ours is the only interrupt since TBI. */
	WT_EQ(wult_rule_intr_in_idle(false, false, false, 1, 0, true), WULT_KEEP);
	/* A posted interrupt or a Hyper-V stimer woke it first. */
	WT_EQ(wult_rule_intr_in_idle(false, false, false, 2, 0, true), WULT_STALE_TAI);
	/* An NMI in the idle period. */
	WT_EQ(wult_rule_intr_in_idle(false, false, false, 1, 1, true), WULT_STALE_TAI);
	/* Polling: other interrupts do not end it, need_resched does. */
	WT_EQ(wult_rule_intr_in_idle(true, true, false, 5, 0, true), WULT_KEEP);
	WT_EQ(wult_rule_intr_in_idle(true, true, true, 1, 0, true), WULT_STALE_TAI);
	/* The tick was programmed first; its interrupt ran ours too. */
	WT_EQ(wult_rule_intr_in_idle(false, false, false, 1, 0, false), WULT_OTHER_WAKE);
	/* A poll does not end at the tick: ours still ends it. */
	WT_EQ(wult_rule_intr_in_idle(true, true, false, 2, 0, false), WULT_KEEP);
}

/*
 * M2: an mwait state entered with IRQs on (intel_idle's C1 on SKX/ICX)
 * halts, and advertises polling without CPUIDLE_FLAG_POLLING: a remote
 * wakeup's need_resched write ends it with no interrupt. Set when ours
 * runs inside it: that wakeup ended the wait, not ours.
 */
static void test_intr_in_idle_polling_halt(void)
{
	WT_EQ(wult_rule_intr_in_idle(false, true, true, 1, 0, true), WULT_OTHER_WAKE);
	/* Advertising polling, no wakeup: ours woke it. */
	WT_EQ(wult_rule_intr_in_idle(false, true, false, 1, 0, true), WULT_KEEP);
	/*
	 * hlt does not advertise polling: a remote wakeup sends its IPI,
	 * counted if it came first; need_resched alone, ours came first.
	 */
	WT_EQ(wult_rule_intr_in_idle(false, false, true, 1, 0, true), WULT_KEEP);
	/* The other checks come first, whatever need_resched says. */
	WT_EQ(wult_rule_intr_in_idle(false, true, true, 2, 0, true), WULT_STALE_TAI);
	WT_EQ(wult_rule_intr_in_idle(false, true, true, 1, 0, false), WULT_OTHER_WAKE);
}

/* (b), (c) The second half after our handler (IntrOff = 0). */
static void test_exit_after_intr(void)
{
	WT_EQ(wult_rule_exit_after_intr(2000, 1500, 0, 0), WULT_KEEP);
	/* An IPI or a device interrupt between our handler and TAI. */
	WT_EQ(wult_rule_exit_after_intr(2000, 1500, 1, 0), WULT_OTHER_INTR);
	WT_EQ(wult_rule_exit_after_intr(2000, 1500, 0, 1), WULT_OTHER_INTR);
	/* (c) Our interrupt hit an exit probe running with IRQs on. */
	WT_EQ(wult_rule_exit_after_intr(1400, 1500, 0, 0), WULT_STALE_TAI);
	WT_EQ(wult_rule_exit_after_intr(1500, 1500, 0, 0), WULT_KEEP);
}

/* The exit first (IntrOff = 1 candidate): ours is the one pending vector. */
static void test_exit_first(void)
{
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, true, false, 1), WULT_KEEP);
	WT_EQ(wult_rule_exit_first(900, 1000, false, false, 0, 0, true, false, 1), WULT_EARLY_WAKE);
	WT_EQ(wult_rule_exit_first(2000, 1000, true, false, 0, 0, true, false, 1), WULT_EARLY_WAKE);
	/* (c) An exit with IRQs on cannot precede its wake interrupt. */
	WT_EQ(wult_rule_exit_first(2000, 1000, false, true, 0, 0, true, false, 1), WULT_EARLY_WAKE);
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 1, 0, true, false, 1), WULT_EARLY_WAKE);
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 1, true, false, 1), WULT_EARLY_WAKE);
	/* Before LTime a remote wakeup is only an early wake: stays armed. */
	WT_EQ(wult_rule_exit_first(900, 1000, false, false, 0, 0, true, true, 0), WULT_EARLY_WAKE);
}

/*
 * Something else woke the CPU inside [LTime - exit latency, LTime]: the
 * exit is past LTime and ours is pending, but the wake was not ours.
 */
static void test_exit_first_other_wake(void)
{
	/* A remote wakeup of a polling (mwait) state: need_resched, no IPI. */
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, true, true, 1), WULT_OTHER_WAKE);
	/* ... before our interrupt was even raised: nothing pending. */
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, true, true, 0), WULT_OTHER_WAKE);
	/* A spurious mwait exit, our timer not raised yet. */
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, true, false, 0), WULT_OTHER_WAKE);
	/* A device vector pending beside ours (ours is handled first). */
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, true, false, 2), WULT_OTHER_WAKE);
	/* The tick was programmed first: its interrupt woke the CPU. */
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, false, false, 1),
	      WULT_OTHER_WAKE);
	/* ... but before LTime that is an early wake. */
	WT_EQ(wult_rule_exit_first(900, 1000, false, false, 0, 0, false, false, 1),
	      WULT_EARLY_WAKE);
	/* No readable local APIC: only need_resched can tell. */
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, true, false, -1), WULT_KEEP);
	WT_EQ(wult_rule_exit_first(2000, 1000, false, false, 0, 0, true, true, -1), WULT_OTHER_WAKE);
}

/* (b) Our handler after the exit: exactly ours, no NMI. */
static void test_no_cause(void)
{
	/* Returned with nothing to show for it: the state did not wait. */
	WT_EQ(wult_rule_no_cause(false, false, 0, 0, false, 0), true);
	/* Any cause: a poll, IRQs on, an interrupt, an NMI, need_resched, a vector. */
	WT_EQ(wult_rule_no_cause(true, false, 0, 0, false, 0), false);
	WT_EQ(wult_rule_no_cause(false, true, 0, 0, false, 0), false);
	WT_EQ(wult_rule_no_cause(false, false, 1, 0, false, 0), false);
	WT_EQ(wult_rule_no_cause(false, false, 0, 1, false, 0), false);
	WT_EQ(wult_rule_no_cause(false, false, 0, 0, true, 0), false);
	WT_EQ(wult_rule_no_cause(false, false, 0, 0, false, 1), false);
	/* The APIC unreadable: no proof of no cause. */
	WT_EQ(wult_rule_no_cause(false, false, 0, 0, false, -1), false);
}

static void test_intr_after_exit(void)
{
	WT_EQ(wult_rule_intr_after_exit(1, 0), WULT_KEEP);
	/* An IPI serviced before our timer interrupt. */
	WT_EQ(wult_rule_intr_after_exit(2, 0), WULT_OTHER_INTR);
	WT_EQ(wult_rule_intr_after_exit(1, 1), WULT_OTHER_INTR);
	/* Our interrupt not counted: not possible, never kept. */
	WT_EQ(wult_rule_intr_after_exit(0, 0), WULT_OTHER_INTR);
}

/*
 * The ipi source's flag-write wake: an exit with need_resched set, nothing
 * pending and nothing handled since TBI; then its queued call with no
 * interrupt since TAI.
 */
static void test_flag_wake(void)
{
	WT_CHECK(wult_rule_flag_wake(true, 0, 0, 0), "need_resched alone: a flag wake");
	WT_CHECK(!wult_rule_flag_wake(false, 0, 0, 0), "no need_resched: the poll timed out");
	/* An interrupt pending: the IPI came, an interrupt wake (rule C). */
	WT_CHECK(!wult_rule_flag_wake(true, 1, 0, 0), "pending vector");
	/* No local APIC to read: not a flag wake we can vouch for. */
	WT_CHECK(!wult_rule_flag_wake(true, -1, 0, 0), "pending unknown");
	WT_CHECK(!wult_rule_flag_wake(true, 0, 1, 0), "an interrupt since TBI");
	WT_CHECK(!wult_rule_flag_wake(true, 0, 0, 1), "an NMI since TBI");
	WT_EQ(wult_rule_run_after_flag(0, 0), WULT_KEEP);
	/* An interrupt's flush ran our call, or came between. */
	WT_EQ(wult_rule_run_after_flag(1, 0), WULT_OTHER_INTR);
	WT_EQ(wult_rule_run_after_flag(0, 1), WULT_OTHER_INTR);
}

/* nic at idle entry: no timer due before LTime, whichever timer is first. */
static void test_timer_after(void)
{
	WT_CHECK(wult_rule_timer_after(5040, 5000), "the shadow, past LTime");
	/* The tick between LTime and the shadow cannot wake it first. */
	WT_CHECK(wult_rule_timer_after(5010, 5000), "a timer after LTime");
	WT_CHECK(wult_rule_timer_after(5000, 5000), "a timer at LTime");
	WT_CHECK(!wult_rule_timer_after(4999, 5000), "a timer before LTime");
	/* Nothing programmed (KTIME_MAX). */
	WT_CHECK(wult_rule_timer_after(INT64_MAX, 5000), "no timer");
}

/*
 * nic: a device interrupt handled before its event's time was the previous
 * event's, pending while the next was armed at a rule C drop.
 */
static void test_dev_intr_ours(void)
{
	WT_CHECK(wult_rule_dev_intr_ours(5000, 5000, 0), "at LTime: ours");
	WT_CHECK(wult_rule_dev_intr_ours(9000, 5000, 30), "after LTime: ours");
	/* Inside LTime's conversion error: cannot be the previous one's. */
	WT_CHECK(wult_rule_dev_intr_ours(4980, 5000, 30), "within ltime_err");
	WT_CHECK(!wult_rule_dev_intr_ours(4960, 5000, 30), "before LTime - err");
	/* The next event is LDist ahead: the stale interrupt is far before it. */
	WT_CHECK(!wult_rule_dev_intr_ours(1000, 300000, 30), "the previous event's");
}

/* (i) u32 counters that wrap between the two snapshots. */
static void test_wrap(void)
{
	WT_EQ(wult_delta32(0, 0xffffffffU), 1);
	WT_EQ(wult_delta32(5, 0xfffffffeU), 7);
	WT_EQ(wult_rule_intr_in_idle(false, false, false,
				     wult_delta32(0, 0xffffffffU),
				     wult_delta32(3, 3), true), WULT_KEEP);
	WT_EQ(wult_rule_intr_after_exit(wult_delta32(1, 0xffffffffU), 0),
	      WULT_OTHER_INTR);
}

/* The LDist floor: the shortest arm-to-TBI time, whatever came first. */
static void test_floor(void)
{
	WT_EQ(wult_floor_update(0, 0, 5000), 5000);
	/* The first interval replaces whatever the field held. */
	WT_EQ(wult_floor_update(123, 0, 5000), 5000);
	WT_EQ(wult_floor_update(5000, 1, 7000), 5000);
	WT_EQ(wult_floor_update(5000, 2, 4000), 4000);
	WT_EQ(wult_floor_update(5000, 3, 5000), 5000);
	/* A zero-length interval is a floor too (n, not the value, says known). */
	WT_EQ(wult_floor_update(5000, 3, 0), 0);
	WT_EQ(wult_floor_update(0, 4, 9000), 0);
}

/* Refused only below a known floor: WULT_FLOOR_MIN_N intervals. */
static void test_ldist_unreachable(void)
{
	WT_EQ(WULT_FLOOR_MIN_N, 100);
	WT_EQ(wult_rule_ldist_unreachable(1000, 20000, 99), false);
	WT_EQ(wult_rule_ldist_unreachable(1000, 20000, 100), true);
	WT_EQ(wult_rule_ldist_unreachable(19999, 20000, 1000), true);
	/* At the floor: let through (the shortest seen, not the shortest possible). */
	WT_EQ(wult_rule_ldist_unreachable(20000, 20000, 1000), false);
	WT_EQ(wult_rule_ldist_unreachable(4000000, 20000, 1000), false);
	WT_EQ(wult_rule_ldist_unreachable(0, 0, 0), false);
}

/* What ends a datapoint arms next: hold-offs, stopped events. */
static void test_next(void)
{
	WT_EQ(wult_rule_next(true, false, false, false), WULT_NEXT_ARM);
	WT_EQ(wult_rule_next(true, false, true, true), WULT_NEXT_ARM);
	/* Not idle in the idle task: a short LDist, the CPU idles soon. */
	WT_EQ(wult_rule_next(true, true, true, false), WULT_NEXT_ARM);
	/* ... but expired in the interrupt that armed it: not again. */
	WT_EQ(wult_rule_next(true, true, true, true), WULT_NEXT_HOLD_OFF);
	WT_EQ(wult_rule_holdoff_ns(true), WULT_LOOP_HOLDOFF_NS);
	/* Not idle with a task running: busy, hold off a ms. */
	WT_EQ(wult_rule_next(true, true, false, false), WULT_NEXT_HOLD_OFF);
	WT_EQ(wult_rule_next(true, true, false, true), WULT_NEXT_HOLD_OFF);
	WT_EQ(wult_rule_holdoff_ns(false), WULT_BUSY_HOLDOFF_NS);
	WT_EQ(WULT_BUSY_HOLDOFF_NS, 1000000);
	WT_EQ(WULT_LOOP_HOLDOFF_NS, 20000);
	/* Every event of the CPU stopped (->stop, throttling): nothing. */
	WT_EQ(wult_rule_next(false, false, false, false), WULT_NEXT_NONE);
	WT_EQ(wult_rule_next(false, true, false, false), WULT_NEXT_NONE);
	WT_EQ(wult_rule_next(false, true, true, true), WULT_NEXT_NONE);
}

/* A failed arm is retried at the next idle exit; nothing doubles up. */
static void test_rearm_at_exit(void)
{
	WT_EQ(wult_rule_rearm_at_exit(true, false), true);
	WT_EQ(wult_rule_rearm_at_exit(true, true), false);
	WT_EQ(wult_rule_rearm_at_exit(false, false), false);
	WT_EQ(wult_rule_rearm_at_exit(false, true), false);
}

/* tdt converts with tsc_khz: refused while it is 0. */
/* tdt's MSR at idle entry: ours within tol, 0 in a timer-stop state. */
static void test_tdt_ltime(void)
{
	WT_EQ(wult_rule_tdt_ltime(1000000, 1000000, 2000), WULT_TDT_LTIME_MSR);
	WT_EQ(wult_rule_tdt_ltime(998000, 1000000, 2000), WULT_TDT_LTIME_MSR);
	WT_EQ(wult_rule_tdt_ltime(1002000, 1000000, 2000), WULT_TDT_LTIME_MSR);
	WT_EQ(wult_rule_tdt_ltime(997999, 1000000, 2000), WULT_TDT_LTIME_OTHER);
	WT_EQ(wult_rule_tdt_ltime(1002001, 1000000, 2000), WULT_TDT_LTIME_OTHER);
	/* lapic_timer_shutdown() by tick_broadcast_enter(): computed. */
	WT_EQ(wult_rule_tdt_ltime(0, 1000000, 2000), WULT_TDT_LTIME_COMPUTED);
	WT_EQ(wult_rule_tdt_ltime(0, 0, 0), WULT_TDT_LTIME_COMPUTED);
}

static void test_tsc_rate(void)
{
	WT_EQ(wult_rule_tsc_rate_known(0), false);
	WT_EQ(wult_rule_tsc_rate_known(1), true);
	WT_EQ(wult_rule_tsc_rate_known(2995200), true);
}

/*
 * The TSC's stability is decided per datapoint: a TSC marked unstable after
 * the module loaded (the clocksource watchdog) takes WULT_DPF_TSC_STABLE
 * off the datapoints from then on, and drops those of a TSC-clocked source.
 */
static void test_tsc_stability(void)
{
	WT_EQ(wult_rule_tsc_stable(true, true, false), true);
	WT_EQ(wult_rule_tsc_stable(true, true, true), false);
	WT_EQ(wult_rule_tsc_stable(false, true, false), false);
	WT_EQ(wult_rule_tsc_stable(true, false, false), false);
	/* hrt's times are CLOCK_MONOTONIC: only its stamps degrade. */
	WT_EQ(wult_rule_tsc_times_ok(false, true), true);
	WT_EQ(wult_rule_tsc_times_ok(true, false), true);
	WT_EQ(wult_rule_tsc_times_ok(true, true), false);
}

/*
 * After our interrupt inside idle, the next event is dated from its
 * handler, where irq_exit restarts the governor's idle clock: armed 30 us
 * later at the exit probe, a 100 us LDist is armed 70 us ahead.
 */
static void test_arm_ldist(void)
{
	WT_EQ(wult_rule_arm_ldist(100000, 0), 100000);
	WT_EQ(wult_rule_arm_ldist(100000, 30000), 70000);
	WT_EQ(wult_rule_arm_ldist(100000, 100000), 0);
	WT_EQ(wult_rule_arm_ldist(20000, 80000), 0);
}

/*
 * The LDist recorded is the one armed: unchanged without a clamp, else
 * lengthened to what the clamp armed (nic: 2.1 us at least; a distance
 * already past: armed at once, recorded as the time since the arm's date).
 */
static void test_armed_ldist(void)
{
	u64 rec = 1;

	WT_EQ(wult_rule_armed_ldist(100000, 0, 0, &rec), 100000);
	WT_EQ(rec, 100000);
	WT_EQ(wult_rule_armed_ldist(100000, 30000, 2100, &rec), 70000);
	WT_EQ(rec, 100000);
	WT_EQ(wult_rule_armed_ldist(1000, 0, 2100, &rec), 2100);
	WT_EQ(rec, 2100);
	WT_EQ(wult_rule_armed_ldist(31000, 30000, 2100, &rec), 2100);
	WT_EQ(rec, 32100);
	WT_EQ(wult_rule_armed_ldist(20000, 80000, 0, &rec), 0);
	WT_EQ(rec, 80000);
}

/*
 * MPERF over the TSC window: read 30 cycles after TBI's stamp and 200
 * after TAI's, it counted 170 cycles of C0 outside the window.
 */
static void test_mperf_delta(void)
{
	WT_EQ(wult_rule_mperf_delta(1170, 30, 200), 1000);
	WT_EQ(wult_rule_mperf_delta(1000, 0, 0), 1000);
	/* All C0 outside the window: nothing left, never below 0. */
	WT_EQ(wult_rule_mperf_delta(100, 0, 200), 0);
}

/* The LBR control MSR is restored only if perf's PMI did not run. */
static void test_lbr_restore(void)
{
	WT_EQ(wult_rule_lbr_restore(7, 7), true);
	WT_EQ(wult_rule_lbr_restore(7, 8), false);
	WT_EQ(wult_rule_lbr_restore(0xffffffffU, 0), false);
}

int main(void)
{
	test_intr_in_idle();
	test_intr_in_idle_polling_halt();
	test_exit_after_intr();
	test_exit_first();
	test_exit_first_other_wake();
	test_no_cause();
	test_intr_after_exit();
	test_flag_wake();
	test_timer_after();
	test_dev_intr_ours();
	test_wrap();
	test_floor();
	test_ldist_unreachable();
	test_next();
	test_tdt_ltime();
	test_rearm_at_exit();
	test_tsc_rate();
	test_tsc_stability();
	test_arm_ldist();
	test_armed_ldist();
	test_lbr_restore();
	test_mperf_delta();
	return wt_done();
}
