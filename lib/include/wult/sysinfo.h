/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What wult record says of the system it measures (a wult/sysdesc.h
 * description): the CPU (vendor, family, model, stepping, microcode), TSC
 * flags and the clocksource, ARAT and TSC-deadline, the kernel release
 * and command line, the cpuidle driver, governor and every state of the
 * measured CPUs (name, desc, declared exit latency and target residency,
 * disable, default_status), PM QoS (/dev/cpu_dma_latency), the package
 * C-state MSRs where readable, and the BIOS (/sys/class/dmi/id).
 *
 * Nothing unreadable fails a recording: the value then says
 * "unreadable: REASON" (or "absent" for a file the kernel does not have).
 * Keys are listed in Documentation/sysdesc.md.
 */
#ifndef WULT_SYSINFO_H
#define WULT_SYSINFO_H

#include <wult/sysdesc.h>

/* libwult's API: exported, the rest hidden (lib/README.md). */
#pragma GCC visibility push(default)

/* MSRs read through ROOT/dev/cpu/N/msr (Intel's numbers). */
#define WULT_MSR_PKG_CST_CONFIG_CONTROL	0xe2
#define WULT_MSR_POWER_CTL		0x1fc

/*
 * Adds the description of the system under @root (NULL or "": this one;
 * else a directory with proc/, sys/ and dev/ laid out as /, for tests) for
 * measured CPUs @cpus[0..@ncpus-1] to @sd. 0, or -ENOMEM.
 */
int wult_sysinfo_collect(struct wult_sysdesc *sd, const char *root, const int *cpus,
			 unsigned int ncpus);

/*
 * cpuidle's own counters of the measured CPUs' states, as
 * "cpuN.stateK.usage_@when", "above_@when", "below_@when" (@when: "start"
 * or "end"; counters the kernel lacks are left out): wult record stores them
 * as the recording starts and, in file mode, ends, so that wult report can
 * show cpuidle's above/below counts over it. 0, or -ENOMEM.
 */
int wult_sysinfo_counters(struct wult_sysdesc *sd, const char *root, const int *cpus,
			  unsigned int ncpus, const char *when);
/*
 * A plausible description marked synthetic (synthetic=yes) for wult synth's
 * files: @nstates idle states (at most 6) named and declared as in
 * Documentation/sysdesc.md, on CPUs 0..@ncpus-1. 0 or -ENOMEM.
 */
int wult_sysinfo_synthetic(struct wult_sysdesc *sd, unsigned int ncpus, unsigned int nstates);

#pragma GCC visibility pop

#endif
