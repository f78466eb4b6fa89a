// SPDX-License-Identifier: GPL-2.0
/*
 * wult_refidle: the enter() callbacks and the exit latencies they inject.
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
#include <linux/atomic.h>
#include <linux/cpuidle.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/idle.h>
#include <linux/tick.h>
#include <linux/tracepoint.h>
#include <asm/apic.h>
#include <asm/hardirq.h>
#include <asm/irq_vectors.h>
#include <asm/irqflags.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/smp.h>
#include <asm/tsc.h>

#include "../wult_apic.h"
#include "../wult_compat.h"
#include "refidle.h"

enum refidle_wait refidle_waits[REFIDLE_STATES + 1];
u64 refidle_cycles[REFIDLE_STATES + 1];
u64 refidle_prewake_cycles[REFIDLE_STATES + 1];
u64 refidle_masked_max_cycles;

DEFINE_PER_CPU(u64, refidle_exit_tsc);

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
DEFINE_PER_CPU(bool, refidle_inside);

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
DEFINE_PER_CPU(bool, refidle_kicker);

/*
 * A polling wait's turn: it pauses while a halt_exit CPU that paused with
 * work left is owed its turn back (refidle_handovers). Under TCG a wait
 * that does not pause keeps the turn until the next timer deadline, which
 * that CPU may not have programmed yet: an ipi launcher then started the
 * next launch's timer only when this wait gave up (masked_max_us, 1 of 30
 * datapoints in tests/vm/ipi.sh). For the same reason it pauses while a
 * listed CPU runs or is about to (@near, below). Not with a wake already
 * there: the wait resumes its turn where the deadline ended
 * it, often after the wake's check, and a pause there had it notice the
 * wake only after the other CPU's interrupt (+0.55 us in ipi.sh).
 */
static __always_inline void refidle_spin_owed(bool near)
{
	if ((near || arch_atomic_read(&refidle_handovers)) && !need_resched() &&
	    !refidle_irq_pending(1))
		cpu_relax();
	else
		refidle_spin();
}

/*
 * The listed CPUs' turns, for a polling wait on a CPU not listed (the
 * mirror of the echo, refidle_halt.c). A polling wait holds its vCPU's
 * turn, and an ipi launcher idle in every state (its polling states
 * sleep in hlt, refidle_enter_masked()) then ran its arm (a cross-CPU
 * call), went back to sleep or launched (its timer) only when the wait
 * gave up at masked_max_us: 8-12 of 30 datapoints in tests/vm/ipi.sh. So
 * a listed CPU says when it halts in this driver (refidle_halted), until
 * when (refidle_wake_tsc: its local APIC timer's expiry, the end of its
 * halted exit wait, 0 if not known) and counts its returns from hlt,
 * each after the handler of what woke it (refidle_wakes). The wait pauses
 * while a listed CPU runs, from REFIDLE_NEAR_NS before its timer wake
 * until its hlt returned (at most REFIDLE_LATE_NS past), and as it starts
 * until each listed CPU returned from hlt once (at most REFIDLE_START_NS):
 * the arm just sent runs at once, as on hardware. A pause lets the listed
 * vCPU run to its next deadline or halt; one while it halts advances the
 * clock a few instructions, hence the short windows.
 */
#define REFIDLE_NMI_CPUS	8
static int refidle_nmi_cpus[REFIDLE_NMI_CPUS];
static u32 refidle_nmi_apicids[REFIDLE_NMI_CPUS];
static int refidle_nmi_ncpus;
static DEFINE_PER_CPU(u64, refidle_wake_tsc);
static DEFINE_PER_CPU(u32, refidle_wakes);
static DEFINE_PER_CPU(bool, refidle_halted);

#define REFIDLE_NEAR_NS		1000
#define REFIDLE_LATE_NS		50000
#define REFIDLE_START_NS	3000

/* A listed CPU's wake is near or its handler not done, at TSC @now. */
static __always_inline bool refidle_listed_near(u64 now)
{
	int i, cpu, n = READ_ONCE(refidle_nmi_ncpus);
	u64 at;

	for (i = 0; i < n; i++) {
		cpu = READ_ONCE(refidle_nmi_cpus[i]);
		if (!READ_ONCE(per_cpu(refidle_halted, cpu)))
			return true;
		at = READ_ONCE(per_cpu(refidle_wake_tsc, cpu));
		if (at && (s64)(now + refidle_ns_cycles(REFIDLE_NEAR_NS) - at) >= 0 &&
		    (s64)(now - at - refidle_ns_cycles(REFIDLE_LATE_NS)) < 0)
			return true;
	}
	return false;
}

/* As a polling wait starts: the listed CPUs run what they were sent. */
static __always_inline void refidle_listed_start(u64 start)
{
	int i, n = READ_ONCE(refidle_nmi_ncpus), cpus[REFIDLE_NMI_CPUS];
	u32 seen[REFIDLE_NMI_CPUS];
	bool left;

	/* Each listed CPU read once: the list is what it was as the wait began. */
	for (i = 0; i < n; i++) {
		cpus[i] = READ_ONCE(refidle_nmi_cpus[i]);
		seen[i] = READ_ONCE(per_cpu(refidle_wakes, cpus[i]));
	}
	do {
		cpu_relax();
		left = false;
		for (i = 0; i < n; i++)
			if (READ_ONCE(per_cpu(refidle_wakes, cpus[i])) == seen[i])
				left = true;
	} while (left && !need_resched() &&
		 rdtsc() - start < refidle_ns_cycles(REFIDLE_START_NS));
}

static __always_inline void refidle_poll(void)
{
	u64 now = rdtsc(), limit = now + refidle_masked_max_cycles;
	bool yield = READ_ONCE(refidle_yield_on);
	unsigned int turn = 0;

	/* The kick facility's kicking CPU halts at once (refidle_kick.c). */
	if (__this_cpu_read(refidle_kicker))
		limit = 0;

	if (current_set_polling_and_test())
		return;
	if (yield)
		refidle_listed_start(now);
	while (!need_resched() && !refidle_irq_pending(turn++)) {
		now = rdtsc();
		if ((s64)(now - limit) >= 0) {
			if (!current_clr_polling_and_test()) {
				raw_safe_halt();
				raw_local_irq_disable();
			}
			return;
		}
		refidle_spin_owed(yield && refidle_listed_near(now));
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
 * Their polling states (interrupts off or on) sleep as a hlt state does,
 * their wake interrupt run at the wake: a polling wait would spin for the
 * whole sleep. The wait starts with a pause, which under TCG ends the
 * vCPU's turn: the other vCPUs run what this wake's handler gave them (an
 * ipi launcher's IPI) at once, whatever the state, as on hardware.
 */
DEFINE_PER_CPU(bool, refidle_halt_exit);
atomic_t refidle_handovers;
u64 refidle_apic_ticks, refidle_apic_cycles;

/*
 * A halt_exit CPU that woke during a measured CPU's exit wait went on to
 * run its own work (wult record) when its wait ended, and under TCG a
 * running vCPU holds the turn: the measured CPU's exit then ended when the
 * other vCPU next halted, up to ~900 us late (make run's C3 tail,
 * Documentation/vm-run.md, "Slices"). So while halt_exit lists a CPU
 * (refidle_yield_on), the other CPUs count their hlt states' exit waits in
 * refidle_exits, and a halt_exit CPU whose wait is over pauses until no
 * exit wait is left: each pause hands the turn on, and the measured CPU's
 * exit ends on time, as a real CPU's would beside a busy neighbour.
 */
bool refidle_yield_on;
atomic_t refidle_exits;

/*
 * The NMI yield. Under QEMU 7.2's round-robin TCG (accel/tcg/
 * tcg-accel-ops-rr.c) every timer run kicks all vCPUs (cpu_exit()), and a
 * turn that ends with the next vCPU's exit_request set leaves the round
 * there instead of at vCPU 0: with both vCPUs running, the turns alternate
 * at each virtual-clock deadline. vm-run's HPET slice has two deadlines a
 * period (hpet_timer() re-arms one tick on when the counter equals the
 * comparator), so an extra deadline (a timer of either CPU, TCG's 100 ms
 * kick) can leave the measured CPU with the 10 ns turns and the other with
 * the rest of each period, until the other halts or pauses: the measured
 * CPU's exit wait then lasted up to a tick of the other's (4 ms). So a
 * measured CPU starting an exit wait sends an NMI to each halt_exit CPU
 * that is not idle in this driver (refidle_inside), and that CPU pauses in
 * the NMI until no exit wait is left: each pause hands the turn back.
 */
DEFINE_PER_CPU(bool, refidle_nmi_sent);

static __always_inline void refidle_nmi_send(u32 apicid)
{
	unsigned int i;

	if (x2apic_mode) {
		__wrmsr(APIC_BASE_MSR + (APIC_ICR >> 4),
			APIC_DM_NMI | APIC_DEST_PHYSICAL, apicid);
		return;
	}
	for (i = 0; i < 1000 && (refidle_apic_read(APIC_ICR) & APIC_ICR_BUSY);
	     i++)
		barrier();
	refidle_apic_write(APIC_ICR2, SET_XAPIC_DEST_FIELD(apicid));
	refidle_apic_write(APIC_ICR, APIC_DM_NMI | APIC_DEST_PHYSICAL);
}

/* From a measured CPU's exit wait, interrupts off. */
static __always_inline void refidle_nmi_others(void)
{
	int i, cpu, n = READ_ONCE(refidle_nmi_ncpus);

	for (i = 0; i < n; i++) {
		cpu = READ_ONCE(refidle_nmi_cpus[i]);
		if (READ_ONCE(per_cpu(refidle_inside, cpu)) ||
		    READ_ONCE(per_cpu(refidle_nmi_sent, cpu)))
			continue;
		WRITE_ONCE(per_cpu(refidle_nmi_sent, cpu), true);
		refidle_nmi_send(READ_ONCE(refidle_nmi_apicids[i]));
	}
}

/* Under halt_exit's lock: the CPUs the NMIs go to, none at first. */
void refidle_nmi_targets(const struct cpumask *mask)
{
	int cpu, n = 0;

	WRITE_ONCE(refidle_nmi_ncpus, 0);
	for_each_cpu(cpu, mask) {
		if (n == REFIDLE_NMI_CPUS)
			break;
		WRITE_ONCE(refidle_nmi_cpus[n], cpu);
		WRITE_ONCE(refidle_nmi_apicids[n], cpu_physical_id(cpu));
		n++;
	}
	/* The entries before their count. */
	smp_wmb();
	WRITE_ONCE(refidle_nmi_ncpus, n);
}

/*
 * In an NMI: one of ours (false: someone else's), taken. The flag is
 * cleared before the caller reads the wakes: a wake published after that
 * read finds it clear and sends another NMI.
 */
bool refidle_nmi_take(void)
{
	if (!__this_cpu_read(refidle_nmi_sent))
		return false;
	__this_cpu_write(refidle_nmi_sent, false);
	/* Cleared before the wakes are read: pairs with refidle_echo_send(). */
	smp_mb();
	return true;
}

/*
 * The echo's sending side (refidle_halt.c says why): a CPU not listed,
 * about to sleep in a hlt state, publishes when its local timer will end
 * the sleep and has each listed CPU that is awake arm an echo for it (an
 * NMI; its handler asks for the timer). A listed CPU asleep picks the wake
 * up as it leaves idle: it clears its flag, then reads the wakes, and this
 * CPU publishes, then reads the flags, so one of the two sees the other.
 */
DEFINE_PER_CPU(s64, refidle_due);
DEFINE_PER_CPU(s64, refidle_echo_at);
DEFINE_PER_CPU(bool, refidle_asleep);

/*
 * Off unless asked for (make run's measure.sh loads the module with
 * echo=1): with it, a listed CPU pauses inside its hrtimer interrupt
 * through a measured CPU's whole wake, and a 6.12 waketask.sh guest, whose
 * wakes are the launcher's and not the measured CPU's timer, once logged
 * "hrtimer: interrupt took 64041 ns" (a clean clone's make check).
 */
bool refidle_echo_on;
module_param_named(echo, refidle_echo_on, bool, 0444);
MODULE_PARM_DESC(echo, "listed CPUs yield to a measured CPU's timer wakes, the echo (default 0)");

static __always_inline void refidle_echo_send(s64 due)
{
	int i, cpu, n;

	if (due <= 0 || due == KTIME_MAX)
		return;
	__this_cpu_write(refidle_due, due);
	/* Published before the flags are read: pairs with the readers' own. */
	smp_mb();
	n = READ_ONCE(refidle_nmi_ncpus);
	for (i = 0; i < n; i++) {
		cpu = READ_ONCE(refidle_nmi_cpus[i]);
		if (READ_ONCE(per_cpu(refidle_asleep, cpu)) ||
		    READ_ONCE(per_cpu(refidle_echo_at, cpu)) == due ||
		    READ_ONCE(per_cpu(refidle_nmi_sent, cpu)))
			continue;
		WRITE_ONCE(per_cpu(refidle_nmi_sent, cpu), true);
		refidle_nmi_send(READ_ONCE(refidle_nmi_apicids[i]));
	}
}

/* refidle_wait(), counted in refidle_exits while others yield to it. */
static __always_inline u64 refidle_wait_counted(u64 start, int index,
						bool timer)
{
	u64 now;

	if (!READ_ONCE(refidle_yield_on))
		return refidle_wait(start, index, timer);
	arch_atomic_inc(&refidle_exits);
	/* Awake: the exit wait, counted, holds the listed CPUs from here. */
	__this_cpu_write(refidle_due, 0);
	refidle_nmi_others();
	now = refidle_wait(start, index, timer);
	arch_atomic_dec(&refidle_exits);
	return now;
}

/* A listed CPU halts until its timer at TSC @at (0: not known) or before. */
static __always_inline void refidle_halted_in(u64 at)
{
	__this_cpu_write(refidle_wake_tsc, at);
	__this_cpu_write(refidle_halted, true);
}

/* Its hlt returned: the handler of what woke it has run. */
static __always_inline void refidle_halted_out(void)
{
	__this_cpu_write(refidle_halted, false);
	__this_cpu_write(refidle_wake_tsc, 0);
	__this_cpu_inc(refidle_wakes);
}

/* TSC cycles of @ticks counts of the local APIC timer. */
static __always_inline u64 refidle_apic_tsc(u32 ticks)
{
	return div64_u64((u64)ticks * refidle_apic_cycles, refidle_apic_ticks);
}

/*
 * The local APIC timer's current count while it runs one-shot; 0 when it
 * is masked, periodic, in TSC-deadline mode or not running: then it is
 * neither borrowed nor a known wake.
 */
static __always_inline u32 refidle_apic_oneshot_left(void)
{
	u32 lvtt = refidle_apic_read(APIC_LVTT);

	if (lvtt & (APIC_LVT_MASKED | APIC_LVT_TIMER_PERIODIC |
		    APIC_LVT_TIMER_TSCDEADLINE))
		return 0;
	return refidle_apic_read(APIC_TMCCT);
}

static __always_inline u64 refidle_wait_halted(u64 end)
{
	u64 now, want, at;
	u32 left;

	refidle_handover_pause();
	while ((s64)((now = rdtsc()) - end) < 0) {
		left = refidle_apic_oneshot_left();
		if (!left) {
			refidle_spin();
			continue;
		}
		want = div64_u64((end - now) * refidle_apic_ticks,
				 refidle_apic_cycles) + 1;
		at = end;
		if (want < left)
			refidle_apic_write(APIC_TMICT, want);
		else
			at = now + refidle_apic_tsc(left);
		refidle_halted_in(at);
		raw_safe_halt();
		raw_local_irq_disable();
		refidle_halted_out();
	}
	return now;
}

/* When the local APIC timer ends a sleep begun now, TSC; 0: not known. */
static __always_inline u64 refidle_timer_tsc(void)
{
	u32 left;

	if (!refidle_apic_ticks)
		return 0;
	left = refidle_apic_oneshot_left();
	return left ? rdtsc() + refidle_apic_tsc(left) : 0;
}

/* The injected latency counts from the wake: the sleep's end. */
static WULT_CPUIDLE int refidle_enter_halt(struct cpuidle_device *dev,
					   struct cpuidle_driver *drv, int index)
{
	bool timer, listed = __this_cpu_read(refidle_halt_exit);
	u32 t0;
	u64 woke;

	refidle_in();
	t0 = refidle_timer_irqs();
	if (listed) {
		__this_cpu_write(refidle_asleep, true);
		refidle_halted_in(refidle_timer_tsc());
	} else if (READ_ONCE(refidle_yield_on) && refidle_echo_on) {
		refidle_echo_send(READ_ONCE(dev->next_hrtimer));
	}
	refidle_halt();
	woke = rdtsc();
	timer = refidle_by_timer(index, t0);
	if (listed) {
		refidle_halted_out();
		__this_cpu_write(refidle_asleep, false);
		/* Before the wakes are read (refidle_echo_send()). */
		smp_mb();
		woke = refidle_wait_halted(refidle_end(woke, index, timer));
		refidle_yield();
		return refidle_out(index, woke);
	}
	return refidle_out(index, refidle_wait_counted(woke, index, timer));
}

static WULT_CPUIDLE int refidle_enter_masked(struct cpuidle_device *dev,
					     struct cpuidle_driver *drv, int index)
{
	u32 t0;
	u64 woke;

	if (__this_cpu_read(refidle_halt_exit))
		return refidle_enter_halt(dev, drv, index);
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

	if (__this_cpu_read(refidle_halt_exit))
		return refidle_enter_halt(dev, drv, index);
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
bool refidle_ts_used;

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
	} else if (__this_cpu_read(refidle_halt_exit)) {
		refidle_halted_in(0);
		refidle_halt();
		refidle_halted_out();
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

/* The device interrupt probe of a timer-stop state, before it is used. */
int refidle_ts_init(void)
{
	int ret;

	if (!refidle_ts_used)
		return 0;
	refidle_irq_tp = refidle_tp_find("irq_handler_entry");
	if (!refidle_irq_tp) {
		pr_err("wult_refidle: timer-stop states need the irq:irq_handler_entry tracepoint\n");
		return -EOPNOTSUPP;
	}
	ret = tracepoint_probe_register(refidle_irq_tp, refidle_ts_irq, NULL);
	if (ret)
		refidle_irq_tp = NULL;
	return ret;
}

void refidle_ts_exit(void)
{
	if (!refidle_irq_tp)
		return;
	tracepoint_probe_unregister(refidle_irq_tp, refidle_ts_irq, NULL);
	tracepoint_synchronize_unregister();
}

/* The cost of a full IRR scan, the masked wait's coarsest turn, in ns. */
u64 refidle_detect_ns(void)
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

static const refidle_enter_fn refidle_enters[] = {
	[REFIDLE_HLT]		= refidle_enter_halt,
	[REFIDLE_IRQ_ON]	= refidle_enter_irq_on,
	[REFIDLE_MASKED]	= refidle_enter_masked,
};

/* The enter() callback of a state that waits so. */
refidle_enter_fn refidle_enter_of(enum refidle_wait wait, bool timer_stop)
{
	return timer_stop ? refidle_enter_timer_stop : refidle_enters[wait];
}

