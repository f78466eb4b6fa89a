// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the nic source, on the device layer below it (wult_dev.c: the
 * device's clock, its timer interrupt, the shadow, our PCI driver): the
 * source's ops and life, and the claim of a device for its events.
 *
 * An event names the device with its device term; the first event takes
 * the device from its driver (driver_override to ours, a synchronous
 * probe), refused while it is in use (an interface up or in another
 * network namespace, another measured CPU); the last event's destruction
 * starts a grace period after which the device goes back to its driver.
 * No suspend while a CPU measures with it.
 */
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/suspend.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "../../trace/wult_refusal.h"
#include "../../uapi/linux/wult.h"
#include "../../wult_compat.h"
#include "../wult_source.h"
#include "wult_dev_int.h"

static const struct wult_dev_type *const wult_dev_types[] = {
	&wult_rtl8139_type,
	&wult_i210_type,
};

static const struct wult_dev_type *wult_nic_type(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wult_dev_types); i++)
		if (pci_match_id(wult_dev_types[i]->ids, pdev))
			return wult_dev_types[i];
	return NULL;
}

struct wult_nic_ifs {
	const char *why;
	char name[IFNAMSIZ];
};

/* A network interface of the device, in any namespace: is it used? */
static int wult_nic_if_used(struct device *dev, void *data)
{
	struct wult_nic_ifs *ifs = data;
	struct net_device *nd;

	if (!dev->class || strcmp(dev->class->name, "net"))
		return 0;
	nd = to_net_dev(dev);
	if (nd->flags & IFF_UP)
		ifs->why = "is up (bring it down first)";
	else if (!net_eq(dev_net(nd), &init_net))
		ifs->why = "is in another network namespace";
	else
		return 0;
	strscpy(ifs->name, nd->name, sizeof(ifs->name));
	return 1;
}

/*
 * Someone uses @pdev: an interface of it is up or was moved into a
 * container's namespace, or a driver wult must not take it from (not the
 * type's own) has it. EBUSY with the reason, or 0.
 */
static int wult_nic_in_use(struct pci_dev *pdev, const struct wult_dev_type *type)
{
	struct wult_nic_ifs ifs = { };
	const char *const *d;
	const char *drv;
	int used;

	rtnl_lock();
	used = device_for_each_child(&pdev->dev, &ifs, wult_nic_if_used);
	rtnl_unlock();
	if (used)
		return wult_refuse(-EBUSY, "nic: %s is in use: its interface %s %s",
				   pci_name(pdev), ifs.name, ifs.why);
	/* Never wait under wult_nic_lock for a driver busy with it. */
	if (!device_trylock(&pdev->dev))
		return wult_refuse(-EBUSY, "nic: %s is busy (its driver core lock is held)",
				   pci_name(pdev));
	drv = pdev->dev.driver ? pdev->dev.driver->name : NULL;
	for (d = type->drivers; drv && *d && strcmp(*d, drv); d++)
		;
	device_unlock(&pdev->dev);
	if (drv && !*d)
		return wult_refuse(-EBUSY,
				   "nic: %s is bound to %s, which wult does not take devices from (only from %s; unbind it first)",
				   pci_name(pdev), drv, type->drivers[0]);
	return 0;
}

/* Give the device back to the driver core, which rebinds its driver. */
static void wult_nic_give_back(struct wult_nic *n)
{
	struct pci_dev *pdev = n->pdev;

	WRITE_ONCE(n->releasing, true);
	device_release_driver(&pdev->dev);
	WRITE_ONCE(n->releasing, false);
	wult_pci_set_override(pdev, "");
	if (READ_ONCE(n->gone))
		pr_info("wult: nic: %s released (it was removed)\n", pci_name(pdev));
	else if (device_attach(&pdev->dev) > 0 && pdev->dev.driver)
		pr_info("wult: nic: %s given back to %s\n", pci_name(pdev),
			pdev->dev.driver->name);
	else
		pr_info("wult: nic: %s released (no driver took it)\n",
			pci_name(pdev));
	n->probing = NULL;
	pci_dev_put(pdev);
	n->pdev = NULL;
	n->gone = false;
}

static int wult_nic_claim(struct wult_nic *n, u64 dev, int cpu)
{
	unsigned int domain = dev >> 16, bus = (dev >> 8) & 0xff, devfn = dev & 0xff;
	const struct wult_dev_type *type;
	struct pci_dev *pdev;
	int ret;

	pdev = pci_get_domain_bus_and_slot(domain, bus, devfn);
	if (!pdev)
		return wult_refuse(-ENODEV, "nic: no PCI device %04x:%02x:%02x.%d",
				   domain, bus, PCI_SLOT(devfn), PCI_FUNC(devfn));
	type = wult_nic_type(pdev);
	if (!type) {
		ret = wult_refuse(-ENODEV,
				  "nic: %s (%04x:%04x) is not a device wult knows (rtl8139, i210)",
				  pci_name(pdev), pdev->vendor, pdev->device);
		pci_dev_put(pdev);
		return ret;
	}
	ret = wult_nic_in_use(pdev, type);
	if (!ret) {
		ret = wult_pci_set_override(pdev, WULT_NIC_DRV);
		if (ret)
			ret = wult_refuse(ret, "nic: %s: cannot set its driver_override (%d)",
					  pci_name(pdev), ret);
	}
	if (ret) {
		pci_dev_put(pdev);
		return ret;
	}
	n->type = type;
	n->cpu = cpu;
	n->pdev = pdev;
	n->probing = pdev;
	if (pdev->dev.driver)
		pr_info("wult: nic: %s taken from %s\n", pci_name(pdev),
			pdev->dev.driver->name);
	device_release_driver(&pdev->dev);
	n->probe_err = 0;
	ret = device_attach(&pdev->dev);
	if (ret <= 0 || !n->regs) {
		/* Our probe's error, its reason given, or the driver core's. */
		if (n->probe_err)
			ret = n->probe_err;
		else
			ret = wult_refuse(ret < 0 ? ret : -ENODEV,
					  "nic: %s: could not bind it to " WULT_NIC_DRV " (%d)",
					  pci_name(pdev), ret);
		wult_nic_give_back(n);
		return ret;
	}
	n->devterm = dev;
	return 0;
}

static void wult_nic_release(struct wult_nic *n)
{
	pr_info("wult: nic: %s: %llu timer interrupts since load, %llu not measured (2 per claim settle the route; %llu of an earlier event, after its drop; %llu handled off the measured CPU), %llu late arms, %llu events lost (%llu dropped on purpose)\n",
		pci_name(n->pdev), n->fired, n->stray, n->stale, n->moved,
		n->late, n->lost, n->dropped);
	wult_nic_give_back(n);
}

static int wult_nic_get(int cpu, u64 dev)
{
	struct wult_nic *n = &wult_nic;
	int ret = 0;

	if (!dev)
		return wult_refuse(-EINVAL,
				   "nic: the event names no device (the device term, config2)");
	if (dev & ~wult_cfg_device_put(~0ULL))
		return wult_refuse_quiet(-EINVAL, "nic: unknown config2 bits 0x%llx",
					 dev & ~wult_cfg_device_put(~0ULL));
	mutex_lock(&wult_nic_lock);
	/* The work item, if it runs now, finds users and leaves the claim. */
	cancel_delayed_work(&n->grace);
	if (n->users && (n->devterm != dev || n->cpu != cpu)) {
		ret = wult_refuse(-EBUSY,
				  "nic: already measuring CPU%d with %s: one device, one CPU at a time",
				  n->cpu, pci_name(n->pdev));
	} else if (n->users && READ_ONCE(n->gone)) {
		ret = wult_refuse(-ENODEV, "nic: %s was removed while claimed",
				  pci_name(n->pdev));
	} else if (!n->users) {
		/* A claim in its grace for another device or CPU: given back. */
		if (n->pdev && (READ_ONCE(n->gone) || n->devterm != dev ||
				n->cpu != cpu))
			wult_nic_release(n);
		if (!n->pdev)
			ret = wult_nic_claim(n, dev, cpu);
	}
	if (!ret)
		n->users++;
	mutex_unlock(&wult_nic_lock);
	return ret;
}

/* The last event was destroyed: the claim is kept WULT_NIC_GRACE_MS. */
static void wult_nic_put(int cpu)
{
	struct wult_nic *n = &wult_nic;

	mutex_lock(&wult_nic_lock);
	if (!--n->users) {
		if (READ_ONCE(n->gone))
			wult_nic_release(n);
		else
			mod_delayed_work(system_wq, &n->grace,
					 msecs_to_jiffies(WULT_NIC_GRACE_MS));
	}
	mutex_unlock(&wult_nic_lock);
}

static void wult_nic_grace_end(struct work_struct *work)
{
	struct wult_nic *n = &wult_nic;

	mutex_lock(&wult_nic_lock);
	if (n->pdev && !n->users)
		wult_nic_release(n);
	mutex_unlock(&wult_nic_lock);
}

/*
 * No suspend or hibernation while a CPU measures with the device: the
 * device's state would be lost under an armed source and the measured
 * CPU's datapoints with it. A claim in its grace is given back first, so
 * that the NIC's own driver suspends it.
 */
static int wult_nic_pm(struct notifier_block *nb, unsigned long action,
		       void *data)
{
	struct wult_nic *n = &wult_nic;
	int ret = 0;

	if (action != PM_SUSPEND_PREPARE && action != PM_HIBERNATION_PREPARE)
		return NOTIFY_DONE;
	mutex_lock(&wult_nic_lock);
	if (n->users) {
		pr_warn("wult: nic: %s is measuring CPU%d: suspend refused (EBUSY) until its events are closed\n",
			pci_name(n->pdev), n->cpu);
		ret = -EBUSY;
	} else if (n->pdev) {
		wult_nic_release(n);
	}
	mutex_unlock(&wult_nic_lock);
	return notifier_from_errno(ret);
}

static struct notifier_block wult_nic_pm_nb = {
	.notifier_call = wult_nic_pm,
};

static int wult_nic_usable(void)
{
	return wult_source_tsc_usable("nic", false);
}

static bool wult_nic_pm_on;

static int wult_nic_init(void)
{
	int ret;

	INIT_DELAYED_WORK(&wult_nic.grace, wult_nic_grace_end);
	ret = wult_dev_init();
	if (ret)
		return ret;
	/* Best effort: without it suspend is not refused, as before. */
	wult_nic_pm_on = !register_pm_notifier(&wult_nic_pm_nb);
	return 0;
}

static void wult_nic_exit(void)
{
	struct wult_nic *n = &wult_nic;

	if (wult_nic_pm_on)
		unregister_pm_notifier(&wult_nic_pm_nb);
	wult_nic_pm_on = false;
	/* Events hold the module: at most a claim in its grace is left. */
	cancel_delayed_work_sync(&n->grace);
	mutex_lock(&wult_nic_lock);
	if (n->pdev)
		wult_nic_release(n);
	mutex_unlock(&wult_nic_lock);
	wult_dev_exit();
}

const struct wult_source wult_nic_source = {
	.id		= WULT_SOURCE_NIC,
	.clock		= WULT_CLOCK_TSC,
	.min_ldist	= WULT_NIC_MIN_LDIST,
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
