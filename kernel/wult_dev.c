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
 * driver core: if a network interface of the device is up it is refused
 * (EBUSY: the device is in use); otherwise its driver_override is set to
 * "wult_nic", its driver (8139cp, igb) unbound and our own pci_driver,
 * which matches nothing else, bound. Its interrupt (MSI where the type can
 * use it, else the legacy line) is requested exclusively, IRQF_NO_THREAD
 * (on PREEMPT_RT a threaded handler would make TIntr a thread's wake-up),
 * and its affinity set to the measured CPU; two interrupts are then taken,
 * unmeasured, to move it there (an IO-APIC route changes at the next
 * interrupt). The last event's destruction gives it back: ours
 * unbound, the override cleared, the driver core asked to attach it again,
 * which binds the driver it had. One device and one CPU at a time.
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
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#include <net/net_namespace.h>

#include "uapi/linux/wult.h"
#include "wult_compat.h"
#include "wult_dev.h"
#include "wult_refusal.h"
#include "wult_rules.h"
#include "wult_source.h"
#include "wult_xts.h"

#define WULT_NIC_DRV		"wult_nic"
#define WULT_NIC_SHADOW_MODE	HRTIMER_MODE_ABS_PINNED_HARD
/* Trust in a device's nominal rate until one is measured (ppm). */
#define WULT_NIC_NOMINAL_PPM	1000
/*
 * The shortest distance a device timer is armed ahead of the clock read
 * that dates it: the register write must reach the device before the
 * clock passes the value (a compare for equality would then wait a whole
 * counter period). Several MMIO accesses on real hardware.
 */
#define WULT_NIC_MIN_NS		2000
/* Cross-timestamp reads: retried while wider than twice the narrowest. */
#define WULT_NIC_XTS_TRIES	3
/*
 * The shadow's guard beyond its margin, from idle entry on: twice the
 * longest exit latency a cpuidle driver declares (intel_idle's Atom C7S
 * and C10 states: 10 ms), so that no device interrupt that came is still
 * pending when it expires.
 */
#define WULT_NIC_GUARD_NS	(20 * NSEC_PER_MSEC)

static const struct wult_dev_type *const wult_dev_types[] = {
	&wult_rtl8139_type,
	&wult_i210_type,
};

struct wult_nic {
	/* Claim state: process context, under wult_nic_lock. */
	unsigned int users;
	u64 devterm;
	int cpu;
	struct pci_dev *pdev;
	struct pci_dev *probing;	/* the device our probe accepts */
	const struct wult_dev_type *type;
	void __iomem *regs;
	int irq;
	bool irq_on;
	/* Hot state: the measured CPU with IRQs off, or the handler. */
	bool armed;
	u64 last;		/* extended device clock of the last read */
	u64 read_min;		/* narrowest read window seen, TSC cycles */
	u64 rate;		/* TSC cycles per tick, 32.32 */
	u64 span;		/* TSC cycles the rate was measured over, 0: nominal */
	u64 span_err;		/* the dating errors at its two ends */
	struct wult_xts ref;	/* the rate's reference */
	u64 at;			/* the armed event's extended device time */
	u64 ltime;		/* ... its LTime, TSC cycles */
	u64 ltime_err;		/* ... and LTime's error bound, TSC cycles */
	u64 ltime_ns;		/* ... LTime at its latest, CLOCK_MONOTONIC */
	u64 shadow_ns;		/* the shadow's expiry the governor reads */
	u64 min_ticks;		/* the shortest arm ahead: WULT_NIC_MIN_NS */
	u64 late;		/* arms that came too late, moved on */
	u64 fired;		/* timer interrupts handled */
	u64 stray;		/* ... of which not for an armed event here */
	u64 stale;		/* ... of those, an earlier event's */
	u64 moved;		/* ... armed here, handled on another CPU */
	struct work_struct reroute;	/* sets the route back to the CPU */
};

static struct wult_nic wult_nic;
static DEFINE_MUTEX(wult_nic_lock);
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

static notrace irqreturn_t wult_nic_irq(int irq, void *data)
{
	u64 tsc = rdtsc_ordered();
	struct wult_nic *n = data;

	if (!n->type->ack(n->regs))
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

/* The shadow shows the governor the expiry, then ends a lost event's sleep. */
static enum hrtimer_restart wult_nic_shadow_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static int wult_nic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct wult_nic *n = &wult_nic;
	int ret;

	/* Bound by hand (driver_override) to another device: not ours. */
	if (pdev != n->probing)
		return -ENODEV;
	ret = pci_enable_device(pdev);
	if (ret)
		return ret;
	n->regs = pci_iomap(pdev, n->type->bar, n->type->bar_len);
	if (!n->regs) {
		ret = -ENOMEM;
		goto err_disable;
	}
	/* MSI where the type can use it: an MSI is a write the device masters. */
	ret = pci_alloc_irq_vectors(pdev, 1, 1, n->type->irq_types);
	if (ret < 0)
		goto err_unmap;
	n->irq = pci_irq_vector(pdev, 0);
	if (pdev->msi_enabled)
		pci_set_master(pdev);
	ret = n->type->setup(n->regs);
	if (!ret)
		return 0;
	pci_free_irq_vectors(pdev);
err_unmap:
	pci_iounmap(pdev, n->regs);
	n->regs = NULL;
err_disable:
	pci_disable_device(pdev);
	return ret;
}

static void wult_nic_remove(struct pci_dev *pdev)
{
	struct wult_nic *n = &wult_nic;

	if (!n->regs)
		return;
	n->type->teardown(n->regs);
	pci_clear_master(pdev);
	pci_free_irq_vectors(pdev);
	pci_iounmap(pdev, n->regs);
	n->regs = NULL;
	pci_disable_device(pdev);
}

/*
 * Matches nothing by id: only a device whose driver_override names it. No
 * bind/unbind files: an unbind from user space while a CPU measures would
 * unmap the registers under the engine's arm and the handler.
 */
static struct pci_driver wult_nic_driver = {
	.name		= WULT_NIC_DRV,
	.probe		= wult_nic_probe,
	.remove		= wult_nic_remove,
	.driver		= {
		.suppress_bind_attrs = true,
	},
};

static const struct wult_dev_type *wult_nic_type(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wult_dev_types); i++)
		if (pci_match_id(wult_dev_types[i]->ids, pdev))
			return wult_dev_types[i];
	return NULL;
}

/* Is a network interface of @pdev up? Then someone is using it. */
static const char *wult_nic_busy(struct pci_dev *pdev)
{
	static char name[IFNAMSIZ];
	struct net_device *nd;
	bool busy = false;

	rtnl_lock();
	for_each_netdev(&init_net, nd) {
		if (nd->dev.parent == &pdev->dev && (nd->flags & IFF_UP)) {
			strscpy(name, nd->name, sizeof(name));
			busy = true;
			break;
		}
	}
	rtnl_unlock();
	return busy ? name : NULL;
}

/* Give the device back to the driver core, which rebinds its driver. */
static void wult_nic_give_back(struct wult_nic *n)
{
	struct pci_dev *pdev = n->pdev;

	device_release_driver(&pdev->dev);
	wult_pci_set_override(pdev, "");
	if (device_attach(&pdev->dev) > 0 && pdev->dev.driver)
		pr_info("wult: nic: %s given back to %s\n", pci_name(pdev),
			pdev->dev.driver->name);
	else
		pr_info("wult: nic: %s released (no driver took it)\n",
			pci_name(pdev));
	n->probing = NULL;
	pci_dev_put(pdev);
	n->pdev = NULL;
}

/* Take one timer interrupt, not measured: it moves the route to the CPU. */
static void wult_nic_settle(struct wult_nic *n)
{
	unsigned long flags;
	struct wult_xts x;
	u64 fired = READ_ONCE(n->fired);
	int i;

	for (i = 0; i < 2; i++) {
		local_irq_save(flags);
		wult_nic_xts(n, &x);
		n->type->arm(n->regs, x.dev + 4 * n->min_ticks);
		local_irq_restore(flags);
		usleep_range(200, 400);
	}
	if (READ_ONCE(n->fired) == fired)
		pr_info("wult: nic: %s: no timer interrupt came in\n",
			pci_name(n->pdev));
}

static int wult_nic_claim(struct wult_nic *n, u64 dev, int cpu)
{
	unsigned int domain = dev >> 16, bus = (dev >> 8) & 0xff, devfn = dev & 0xff;
	struct pci_dev *pdev;
	const char *busy;
	int ret;

	pdev = pci_get_domain_bus_and_slot(domain, bus, devfn);
	if (!pdev)
		return wult_refuse(-ENODEV, "nic: no PCI device %04x:%02x:%02x.%d",
				   domain, bus, PCI_SLOT(devfn), PCI_FUNC(devfn));
	n->type = wult_nic_type(pdev);
	if (!n->type) {
		ret = wult_refuse(-ENODEV,
				  "nic: %s (%04x:%04x) is not a device wult knows (rtl8139, i210)",
				  pci_name(pdev), pdev->vendor, pdev->device);
		pci_dev_put(pdev);
		return ret;
	}
	busy = wult_nic_busy(pdev);
	if (busy) {
		ret = wult_refuse(-EBUSY,
				  "nic: %s is in use: its interface %s is up (bring it down first)",
				  pci_name(pdev), busy);
		pci_dev_put(pdev);
		return ret;
	}
	ret = wult_pci_set_override(pdev, WULT_NIC_DRV);
	if (ret) {
		pci_dev_put(pdev);
		return ret;
	}
	n->pdev = pdev;
	n->probing = pdev;
	if (pdev->dev.driver)
		pr_info("wult: nic: %s taken from %s\n", pci_name(pdev),
			pdev->dev.driver->name);
	device_release_driver(&pdev->dev);
	if (device_attach(&pdev->dev) <= 0 || !n->regs) {
		ret = wult_refuse(-EBUSY, "nic: %s: could not bind it to " WULT_NIC_DRV,
				  pci_name(pdev));
		wult_nic_give_back(n);
		return ret;
	}

	n->armed = false;
	n->cpu = cpu;
	n->last = 0;
	n->read_min = U64_MAX;
	n->span = 0;
	n->rate = wult_xts_nominal(tsc_khz, n->type->clock_hz);
	n->min_ticks = div_u64(WULT_NIC_MIN_NS * n->type->clock_hz, NSEC_PER_SEC) + 1;
	n->late = 0;
	ret = request_irq(n->irq, wult_nic_irq, IRQF_NO_THREAD | IRQF_NOBALANCING,
			  WULT_NIC_DRV, n);
	if (ret) {
		ret = wult_refuse(-EBUSY,
				  "nic: %s: its interrupt %d is shared or taken (%d): refusing",
				  pci_name(pdev), n->irq, ret);
		wult_nic_give_back(n);
		return ret;
	}
	n->irq_on = true;
	ret = irq_set_affinity(n->irq, cpumask_of(cpu));
	if (ret) {
		ret = wult_refuse(ret, "nic: %s: its interrupt cannot be sent to CPU%d (%d)",
				  pci_name(pdev), cpu, ret);
		free_irq(n->irq, n);
		n->irq_on = false;
		wult_nic_give_back(n);
		return ret;
	}
	wult_nic_xts(n, &n->ref);
	wult_nic_settle(n);
	n->devterm = dev;
	return 0;
}

static void wult_nic_release(struct wult_nic *n)
{
	n->type->disarm(n->regs);
	WRITE_ONCE(n->irq_on, false);
	free_irq(n->irq, n);
	cancel_work_sync(&n->reroute);
	pr_info("wult: nic: %s: %llu timer interrupts since load, %llu not measured (2 per claim settle the route; %llu of an earlier event, after its drop; %llu handled off the measured CPU), %llu late arms\n",
		pci_name(n->pdev), n->fired, n->stray, n->stale, n->moved, n->late);
	wult_nic_give_back(n);
}

static int wult_nic_get(int cpu, u64 dev)
{
	struct wult_nic *n = &wult_nic;
	int ret = 0;

	if (!dev)
		return wult_refuse(-EINVAL,
				   "nic: the event names no device (the device term, config2)");
	if (dev & ~WULT_CFG2_DEVICE_MASK)
		return wult_refuse_quiet(-EINVAL, "nic: unknown config2 bits 0x%llx",
					 dev & ~WULT_CFG2_DEVICE_MASK);
	mutex_lock(&wult_nic_lock);
	if (n->users && (n->devterm != dev || n->cpu != cpu)) {
		ret = wult_refuse(-EBUSY,
				  "nic: already measuring CPU%d with %s: one device, one CPU at a time",
				  n->cpu, pci_name(n->pdev));
	} else if (!n->users) {
		ret = wult_nic_claim(n, dev, cpu);
	}
	if (!ret)
		n->users++;
	mutex_unlock(&wult_nic_lock);
	return ret;
}

static void wult_nic_put(int cpu)
{
	struct wult_nic *n = &wult_nic;

	mutex_lock(&wult_nic_lock);
	if (!--n->users)
		wult_nic_release(n);
	mutex_unlock(&wult_nic_lock);
}

static int wult_nic_usable(void)
{
	if (!wult_rule_tsc_rate_known(tsc_khz))
		return wult_refuse(-EOPNOTSUPP,
				   "nic: the kernel does not know the TSC rate (tsc_khz is 0): TSC times cannot be converted");
	if (!wult_rule_tsc_times_ok(true, check_tsc_unstable()))
		return wult_refuse(-EOPNOTSUPP,
				   "nic: the kernel marked the TSC unstable: TSC times cannot be trusted");
	return 0;
}

/*
 * The device's interrupt @ldist ns from now, in device ticks at the
 * measured rate; LTime is the programmed device time converted back.
 */
static int wult_nic_arm(u64 ldist, u64 *ltime)
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
	}
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

static void wult_nic_cancel(void)
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
static bool wult_nic_at_idle(u64 *ltime)
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
static void wult_nic_early_exit(void)
{
	struct hrtimer *t = this_cpu_ptr(&wult_nic_shadow);
	u64 at = wult_nic.shadow_ns;

	if (hrtimer_is_queued(t) && ktime_get_ns() < at)
		hrtimer_start_range_ns(t, ns_to_ktime(at), 0,
				       WULT_NIC_SHADOW_MODE);
}

/* LTime was converted at the arm: its error bound, in ns. */
static bool wult_nic_timebase(struct wult_dp *dp)
{
	u64 err = mul_u64_u32_div(wult_nic.ltime_err, USEC_PER_SEC, tsc_khz);

	dp->ltime_err = min_t(u64, err, U32_MAX);
	return true;
}

static int wult_nic_init(void)
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

static void wult_nic_exit(void)
{
	int cpu;

	/* Events hold the module: nothing is claimed any more. */
	if (wult_nic_registered)
		pci_unregister_driver(&wult_nic_driver);
	wult_nic_registered = false;
	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&wult_nic_shadow, cpu));
}

const struct wult_source wult_nic_source = {
	.name		= "nic",
	.id		= WULT_SOURCE_NIC,
	.clock		= WULT_CLOCK_TSC,
	.init		= wult_nic_init,
	.exit		= wult_nic_exit,
	.usable		= wult_nic_usable,
	.get		= wult_nic_get,
	.put		= wult_nic_put,
	.arm		= wult_nic_arm,
	.cancel		= wult_nic_cancel,
	.at_idle	= wult_nic_at_idle,
	.early_exit	= wult_nic_early_exit,
	.timebase	= wult_nic_timebase,
};
