// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle: a reference cpuidle driver with known exit latencies.
 *
 * Machines without a cpuidle driver (VMs, the test guests) have one idle
 * state, so the paths wult must get right on real hardware never run there:
 * a governor choosing among several states, states left with interrupts
 * masked (the idle exit runs before the wake interrupt), timer-stop states.
 * This driver provides them, with an exit latency injected by the driver
 * itself, so that what wult measures can be checked against a known answer.
 *
 *   POLL  cpuidle's polling state.
 *   C1    "sti; hlt", interrupts on: the wake interrupt runs at once.
 *   C2    like C1, or, with bit 1 of irqs_off, left with interrupts off.
 *   C3    like C2 (bit 2 of irqs_off); CPUIDLE_FLAG_TIMER_STOP if timer_stop,
 *         leaving the broadcast at the wake (refidle_enter_timer_stop()).
 *
 * The injected latency (exit_us) delays what the hardware would delay:
 *   - interrupts on: "hlt" returns into the interrupt handler as soon as the
 *     CPU wakes, which cannot be delayed; the driver then waits exit_us with
 *     interrupts off before it returns, so the idle exit (TAI) carries it;
 *   - interrupts off: the CPU waits with interrupts masked, polling the
 *     local APIC's interrupt request register (IRR) and need_resched(),
 *     notices the wake, waits exit_us and returns; the idle exit runs, then
 *     the interrupt is taken when cpuidle enables interrupts, so both TAI
 *     and the interrupt carry the latency. The CPU spins meanwhile: it
 *     stands in for mwait, whose interrupt-masked wake-up a VM does not
 *     provide.
 * What it cannot simulate: power saved, caches or TLBs lost, package states,
 * a wake latency that varies with what woke the CPU, and the interrupt
 * delay of an interrupts-on state. An NMI ends the hlt wait (hlt returns
 * after its handler) but not the masked one (the loop goes on after it).
 *
 * The exit latency told to cpuidle is exit_us plus the driver's own
 * detection cost (one IRR scan), measured at load.
 */
#include <linux/cpuidle.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/idle.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/hardirq.h>
#include <asm/irq_vectors.h>
#include <asm/irqflags.h>
#include <asm/msr.h>
#include <asm/mwait.h>
#include <asm/processor.h>
#include <asm/tsc.h>
#include <trace/events/power.h>

#include "wult_apic.h"
#include "wult_compat.h"

#define REFIDLE_STATES		3	/* C1..C3, after POLL */

static char *profile = "ref";
static unsigned int exit_us[REFIDLE_STATES] = { 1, 20, 80 };
static unsigned int target_us[REFIDLE_STATES] = { 2, 100, 400 };
static unsigned int prewake_us[REFIDLE_STATES];
static unsigned int n_exit, n_target, n_prewake;
static unsigned int irqs_off;
static unsigned int masked_max_us = 5000;
static bool timer_stop;

module_param(profile, charp, 0444);
MODULE_PARM_DESC(profile, "state table: ref (the parameters below), skx, icx or spr (intel_idle's) (default ref)");
module_param_array(exit_us, uint, &n_exit, 0444);
MODULE_PARM_DESC(exit_us, "injected exit latency of C1,C2,C3 in us (default 1,20,80; with a profile, injected instead of its declared ones)");
module_param_array(target_us, uint, &n_target, 0444);
MODULE_PARM_DESC(target_us, "target residency of C1,C2,C3 in us (default 2,100,400)");
module_param_array(prewake_us, uint, &n_prewake, 0444);
MODULE_PARM_DESC(prewake_us, "part of the exit latency of C1,C2,C3 a local timer wake saves, in us (default 0,0,0)");
module_param(irqs_off, uint, 0444);
MODULE_PARM_DESC(irqs_off, "mask of states left with interrupts off: bit 0 C1 .. bit 2 C3 (default 0)");
module_param(masked_max_us, uint, 0444);
MODULE_PARM_DESC(masked_max_us, "longest polling wait in us; past it the wait goes on in hlt (default 5000)");
module_param(timer_stop, bool, 0444);
MODULE_PARM_DESC(timer_stop, "flag C3 (a profile's deep states) CPUIDLE_FLAG_TIMER_STOP (default 0)");

/*
 * intel_idle's state tables (drivers/idle/intel_idle.c), the figures of
 * Debian's 6.1 and 6.12 kernels, which agree: name, description, flags
 * word, exit latency and target residency (us). The flags word is
 * intel_idle's: the MWAIT hint in its top byte, cpuidle's flags, and
 * intel_idle's own from bit 14 on. What the driver makes of them, as
 * intel_idle does:
 *   - IRQ_ENABLE: entered with interrupts on; the idle task advertises
 *     polling (mwait_idle_with_hints()), so a remote wakeup only writes
 *     need_resched and the write ends the wait, as it ends mwait; an
 *     interrupt runs inside the state once the CPU is awake;
 *   - no IRQ_ENABLE: entered and left with interrupts off (mwait's
 *     break-on-interrupt), polling advertised the same way;
 *   - a hint deeper than C1: the local APIC timer stops where it lacks
 *     ARAT, so CPUIDLE_FLAG_TIMER_STOP then (or with timer_stop=1);
 *   - CPUIDLE_FLAG_TLB_FLUSHED: kept (cpuidle leaves the mm before it).
 * ALWAYS_ENABLE (a _CST matter), IBRS and INIT_XSTATE (the MSR write and
 * the FPU reset around mwait) change nothing here. intel_idle also lowers
 * SKX's and SPR's C6 when the BIOS limits package C-states (to 92/276 and
 * 190/600 us); these are the tables as written.
 */
#define REFIDLE_MWAIT(hint)	((u32)(hint) << 24)
#define REFIDLE_HINT(flags)	((flags) >> 24)
#define REFIDLE_IRQ_ENABLE	BIT(14)
#define REFIDLE_ALWAYS_ENABLE	BIT(15)
#define REFIDLE_IBRS		BIT(16)
#define REFIDLE_INIT_XSTATE	BIT(17)

struct refidle_cstate {
	const char *name;
	const char *desc;
	u32 flags;
	unsigned int exit_latency;	/* us */
	unsigned int target_residency;	/* us */
};

struct refidle_profile {
	const char *name;
	struct refidle_cstate states[REFIDLE_STATES];
};

static const struct refidle_profile refidle_profiles[] = {
	{ "skx", {
		{ "C1", "MWAIT 0x00", REFIDLE_MWAIT(0x00) | REFIDLE_IRQ_ENABLE,
		  2, 2 },
		{ "C1E", "MWAIT 0x01", REFIDLE_MWAIT(0x01) | REFIDLE_ALWAYS_ENABLE,
		  10, 20 },
		{ "C6", "MWAIT 0x20", REFIDLE_MWAIT(0x20) |
		  CPUIDLE_FLAG_TLB_FLUSHED | REFIDLE_IBRS, 133, 600 },
	} },
	{ "icx", {
		{ "C1", "MWAIT 0x00", REFIDLE_MWAIT(0x00) | REFIDLE_IRQ_ENABLE,
		  1, 1 },
		{ "C1E", "MWAIT 0x01", REFIDLE_MWAIT(0x01) | REFIDLE_ALWAYS_ENABLE,
		  4, 4 },
		{ "C6", "MWAIT 0x20", REFIDLE_MWAIT(0x20) |
		  CPUIDLE_FLAG_TLB_FLUSHED, 170, 600 },
	} },
	{ "spr", {
		{ "C1", "MWAIT 0x00", REFIDLE_MWAIT(0x00), 1, 1 },
		{ "C1E", "MWAIT 0x01", REFIDLE_MWAIT(0x01) | REFIDLE_ALWAYS_ENABLE,
		  2, 4 },
		{ "C6", "MWAIT 0x20", REFIDLE_MWAIT(0x20) |
		  CPUIDLE_FLAG_TLB_FLUSHED | REFIDLE_INIT_XSTATE, 290, 800 },
	} },
};

/* How a state waits for its wake, and where its wake interrupt runs. */
enum refidle_wait {
	REFIDLE_HLT,	/* sti; hlt: the handler at the wake, then exit_us */
	REFIDLE_IRQ_ON,	/* polls; exit_us, then the handler inside the state */
	REFIDLE_MASKED,	/* polls; exit_us, return, then the handler */
};

static const char *const refidle_wait_names[] = {
	[REFIDLE_HLT]		= "hlt",
	[REFIDLE_IRQ_ON]	= "irqs_on",
	[REFIDLE_MASKED]	= "irqs_off",
};

/*
 * Per cpuidle state index: how it waits, its injected latency and the part
 * of it a local timer wake saves, in TSC cycles.
 */
static enum refidle_wait refidle_waits[REFIDLE_STATES + 1];
static u64 refidle_cycles[REFIDLE_STATES + 1];
static u64 refidle_prewake_cycles[REFIDLE_STATES + 1];
static u64 refidle_masked_max_cycles;

/*
 * The TSC read that ended the last wait of each CPU: where its idle state
 * ended. One store per wake; only the instruction benchmark reads it.
 */
static DEFINE_PER_CPU(u64, refidle_exit_tsc);

/*
 * One turn of a wait loop. No pause (cpu_relax()): under QEMU's TCG every
 * pause leaves translated code for the main loop (helper_pause), so a loop
 * with one advances the guest's instruction-counted clock (vm-run --clock
 * icount) about a hundred times more slowly than one without, in host
 * time; a masked C3 entered for a long sleep then stalls the guest for
 * minutes. The loops are bounded by a TSC deadline or a pending interrupt.
 */
static __always_inline void refidle_spin(void)
{
	barrier();
}

/*
 * Waits the injected latency from @start, the TSC at the wake, less the
 * state's pre-wake if the local timer woke it (@timer). Returns the TSC
 * read that ended the wait: the idle exit.
 */
static __always_inline u64 refidle_end(u64 start, int index, bool timer)
{
	u64 end = start + refidle_cycles[index];

	if (timer)
		end -= refidle_prewake_cycles[index];
	return end;
}

static __always_inline u64 refidle_wait(u64 start, int index, bool timer)
{
	u64 end = refidle_end(start, index, timer), now;

	while ((s64)((now = rdtsc()) - end) < 0)
		refidle_spin();
	return now;
}

/*
 * Is an interrupt waiting to be taken? Interrupts are masked here. Each
 * IRR read is an MMIO access (xAPIC), which under QEMU's icount leaves
 * translated code and comes back (io_recompile): reading all eight
 * registers every turn made the masked wait cost ~40 s of host CPU per
 * guest second, ~15 s now. The system vectors (the local timer's, the
 * IPIs') are read every turn, so their wakes end the wait as promptly as
 * before; device vectors every REFIDLE_DEV_TURNS turns (~0.2 us under
 * icount; on hardware, sixteen turns of one MMIO read each). Vectors
 * below FIRST_EXTERNAL_VECTOR are exceptions, never pending.
 */
#define REFIDLE_DEV_TURNS	16

static __always_inline bool refidle_irq_pending(unsigned int turn)
{
	unsigned int i = FIRST_SYSTEM_VECTOR / 32;

	if (turn % REFIDLE_DEV_TURNS == 0)
		i = FIRST_EXTERNAL_VECTOR / 32;
	for (; i < WULT_APIC_IRR_REGS; i++)
		if (wult_apic_irr(i))
			return true;
	return false;
}

/*
 * The enter() callbacks run where RCU is not watching (cpuidle's
 * ct_idle_enter() precedes them): uninstrumented (WULT_CPUIDLE), calling
 * only inline code. Each says while it runs (refidle_inside), so that
 * module unload can wait for CPUs still inside: unregistering the driver
 * waits for RCU, which such CPUs do not hold up.
 */
static DEFINE_PER_CPU(bool, refidle_inside);

static __always_inline void refidle_in(void)
{
	__this_cpu_write(refidle_inside, true);
}

/* The last store before returning out of this module's text. */
static __always_inline int refidle_out(int index, u64 exit_tsc)
{
	__this_cpu_write(refidle_exit_tsc, exit_tsc);
	/* Pairs with refidle_wait_enters(): every access above is done. */
	smp_store_release(this_cpu_ptr(&refidle_inside), false);
	return index;
}

/* Interrupts on: hlt takes the wake interrupt, then returns. */
static __always_inline void refidle_halt(void)
{
	if (!need_resched()) {
		raw_safe_halt();
		raw_local_irq_disable();
	}
}

/*
 * Interrupts off: wait for a pending interrupt, as mwait would. The spin
 * is bounded (masked_max_us): a long sleep, say seconds with nothing
 * measured, would otherwise spin for all of it, which on the
 * instruction-counted clock costs host time in proportion. Past the bound
 * the wait goes on as C1's, interrupts on; a wake after it is an IntrOff=0
 * one.
 *
 * Like mwait_idle_with_hints(), the wait advertises polling
 * (TIF_POLLING_NRFLAG): a remote wakeup or a cross-CPU call queued to
 * this CPU then sets need_resched and sends no interrupt, and the wait
 * ends on the flag as mwait ends on the write to the monitored line.
 * hlt sees no such write, so polling is withdrawn before it. Otherwise
 * the caller withdraws it (current_clr_polling()), where mwait's caller
 * would: after the CPU woke.
 */
static DEFINE_PER_CPU(bool, refidle_kicker);

static __always_inline void refidle_poll(void)
{
	u64 limit = rdtsc() + refidle_masked_max_cycles;
	unsigned int turn = 0;

	/* The kick facility's kicking CPU halts at once (see there). */
	if (__this_cpu_read(refidle_kicker))
		limit = 0;

	if (current_set_polling_and_test())
		return;
	while (!need_resched() && !refidle_irq_pending(turn++)) {
		if ((s64)(rdtsc() - limit) >= 0) {
			if (!current_clr_polling_and_test()) {
				raw_safe_halt();
				raw_local_irq_disable();
			}
			return;
		}
		refidle_spin();
	}
}

/*
 * Pre-wake (prewake_us): a wake by the local timer, which the hardware
 * sees coming, costs less than one by a device or an IPI. The local
 * timer woke the state if its vector (LOCAL_TIMER_VECTOR, the one-shot
 * and TSC-deadline modes alike) is pending at the wake, or, for a wait
 * that took its interrupt in hlt, if the local timer interrupt count moved
 * since @timer_irqs: exact, and read only for states with a pre-wake.
 */
static __always_inline bool refidle_by_timer(int index, u32 timer_irqs)
{
	if (!refidle_prewake_cycles[index])
		return false;
	return this_cpu_read(irq_stat.apic_timer_irqs) != timer_irqs ||
	       (wult_apic_irr(LOCAL_TIMER_VECTOR / 32) &
		BIT(LOCAL_TIMER_VECTOR % 32));
}

static __always_inline u32 refidle_timer_irqs(void)
{
	return this_cpu_read(irq_stat.apic_timer_irqs);
}

/*
 * mwait entered with interrupts on returns into the handler of the
 * interrupt that woke it once the CPU is awake, polling still advertised:
 * one instruction with interrupts on (sti's shadow covers the nop) runs
 * whatever is pending here, inside the state.
 */
static __always_inline void refidle_take_irqs(void)
{
	raw_local_irq_enable();
	asm volatile("nop");
	raw_local_irq_disable();
}

/*
 * Halting exit waits (debugfs wult_refidle/halt_exit, a CPU list), for CPUs
 * that are not measured. Under QEMU's round-robin TCG a vCPU that spins
 * keeps its turn: an ipi launcher or the CPU running wult record spinning
 * its 80 us exit held the measured CPU up as long (Documentation/vm-run.md,
 * "Slices"), where a real CPU executes nothing. On these CPUs the exit
 * wait of a hlt state halts instead, woken by the local APIC timer,
 * borrowed: its one-shot count is cut to the wait's end when that comes
 * first, and the timer's interrupt then has the kernel's handler program
 * its own next event again. A timer masked, periodic, in TSC-deadline mode
 * or not running is left alone, and the wait spins. That interrupt runs
 * inside the exit, so never on a measured CPU: wult.ko drops such a
 * datapoint (other_intr). The exit ends late by the handler's length.
 * The wait starts with a pause, which under TCG ends the vCPU's turn: the
 * other vCPUs run what this wake's handler gave them (an ipi launcher's
 * IPI) at once, whatever the state, as they would on hardware.
 */
static DEFINE_PER_CPU(bool, refidle_halt_exit);
/* APIC timer ticks per TSC cycles, measured at load (0: not measured). */
static u64 refidle_apic_ticks, refidle_apic_cycles;

static __always_inline u32 refidle_apic_read(u32 reg)
{
	if (x2apic_mode)
		return (u32)__rdmsr(APIC_BASE_MSR + (reg >> 4));
	return readl((void __iomem *)(APIC_BASE + reg));
}

static __always_inline void refidle_apic_write(u32 reg, u32 val)
{
	if (x2apic_mode)
		__wrmsr(APIC_BASE_MSR + (reg >> 4), val, 0);
	else
		writel(val, (void __iomem *)(APIC_BASE + reg));
}

static __always_inline u64 refidle_wait_halted(u64 end)
{
	u32 lvtt, left;
	u64 now, want;

	cpu_relax();
	while ((s64)((now = rdtsc()) - end) < 0) {
		lvtt = refidle_apic_read(APIC_LVTT);
		left = refidle_apic_read(APIC_TMCCT);
		if ((lvtt & (APIC_LVT_MASKED | APIC_LVT_TIMER_PERIODIC |
			     APIC_LVT_TIMER_TSCDEADLINE)) || !left) {
			refidle_spin();
			continue;
		}
		want = div64_u64((end - now) * refidle_apic_ticks,
				 refidle_apic_cycles) + 1;
		if (want < left)
			refidle_apic_write(APIC_TMICT, want);
		raw_safe_halt();
		raw_local_irq_disable();
	}
	return now;
}

/* The injected latency counts from the wake: the sleep's end. */
static WULT_CPUIDLE int refidle_enter_halt(struct cpuidle_device *dev,
					   struct cpuidle_driver *drv, int index)
{
	bool timer;
	u32 t0;
	u64 woke;

	refidle_in();
	t0 = refidle_timer_irqs();
	refidle_halt();
	woke = rdtsc();
	timer = refidle_by_timer(index, t0);
	if (__this_cpu_read(refidle_halt_exit))
		return refidle_out(index,
				   refidle_wait_halted(refidle_end(woke, index,
								   timer)));
	return refidle_out(index, refidle_wait(woke, index, timer));
}

static WULT_CPUIDLE int refidle_enter_masked(struct cpuidle_device *dev,
					     struct cpuidle_driver *drv, int index)
{
	u32 t0;
	u64 woke;

	refidle_in();
	t0 = refidle_timer_irqs();
	refidle_poll();
	current_clr_polling();
	woke = rdtsc();
	return refidle_out(index, refidle_wait(woke, index,
					       refidle_by_timer(index, t0)));
}

/*
 * An IRQs-on mwait state (intel_idle's CPUIDLE_FLAG_IRQ_ENABLE): the wait
 * polls as the masked one does, the injected latency passes, then the
 * wake interrupt runs inside the state (TIntr and TAI both carry the
 * latency), with polling advertised, and polling is withdrawn.
 */
static WULT_CPUIDLE int refidle_enter_irq_on(struct cpuidle_device *dev,
					     struct cpuidle_driver *drv,
					     int index)
{
	u32 t0;
	u64 woke, end;

	refidle_in();
	t0 = refidle_timer_irqs();
	refidle_poll();
	woke = rdtsc();
	end = refidle_wait(woke, index, refidle_by_timer(index, t0));
	refidle_take_irqs();
	current_clr_polling();
	return refidle_out(index, end);
}

/*
 * A timer-stop state (CPUIDLE_FLAG_TIMER_STOP, with CPUIDLE_FLAG_RCU_IDLE:
 * RCU is turned off here, around the sleep only). Its local timer works
 * again from the wake on, so the broadcast is left at the wake, before the
 * injected latency, and cpuidle_enter_state()'s tick_broadcast_exit() then
 * finds nothing to do.
 *
 * An interrupts-on sleep takes the wake interrupt before the driver can
 * leave, so the broadcast is left first thing in a device interrupt (the
 * broadcast device's own among them; refidle_ts_irq()). The kernel cannot
 * have the broadcast interrupt handled inside the broadcast: its exit sets
 * the CPU's bit in the broadcast force mask when the CPU's next event has
 * passed, expecting the broadcast device to fire for it and clear the bit
 * while do_idle() polls. After the broadcast interrupt's own handler ran
 * here, the next event is on the local timer and the broadcast device is
 * not programmed for it: if the event passes before the exit, nothing
 * clears the bit while no other CPU uses the broadcast, and the CPU polls
 * for good (Documentation/kernel.md, "Timer-stop states").
 *
 * RCU watches this enter() outside the sleep (CPUIDLE_FLAG_RCU_IDLE), where
 * it calls tick_broadcast_exit(): notrace, not WULT_CPUIDLE; the sleep's
 * helpers are inline.
 */
static DEFINE_PER_CPU(bool, refidle_ts_asleep);
static struct tracepoint *refidle_irq_tp;
static bool refidle_ts_used;

static notrace void refidle_ts_irq(void *data, int irq,
				   struct irqaction *action)
{
	if (!__this_cpu_read(refidle_ts_asleep))
		return;
	__this_cpu_write(refidle_ts_asleep, false);
	tick_broadcast_exit();
}

static notrace int refidle_enter_timer_stop(struct cpuidle_device *dev,
					    struct cpuidle_driver *drv,
					    int index)
{
	bool timer;
	u64 woke;
	u32 t0;

	refidle_in();
	__this_cpu_write(refidle_ts_asleep, true);
	t0 = refidle_timer_irqs();
	wult_ct_idle_enter();
	if (refidle_waits[index] == REFIDLE_MASKED) {
		refidle_poll();
		current_clr_polling();
	} else {
		refidle_halt();
	}
	/* The broadcast exit is part of the injected latency, as on hardware. */
	woke = rdtsc();
	timer = refidle_by_timer(index, t0);
	wult_ct_idle_exit();
	if (__this_cpu_read(refidle_ts_asleep)) {
		__this_cpu_write(refidle_ts_asleep, false);
		tick_broadcast_exit();
	}
	return refidle_out(index, refidle_wait(woke, index, timer));
}

static void refidle_irq_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "irq_handler_entry"))
		refidle_irq_tp = tp;
}

/* The device interrupt probe of a timer-stop state, before it is used. */
static int refidle_ts_init(void)
{
	int ret;

	if (!refidle_ts_used)
		return 0;
	for_each_kernel_tracepoint(refidle_irq_find, NULL);
	if (!refidle_irq_tp) {
		pr_err("wult_refidle: timer-stop states need the irq:irq_handler_entry tracepoint\n");
		return -EOPNOTSUPP;
	}
	ret = tracepoint_probe_register(refidle_irq_tp, refidle_ts_irq, NULL);
	if (ret)
		refidle_irq_tp = NULL;
	return ret;
}

static void refidle_ts_exit(void)
{
	if (!refidle_irq_tp)
		return;
	tracepoint_probe_unregister(refidle_irq_tp, refidle_ts_irq, NULL);
	tracepoint_synchronize_unregister();
}

/*
 * The instruction benchmark (tests/bench/vm_insns.sh, Documentation/bench.md).
 * On the instruction-counted clock of the test guests a TSC difference is
 * the number of instructions executed between two TSC reads, so stamps put
 * at the right places count the instructions of a path exactly. Beside the
 * exit stamp above, debugfs wult_refidle/bench offers stamps that exist
 * only while asked for, so they cost nothing otherwise:
 *
 *   idle_first  a cpu_idle probe run before wult's (higher priority);
 *   idle_last   one run after it (lower priority), also at idle entry;
 *   lt_first    a local_timer_entry probe run before wult's tdt probe;
 *   lt_second   another one, run after lt_first;
 *   timer=NS    a pinned hard hrtimer firing every NS ns on the writer's
 *               CPU, its callback doing nothing but record its stamp and
 *               re-arm: a wake of the same kind as wult's, without wult.
 *
 * Each stamp function's first instruction after an optional endbr64 is the
 * TSC read, which is checked when they are started: the instructions from
 * a stamp function's entry to its TSC read are then known (its "head").
 * Writing a list of the above (or "off") stops what runs, clears the record
 * and starts the list; reading gives the heads and the records of the
 * writer's CPU, in order: "KIND TSC AUX" with KIND
 *   X  idle_first at idle exit, AUX = refidle_exit_tsc (the idle exit);
 *   L  idle_last at idle exit, AUX = refidle_exit_tsc;
 *   E  idle_last at idle entry, AUX = the state;
 *   1, 2  lt_first, lt_second, AUX = refidle_exit_tsc;
 *   T  the timer's callback.
 */
#define REFIDLE_RECS		8192
#define REFIDLE_PRIO_FIRST	(TRACEPOINT_DEFAULT_PRIO + 1)
#define REFIDLE_PRIO_LAST	(TRACEPOINT_DEFAULT_PRIO - 1)
#define REFIDLE_FIRST		((void *)1UL)
#define REFIDLE_LAST		((void *)2UL)
#define REFIDLE_BENCH_MAX_WRITE	128

enum {
	REFIDLE_B_IDLE_FIRST	= BIT(0),
	REFIDLE_B_IDLE_LAST	= BIT(1),
	REFIDLE_B_LT_FIRST	= BIT(2),
	REFIDLE_B_LT_SECOND	= BIT(3),
	REFIDLE_B_TIMER		= BIT(4),
};

struct refidle_rec {
	u64 tsc;
	u64 aux;
	char kind;
};

static DEFINE_MUTEX(refidle_bench_lock);
static struct refidle_rec *refidle_recs;
static unsigned int refidle_nrecs;
static int refidle_bench_cpu = -1;
static unsigned int refidle_bench_on;
static u64 refidle_bench_period;
static struct hrtimer refidle_bench_timer;
static struct tracepoint *refidle_lt_tp;
static struct dentry *refidle_dir;

/* IRQs off, on the benchmark's CPU only. */
static notrace void refidle_note(char kind, u64 tsc, u64 aux)
{
	unsigned int n = READ_ONCE(refidle_nrecs);

	if (raw_smp_processor_id() != READ_ONCE(refidle_bench_cpu) ||
	    n >= REFIDLE_RECS)
		return;
	refidle_recs[n].tsc = tsc;
	refidle_recs[n].aux = aux;
	refidle_recs[n].kind = kind;
	WRITE_ONCE(refidle_nrecs, n + 1);
}

/*
 * The stamp functions: the TSC read first, everything else in a tail call
 * (a value kept across a call would need a register saved before it).
 */
static noinline notrace void refidle_idle_rest(void *data, unsigned int state,
					       u64 tsc)
{
	if (state == PWR_EVENT_EXIT)
		refidle_note(data == REFIDLE_FIRST ? 'X' : 'L', tsc,
			     __this_cpu_read(refidle_exit_tsc));
	else if (data == REFIDLE_LAST)
		refidle_note('E', tsc, state);
}

static notrace void refidle_stamp_idle(void *data, unsigned int state,
				       unsigned int cpu)
{
	refidle_idle_rest(data, state, rdtsc());
}

static noinline notrace void refidle_lt_rest(void *data, u64 tsc)
{
	refidle_note(data == REFIDLE_FIRST ? '1' : '2', tsc,
		     __this_cpu_read(refidle_exit_tsc));
}

static notrace void refidle_stamp_lt(void *data, int vector)
{
	refidle_lt_rest(data, rdtsc());
}

static noinline notrace enum hrtimer_restart
refidle_timer_rest(struct hrtimer *timer, u64 tsc)
{
	refidle_note('T', tsc, 0);
	hrtimer_forward_now(timer, ns_to_ktime(refidle_bench_period));
	return HRTIMER_RESTART;
}

static notrace enum hrtimer_restart refidle_stamp_timer(struct hrtimer *timer)
{
	return refidle_timer_rest(timer, rdtsc());
}

/*
 * Instructions from @fn's entry to its TSC read, that read included: 1, or
 * 2 after an endbr64; -1 if the compiler put anything else first.
 */
static int refidle_head(const void *fn)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const u8 rdtsc_op[] = { 0x0f, 0x31 };
	const u8 *p = fn;
	int head = 1;

	if (!memcmp(p, endbr64, sizeof(endbr64))) {
		p += sizeof(endbr64);
		head++;
	}
	return memcmp(p, rdtsc_op, sizeof(rdtsc_op)) ? -1 : head;
}

static void refidle_lt_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "local_timer_entry"))
		refidle_lt_tp = tp;
}

static void refidle_bench_stop(void)
{
	unsigned int on = refidle_bench_on;

	refidle_bench_on = 0;
	if (on & REFIDLE_B_TIMER)
		hrtimer_cancel(&refidle_bench_timer);
	if (on & REFIDLE_B_IDLE_FIRST)
		unregister_trace_cpu_idle(refidle_stamp_idle, REFIDLE_FIRST);
	if (on & REFIDLE_B_IDLE_LAST)
		unregister_trace_cpu_idle(refidle_stamp_idle, REFIDLE_LAST);
	if (on & REFIDLE_B_LT_FIRST)
		tracepoint_probe_unregister(refidle_lt_tp, refidle_stamp_lt,
					    REFIDLE_FIRST);
	if (on & REFIDLE_B_LT_SECOND)
		tracepoint_probe_unregister(refidle_lt_tp, refidle_stamp_lt,
					    REFIDLE_LAST);
	if (on)
		tracepoint_synchronize_unregister();
}

static int refidle_bench_start(unsigned int want)
{
	int ret = 0;

	if (refidle_head(refidle_stamp_idle) < 0 ||
	    refidle_head(refidle_stamp_lt) < 0 ||
	    refidle_head(refidle_stamp_timer) < 0) {
		pr_err("wult_refidle: bench: a stamp function does not start with its TSC read\n");
		return -ENOEXEC;
	}
	if ((want & (REFIDLE_B_LT_FIRST | REFIDLE_B_LT_SECOND)) && !refidle_lt_tp)
		return -EOPNOTSUPP;
	if (!refidle_recs) {
		refidle_recs = kvcalloc(REFIDLE_RECS, sizeof(*refidle_recs),
					GFP_KERNEL);
		if (!refidle_recs)
			return -ENOMEM;
	}
	WRITE_ONCE(refidle_nrecs, 0);
	WRITE_ONCE(refidle_bench_cpu, get_cpu());
	put_cpu();

	if (want & REFIDLE_B_IDLE_FIRST) {
		ret = register_trace_prio_cpu_idle(refidle_stamp_idle,
						   REFIDLE_FIRST,
						   REFIDLE_PRIO_FIRST);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_IDLE_FIRST;
	}
	if (want & REFIDLE_B_IDLE_LAST) {
		ret = register_trace_prio_cpu_idle(refidle_stamp_idle,
						   REFIDLE_LAST,
						   REFIDLE_PRIO_LAST);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_IDLE_LAST;
	}
	if (want & REFIDLE_B_LT_FIRST) {
		ret = tracepoint_probe_register_prio(refidle_lt_tp,
						     refidle_stamp_lt,
						     REFIDLE_FIRST,
						     REFIDLE_PRIO_FIRST);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_LT_FIRST;
	}
	if (want & REFIDLE_B_LT_SECOND) {
		ret = tracepoint_probe_register_prio(refidle_lt_tp,
						     refidle_stamp_lt,
						     REFIDLE_LAST,
						     TRACEPOINT_DEFAULT_PRIO);
		if (ret)
			return ret;
		refidle_bench_on |= REFIDLE_B_LT_SECOND;
	}
	if (want & REFIDLE_B_TIMER) {
		/* Pinned: on this, the writer's, CPU. */
		preempt_disable();
		hrtimer_start(&refidle_bench_timer,
			      ns_to_ktime(refidle_bench_period),
			      HRTIMER_MODE_REL_PINNED_HARD);
		preempt_enable();
		refidle_bench_on |= REFIDLE_B_TIMER;
	}
	return 0;
}

static int refidle_bench_parse(char *buf, unsigned int *want)
{
	char *tok;
	u64 ns;

	*want = 0;
	while ((tok = strsep(&buf, " \t\n"))) {
		if (!*tok || !strcmp(tok, "off"))
			continue;
		if (!strcmp(tok, "idle_first")) {
			*want |= REFIDLE_B_IDLE_FIRST;
		} else if (!strcmp(tok, "idle_last")) {
			*want |= REFIDLE_B_IDLE_LAST;
		} else if (!strcmp(tok, "lt_first")) {
			*want |= REFIDLE_B_LT_FIRST;
		} else if (!strcmp(tok, "lt_second")) {
			*want |= REFIDLE_B_LT_SECOND;
		} else if (!strncmp(tok, "timer=", 6)) {
			if (kstrtou64(tok + 6, 10, &ns) || ns < NSEC_PER_USEC)
				return -EINVAL;
			refidle_bench_period = ns;
			*want |= REFIDLE_B_TIMER;
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static ssize_t refidle_bench_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	unsigned int want;
	char *buf;
	int ret;

	if (len > REFIDLE_BENCH_MAX_WRITE)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = refidle_bench_parse(buf, &want);
	kfree(buf);
	if (ret)
		return ret;

	mutex_lock(&refidle_bench_lock);
	refidle_bench_stop();
	if (want) {
		ret = refidle_bench_start(want);
		if (ret)
			refidle_bench_stop();
	}
	mutex_unlock(&refidle_bench_lock);
	return ret ? ret : len;
}

static int refidle_bench_show(struct seq_file *m, void *v)
{
	unsigned int i, n;

	mutex_lock(&refidle_bench_lock);
	n = READ_ONCE(refidle_nrecs);
	seq_printf(m, "# heads idle=%d lt=%d timer=%d records=%u\n",
		   refidle_head(refidle_stamp_idle),
		   refidle_head(refidle_stamp_lt),
		   refidle_head(refidle_stamp_timer), n);
	for (i = 0; i < n; i++)
		seq_printf(m, "%c %llu %llu\n", refidle_recs[i].kind,
			   refidle_recs[i].tsc, refidle_recs[i].aux);
	mutex_unlock(&refidle_bench_lock);
	return 0;
}

static int refidle_bench_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, refidle_bench_show, NULL,
				(REFIDLE_RECS + 1) * 48);
}

static const struct file_operations refidle_bench_fops = {
	.owner		= THIS_MODULE,
	.open		= refidle_bench_open,
	.read		= seq_read,
	.write		= refidle_bench_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static void refidle_bench_init(void)
{
	wult_hrtimer_setup(&refidle_bench_timer, refidle_stamp_timer,
			   CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	for_each_kernel_tracepoint(refidle_lt_find, NULL);
	refidle_dir = debugfs_create_dir("wult_refidle", NULL);
	debugfs_create_file("bench", 0600, refidle_dir, NULL,
			    &refidle_bench_fops);
}

static void refidle_bench_exit(void)
{
	debugfs_remove_recursive(refidle_dir);
	mutex_lock(&refidle_bench_lock);
	refidle_bench_stop();
	mutex_unlock(&refidle_bench_lock);
	kvfree(refidle_recs);
}

/*
 * Remote wakeups, for the tests (tests/vm/remote.sh): debugfs
 * wult_refidle/kick. "CPU NS" written on one CPU starts a pinned hard
 * hrtimer there that queues an empty cross-CPU call to CPU every NS ns;
 * to a CPU that advertises polling (the interrupts-off wait above, POLL)
 * the kernel sends no interrupt for it and only sets need_resched, as for
 * a remote task wakeup. "off" stops it. Reading gives "cpu=C period=NS
 * sent=N busy=B": calls queued, and periods skipped because the last one
 * had not run yet.
 *
 * While it kicks, the kicking CPU's polling waits halt at once: under
 * QEMU's round-robin vCPUs (vm-run --clock icount) a polling vCPU keeps
 * its turn for up to masked_max_us, and the kicked CPU would run only
 * after both a kick and its timer had come, seeing them together.
 */
#define REFIDLE_KICK_MAX_WRITE	32

static DEFINE_MUTEX(refidle_kick_lock);
static struct hrtimer refidle_kick_timer;
static int refidle_kick_cpu = -1;
static int refidle_kick_from;
static u64 refidle_kick_period;
static unsigned long refidle_kick_sent, refidle_kick_busy;

static void refidle_kick_fn(void *info)
{
}

static call_single_data_t refidle_kick_csd = CSD_INIT(refidle_kick_fn, NULL);

static enum hrtimer_restart refidle_kick_timer_fn(struct hrtimer *timer)
{
	if (smp_call_function_single_async(refidle_kick_cpu, &refidle_kick_csd))
		WRITE_ONCE(refidle_kick_busy, refidle_kick_busy + 1);
	else
		WRITE_ONCE(refidle_kick_sent, refidle_kick_sent + 1);
	hrtimer_forward_now(timer, ns_to_ktime(refidle_kick_period));
	return HRTIMER_RESTART;
}

/* The timer, then the last call queued: it runs our function. */
static void refidle_kick_stop(void)
{
	if (refidle_kick_cpu < 0)
		return;
	hrtimer_cancel(&refidle_kick_timer);
	/* As csd_lock_wait(): the call's last access precedes the unlock. */
	while (smp_load_acquire(&refidle_kick_csd.node.u_flags) & CSD_FLAG_LOCK)
		usleep_range(100, 1000);
	WRITE_ONCE(per_cpu(refidle_kicker, refidle_kick_from), false);
	refidle_kick_cpu = -1;
}

static ssize_t refidle_kick_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	char buf[REFIDLE_KICK_MAX_WRITE];
	unsigned int cpu;
	u64 ns;
	int ret = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	mutex_lock(&refidle_kick_lock);
	refidle_kick_stop();
	if (sysfs_streq(buf, "off"))
		goto out;
	if (sscanf(buf, "%u %llu", &cpu, &ns) != 2 || ns < NSEC_PER_USEC ||
	    cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		ret = -EINVAL;
		goto out;
	}
	refidle_kick_period = ns;
	WRITE_ONCE(refidle_kick_sent, 0);
	WRITE_ONCE(refidle_kick_busy, 0);
	/* Pinned: on this, the writer's, CPU, which must not be the target. */
	preempt_disable();
	if (cpu == smp_processor_id()) {
		ret = -EINVAL;
	} else {
		refidle_kick_cpu = cpu;
		refidle_kick_from = smp_processor_id();
		WRITE_ONCE(per_cpu(refidle_kicker, refidle_kick_from), true);
		hrtimer_start(&refidle_kick_timer, ns_to_ktime(ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	preempt_enable();
out:
	mutex_unlock(&refidle_kick_lock);
	return ret ? ret : len;
}

static int refidle_kick_show(struct seq_file *m, void *v)
{
	mutex_lock(&refidle_kick_lock);
	seq_printf(m, "cpu=%d period=%llu sent=%lu busy=%lu\n", refidle_kick_cpu,
		   refidle_kick_period, READ_ONCE(refidle_kick_sent),
		   READ_ONCE(refidle_kick_busy));
	mutex_unlock(&refidle_kick_lock);
	return 0;
}

static int refidle_kick_open(struct inode *inode, struct file *file)
{
	return single_open(file, refidle_kick_show, NULL);
}

static const struct file_operations refidle_kick_fops = {
	.owner		= THIS_MODULE,
	.open		= refidle_kick_open,
	.read		= seq_read,
	.write		= refidle_kick_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* In refidle_dir, which refidle_bench_init() made. */
static void refidle_kick_init(void)
{
	wult_hrtimer_setup(&refidle_kick_timer, refidle_kick_timer_fn,
			   CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	debugfs_create_file("kick", 0600, refidle_dir, NULL, &refidle_kick_fops);
}

/* After refidle_bench_exit() removed the file. */
static void refidle_kick_exit(void)
{
	mutex_lock(&refidle_kick_lock);
	refidle_kick_stop();
	mutex_unlock(&refidle_kick_lock);
}

static struct cpuidle_driver refidle_driver = {
	.name	= "wult_refidle",
};

/* The profile in use, NULL for ref. */
static const struct refidle_profile *refidle_prof;

/*
 * debugfs wult_refidle/states: per state after POLL, what sysfs does not
 * show: "NAME intel_flags=X|- cpuidle_flags=X wait=KIND inject_us=N
 * prewake_us=N", intel_flags being the profile's intel_idle flags word.
 */
static int refidle_states_show(struct seq_file *m, void *v)
{
	const struct cpuidle_state *s;
	int i;

	for (i = 1; i <= REFIDLE_STATES; i++) {
		s = &refidle_driver.states[i];
		seq_printf(m, "%s intel_flags=", s->name);
		if (refidle_prof)
			seq_printf(m, "0x%x", refidle_prof->states[i - 1].flags);
		else
			seq_puts(m, "-");
		seq_printf(m, " cpuidle_flags=0x%x wait=%s inject_us=%u prewake_us=%u\n",
			   s->flags, refidle_wait_names[refidle_waits[i]],
			   exit_us[i - 1], prewake_us[i - 1]);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refidle_states);

/*
 * The APIC timer's rate against the TSC, for halt_exit: two reads of its
 * current count around a short delay, while the kernel's one-shot timer
 * runs (it is re-armed at every tick of this busy CPU).
 */
static void refidle_apic_calibrate(void)
{
	unsigned long flags;
	u32 c0, c1;
	u64 t0, t1;
	int i;

	for (i = 0; i < 10 && !refidle_apic_cycles; i++) {
		local_irq_save(flags);
		c0 = refidle_apic_read(APIC_TMCCT);
		t0 = rdtsc_ordered();
		/* 20 us, interrupts off: the tick must not re-arm meanwhile. */
		while (rdtsc() - t0 < 20ULL * tsc_khz / 1000)
			cpu_relax();
		c1 = refidle_apic_read(APIC_TMCCT);
		t1 = rdtsc_ordered();
		local_irq_restore(flags);
		if (c1 && c1 < c0 && t1 > t0) {
			refidle_apic_ticks = c0 - c1;
			refidle_apic_cycles = t1 - t0;
		} else {
			usleep_range(1000, 2000);
		}
	}
}

static DEFINE_MUTEX(refidle_halt_lock);
static struct cpumask refidle_halt_mask;

static ssize_t refidle_halt_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	cpumask_var_t mask;
	int cpu, ret;

	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = cpumask_parselist_user(ubuf, len, mask);
	if (!ret && !cpumask_empty(mask) && !refidle_apic_cycles)
		ret = -EOPNOTSUPP;
	if (!ret) {
		mutex_lock(&refidle_halt_lock);
		cpumask_copy(&refidle_halt_mask, mask);
		for_each_possible_cpu(cpu)
			WRITE_ONCE(per_cpu(refidle_halt_exit, cpu),
				   cpumask_test_cpu(cpu, mask));
		mutex_unlock(&refidle_halt_lock);
	}
	free_cpumask_var(mask);
	return ret ? ret : len;
}

static int refidle_halt_show(struct seq_file *m, void *v)
{
	mutex_lock(&refidle_halt_lock);
	seq_printf(m, "%*pbl\n", cpumask_pr_args(&refidle_halt_mask));
	mutex_unlock(&refidle_halt_lock);
	return 0;
}

static int refidle_halt_open(struct inode *inode, struct file *file)
{
	return single_open(file, refidle_halt_show, NULL);
}

static const struct file_operations refidle_halt_fops = {
	.owner		= THIS_MODULE,
	.open		= refidle_halt_open,
	.read		= seq_read,
	.write		= refidle_halt_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* In refidle_dir, which refidle_bench_init() made. */
static void refidle_halt_init(void)
{
	refidle_apic_calibrate();
	debugfs_create_file("halt_exit", 0600, refidle_dir, NULL,
			    &refidle_halt_fops);
}

/* In refidle_dir, which refidle_bench_init() made. */
static void refidle_states_init(void)
{
	debugfs_create_file("states", 0444, refidle_dir, NULL,
			    &refidle_states_fops);
}

/* The cost of a full IRR scan, the masked wait's coarsest turn, in ns. */
static u64 refidle_detect_ns(void)
{
	unsigned long flags;
	u64 t0, best = U64_MAX;
	int i;

	for (i = 0; i < 16; i++) {
		local_irq_save(flags);
		t0 = rdtsc_ordered();
		refidle_irq_pending(0);
		best = min(best, rdtsc_ordered() - t0);
		local_irq_restore(flags);
	}
	return div_u64(best * 1000000, tsc_khz);
}

typedef int (*refidle_enter_fn)(struct cpuidle_device *dev,
				struct cpuidle_driver *drv, int index);

static const refidle_enter_fn refidle_enters[] = {
	[REFIDLE_HLT]		= refidle_enter_halt,
	[REFIDLE_IRQ_ON]	= refidle_enter_irq_on,
	[REFIDLE_MASKED]	= refidle_enter_masked,
};

/* State @index of the ref profile, from the module parameters. */
static void refidle_init_ref(struct cpuidle_state *s, int index, u64 base_ns)
{
	unsigned int c = index - 1;
	bool masked = irqs_off & BIT(c);

	snprintf(s->name, CPUIDLE_NAME_LEN, "C%d", index);
	snprintf(s->desc, CPUIDLE_DESC_LEN, "%s, exit %u us",
		 masked ? "IRQs off wait" : "hlt", exit_us[c]);
	refidle_waits[index] = masked ? REFIDLE_MASKED : REFIDLE_HLT;
	s->exit_latency = exit_us[c] + DIV_ROUND_UP_ULL(base_ns, NSEC_PER_USEC);
	s->target_residency = max(target_us[c], s->exit_latency);
	if (index == 3 && timer_stop)
		s->flags |= CPUIDLE_FLAG_TIMER_STOP;
}

/*
 * State @index of an intel_idle profile: declared as intel_idle declares
 * it, the latency injected its declared one unless exit_us says otherwise.
 */
static void refidle_init_intel(struct cpuidle_state *s, int index,
			       const struct refidle_cstate *cs)
{
	strscpy(s->name, cs->name, CPUIDLE_NAME_LEN);
	strscpy(s->desc, cs->desc, CPUIDLE_DESC_LEN);
	s->exit_latency = cs->exit_latency;
	s->target_residency = cs->target_residency;
	s->flags = cs->flags & CPUIDLE_FLAG_TLB_FLUSHED;
	refidle_waits[index] = cs->flags & REFIDLE_IRQ_ENABLE ?
			       REFIDLE_IRQ_ON : REFIDLE_MASKED;
	/* intel_idle_state_needs_timer_stop(): deeper than C1, no ARAT. */
	if ((REFIDLE_HINT(cs->flags) >> MWAIT_SUBSTATE_SIZE) &
	    MWAIT_CSTATE_MASK &&
	    (timer_stop || !boot_cpu_has(X86_FEATURE_ARAT)))
		s->flags |= CPUIDLE_FLAG_TIMER_STOP;
	/* Those exit_us leaves out are the declared ones. */
	if (index > n_exit)
		exit_us[index - 1] = cs->exit_latency;
}

static const struct refidle_profile *refidle_find_profile(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refidle_profiles); i++)
		if (sysfs_streq(profile, refidle_profiles[i].name))
			return &refidle_profiles[i];
	return NULL;
}

/* The parameters against the profile, before anything is set up. */
static int refidle_check_params(const struct refidle_profile *p)
{
	if (!p && !sysfs_streq(profile, "ref")) {
		pr_err("wult_refidle: profile=%s: not one of ref, skx, icx, spr\n",
		       profile);
		return -EINVAL;
	}
	if (p && (n_target || irqs_off)) {
		pr_err("wult_refidle: profile=%s sets its own residencies and wait kinds: target_us and irqs_off apply to profile=ref\n",
		       profile);
		return -EINVAL;
	}
	if (irqs_off & ~GENMASK(REFIDLE_STATES - 1, 0)) {
		pr_err("wult_refidle: irqs_off=%#x: only bits 0-2 (C1-C3) exist\n",
		       irqs_off);
		return -EINVAL;
	}
	return 0;
}

/* The enter() callback, the injected cycles and the pre-wake of @index. */
static int refidle_init_wait(struct cpuidle_state *s, int index)
{
	unsigned int c = index - 1;

	if (prewake_us[c] > exit_us[c]) {
		pr_err("wult_refidle: prewake_us of %s (%u) exceeds its exit latency (%u us)\n",
		       s->name, prewake_us[c], exit_us[c]);
		return -EINVAL;
	}
	s->enter = refidle_enters[refidle_waits[index]];
	if (s->flags & CPUIDLE_FLAG_TIMER_STOP) {
		if (refidle_waits[index] == REFIDLE_IRQ_ON) {
			pr_err("wult_refidle: %s: no timer-stop IRQs-on state\n",
			       s->name);
			return -EINVAL;
		}
		s->flags |= CPUIDLE_FLAG_RCU_IDLE;
		s->enter = refidle_enter_timer_stop;
	}
	refidle_cycles[index] = div_u64((u64)exit_us[c] * tsc_khz, 1000);
	refidle_prewake_cycles[index] = div_u64((u64)prewake_us[c] * tsc_khz,
						1000);
	return 0;
}

static int __init refidle_init(void)
{
	const struct refidle_profile *p = refidle_find_profile();
	struct cpuidle_driver *cur = cpuidle_get_driver();
	struct cpuidle_state *s;
	u64 base_ns;
	int i, ret;

	if (cur) {
		pr_err("wult_refidle: cpuidle driver '%s' is registered already\n",
		       cur->name);
		return -EBUSY;
	}
	ret = refidle_check_params(p);
	if (ret)
		return ret;
	refidle_prof = p;
	if (!tsc_khz) {
		pr_err("wult_refidle: no TSC frequency to time the exit latency\n");
		return -ENODEV;
	}

	base_ns = refidle_detect_ns();
	refidle_masked_max_cycles = div_u64((u64)masked_max_us * tsc_khz, 1000);
	cpuidle_poll_state_init(&refidle_driver);
	for (i = 1; i <= REFIDLE_STATES; i++) {
		s = &refidle_driver.states[i];
		if (p)
			refidle_init_intel(s, i, &p->states[i - 1]);
		else
			refidle_init_ref(s, i, base_ns);
		ret = refidle_init_wait(s, i);
		if (ret)
			return ret;
		if (s->flags & CPUIDLE_FLAG_TIMER_STOP)
			refidle_ts_used = true;
	}
	refidle_driver.state_count = REFIDLE_STATES + 1;

	ret = refidle_ts_init();
	if (ret)
		return ret;
	ret = cpuidle_register(&refidle_driver, NULL);
	if (ret) {
		pr_err("wult_refidle: cpuidle_register failed (%d)%s\n", ret,
		       ret == -ENODEV ? ": cpuidle is off" : "");
		refidle_ts_exit();
		return ret;
	}
	refidle_bench_init();
	refidle_kick_init();
	refidle_states_init();
	refidle_halt_init();
	pr_info("wult_refidle: profile %s, exit %u/%u/%u us, pre-wake %u/%u/%u us, residency %u/%u/%u us, waits %s/%s/%s (at most %u us), timer_stop %d, detection %llu ns\n",
		p ? p->name : "ref", exit_us[0], exit_us[1], exit_us[2],
		prewake_us[0], prewake_us[1], prewake_us[2],
		refidle_driver.states[1].target_residency,
		refidle_driver.states[2].target_residency,
		refidle_driver.states[3].target_residency,
		refidle_wait_names[refidle_waits[1]],
		refidle_wait_names[refidle_waits[2]],
		refidle_wait_names[refidle_waits[3]], masked_max_us,
		refidle_ts_used, base_ns);
	return 0;
}

/*
 * Unloading must not free this module's text while a CPU still runs it.
 * cpuidle_unregister() clears cpuidle's "initialized" and waits for an RCU
 * grace period (cpuidle_uninstall_idle_handler(), 6.1 and 6.12 alike):
 * every CPU that read our driver then either went elsewhere or is past the
 * RCU-watched part of cpuidle_enter_state(), with IRQs off since before
 * the read, so it may still be on its way into our enter(), inside it, or
 * in its last instructions after it cleared refidle_inside (the epilogue).
 * RCU cannot see those CPUs: enter() runs after ct_idle_enter().
 *
 * Each enter() has IRQs on only in its sleep (hlt, or the moment an
 * IRQs-on state takes its wake interrupt), after refidle_in() and before
 * refidle_out(). Hence, for each CPU:
 *   1. an IPI waited for runs either in such a window, with
 *      refidle_inside set, or after enter() returned;
 *   2. waiting for refidle_inside to clear then waits out every CPU that
 *      was inside: each is past its last IRQs-on window;
 *   3. a second IPI waited for runs only once each CPU enables IRQs
 *      again, which is in cpuidle's code after enter() returned: the
 *      epilogue is done. (An IPI to a CPU that advertises polling is a
 *      need_resched write, its function run by do_idle(): later still.)
 * No CPU enters our enter() after step 1: none reads the driver any more.
 */
static void refidle_ipi_nop(void *info)
{
}

static void refidle_wait_enters(void)
{
	int cpu;

	cpus_read_lock();
	on_each_cpu(refidle_ipi_nop, NULL, 1);
	for_each_online_cpu(cpu) {
		/* Pairs with refidle_out(). */
		while (smp_load_acquire(per_cpu_ptr(&refidle_inside, cpu)))
			usleep_range(10, 100);
	}
	on_each_cpu(refidle_ipi_nop, NULL, 1);
	cpus_read_unlock();
}

static void __exit refidle_exit(void)
{
	refidle_bench_exit();
	refidle_kick_exit();
	cpuidle_unregister(&refidle_driver);
	refidle_wait_enters();
	refidle_ts_exit();
}

module_init(refidle_init);
module_exit(refidle_exit);

MODULE_DESCRIPTION("wult_refidle: reference cpuidle driver with injected exit latencies");
MODULE_LICENSE("GPL");
