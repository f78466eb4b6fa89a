// SPDX-License-Identifier: GPL-2.0
/*
 * The system description wult record stores (wult/sysinfo.h): read from
 * procfs, sysfs and device files under a root, so a test can hand it a
 * tree of its own. Every read is best effort: a value that cannot be had
 * says why, and only memory failures are errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/sysinfo.h>

#define CPU_SYS		"/sys/devices/system/cpu"
#define MAX_STATES	32
#define TEXT_MAX	4096

struct si {
	struct wult_sysdesc *sd;
	const char *root;
	int ret;		/* the first -ENOMEM */
};

static void set(struct si *s, const char *key, const char *value)
{
	int ret = wult_sysdesc_set(s->sd, key, value);

	if (ret && !s->ret)
		s->ret = ret;
}

/* ROOT/@path's text, its trailing newline cut, into @buf: 0 or -errno. */
static int read_text(const struct si *s, const char *path, char *buf, size_t len)
{
	char full[512];
	ssize_t n;
	int fd, err;

	snprintf(full, sizeof(full), "%s%s", s->root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* procfs may hand a large file over in several reads */
	for (n = 0; (size_t)n < len - 1;) {
		ssize_t k = read(fd, buf + n, len - 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			err = errno;
			if (k < 0) {
				close(fd);
				return -err;
			}
			break;
		}
		n += k;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static const char *why(int err, char *buf, size_t len)
{
	if (err == -ENOENT)
		return "absent";
	snprintf(buf, len, "unreadable: %s", strerror(-err));
	return buf;
}

/* @key from ROOT/@path, or why not. */
static void set_file(struct si *s, const char *key, const char *path)
{
	char buf[TEXT_MAX], w[96];
	int ret = read_text(s, path, buf, sizeof(buf));

	set(s, key, ret ? why(ret, w, sizeof(w)) : buf);
}

/* The value of "@name<tabs>: value" in the /proc/cpuinfo block @blk. */
static const char *cpuinfo_field(const char *blk, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);
	const char *l;

	for (l = blk; l && *l && *l != '\n'; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *c;

		if (strncmp(l, name, n) || (l[n] != '\t' && l[n] != ' ' && l[n] != ':'))
			continue;
		c = strchr(l, ':');
		if (!c)
			return NULL;
		c += 1 + (c[1] == ' ');
		snprintf(buf, len, "%.*s", (int)strcspn(c, "\n"), c);
		return buf;
	}
	return NULL;
}

/* Whether flag @f is in the space-separated @flags. */
static int has_flag(const char *flags, const char *f)
{
	size_t n = strlen(f);
	const char *p;

	for (p = flags; (p = strstr(p, f)); p += n)
		if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
	return 0;
}

/* The measured CPU's block of /proc/cpuinfo: vendor, family, model, ..., flags. */
static void describe_cpu(struct si *s, int cpu, char *vendor, size_t vlen)
{
	static const char *const tsc[] = {
		"constant_tsc", "nonstop_tsc", "tsc_reliable", "tsc_known_freq",
	};
	static const struct { const char *key, *field; } fields[] = {
		{ "cpu.vendor", "vendor_id" }, { "cpu.family", "cpu family" },
		{ "cpu.model", "model" }, { "cpu.stepping", "stepping" },
		{ "cpu.microcode", "microcode" }, { "cpu.model_name", "model name" },
	};
	char *info = malloc(1 << 20), key[64], buf[TEXT_MAX], flags[TEXT_MAX], w[96];
	const char *blk = NULL, *p;
	unsigned int i;
	int ret;

	vendor[0] = '\0';
	if (!info) {
		s->ret = -ENOMEM;
		return;
	}
	ret = read_text(s, "/proc/cpuinfo", info, 1 << 20);
	if (ret) {
		set(s, "cpu", why(ret, w, sizeof(w)));
		free(info);
		return;
	}
	/* The block of "processor : CPU", else the first one. */
	for (p = info; p && *p; p = strstr(p, "\n\n"), p = p ? p + 2 : NULL) {
		if (!blk)
			blk = p;
		if (cpuinfo_field(p, "processor", buf, sizeof(buf)) && atoi(buf) == cpu) {
			blk = p;
			break;
		}
	}
	for (i = 0; blk && i < sizeof(fields) / sizeof(fields[0]); i++)
		set(s, fields[i].key, cpuinfo_field(blk, fields[i].field, buf, sizeof(buf)) ?
		    buf : "absent");
	if (blk && cpuinfo_field(blk, "vendor_id", buf, sizeof(buf)))
		snprintf(vendor, vlen, "%.*s", (int)(vlen - 1), buf);
	if (blk && cpuinfo_field(blk, "flags", flags, sizeof(flags))) {
		for (i = 0; i < sizeof(tsc) / sizeof(tsc[0]); i++) {
			snprintf(key, sizeof(key), "tsc.%s", tsc[i]);
			set(s, key, has_flag(flags, tsc[i]) ? "yes" : "no");
		}
		set(s, "cpu.arat", has_flag(flags, "arat") ? "yes" : "no");
		set(s, "cpu.tsc_deadline_timer", has_flag(flags, "tsc_deadline_timer") ?
		    "yes" : "no");
	}
	free(info);
}

/* Field @f of idle state @k of @cpu from sysfs into @buf, or why not. */
static const char *state_field(struct si *s, int cpu, unsigned int k, const char *f,
			       char *buf, size_t len)
{
	char path[160], w[96];
	int ret;

	snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle/state%u/%s", cpu, k, f);
	ret = read_text(s, path, buf, len);
	if (ret)
		snprintf(buf, len, "%s", why(ret, w, sizeof(w)));
	return buf;
}

/*
 * The measured CPUs' states: all of the first one's as stateK.FIELD; of
 * the others only the fields that differ, as cpuN.stateK.FIELD, so a
 * recording of many CPUs stays small.
 */
static void describe_states(struct si *s, const int *cpus, unsigned int ncpus)
{
	static const struct { const char *file, *key; } f[] = {
		{ "name", "name" }, { "desc", "desc" }, { "latency", "latency_us" },
		{ "residency", "residency_us" }, { "disable", "disable" },
		{ "default_status", "default_status" },
	};
	char key[96], buf[256], path[128], list[TEXT_MAX] = "";
	unsigned int c, k, i, nk = 0;
	size_t pos = 0;

	for (c = 0; c < ncpus; c++)
		pos += snprintf(list + pos, pos < sizeof(list) ? sizeof(list) - pos : 0,
				"%s%d", c ? "," : "", cpus[c]);
	set(s, "cpuidle.cpus", list);
	for (c = 0; c < ncpus; c++) {
		for (k = 0; k < MAX_STATES; k++) {
			snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle/state%u/name",
				 cpus[c], k);
			if (read_text(s, path, buf, sizeof(buf)))
				break;
			for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
				const char *base = c ? wult_sysdesc_state(s->sd, -1, k, f[i].key) : NULL;

				state_field(s, cpus[c], k, f[i].file, buf, sizeof(buf));
				if (c && base && !strcmp(base, buf))
					continue;
				if (c)
					snprintf(key, sizeof(key), "cpu%d.state%u.%s", cpus[c], k,
						 f[i].key);
				else
					snprintf(key, sizeof(key), "state%u.%s", k, f[i].key);
				set(s, key, buf);
			}
		}
		if (!c)
			nk = k;
		else if (k != nk) {
			snprintf(key, sizeof(key), "cpu%d.cpuidle.states", cpus[c]);
			wult_sysdesc_setf(s->sd, key, "%u", k);
		}
	}
	if (ncpus)
		wult_sysdesc_setf(s->sd, "cpuidle.states", "%u", nk);
}

/* /dev/cpu_dma_latency: the current PM QoS CPU latency limit (us). */
static void describe_pmqos(struct si *s)
{
	char path[512], w[96];
	int32_t v;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/dev/cpu_dma_latency", s->root);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set(s, "pmqos.cpu_dma_latency_us", why(-errno, w, sizeof(w)));
		return;
	}
	n = read(fd, &v, sizeof(v));
	if (n == sizeof(v))
		wult_sysdesc_setf(s->sd, "pmqos.cpu_dma_latency_us", "%d", (int)v);
	else
		set(s, "pmqos.cpu_dma_latency_us", n < 0 ? why(-errno, w, sizeof(w)) :
		    "unreadable: short read");
	close(fd);
}

static int read_msr(struct si *s, int cpu, uint32_t msr, uint64_t *v)
{
	char path[512];
	int fd, err;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/dev/cpu/%d/msr", s->root, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, v, sizeof(*v), msr);
	err = errno;
	close(fd);
	return n == sizeof(*v) ? 0 : n < 0 ? -err : -EIO;
}

static void set_bit_field(struct si *s, const char *key, uint64_t v, int bit, int inverted)
{
	set(s, key, !!(v & (1ULL << bit)) != !!inverted ? "on" : "off");
}

/*
 * The settings that decide C-state results, on Intel CPUs (package scope:
 * the first measured CPU's). MSR_PKG_CST_CONFIG_CONTROL: bits 3:0 the
 * package C-state limit (a model-specific code), 15 the lock, 26 C1
 * auto-demotion, 28 C1 undemotion. MSR_POWER_CTL: bit 1 C1E promotion,
 * bit 30 disables C-state pre-wake.
 */
static void describe_msrs(struct si *s, int cpu, const char *vendor)
{
	char w[96];
	uint64_t v;
	int ret;

	wult_sysdesc_setf(s->sd, "msr.cpu", "%d", cpu);
	if (strcmp(vendor, "GenuineIntel")) {
		set(s, "msr.pkg_cst_config_control", "not read: not an Intel CPU");
		set(s, "msr.power_ctl", "not read: not an Intel CPU");
		return;
	}
	ret = read_msr(s, cpu, WULT_MSR_PKG_CST_CONFIG_CONTROL, &v);
	if (ret) {
		snprintf(w, sizeof(w), "unreadable: %s", strerror(-ret));
		set(s, "msr.pkg_cst_config_control", w);
	} else {
		wult_sysdesc_setf(s->sd, "msr.pkg_cst_config_control", "0x%llx",
				  (unsigned long long)v);
		wult_sysdesc_setf(s->sd, "msr.pkg_cstate_limit", "%u", (unsigned int)(v & 0xf));
		set_bit_field(s, "msr.cst_cfg_lock", v, 15, 0);
		set_bit_field(s, "msr.c1_demotion", v, 26, 0);
		set_bit_field(s, "msr.c1_undemotion", v, 28, 0);
	}
	ret = read_msr(s, cpu, WULT_MSR_POWER_CTL, &v);
	if (ret) {
		snprintf(w, sizeof(w), "unreadable: %s", strerror(-ret));
		set(s, "msr.power_ctl", w);
	} else {
		wult_sysdesc_setf(s->sd, "msr.power_ctl", "0x%llx", (unsigned long long)v);
		set_bit_field(s, "msr.c1e_promotion", v, 1, 0);
		set_bit_field(s, "msr.cstate_prewake", v, 30, 1);
	}
}

int wult_sysinfo_collect(struct wult_sysdesc *sd, const char *root, const int *cpus,
			 unsigned int ncpus)
{
	struct si s = { .sd = sd, .root = root ? root : "" };
	char vendor[64], buf[96], w[96];
	int cpu = ncpus ? cpus[0] : 0;

	describe_cpu(&s, cpu, vendor, sizeof(vendor));
	set_file(&s, "clocksource.current",
		 "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	set_file(&s, "clocksource.available",
		 "/sys/devices/system/clocksource/clocksource0/available_clocksource");
	set_file(&s, "kernel.release", "/proc/sys/kernel/osrelease");
	set_file(&s, "kernel.cmdline", "/proc/cmdline");
	set_file(&s, "cpuidle.driver", CPU_SYS "/cpuidle/current_driver");
	/* Kernels without a writable governor have only the _ro file. */
	if (!read_text(&s, CPU_SYS "/cpuidle/current_governor", buf, sizeof(buf)) ||
	    !read_text(&s, CPU_SYS "/cpuidle/current_governor_ro", buf, sizeof(buf)))
		set(&s, "cpuidle.governor", buf);
	else
		set(&s, "cpuidle.governor", why(-ENOENT, w, sizeof(w)));
	describe_states(&s, cpus, ncpus);
	describe_pmqos(&s);
	describe_msrs(&s, cpu, vendor);
	set_file(&s, "bios.vendor", "/sys/class/dmi/id/bios_vendor");
	set_file(&s, "bios.version", "/sys/class/dmi/id/bios_version");
	set_file(&s, "bios.date", "/sys/class/dmi/id/bios_date");
	set_file(&s, "system.vendor", "/sys/class/dmi/id/sys_vendor");
	set_file(&s, "system.product", "/sys/class/dmi/id/product_name");
	return s.ret;
}

int wult_sysinfo_counters(struct wult_sysdesc *sd, const char *root, const int *cpus,
			  unsigned int ncpus, const char *when)
{
	static const char *const f[] = { "usage", "above", "below" };
	struct si s = { .sd = sd, .root = root ? root : "" };
	char key[96], buf[64], path[128];
	unsigned int c, k, i;

	for (c = 0; c < ncpus; c++) {
		for (k = 0; k < MAX_STATES; k++) {
			snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle/state%u/name",
				 cpus[c], k);
			if (read_text(&s, path, buf, sizeof(buf)))
				break;
			/* a counter the kernel lacks is left out, not said: the
			 * report then has no figure to subtract */
			for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
				snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpuidle/state%u/%s",
					 cpus[c], k, f[i]);
				if (read_text(&s, path, buf, sizeof(buf)))
					continue;
				snprintf(key, sizeof(key), "cpu%d.state%u.%s_%s", cpus[c], k, f[i],
					 when);
				set(&s, key, buf);
			}
		}
	}
	return s.ret;
}

/* Names and declared exit latency / target residency (us) of synthetic states. */
static const struct { const char *name, *desc; unsigned int lat, res; } synth_states[] = {
	{ "POLL", "CPUIDLE CORE POLL IDLE", 0, 0 },
	{ "C1", "MWAIT 0x00", 2, 2 },
	{ "C6", "MWAIT 0x20", 170, 600 },
	{ "C8", "MWAIT 0x40", 200, 800 },
	{ "C9", "MWAIT 0x50", 480, 5000 },
	{ "C10", "MWAIT 0x60", 890, 5000 },
};

int wult_sysinfo_synthetic(struct wult_sysdesc *sd, unsigned int ncpus, unsigned int nstates)
{
	struct si s = { .sd = sd, .root = "" };
	char key[64], list[64] = "";
	unsigned int k;

	set(&s, "synthetic", "yes: made by wult synth, not measured on any machine");
	set(&s, "cpu.vendor", "GenuineIntel");
	set(&s, "cpu.family", "6");
	set(&s, "cpu.model", "85");
	set(&s, "cpu.stepping", "4");
	set(&s, "cpu.microcode", "0x2006e05");
	set(&s, "cpu.model_name", "synthetic CPU");
	set(&s, "tsc.constant_tsc", "yes");
	set(&s, "tsc.nonstop_tsc", "yes");
	set(&s, "tsc.tsc_reliable", "no");
	set(&s, "tsc.tsc_known_freq", "yes");
	set(&s, "cpu.arat", "yes");
	set(&s, "cpu.tsc_deadline_timer", "yes");
	set(&s, "clocksource.current", "tsc");
	set(&s, "clocksource.available", "tsc hpet acpi_pm");
	set(&s, "kernel.release", "synthetic");
	set(&s, "kernel.cmdline", "synthetic");
	set(&s, "cpuidle.driver", "intel_idle");
	set(&s, "cpuidle.governor", "menu");
	snprintf(list, sizeof(list), "%s", ncpus > 1 ? "0-" : "0");
	if (ncpus > 1)
		snprintf(list + 2, sizeof(list) - 2, "%u", ncpus - 1);
	set(&s, "cpuidle.cpus", list);
	if (nstates > sizeof(synth_states) / sizeof(synth_states[0]))
		nstates = sizeof(synth_states) / sizeof(synth_states[0]);
	for (k = 0; k < nstates; k++) {
		snprintf(key, sizeof(key), "state%u.name", k);
		set(&s, key, synth_states[k].name);
		snprintf(key, sizeof(key), "state%u.desc", k);
		set(&s, key, synth_states[k].desc);
		snprintf(key, sizeof(key), "state%u.latency_us", k);
		wult_sysdesc_setf(sd, key, "%u", synth_states[k].lat);
		snprintf(key, sizeof(key), "state%u.residency_us", k);
		wult_sysdesc_setf(sd, key, "%u", synth_states[k].res);
		snprintf(key, sizeof(key), "state%u.disable", k);
		set(&s, key, "0");
		snprintf(key, sizeof(key), "state%u.default_status", k);
		set(&s, key, "enabled");
	}
	wult_sysdesc_setf(sd, "cpuidle.states", "%u", nstates);
	set(&s, "pmqos.cpu_dma_latency_us", "2000000000");
	set(&s, "msr.cpu", "0");
	set(&s, "msr.pkg_cst_config_control", "0x10000402");
	set(&s, "msr.pkg_cstate_limit", "2");
	set(&s, "msr.cst_cfg_lock", "off");
	set(&s, "msr.c1_demotion", "off");
	set(&s, "msr.c1_undemotion", "on");
	set(&s, "msr.power_ctl", "0x2904005b");
	set(&s, "msr.c1e_promotion", "on");
	set(&s, "msr.cstate_prewake", "on");
	set(&s, "bios.vendor", "synthetic");
	set(&s, "bios.version", "0.0");
	set(&s, "bios.date", "01/01/2026");
	return s.ret;
}
