// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the "tdt" delayed-event source, the local APIC timer in TSC-deadline
 * mode.
 *
 * The event is a pinned hard hrtimer, as for "hrt", but its times are TSC
 * cycles: LTime is the deadline the kernel wrote to MSR_IA32_TSC_DEADLINE
 * for it (read back at each idle entry, when the next timer event is
 * programmed), and TIntr is the TSC at the entry of the local timer
 * interrupt (the irq_vectors:local_timer_entry tracepoint, the earliest
 * point a module can reach), before the hrtimer core runs. Compared with
 * hrt this leaves out of both latencies the clock reads and the hrtimer
 * core's cost, and LTime is what the hardware compares against, not a
 * clock read near it.
 *
 * tdt=auto (default) offers the source where the boot CPU's local APIC timer
 * runs in TSC-deadline mode; tdt=off never; tdt=emulated everywhere, with
 * LTime computed from the hrtimer's expiry the way the kernel computes a
 * deadline instead of read from the MSR: for testing in VMs whose APIC has
 * no TSC-deadline mode (QEMU TCG). Datapoints of an emulated deadline are
 * flagged WULT_DPF_TDT_EMULATED.
 *
 * Timer-stop states: tick_broadcast_enter() shuts the local timer down
 * (the MSR reads 0) before the idle entry probe, and the broadcast device
 * delivers the expiry. LTime is then the expected deadline, flagged as
 * computed, and TIntr is the local timer interrupt's entry when the
 * broadcast comes as one (an IPI from the CPU owning the broadcast device),
 * else, the broadcast device's handler calling ours directly, the TSC at
 * our callback.
 */
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "../core/wult_rules.h"
#include "../trace/wult_refusal.h"
#include "../uapi/linux/wult.h"
#include "../wult_compat.h"
#include "../wult_probes.h"
#include "../wult_users.h"
#include "wult_source.h"
#include "wult_tdt.h"

/* A deadline this close to the expected one (in us) is taken for ours. */
#define WULT_TDT_MATCH_US	2

enum wult_tdt_mode {
	WULT_TDT_AUTO,
	WULT_TDT_OFF,
	WULT_TDT_EMULATED,
};

struct wult_tdt_cpu {
	struct wult_hrtimer timer;
	bool armed;
	bool computed;		/* LTime at the last idle entry was expect */
	u64 entry_tsc;		/* TSC at local_timer_entry, 0 outside it */
	u64 expect;		/* the deadline the kernel should program */
};

static DEFINE_PER_CPU(struct wult_tdt_cpu, wult_tdt_cpus);
static enum wult_tdt_mode wult_tdt_mode;

/* First thing in the local timer interrupt: one test, then the TSC. */
static notrace void wult_tdt_timer_entry(void *data, int vector)
{
	if (!this_cpu_read(wult_tdt_cpus.armed))
		return;
	this_cpu_write(wult_tdt_cpus.entry_tsc, rdtsc_ordered());
}

/*
 * The end of the local timer interrupt: a stamp left from it must not be
 * taken for a later expiry that comes another way (the broadcast device's
 * handler runs ours from its own interrupt).
 */
static notrace void wult_tdt_timer_exit(void *data, int vector)
{
	this_cpu_write(wult_tdt_cpus.entry_tsc, 0);
}

static notrace enum hrtimer_restart wult_tdt_fn(struct hrtimer *timer)
{
	struct wult_tdt_cpu *tc = this_cpu_ptr(&wult_tdt_cpus);
	u64 tsc = rdtsc_ordered();
	u64 tintr = tc->entry_tsc;

	/* Not from a local timer interrupt: the TSC here. */
	if (!tintr || tintr > tsc)
		tintr = tsc;
	tc->entry_tsc = 0;
	tc->armed = false;
	wult_engine_intr(tsc, tintr);
	return wult_hrtimer_fn_done(&tc->timer);
}

/* The exit first (wult_probes.h): no entry stamp outlives its interrupt. */
static struct wult_probe wult_tdt_tps[] = {
	{ .name = "local_timer_exit", .func = wult_tdt_timer_exit },
	{ .name = "local_timer_entry", .func = wult_tdt_timer_entry },
};

static int wult_tdt_start(void)
{
	return wult_probes_register(wult_tdt_tps, ARRAY_SIZE(wult_tdt_tps));
}

static void wult_tdt_stop(void)
{
	wult_probes_unregister(wult_tdt_tps, ARRAY_SIZE(wult_tdt_tps));
}

/* The local_timer_entry/exit probes exist while tdt events do. */
static struct wult_users wult_tdt_users = {
	.lock = __MUTEX_INITIALIZER(wult_tdt_users.lock),
	.start = wult_tdt_start,
	.stop = wult_tdt_stop,
};

static int wult_tdt_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		wult_hrtimer_setup(&per_cpu_ptr(&wult_tdt_cpus, cpu)->timer.timer,
				   wult_tdt_fn, CLOCK_MONOTONIC, WULT_HRTIMER_MODE);
	wult_probes_find(wult_tdt_tps, ARRAY_SIZE(wult_tdt_tps));
	return 0;
}

static void wult_tdt_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&wult_tdt_cpus, cpu)->timer.timer);
}

static int wult_tdt_usable(void)
{
	int ret;

	if (wult_tdt_mode == WULT_TDT_OFF)
		return wult_refuse(-EOPNOTSUPP, "tdt: off (module parameter tdt=off)");
	/*
	 * Every tdt time is converted with tsc_khz, and tdt=emulated skips
	 * the feature test that a kernel without a TSC rate clears.
	 */
	ret = wult_source_tsc_usable("tdt", false);
	if (ret)
		return ret;
	if (wult_tdt_mode == WULT_TDT_AUTO &&
	    !boot_cpu_has(X86_FEATURE_TSC_DEADLINE_TIMER))
		return wult_refuse(-EOPNOTSUPP,
				   "tdt: the local APIC timer is not in TSC-deadline mode on this system");
	if (!wult_tdt_tps[0].tp || !wult_tdt_tps[1].tp)
		return wult_refuse(-EOPNOTSUPP,
				   "tdt: no irq_vectors:local_timer_entry/exit tracepoints in this kernel");
	return 0;
}

static int wult_tdt_get(int cpu, u64 dev)
{
	if (dev)
		return wult_refuse_quiet(-EINVAL,
					 "tdt takes no config2 term (launcher, device...)");
	return wult_users_get(&wult_tdt_users);
}

static void wult_tdt_put(int cpu)
{
	wult_users_put(&wult_tdt_users);
}

/*
 * The deadline the kernel will program for an expiry @ldist ns ahead: the
 * clock event code converts the same distance to TSC cycles. notrace, as
 * the ops below: every wake (wult_engine.c).
 */
static notrace int wult_tdt_arm(u64 ldist, u64 *ltime)
{
	struct wult_tdt_cpu *tc = this_cpu_ptr(&wult_tdt_cpus);
	u64 now = ktime_get_ns();
	u64 tsc = rdtsc_ordered();

	tc->expect = tsc + mul_u64_u32_div(ldist, tsc_khz, USEC_PER_SEC);
	tc->entry_tsc = 0;
	tc->armed = true;
	wult_hrtimer_start(&tc->timer, now + ldist);
	*ltime = tc->expect;
	return 0;
}

static void wult_tdt_cancel(void)
{
	struct wult_tdt_cpu *tc = this_cpu_ptr(&wult_tdt_cpus);

	tc->armed = false;
	wult_hrtimer_try_cancel(&tc->timer);
}

/*
 * At idle entry the next timer event is programmed: if it is ours, the
 * MSR holds LTime exactly; in a timer-stop state it reads 0
 * (wult_rule_tdt_ltime()).
 */
static notrace bool wult_tdt_at_idle(u64 *ltime)
{
	struct wult_tdt_cpu *tc = this_cpu_ptr(&wult_tdt_cpus);
	u64 tol = div_u64((u64)tsc_khz * WULT_TDT_MATCH_US, 1000);
	u64 dl;

	tc->computed = true;
	if (wult_tdt_mode == WULT_TDT_EMULATED)
		return wult_hrtimer_first(&tc->timer.timer);
	if (rdmsrl_safe(MSR_IA32_TSC_DEADLINE, &dl))
		return false;
	switch (wult_rule_tdt_ltime(dl, tc->expect, tol)) {
	case WULT_TDT_LTIME_MSR:
		tc->computed = false;
		*ltime = dl;
		return true;
	case WULT_TDT_LTIME_COMPUTED:
		/* The broadcast device wakes at the first hrtimer: ours? */
		if (!wult_hrtimer_first(&tc->timer.timer))
			return false;
		*ltime = tc->expect;
		return true;
	default:
		return false;
	}
}

/* LTime was computed, not read from MSR_IA32_TSC_DEADLINE: say so. */
static notrace bool wult_tdt_timebase(struct wult_dp *dp)
{
	if (this_cpu_read(wult_tdt_cpus.computed))
		dp->flags |= WULT_DPF_TDT_EMULATED;
	return true;
}

const char *wult_tdt_mode_name(void)
{
	static const char *const names[] = {
		[WULT_TDT_AUTO] = "auto",
		[WULT_TDT_OFF] = "off",
		[WULT_TDT_EMULATED] = "emulated",
	};

	return names[wult_tdt_mode];
}

int wult_tdt_set_mode(const char *mode)
{
	if (!strcmp(mode, "auto"))
		wult_tdt_mode = WULT_TDT_AUTO;
	else if (!strcmp(mode, "off"))
		wult_tdt_mode = WULT_TDT_OFF;
	else if (!strcmp(mode, "emulated"))
		wult_tdt_mode = WULT_TDT_EMULATED;
	else
		return -EINVAL;
	return 0;
}

const struct wult_source wult_tdt_source = {
	.id		= WULT_SOURCE_TDT,
	.clock		= WULT_CLOCK_TSC,
	.init		= wult_tdt_init,
	.exit		= wult_tdt_exit,
	.usable		= wult_tdt_usable,
	.get		= wult_tdt_get,
	.put		= wult_tdt_put,
	.arm		= wult_tdt_arm,
	.cancel		= wult_tdt_cancel,
	.at_idle	= wult_tdt_at_idle,
	.timebase	= wult_tdt_timebase,
};
