// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the "ipi" delayed-event source, a wake sent from another CPU.
 *
 * A timer is the one wake a CPU's power unit sees coming and may pre-wake
 * for. A scheduler wakeup from another CPU is not: this source measures
 * that wake. A launcher CPU (config2 "launcher", not the measured one)
 * runs a pinned hard hrtimer at the launch time; its callback reads the
 * TSC (LTime) and queues a cross-CPU call to the measured CPU with
 * smp_call_function_single_async(), the path a remote task wakeup takes
 * (ttwu_queue_wakelist() queues the same way): to a CPU whose idle task
 * advertises polling (TIF_POLLING_NRFLAG: POLL, mwait, wult_refidle's
 * interrupts-off wait) the kernel only sets need_resched and sends no
 * interrupt (send_call_function_single_ipi(), set_nr_if_polling()); to a
 * halted CPU it sends the CALL_FUNCTION_SINGLE IPI. Our call is the
 * handler: TIntr is its first TSC read, in the IPI's interrupt, or, after
 * a flag write, in do_idle()'s flush of the queue after the idle exit,
 * where no interrupt exists (WULT_DPF_FLAG_WAKE, no IntrLatency).
 *
 * The arm, on the measured CPU, cannot start an hrtimer on the launcher
 * (hrtimer_start() queues on the calling CPU): it writes the request and
 * queues a call to the launcher, which starts its timer. The launcher
 * thus takes two interrupts per datapoint and burns no time between.
 *
 * The measured CPU's governor cannot see the launcher's timer. By default
 * a shadow hrtimer on the measured CPU at the same expiry shows it the
 * launch, as hrt's timer would: armed with the request, cancelled at each
 * idle entry once the state is chosen (so that it never wakes the CPU
 * itself), armed again at an idle exit that was not the wake. Datapoints
 * made so carry WULT_DPF_SHADOW; config2 "noshadow" leaves the choice to
 * the governor alone.
 *
 * All times are TSC cycles: LTime is read on the launcher, TBI, TAI and
 * TIntr on the measured CPU, so the kernel's TSC must be synchronised
 * across CPUs (not marked unstable, which its boot-time warp test and
 * the clocksource watchdog do); what skew it tolerates shows in every
 * latency as a constant offset (Documentation/kernel.md).
 *
 * With config2 "waketask" the wake also wakes a kernel thread bound to
 * the measured CPU, the way the kernel wakes a task on an idle CPU of
 * another CPU's: ttwu_queue_wakelist() queues the task on that CPU's call
 * queue (an IPI, or a flag write to a polling CPU) and the woken CPU's
 * flush activates it there. Our call is that queue entry: the one launch
 * queues one call, and the call, on the measured CPU, takes TIntr and
 * activates the thread (wake_up_process() of a thread of this CPU, from
 * its own flush); the CPU then schedules it, and its first TSC read is
 * the datapoint's ttask (RunLatency = TTask - LTime). The launcher once
 * woke the thread itself and queued the call after it, two queue entries:
 * when the measured CPU flushed the first before the second was queued
 * (the faster its wake, the likelier), the call came in an interrupt of
 * its own and the validity rules dropped the datapoint, a bias against
 * fast wakes. One entry cannot be split. PREEMPT_RT wakes a task of
 * another CPU without the queue (TTWU_QUEUE off): the waker enqueues it
 * and sends a reschedule IPI, a path this source does not take; waketask
 * is refused there.
 *
 * The thread stays on its CPU across CPU hotplug: it is woken only from
 * its CPU's flush while that CPU is active (ttwu_queue_cond()'s test: a
 * CPU going offline is not, and the scheduler would move a thread woken
 * there off it for good), and not created for an offline CPU.
 *
 * A launcher taken offline ends its measurements: the arms fail from then
 * on, with one line in the kernel log, until the events are closed.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "../core/wult_engine.h"
#include "../core/wult_rules.h"
#include "../trace/wult_refusal.h"
#include "../uapi/linux/wult.h"
#include "../wult_compat.h"
#include "wult_ipi.h"
#include "wult_source.h"

#define WULT_IPI_MODE	HRTIMER_MODE_ABS_PINNED_HARD

/* Per measured CPU; its launcher's timer lives here too. */
struct wult_ipi_cpu {
	int cpu;		/* the measured CPU */
	/* Set by get() and put(), under wult_ipi_lock. */
	unsigned int users;
	int launcher;
	bool shadow_on;
	/* waketask: the thread the launch wakes, else NULL. */
	struct task_struct *task;
	/* The launcher went offline: no more arms (wult_ipi_offline()). */
	bool gone;
	/* The request, written on the measured CPU with IRQs off. */
	u64 expiry;		/* CLOCK_MONOTONIC ns */
	u32 gen;		/* bumped at each arm and cancel */
	/* The launch, written on the launcher. */
	u32 launch_gen;		/* the request its timer is armed for */
	u32 launched_gen;	/* the request launched (release) */
	u64 ltime;		/* TSC just before the wake was queued */
	/* Written and read on the measured CPU. */
	u32 task_gen;		/* the last request whose wake woke task */
	/* Counters since load (debugfs "ipi"). */
	u64 launches;		/* wakes launched (on the launcher) */
	u64 busy;		/* ... not queued: the last still was */
	u64 woke;		/* waketask: wakes that woke the thread */
	u64 awake;		/* ... whose thread had not slept since */
	struct hrtimer launch;	/* on the launcher */
	struct hrtimer shadow;	/* on the measured CPU */
	call_single_data_t arm_csd;	/* measured CPU -> launcher */
	call_single_data_t wake_csd;	/* launcher -> measured CPU */
};

static DEFINE_PER_CPU(struct wult_ipi_cpu, wult_ipi_cpus);
static DEFINE_MUTEX(wult_ipi_lock);
static int wult_ipi_hp_state = -1;

/*
 * The wake, on the measured CPU: in the CALL_FUNCTION_SINGLE interrupt,
 * or, after a flag write, from the idle loop's flush of the call queue.
 * A call for a request already superseded or cancelled is not a wake.
 * waketask: the thread's activation is the scheduler's work of this flush
 * (sched_ttwu_pending()'s for a queued wakeup), part of the wake, so the
 * engine's overhead window (@ts1 on) starts after it.
 */
static notrace void wult_ipi_wake(void *info)
{
	struct wult_ipi_cpu *ic = info;
	u64 tsc = rdtsc_ordered();
	u32 gen = READ_ONCE(ic->gen);

	/* Pairs with wult_ipi_launch(): ltime is the launch's. */
	if (smp_load_acquire(&ic->launched_gen) != gen)
		return;
	/* Not woken: it has not slept since the last wake. */
	if (ic->task && cpu_active(ic->cpu)) {
		if (wake_up_process(ic->task)) {
			ic->task_gen = gen;
			WRITE_ONCE(ic->woke, ic->woke + 1);
		} else {
			WRITE_ONCE(ic->awake, ic->awake + 1);
		}
	}
	hrtimer_try_to_cancel(&ic->shadow);
	wult_engine_intr(ic->task ? rdtsc_ordered() : tsc, tsc);
}

/* The launch, on the launcher, hard IRQ: LTime, then the wake. */
static notrace enum hrtimer_restart wult_ipi_launch(struct hrtimer *timer)
{
	struct wult_ipi_cpu *ic = container_of(timer, struct wult_ipi_cpu, launch);
	u32 gen = ic->launch_gen;

	if (READ_ONCE(ic->gen) != gen || READ_ONCE(ic->gone))
		return HRTIMER_NORESTART;
	WRITE_ONCE(ic->ltime, rdtsc_ordered());
	/* Pairs with wult_ipi_launched(): ltime before the generation. */
	smp_store_release(&ic->launched_gen, gen);
	WRITE_ONCE(ic->launches, ic->launches + 1);
	if (smp_call_function_single_async(ic->cpu, &ic->wake_csd))
		WRITE_ONCE(ic->busy, ic->busy + 1);
	return HRTIMER_NORESTART;
}

/* The arm's second half, on the launcher, in a cross-CPU call. */
static void wult_ipi_start(void *info)
{
	struct wult_ipi_cpu *ic = info;
	/* Pairs with wult_ipi_arm(): the expiry is the request's. */
	u32 gen = smp_load_acquire(&ic->gen);

	if (READ_ONCE(ic->gone) || !READ_ONCE(ic->users))
		return;
	ic->launch_gen = gen;
	hrtimer_start_range_ns(&ic->launch, ns_to_ktime(READ_ONCE(ic->expiry)),
			       0, WULT_IPI_MODE);
}

/*
 * The waketask thread, bound to the measured CPU: it only sleeps and,
 * woken, reads the TSC first thing, for the datapoint the engine holds.
 */
static int wult_ipi_task(void *data)
{
	struct wult_ipi_cpu *ic = data;
	u64 tsc;

	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_stop())
			break;
		schedule();
		tsc = rdtsc_ordered();
		local_irq_disable();
		/* Its CPU went offline: it runs elsewhere now. */
		if (smp_processor_id() == ic->cpu)
			wult_engine_task_ran(tsc);
		local_irq_enable();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * A thread for measured CPU @ic, not started yet (woken once its CPU is
 * known to be online), or an ERR_PTR. SCHED_FIFO, as a latency-critical
 * thread is (cyclictest's).
 */
static struct task_struct *wult_ipi_task_new(struct wult_ipi_cpu *ic)
{
	struct task_struct *t;

	t = kthread_create(wult_ipi_task, ic, "wult_ipi/%d", ic->cpu);
	if (IS_ERR(t))
		return t;
	kthread_bind(t, ic->cpu);
	sched_set_fifo(t);
	return t;
}

/* Shows the governor the launch; never a datapoint of its own. */
static enum hrtimer_restart wult_ipi_shadow_fn(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

/*
 * A measured CPU back online (hotplug, on that CPU): its thread on it
 * again, had the scheduler moved it away at the offline (woken while its
 * CPU went down: started just before, or stopped), as workqueues rebind
 * their workers.
 */
static int wult_ipi_online(unsigned int cpu)
{
	struct wult_ipi_cpu *ic = per_cpu_ptr(&wult_ipi_cpus, cpu);

	mutex_lock(&wult_ipi_lock);
	if (ic->task)
		set_cpus_allowed_ptr(ic->task, cpumask_of(cpu));
	mutex_unlock(&wult_ipi_lock);
	return 0;
}

/*
 * A launcher going offline (hotplug, on that CPU): the measured CPUs it
 * launches for stop getting datapoints, and say so.
 */
static int wult_ipi_offline(unsigned int cpu)
{
	int m;

	mutex_lock(&wult_ipi_lock);
	for_each_possible_cpu(m) {
		struct wult_ipi_cpu *ic = per_cpu_ptr(&wult_ipi_cpus, m);

		if (!ic->users || ic->launcher != cpu)
			continue;
		WRITE_ONCE(ic->gone, true);
		hrtimer_cancel(&ic->launch);
		pr_warn("wult: ipi: launcher CPU%u went offline: CPU%d gets no more datapoints until its events are closed\n",
			cpu, m);
	}
	mutex_unlock(&wult_ipi_lock);
	return 0;
}

static int wult_ipi_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct wult_ipi_cpu *ic = per_cpu_ptr(&wult_ipi_cpus, cpu);

		ic->cpu = cpu;
		ic->launcher = -1;
		wult_hrtimer_setup(&ic->launch, wult_ipi_launch, CLOCK_MONOTONIC,
				   WULT_IPI_MODE);
		wult_hrtimer_setup(&ic->shadow, wult_ipi_shadow_fn,
				   CLOCK_MONOTONIC, WULT_IPI_MODE);
		INIT_CSD(&ic->arm_csd, wult_ipi_start, ic);
		INIT_CSD(&ic->wake_csd, wult_ipi_wake, ic);
	}
	/* At load: registering takes the hotplug lock, which get() nests. */
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "wult/ipi:online",
					wult_ipi_online, wult_ipi_offline);
	if (ret < 0)
		return ret;
	wult_ipi_hp_state = ret;
	return 0;
}

/* Waits until neither call of @ic is queued. */
static void wult_ipi_csd_wait(struct wult_ipi_cpu *ic)
{
	while ((READ_ONCE(ic->arm_csd.node.u_flags) & CSD_FLAG_LOCK) ||
	       (READ_ONCE(ic->wake_csd.node.u_flags) & CSD_FLAG_LOCK))
		cpu_relax();
}

/*
 * Nothing of ours may run after this: no timer, no call queued or
 * running (an async call is unlocked before its function runs, with
 * IRQs off: synchronize_rcu() waits for it).
 */
static void wult_ipi_quiesce(struct wult_ipi_cpu *ic)
{
	WRITE_ONCE(ic->gen, ic->gen + 1);
	wult_ipi_csd_wait(ic);
	synchronize_rcu();
	hrtimer_cancel(&ic->launch);
	hrtimer_cancel(&ic->shadow);
}

static void wult_ipi_exit(void)
{
	int cpu;

	if (wult_ipi_hp_state >= 0)
		cpuhp_remove_state_nocalls(wult_ipi_hp_state);
	for_each_possible_cpu(cpu) {
		struct wult_ipi_cpu *ic = per_cpu_ptr(&wult_ipi_cpus, cpu);

		wult_ipi_csd_wait(ic);
		hrtimer_cancel(&ic->launch);
		hrtimer_cancel(&ic->shadow);
	}
	synchronize_rcu();
}

/*
 * LTime comes from one CPU's TSC and TAI from another's: only a TSC the
 * kernel keeps synchronised will do.
 */
static int wult_ipi_usable(void)
{
	return wult_source_tsc_usable("ipi", true);
}

/*
 * The launcher the kernel picks for @cpu: an online CPU neither measured
 * nor @cpu's SMT sibling, else one that is not measured, else any other.
 */
static int wult_ipi_pick(unsigned int cpu)
{
	const struct cpumask *sib = topology_sibling_cpumask(cpu);
	int c, free = -1, other = -1;

	for_each_online_cpu(c) {
		if (c == cpu)
			continue;
		if (other < 0)
			other = c;
		if (wult_engine_source(c))
			continue;
		if (!cpumask_test_cpu(c, sib))
			return c;
		if (free < 0)
			free = c;
	}
	return free >= 0 ? free : other;
}

static int wult_ipi_get(int cpu, u64 config2)
{
	struct wult_ipi_cpu *ic = per_cpu_ptr(&wult_ipi_cpus, cpu);
	u64 l = wult_cfg_launcher(config2);
	bool shadow = !wult_cfg_noshadow(config2);
	bool wake_task = wult_cfg_waketask(config2);
	u64 unknown = config2 & ~(wult_cfg_launcher_put(~0ULL) |
				  wult_cfg_noshadow_put(1) | wult_cfg_waketask_put(1));
	struct task_struct *task = NULL;
	int ret = 0, launcher;

	if (unknown)
		return wult_refuse_quiet(-EINVAL, "ipi: unknown config2 bits 0x%llx",
					 unknown);
	if (wake_task && IS_ENABLED(CONFIG_PREEMPT_RT))
		return wult_refuse(-EOPNOTSUPP,
				   "ipi: waketask is not supported on PREEMPT_RT: its remote wakeups do not go through the call queue (the waker enqueues the task and sends a reschedule IPI), the path waketask reproduces");
	/* launcher=0 (or none) while measuring CPU 0: the kernel's pick. */
	launcher = !l && !cpu ? wult_ipi_pick(cpu) : (int)l;
	if (!l && !cpu && launcher < 0)
		return wult_refuse(-ENODEV,
				   "ipi: CPU%d: no other CPU is online to launch from (ipi needs two)",
				   cpu);
	if (launcher < 0 || launcher >= nr_cpu_ids || !cpu_possible(launcher))
		return wult_refuse(-EINVAL, "ipi: CPU%d: launcher CPU %llu does not exist",
				   cpu, l);
	if (launcher == cpu)
		return wult_refuse(-EINVAL,
				   "ipi: CPU%d: the launcher must be another CPU than the measured one",
				   cpu);

	/* Made outside the locks, which kthread creation must not nest in. */
	if (wake_task) {
		task = wult_ipi_task_new(ic);
		if (IS_ERR(task))
			return PTR_ERR(task);
	}

	cpus_read_lock();
	mutex_lock(&wult_ipi_lock);
	/* perf refuses it too, after this: no thread bound to it. */
	if (!cpu_online(cpu)) {
		ret = wult_refuse(-ENODEV, "ipi: CPU%d is offline", cpu);
	} else if (!cpu_online(launcher)) {
		ret = wult_refuse(-ENODEV, "ipi: CPU%d: launcher CPU %d is offline",
				  cpu, launcher);
	} else if (ic->users && (ic->launcher != launcher ||
				 ic->shadow_on != shadow ||
				 !!ic->task != wake_task)) {
		ret = wult_refuse(-EBUSY, "ipi: CPU%d is measured with launcher CPU %d%s%s already",
				  cpu, ic->launcher,
				  ic->shadow_on ? "" : " and noshadow",
				  ic->task ? " and waketask" : "");
	} else if (!ic->users++) {
		ic->launcher = launcher;
		ic->shadow_on = shadow;
		ic->task = task;
		/* Started on its CPU, which stays online meanwhile. */
		if (task)
			wake_up_process(task);
		task = NULL;
		ic->task_gen = ic->gen - 1;
		WRITE_ONCE(ic->gone, false);
	}
	mutex_unlock(&wult_ipi_lock);
	cpus_read_unlock();
	/* Refused, or the CPU's first event has its thread already. */
	if (task)
		kthread_stop(task);
	return ret;
}

static void wult_ipi_put(int cpu)
{
	struct wult_ipi_cpu *ic = per_cpu_ptr(&wult_ipi_cpus, cpu);
	struct task_struct *task = NULL;

	mutex_lock(&wult_ipi_lock);
	if (!--ic->users) {
		wult_ipi_quiesce(ic);
		task = ic->task;
		ic->task = NULL;
	}
	mutex_unlock(&wult_ipi_lock);
	/* Nothing wakes it any more (quiesced). */
	if (task)
		kthread_stop(task);
}

/*
 * On the measured CPU: the request, the shadow timer, and a call to the
 * launcher to start its timer. LTime until the launch: the expiry in TSC
 * cycles (the engine takes the real one from wult_ipi_launched()).
 */
static int wult_ipi_arm(u64 ldist, u64 *ltime)
{
	struct wult_ipi_cpu *ic = this_cpu_ptr(&wult_ipi_cpus);
	u64 expiry = ktime_get_ns() + ldist;
	int ret;

	if (READ_ONCE(ic->gone))
		return -ENODEV;
	*ltime = rdtsc_ordered() + mul_u64_u32_div(ldist, tsc_khz, USEC_PER_SEC);
	WRITE_ONCE(ic->expiry, expiry);
	/* Pairs with wult_ipi_start(). */
	smp_store_release(&ic->gen, ic->gen + 1);
	if (ic->shadow_on)
		hrtimer_start_range_ns(&ic->shadow, ns_to_ktime(expiry), 0,
				       WULT_IPI_MODE);
	/* Busy: the queued call has not run yet, and will read this request. */
	ret = smp_call_function_single_async(ic->launcher, &ic->arm_csd);
	if (ret && ret != -EBUSY) {
		hrtimer_try_to_cancel(&ic->shadow);
		return ret;
	}
	return 0;
}

static void wult_ipi_cancel(void)
{
	struct wult_ipi_cpu *ic = this_cpu_ptr(&wult_ipi_cpus);

	WRITE_ONCE(ic->gen, ic->gen + 1);
	hrtimer_try_to_cancel(&ic->shadow);
}

/*
 * At idle entry, the state chosen: was the shadow what the CPU's timer is
 * programmed for (else an earlier timer wakes the CPU first)? Then out of
 * the way, so that only the launch wakes the CPU.
 */
static bool wult_ipi_at_idle(u64 *ltime)
{
	struct wult_ipi_cpu *ic = this_cpu_ptr(&wult_ipi_cpus);
	bool first;

	if (!ic->shadow_on)
		return true;
	first = wult_hrtimer_first(&ic->shadow);
	hrtimer_try_to_cancel(&ic->shadow);
	return first;
}

/* Not launched yet at an idle exit: the shadow again, for the next entry. */
static bool wult_ipi_launched(u64 *ltime)
{
	struct wult_ipi_cpu *ic = this_cpu_ptr(&wult_ipi_cpus);

	/* Pairs with wult_ipi_launch(). */
	if (smp_load_acquire(&ic->launched_gen) == ic->gen) {
		*ltime = READ_ONCE(ic->ltime);
		return true;
	}
	if (ic->shadow_on && ktime_get_ns() < ic->expiry)
		hrtimer_start_range_ns(&ic->shadow, ns_to_ktime(ic->expiry), 0,
				       WULT_IPI_MODE);
	return false;
}

/* waketask: did this datapoint's launch wake the thread? */
static bool wult_ipi_hold(void)
{
	struct wult_ipi_cpu *ic = this_cpu_ptr(&wult_ipi_cpus);

	return ic->task && READ_ONCE(ic->task_gen) == ic->gen;
}

static u32 wult_ipi_dp_flags(void)
{
	return this_cpu_read(wult_ipi_cpus.shadow_on) ? WULT_DPF_SHADOW : 0;
}

/*
 * debugfs "ipi": per CPU measured with ipi since load, its launcher (-1:
 * none now) and its counters, a lockless snapshot (64-bit loads do not
 * tear on x86-64): "cpu1 launcher=0 launches=L busy=B woke=W awake=A".
 * With waketask, woke + awake = the wakes that ran on the measured CPU
 * while it was active; awake ones give datapoints without a RunLatency.
 */
static int wult_ipi_show(struct seq_file *m, void *unused)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct wult_ipi_cpu *ic = per_cpu_ptr(&wult_ipi_cpus, cpu);

		if (!READ_ONCE(ic->users) && !READ_ONCE(ic->launches))
			continue;
		seq_printf(m, "cpu%u launcher=%d launches=%llu busy=%llu woke=%llu awake=%llu\n",
			   cpu, READ_ONCE(ic->users) ? READ_ONCE(ic->launcher) : -1,
			   READ_ONCE(ic->launches), READ_ONCE(ic->busy),
			   READ_ONCE(ic->woke), READ_ONCE(ic->awake));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wult_ipi);

void wult_ipi_debugfs_init(struct dentry *parent)
{
	debugfs_create_file("ipi", 0444, parent, NULL, &wult_ipi_fops);
}

const struct wult_source wult_ipi_source = {
	.id		= WULT_SOURCE_IPI,
	.clock		= WULT_CLOCK_TSC,
	.init		= wult_ipi_init,
	.exit		= wult_ipi_exit,
	.usable		= wult_ipi_usable,
	.get		= wult_ipi_get,
	.put		= wult_ipi_put,
	.arm		= wult_ipi_arm,
	.cancel		= wult_ipi_cancel,
	.at_idle	= wult_ipi_at_idle,
	.launched	= wult_ipi_launched,
	.dp_flags	= wult_ipi_dp_flags,
	.hold		= wult_ipi_hold,
};
