/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult_refidle: what its files share. The module is a test fixture, the
 * known answer the kernel tests check wult against, not part of wult.ko:
 *
 *   refidle_main.c      the driver: parameters, its states, registration,
 *                       unloading (the epilogue of CPUs still inside);
 *   refidle_profiles.c  intel_idle's state tables (profile=skx, icx, spr);
 *   refidle_wait.c      the enter() callbacks and their injected waits;
 *   refidle_halt.c      debugfs halt_exit: exit waits that halt, the
 *                       echo (debugfs echo);
 *   refidle_kick.c      debugfs kick: remote wakeups for the tests;
 *   refidle_bench.c     debugfs bench: the instruction benchmark's stamps.
 */
#ifndef _REFIDLE_H
#define _REFIDLE_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/cpuidle.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/tracepoint.h>
#include <linux/types.h>
#include <asm/apic.h>
#include <asm/io.h>
#include <asm/msr.h>
#include <asm/processor.h>
#include <asm/tsc.h>

#define REFIDLE_STATES		3	/* C1..C3, after POLL */

/* How a state waits for its wake, and where its wake interrupt runs. */
enum refidle_wait {
	REFIDLE_HLT,	/* sti; hlt: the handler at the wake, then exit_us */
	REFIDLE_IRQ_ON,	/* polls; exit_us, then the handler inside the state */
	REFIDLE_MASKED,	/* polls; exit_us, return, then the handler */
};

/*
 * Per cpuidle state index: how it waits, its injected latency and the part
 * of it a local timer wake saves, in TSC cycles. Set at load
 * (refidle_main.c), read by the waits (refidle_wait.c).
 */
extern enum refidle_wait refidle_waits[REFIDLE_STATES + 1];
extern u64 refidle_cycles[REFIDLE_STATES + 1];
extern u64 refidle_prewake_cycles[REFIDLE_STATES + 1];
extern u64 refidle_masked_max_cycles;

/*
 * The TSC read that ended the last wait of each CPU: where its idle state
 * ended. One store per wake; only the instruction benchmark reads it.
 */
DECLARE_PER_CPU(u64, refidle_exit_tsc);
/* While a CPU runs an enter() callback (refidle_wait.c). */
DECLARE_PER_CPU(bool, refidle_inside);
/* The kick facility's kicking CPU: its polling waits halt at once. */
DECLARE_PER_CPU(bool, refidle_kicker);
/* The CPUs whose exit waits halt (debugfs halt_exit). */
DECLARE_PER_CPU(bool, refidle_halt_exit);
/* halt_exit lists a CPU: the others' exit waits are yielded to. */
extern bool refidle_yield_on;
/*
 * halt_exit CPUs paused with work left (inside an interrupt, or before a
 * halting wait), owed their turn back: polling waits pause while any is.
 */
extern atomic_t refidle_handovers;

static __always_inline void refidle_handover_pause(void)
{
	arch_atomic_inc(&refidle_handovers);
	cpu_relax();
	arch_atomic_dec(&refidle_handovers);
}

/*
 * The counted exit waits of the CPUs not listed (refidle_wait.c): a listed
 * CPU pauses while any is left, which under TCG hands the turn on.
 */
extern atomic_t refidle_exits;

static __always_inline void refidle_yield(void)
{
	while (arch_atomic_read(&refidle_exits))
		cpu_relax();
}

/*
 * The echo (refidle_halt.c says why). A CPU not listed, asleep in a hlt
 * state: when its local timer ends the sleep (cpuidle's next_hrtimer,
 * CLOCK_MONOTONIC ns), 0 when awake. A listed CPU: the wake its echo timer
 * is armed for, and whether it sleeps in a hlt state (it then picks the
 * wakes up as it leaves idle: no NMI is sent to it).
 */
DECLARE_PER_CPU(s64, refidle_due);
/* Module parameter echo: the echo is off unless it is set. */
extern bool refidle_echo_on;
DECLARE_PER_CPU(s64, refidle_echo_at);
DECLARE_PER_CPU(bool, refidle_asleep);
/* An NMI of ours is pending on the CPU (refidle_wait.c sends them). */
DECLARE_PER_CPU(bool, refidle_nmi_sent);

/* APIC timer ticks per TSC cycles, measured at load (0: not measured). */
extern u64 refidle_apic_ticks, refidle_apic_cycles;

/* A timer-stop state exists: its device interrupt probe is needed. */
extern bool refidle_ts_used;

/* One of intel_idle's states: flags word, latencies in us. */
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

/* The local APIC, without instrumentation (x2APIC: no read_msr tracepoint). */
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

/* TSC cycles in @ns nanoseconds. */
static __always_inline u64 refidle_ns_cycles(u64 ns)
{
	return mul_u64_u32_div(ns, tsc_khz, NSEC_PER_MSEC);
}

/*
 * A tracepoint by name, NULL if this kernel has none: most cannot be named
 * by a module. Inline: each file that needs one stays a leaf.
 */
struct refidle_tp_match {
	const char *name;
	struct tracepoint *tp;
};

static inline void refidle_tp_match(struct tracepoint *tp, void *priv)
{
	struct refidle_tp_match *m = priv;

	if (!strcmp(tp->name, m->name))
		m->tp = tp;
}

static inline struct tracepoint *refidle_tp_find(const char *name)
{
	struct refidle_tp_match m = { .name = name };

	for_each_kernel_tracepoint(refidle_tp_match, &m);
	return m.tp;
}

/* A state's enter() callback. */
typedef int (*refidle_enter_fn)(struct cpuidle_device *dev,
				struct cpuidle_driver *drv, int index);

/* refidle_profiles.c */
const struct refidle_profile *refidle_find_profile(const char *name);
void refidle_init_intel(struct cpuidle_state *s, int index,
			const struct refidle_cstate *cs, bool timer_stop);

/* refidle_wait.c */
refidle_enter_fn refidle_enter_of(enum refidle_wait wait, bool timer_stop);
void refidle_nmi_targets(const struct cpumask *mask);
bool refidle_nmi_take(void);
u64 refidle_detect_ns(void);
int refidle_ts_init(void);
void refidle_ts_exit(void);

/* The debugfs files, in the module's directory @dir. */
struct cpumask;
struct dentry;

void refidle_bench_init(struct dentry *dir);
void refidle_bench_exit(void);
void refidle_kick_init(struct dentry *dir);
void refidle_kick_exit(void);
void refidle_halt_init(struct dentry *dir);
void refidle_halt_fini(void);

#endif /* _REFIDLE_H */
