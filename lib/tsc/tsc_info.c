// SPDX-License-Identifier: GPL-2.0
/*
 * libwult TSC: what the CPU and the kernel say about the TSC (flags,
 * clocksource, the kernel's rate). Reading is inline in <wult/tsc.h>; the
 * clock pairs the other files take are tsc_clock.c's, conversion and
 * calibration live in tsc_conv.c, the cross-CPU evaluation in tsc_eval.c.
 */
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/klog.h>

#include <wult/tsc.h>
#include "internal/err.h"

#define CPUINFO		"/proc/cpuinfo"
#define CLOCKSOURCE	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define SYSLOG_READ_ALL	3	/* klogctl() actions, from syslog(2) */
#define SYSLOG_SIZE	10

static int has_flag(const char *flags, const char *name)
{
	size_t n = strlen(name);
	const char *p = flags;

	while ((p = strstr(p, name))) {
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

static int read_flags(struct wult_tsc_info *info, char *msg, size_t len)
{
	FILE *f = fopen(CPUINFO, "r");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	if (!f)
		return wult_err_set(msg, len, -errno, "%s: %s", CPUINFO, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		info->constant_tsc = has_flag(line, "constant_tsc");
		info->nonstop_tsc = has_flag(line, "nonstop_tsc");
		info->tsc_known_freq = has_flag(line, "tsc_known_freq");
		/*
		 * TSC_AUX holds the CPU's number only where Linux programs it,
		 * which it says with the rdtscp flag: a hypervisor may run the
		 * instruction without it (PVM: TSC_AUX the host's CPU).
		 */
		info->rdtscp = info->rdtscp && has_flag(line, "rdtscp");
		found = 1;
		break;
	}
	free(line);
	fclose(f);
	if (!found)
		return wult_err_set(msg, len, -ENOENT, "%s: no flags line", CPUINFO);
	return 0;
}

static int read_clocksource(char *buf, size_t size)
{
	FILE *f = fopen(CLOCKSOURCE, "r");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The kernel's cyc2ns, as exported to perf's self-monitoring page. */
static int khz_from_perf(uint64_t *khz)
{
	struct wult_tsc_conv c;
	int ret = wult_tsc_conv_from_perf_self(&c, NULL, 0);

	/* mult = round(1e6 * 2^shift / tsc_khz) has ~31 bits: hz is within a few Hz. */
	if (!ret)
		*khz = (c.hz + 500) / 1000;
	return ret;
}

/* The last rate the boot log states, refined calibration preferred. */
static int khz_from_log(uint64_t *khz)
{
	static const char *const keys[] = {
		"tsc: Refined TSC clocksource calibration: ",
		"tsc: Detected ",
	};
	int size = klogctl(SYSLOG_SIZE, NULL, 0);
	char *buf, *p, *last;
	unsigned long mhz, frac;
	size_t k;
	int n;

	if (size <= 0)
		return size < 0 ? -errno : -ENOENT;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -ENOMEM;
	n = klogctl(SYSLOG_READ_ALL, buf, size);
	if (n < 0) {
		n = -errno;
		free(buf);
		return n;
	}
	buf[n] = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		last = NULL;
		for (p = buf; (p = strstr(p, keys[k])); p++)
			last = p + strlen(keys[k]);
		if (last && sscanf(last, "%lu.%3lu MHz", &mhz, &frac) == 2) {
			*khz = (uint64_t)mhz * 1000 + frac;
			free(buf);
			return 0;
		}
	}
	free(buf);
	return -ENOENT;
}

/* Intel's crystal-clock leaf: TSC = crystal * ebx / eax. */
static int khz_from_cpuid(uint64_t *khz)
{
	unsigned int a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 0x15)
		return -ENOENT;
	__cpuid_count(0x15, 0, a, b, c, d);
	if (!a || !b || !c)
		return -ENOENT;
	*khz = (uint64_t)c * b / a / 1000;
	return 0;
}

int wult_tsc_kernel_khz(uint64_t *khz, const char **source, char *msg, size_t len)
{
	static const struct {
		int (*fn)(uint64_t *khz);
		const char *name;
	} srcs[] = {
		{ khz_from_perf, "perf mmap page (kernel cyc2ns)" },
		{ khz_from_log, "kernel log" },
		{ khz_from_cpuid, "cpuid leaf 0x15" },
	};
	size_t i;

	if (!khz)
		return wult_err_set(msg, len, -EINVAL, "NULL khz");
	for (i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		if (!srcs[i].fn(khz) && *khz) {
			if (source)
				*source = srcs[i].name;
			return 0;
		}
	}
	*khz = 0;
	if (source)
		*source = "none";
	return wult_err_set(msg, len, -ENOENT,
			     "the kernel states no TSC rate (no perf TSC time, no boot log line, no cpuid 0x15)");
}

int wult_tsc_info_get(struct wult_tsc_info *info, char *msg, size_t len)
{
	unsigned int a, b, c, d;
	int ret;

	if (!info)
		return wult_err_set(msg, len, -EINVAL, "NULL info");
	memset(info, 0, sizeof(*info));
	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		info->rdtscp = !!(d & (1u << 27));
	ret = read_flags(info, msg, len);
	if (ret)
		return ret;
	if (read_clocksource(info->clocksource, sizeof(info->clocksource)))
		snprintf(info->clocksource, sizeof(info->clocksource), "unknown");
	/* A missing kernel rate is normal on some machines: not an error. */
	wult_tsc_kernel_khz(&info->kernel_khz, &info->kernel_khz_source, NULL, 0);
	return 0;
}
