// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the "nic" delayed-event source, a PCI device's own clock and
 * interrupt (the device-source layer; device types in wult_dev.h).
 *
 * The event is the device's timer interrupt at a device-clock value:
 * LDist from now converted to device ticks at the measured rate. Its
 * times are TSC cycles like tdt's: LTime is the programmed device time
 * converted to the TSC through a cross-timestamp taken at the arm
 * (wult_xts.h: the clock read between two TSC reads, the rate tracked
 * against a reference, an error bound per datapoint in dp->ltime_err);
 * TIntr is the TSC first thing in the device's handler, before the
 * acknowledgement's register accesses. The interrupt goes through the
 * whole I/O path (PCI, the interrupt controller, the vector), which a
 * timer's does not.
 *
 * Claiming. The event names the device with its device term (config2:
 * domain << 16 | bus << 8 | devfn). The first event claims it through the
 * driver core, refused (EBUSY, with the reason) while a network interface
 * of it is up or lives in another network namespace (someone uses it), or
 * while a driver other than the type's own (8139cp, igb: the drivers wult
 * may take it from and give it back to) has it: vfio-pci, say, whose
 * unbind waits for its users to close their file. Otherwise its
 * driver_override is set to "wult_nic", its driver unbound and our own
 * pci_driver, which matches nothing else, bound. Everything that touches
 * the device happens in that driver's probe and remove, under the device
 * lock, so that a PCI removal is serialized with the claim: the probe
 * maps it, requests its interrupt (MSI where the type can use it, else
 * the legacy line) exclusively, IRQF_NO_THREAD (on PREEMPT_RT a threaded
 * handler would make TIntr a thread's wake-up), sets its affinity to the
 * measured CPU and takes two timer interrupts, unmeasured, which move the
 * route there (an IO-APIC route changes at the next interrupt) and check
 * that the timer fires at all (EIO if not). The remove stops the measured
 * CPU's source before the registers are unmapped, whoever removes it.
 * After the last event's destruction the claim is kept for a grace period
 * (WULT_NIC_GRACE_MS): a recording opens its events several times, and
 * each give-back re-probes the NIC's own driver (a link renegotiation for
 * igb). Then the device is given back: ours unbound, the override
 * cleared, the driver core asked to attach it again, which binds the
 * driver it had. One device and one CPU at a time. A claim refuses system
 * suspend (EBUSY); a claim in its grace period is given back first.
 *
 * The governor cannot see the device's timer: a shadow hrtimer, pinned
 * and hard, is armed at LTime + a margin (LDist / 8 + 5 us), so that the
 * next timer event the governor reads is about LTime and LDist chooses
 * the state as for hrt. At idle entry, the state chosen, LTime is trusted
 * only if no timer is due before it (wult_rule_timer_after(): neither the
 * shadow nor a tick after LTime can wake the CPU first), and the shadow
 * moves out to a guard WULT_NIC_GUARD_NS later. Left at the margin it
 * expired inside the exit of any state left with IRQs masked whose
 * latency exceeds it (intel_idle's deep states: 130-290 us), and its
 * vector, pending beside the device's, dropped every such datapoint. The
 * guard only bounds the idle period of a device event that never comes,
 * whose datapoint the next wake then ends. An idle exit that was not the
 * wake puts the shadow back at the margin for the governor's next choice;
 * the device's handler cancels it.
 *
 * A device event that does not come (lost on its way, a late arm, a
 * clock that stopped) is ended by the shadow's expiry, at the margin or
 * the guard: the device is disarmed and the engine told
 * (wult_engine_lost()), so it costs one datapoint and the CPU measures
 * on; without that a lost hold-off armed nothing again, and a datapoint
 * whose shadow expired while the CPU was busy waited for the next wake of
 * any kind (a device event comes again, on rtl8139, a counter period,
 * 129 s, later). wult/nic in debugfs counts them and can drop device
 * events on purpose (drop: the next N arms are not written).
 *
 * A device interrupt handled before its event's time is the previous
 * event's (wult_rule_dev_intr_ours()): the engine dropped that datapoint
 * at its idle exit and armed the next while the interrupt was pending.
 * Acknowledging it turned the timer off: the armed event is armed again.
 *
 * The route stays on the measured CPU: the interrupt is requested with
 * IRQF_NOBALANCING, so irqbalance and writes to /proc/irq/N/smp_affinity
 * are refused (EIO) while the device is claimed. The kernel itself may
 * still move it (a CPU going offline breaks its affinity, and it is not
 * restored when the CPU returns): an interrupt of an armed event handled
 * on another CPU is counted as moved and a work item sets the route back,
 * so that the measured CPU's later events wake it again.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/suspend.h>
#include <linux/workqueue.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <net/net_namespace.h>

#include "../../core/wult_rules.h"
#include "../../trace/wult_refusal.h"
#include "../../uapi/linux/wult.h"
#include "../../wult_compat.h"
#include "../wult_source.h"
#include "wult_dev.h"
#include "wult_dev_int.h"
#include "wult_xts.h"

#define WULT_NIC_SHADOW_MODE	HRTIMER_MODE_ABS_PINNED_HARD
/* Trust in a device's nominal rate until one is measured (ppm). */
#define WULT_NIC_NOMINAL_PPM	1000
/* Cross-timestamp reads: retried while wider than twice the narrowest. */
#define WULT_NIC_XTS_TRIES	3
/*
 * The shadow's guard beyond its margin, from idle entry on: twice the
 * longest exit latency a cpuidle driver declares (intel_idle's Atom C7S
 * and C10 states: 10 ms), so that no device interrupt that came is still
 * pending when it expires.
 */
#define WULT_NIC_GUARD_NS	(20 * NSEC_PER_MSEC)
/* The claim's self-test: each timer interrupt may take this long (us). */
#define WULT_NIC_SETTLE_US	10000

struct wult_nic wult_nic;
DEFINE_MUTEX(wult_nic_lock);	/* the claim: wult_nic's users, pdev... */
static DEFINE_PER_CPU(struct hrtimer, wult_nic_shadow);
static bool wult_nic_registered;

/* One cross-timestamp: the narrowest of a few reads. */
static void wult_nic_xts(struct wult_nic *n, struct wult_xts *x)
{
	u64 best = U64_MAX;
	unsigned int i;

	for (i = 0; i < WULT_NIC_XTS_TRIES; i++) {
		u64 t0 = rdtsc_ordered();
		u64 raw = n->type->read_clock(n->regs);
		u64 t1 = rdtsc_ordered();

		n->last = wult_xts_extend(n->last, raw, n->type->clock_bits);
		if (t1 - t0 < best) {
			best = t1 - t0;
			wult_xts_date(x, t0, t1, n->type->clock_reads);
			x->dev = n->last;
		}
		if (best < n->read_min)
			n->read_min = best;
		if (best <= 2 * n->read_min)
			break;
	}
}

/*
 * Track the rate from the reference; a span near the fixed point's limit
 * starts a new reference. A rate measured over a span at least half the
 * last one's replaces it: after a new reference the previous rate, of the
 * long span, stays in use until the new span is long enough to say better.
 */
static void wult_nic_track(struct wult_nic *n, const struct wult_xts *x)
{
	u64 rate = wult_xts_rate(&n->ref, x);

	if (rate && 2 * (x->tsc - n->ref.tsc) >= n->span) {
		n->rate = rate;
		n->span = x->tsc - n->ref.tsc;
		n->span_err = n->ref.err + x->err;
	}
	if (x->tsc - n->ref.tsc >= (1ULL << 30))
		n->ref = *x;
}

/*
 * Fault injection (debugfs wult/nic_drop): the arm just written is taken
 * back, and its event never comes. Any arm: the claim's self-test, a
 * datapoint's, a hold-off's.
 */
static void wult_nic_drop_arm(struct wult_nic *n)
{
	if (likely(!READ_ONCE(n->drop)))
		return;
	WRITE_ONCE(n->drop, n->drop - 1);
	n->dropped++;
	n->type->disarm(n->regs);
}

/* The armed event's interrupt, stamped @tsc: to the engine. */
static void wult_nic_fired(struct wult_nic *n, u64 tsc)
{
	hrtimer_try_to_cancel(this_cpu_ptr(&wult_nic_shadow));
	n->armed = false;
	wult_engine_intr(tsc, tsc);
}

/*
 * An earlier event's interrupt was acknowledged, which turned the timer
 * off: the armed event again. If its time passed meanwhile its interrupt
 * may never come: it fired now, in this handler, the CPU out of idle.
 */
static void wult_nic_rearm(struct wult_nic *n)
{
	n->type->arm(n->regs, n->at);
	n->last = wult_xts_extend(n->last, n->type->read_clock(n->regs),
				  n->type->clock_bits);
	if (n->last >= n->at)
		wult_nic_fired(n, rdtsc_ordered());
}

/* Freed before the registers go (wult_nic_remove()): n->regs is mapped. */
static notrace irqreturn_t wult_nic_irq(int irq, void *data)
{
	u64 tsc = rdtsc_ordered();
	struct wult_nic *n = data;

	if (!n->regs || !n->type->ack(n->regs))
		return IRQ_NONE;
	n->fired++;
	if (!n->armed || n->cpu != smp_processor_id()) {
		hrtimer_try_to_cancel(this_cpu_ptr(&wult_nic_shadow));
		n->stray++;
		if (n->armed) {
			n->moved++;
			schedule_work(&n->reroute);
		}
		return IRQ_HANDLED;
	}
	if (!wult_rule_dev_intr_ours(tsc, n->ltime, n->ltime_err)) {
		n->stray++;
		n->stale++;
		wult_nic_rearm(n);
		return IRQ_HANDLED;
	}
	wult_nic_fired(n, tsc);
	return IRQ_HANDLED;
}

/* The interrupt was moved off the measured CPU (by the kernel): back. */
static void wult_nic_reroute(struct work_struct *work)
{
	struct wult_nic *n = container_of(work, struct wult_nic, reroute);
	int ret;

	if (!READ_ONCE(n->irq_on))
		return;
	ret = irq_set_affinity(n->irq, cpumask_of(n->cpu));
	if (ret)
		pr_info_ratelimited("wult: nic: %s: its interrupt cannot be sent back to CPU%d (%d)\n",
				    pci_name(n->pdev), n->cpu, ret);
}

/*
 * The shadow shows the governor the expiry; expiring with the device's
 * event still armed, at the margin or at the guard, it saw that event
 * lost: the datapoint ends here and the next is armed.
 */
static enum hrtimer_restart wult_nic_shadow_fn(struct hrtimer *t)
{
	struct wult_nic *n = &wult_nic;

	if (!n->armed || !n->regs || n->cpu != smp_processor_id())
		return HRTIMER_NORESTART;
	n->armed = false;
	n->lost++;
	n->type->disarm(n->regs);
	wult_engine_lost();
	return HRTIMER_NORESTART;
}

/*
 * Two timer interrupts, not measured: they move the route to the CPU
 * (an IO-APIC's at the next interrupt) and show that the device's timer
 * fires at all: its clock counts, the interrupt reaches a CPU.
 */
static int wult_nic_settle(struct wult_nic *n)
{
	unsigned long flags;
	struct wult_xts x;
	u64 fired, start;
	int i, us;

	for (i = 0; i < 2; i++) {
		fired = READ_ONCE(n->fired);
		local_irq_save(flags);
		wult_nic_xts(n, &x);
		n->type->arm(n->regs, x.dev + 4 * n->min_ticks);
		wult_nic_drop_arm(n);
		local_irq_restore(flags);
		start = x.dev;
		for (us = 0; us < WULT_NIC_SETTLE_US && READ_ONCE(n->fired) == fired;
		     us += 200)
			usleep_range(200, 400);
		if (READ_ONCE(n->fired) != fired)
			continue;
		n->type->disarm(n->regs);
		local_irq_save(flags);
		wult_nic_xts(n, &x);
		local_irq_restore(flags);
		if (x.dev == start)
			return wult_refuse(-EIO, "nic: %s: its clock does not count",
					   pci_name(n->pdev));
		return wult_refuse(-EIO,
				   "nic: %s: its timer interrupt did not come within %d ms of its time",
				   pci_name(n->pdev), WULT_NIC_SETTLE_US / 1000);
	}
	return 0;
}

/*
 * Our probe, under the device lock: everything that touches the device,
 * so that a removal (the remove below) cannot run beside it. Its errors
 * are the claim's (device_attach() only says "not bound"), each with its
 * reason.
 */
static int wult_nic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct wult_nic *n = &wult_nic;
	const char *name = pci_name(pdev);
	int ret;

	/* Bound by hand (driver_override) to another device: not ours. */
	if (pdev != n->probing)
		return -ENODEV;
	ret = pci_enable_device(pdev);
	if (ret) {
		n->probe_err = wult_refuse(ret, "nic: %s: cannot enable it (%d)",
					   name, ret);
		return ret;
	}
	n->regs = pci_iomap(pdev, n->type->bar, n->type->bar_len);
	if (!n->regs) {
		ret = wult_refuse(-ENOMEM, "nic: %s: cannot map BAR %d", name,
				  n->type->bar);
		goto err_disable;
	}
	/* MSI where the type can use it: an MSI is a write the device masters. */
	ret = pci_alloc_irq_vectors(pdev, 1, 1, n->type->irq_types);
	if (ret < 0) {
		ret = wult_refuse(ret, "nic: %s: no interrupt vector for it (%d)",
				  name, ret);
		goto err_unmap;
	}
	n->irq = pci_irq_vector(pdev, 0);
	if (pdev->msi_enabled)
		pci_set_master(pdev);
	ret = n->type->setup(n->regs);
	if (ret) {
		ret = wult_refuse(ret, "nic: %s: its setup failed (%d)", name, ret);
		goto err_vectors;
	}
	ret = request_irq(n->irq, wult_nic_irq, IRQF_NO_THREAD | IRQF_NOBALANCING,
			  WULT_NIC_DRV, n);
	if (ret) {
		ret = wult_refuse(ret, "nic: %s: its interrupt %d is shared or taken (%d)",
				  name, n->irq, ret);
		goto err_teardown;
	}
	n->irq_on = true;
	ret = irq_set_affinity(n->irq, cpumask_of(n->cpu));
	if (ret) {
		ret = wult_refuse(ret, "nic: %s: its interrupt cannot be sent to CPU%d (%d)",
				  name, n->cpu, ret);
		goto err_irq;
	}
	n->armed = false;
	n->last = 0;
	n->read_min = U64_MAX;
	n->span = 0;
	n->rate = wult_xts_nominal(tsc_khz, n->type->clock_hz);
	n->min_ticks = div_u64(WULT_NIC_MIN_NS * n->type->clock_hz, NSEC_PER_SEC) + 1;
	n->gone = false;
	wult_nic_xts(n, &n->ref);
	ret = wult_nic_settle(n);
	if (!ret)
		return 0;
err_irq:
	WRITE_ONCE(n->irq_on, false);
	free_irq(n->irq, n);
	cancel_work_sync(&n->reroute);
err_teardown:
	n->type->teardown(n->regs);
err_vectors:
	pci_clear_master(pdev);
	pci_free_irq_vectors(pdev);
err_unmap:
	pci_iounmap(pdev, n->regs);
	n->regs = NULL;
err_disable:
	pci_disable_device(pdev);
	n->probe_err = ret;
	return ret;
}

/*
 * On the measured CPU, IRQs off, between its arms: the source lets go of
 * the registers. An armed event ends there (wult_engine_lost()); the next
 * arms fail (-ENODEV, counted arm_failed) until the events are closed.
 */
static void wult_nic_detach(void *data)
{
	struct wult_nic *n = data;
	void __iomem *regs = n->regs;
	bool armed = n->armed;

	n->regs = NULL;
	n->armed = false;
	if (!armed)
		return;
	n->type->disarm(regs);
	hrtimer_try_to_cancel(this_cpu_ptr(&wult_nic_shadow));
	wult_engine_lost();
}

/*
 * Our own give-back, or the device's removal from under the claim (a
 * write to its sysfs remove file, a hot unplug): either way under the
 * device lock, not wult_nic_lock, which the claim holds around the driver
 * core's calls. The handler is freed first (free_irq() waits for one that
 * runs), the measured CPU lets go of the registers next, and only then
 * are they unmapped: nothing reaches an unmapped BAR.
 */
static void wult_nic_remove(struct pci_dev *pdev)
{
	struct wult_nic *n = &wult_nic;
	void __iomem *regs = n->regs;

	if (!regs)
		return;
	WRITE_ONCE(n->irq_on, false);
	free_irq(n->irq, n);
	cancel_work_sync(&n->reroute);
	cpus_read_lock();
	if (!cpu_online(n->cpu) ||
	    smp_call_function_single(n->cpu, wult_nic_detach, n, 1))
		n->regs = NULL;	/* no CPU measures with it */
	cpus_read_unlock();
	n->type->teardown(regs);
	pci_clear_master(pdev);
	pci_free_irq_vectors(pdev);
	pci_iounmap(pdev, regs);
	pci_disable_device(pdev);
	if (!READ_ONCE(n->releasing)) {
		WRITE_ONCE(n->gone, true);
		pr_warn("wult: nic: %s was removed while claimed: CPU%d gets no more datapoints until its events are closed\n",
			pci_name(pdev), n->cpu);
	}
}

/*
 * Matches nothing by id: only a device whose driver_override names it. No
 * bind/unbind files: a bind by hand would probe a device nobody claimed.
 * Probed synchronously: the claim reads what the probe left.
 */
static struct pci_driver wult_nic_driver = {
	.name		= WULT_NIC_DRV,
	.probe		= wult_nic_probe,
	.remove		= wult_nic_remove,
	.driver		= {
		.suppress_bind_attrs = true,
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

/*
 * The device's interrupt @ldist ns from now, in device ticks at the
 * measured rate; LTime is the programmed device time converted back.
 */
int wult_nic_arm(u64 ldist, u64 *ltime)
{
	struct wult_nic *n = &wult_nic;
	u64 tsc = rdtsc_ordered(), now = ktime_get_ns(), ticks, at, cyc;
	struct wult_xts x;

	if (!n->regs || n->cpu != smp_processor_id())
		return -ENODEV;
	wult_nic_xts(n, &x);
	wult_nic_track(n, &x);
	cyc = mul_u64_u32_div(ldist, tsc_khz, USEC_PER_SEC);
	ticks = max(div64_u64(cyc << 16, n->rate >> 16), n->min_ticks);
	n->armed = true;
	/* x.dev's tick began up to one tick before the read. */
	at = n->type->arm(n->regs, x.dev + ticks + 1);
	/* Passed already (the arm was interrupted)? Later, dated anew. */
	n->last = wult_xts_extend(n->last, n->type->read_clock(n->regs),
				  n->type->clock_bits);
	if (n->last >= at) {
		n->late++;
		wult_nic_xts(n, &x);
		at = n->type->arm(n->regs, x.dev + ticks + 1);
		/* Late again (an SMI, a vCPU preempted): the shadow ends it. */
		n->last = wult_xts_extend(n->last, n->type->read_clock(n->regs),
					  n->type->clock_bits);
		if (n->last >= at)
			n->late++;
	}
	wult_nic_drop_arm(n);
	*ltime = wult_xts_to_tsc(&x, at, n->rate);
	n->at = at;
	n->ltime = *ltime;
	n->ltime_err = wult_xts_err(&x, at, n->rate, n->span_err, n->span,
				    WULT_NIC_NOMINAL_PPM);
	/* Dated from a TSC read before @now: never earlier than LTime. */
	cyc = *ltime + n->ltime_err - tsc;
	n->ltime_ns = now + mul_u64_u32_div(cyc, USEC_PER_SEC, tsc_khz);
	n->shadow_ns = now + ldist + ldist / 8 + 5 * NSEC_PER_USEC;
	hrtimer_start_range_ns(this_cpu_ptr(&wult_nic_shadow),
			       ns_to_ktime(n->shadow_ns), 0,
			       WULT_NIC_SHADOW_MODE);
	return 0;
}

void wult_nic_cancel(void)
{
	struct wult_nic *n = &wult_nic;

	n->armed = false;
	if (n->regs)
		n->type->disarm(n->regs);
	hrtimer_try_to_cancel(this_cpu_ptr(&wult_nic_shadow));
}

/*
 * LTime is the device's; only whether a timer comes before it: the shadow
 * itself or one between LTime and the shadow (the tick, say) cannot. The
 * state is chosen: the shadow out to its guard, beyond the state's exit.
 * A shadow that expired with the event still armed saw it lost: LTime is
 * not trusted, and the next wake ends the datapoint (other_wake).
 */
bool wult_nic_at_idle(u64 *ltime)
{
	struct hrtimer *t = this_cpu_ptr(&wult_nic_shadow);
	bool first = wult_rule_timer_after(wult_hrtimer_next(t),
					   wult_nic.ltime_ns);

	if (!hrtimer_is_queued(t))
		return false;
	hrtimer_start_range_ns(t, ns_to_ktime(wult_nic.shadow_ns +
					      WULT_NIC_GUARD_NS),
			       0, WULT_NIC_SHADOW_MODE);
	return first;
}

/* Not the wake: the margin again, while ahead, for the governor. */
void wult_nic_early_exit(void)
{
	struct hrtimer *t = this_cpu_ptr(&wult_nic_shadow);
	u64 at = wult_nic.shadow_ns;

	if (hrtimer_is_queued(t) && ktime_get_ns() < at)
		hrtimer_start_range_ns(t, ns_to_ktime(at), 0,
				       WULT_NIC_SHADOW_MODE);
}

/* LTime was converted at the arm: its error bound, in ns. */
bool wult_nic_timebase(struct wult_dp *dp)
{
	u64 err = mul_u64_u32_div(wult_nic.ltime_err, USEC_PER_SEC, tsc_khz);

	dp->ltime_err = min_t(u64, err, U32_MAX);
	return true;
}

static int wult_nic_counters_show(struct seq_file *m, void *v)
{
	struct wult_nic *n = &wult_nic;

	seq_printf(m, "fired %llu stray %llu stale %llu moved %llu late %llu lost %llu dropped %llu\n",
		   READ_ONCE(n->fired), READ_ONCE(n->stray), READ_ONCE(n->stale),
		   READ_ONCE(n->moved), READ_ONCE(n->late), READ_ONCE(n->lost),
		   READ_ONCE(n->dropped));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(wult_nic_counters);

void wult_nic_debugfs_init(struct dentry *parent)
{
	debugfs_create_file("nic", 0444, parent, NULL, &wult_nic_counters_fops);
	debugfs_create_u32("nic_drop", 0600, parent, &wult_nic.drop);
}

int wult_dev_init(void)
{
	int cpu, ret;

	INIT_WORK(&wult_nic.reroute, wult_nic_reroute);
	for_each_possible_cpu(cpu)
		wult_hrtimer_setup(per_cpu_ptr(&wult_nic_shadow, cpu),
				   wult_nic_shadow_fn, CLOCK_MONOTONIC,
				   WULT_NIC_SHADOW_MODE);
	ret = pci_register_driver(&wult_nic_driver);
	wult_nic_registered = !ret;
	return ret;
}

void wult_dev_exit(void)
{
	int cpu;

	if (wult_nic_registered)
		pci_unregister_driver(&wult_nic_driver);
	wult_nic_registered = false;
	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&wult_nic_shadow, cpu));
}
