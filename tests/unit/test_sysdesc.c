// SPDX-License-Identifier: GPL-2.0
/*
 * The system description: its model and text form (lib/sysdesc/sysdesc.c), what
 * the collector reads from a fake root tree (lib/sysdesc/sysinfo.c), the
 * synthetic one, and its trip through a perf.data in file and pipe mode
 * (pdwrite.c, perfdata_header.c), which stock perf must still read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wult/dpdec.h>
#include <wult/pdwrite.h>
#include <wult/perfdata.h>
#include <wult/sysdesc.h>
#include <wult/sysinfo.h>

#include "wt.h"

static int streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static void model(void)
{
	struct wult_sysdesc *sd, *back;
	const char *k, *v;
	char *text, err[160];

	WT_EQ(wult_sysdesc_new(&sd), 0);
	WT_EQ(wult_sysdesc_set(sd, "kernel.cmdline", "a=b\\c\nd\te\x01"), 0);
	WT_EQ(wult_sysdesc_setf(sd, "state1.latency_us", "%d", 2), 0);
	WT_EQ(wult_sysdesc_set(sd, "cpu3.state1.latency_us", "5"), 0);
	WT_EQ(wult_sysdesc_set(sd, "bad key", "x"), -EINVAL);
	WT_EQ(wult_sysdesc_set(sd, "", "x"), -EINVAL);
	WT_EQ(wult_sysdesc_set(sd, "state1.latency_us", "3"), 0);	/* replaced in place */
	WT_EQ(wult_sysdesc_nr(sd), 3);
	WT_EQ(wult_sysdesc_entry(sd, 1, &k, &v), 0);
	WT_CHECK(streq(k, "state1.latency_us") && streq(v, "3"), "entry 1: %s=%s", k, v);
	WT_EQ(wult_sysdesc_entry(sd, 3, &k, &v), -ERANGE);
	WT_CHECK(streq(wult_sysdesc_state(sd, 3, 1, "latency_us"), "5"), "cpu3's own");
	WT_CHECK(streq(wult_sysdesc_state(sd, 0, 1, "latency_us"), "3"), "the base");
	WT_CHECK(!wult_sysdesc_state(sd, 0, 2, "latency_us"), "no state 2");
	WT_EQ(wult_sysdesc_format(sd, &text), 0);
	WT_CHECK(streq(text, "wult-sysdesc 1\nkernel.cmdline=a=b\\\\c\\nd\\te\\x01\n"
		       "state1.latency_us=3\ncpu3.state1.latency_us=5\n"), "text: %s", text);
	/* Back, with the NUL padding of a perf_header_string after it. */
	{
		size_t n = strlen(text);
		char *pad = calloc(1, n + 64);

		memcpy(pad, text, n);
		WT_EQ(wult_sysdesc_parse(pad, n + 64, &back, err, sizeof(err)), 0);
		free(pad);
	}
	WT_CHECK(back && streq(wult_sysdesc_get(back, "kernel.cmdline"), "a=b\\c\nd\te\x01"),
		 "escapes round trip");
	WT_EQ(wult_sysdesc_nr(back), 3);
	wult_sysdesc_free(back);
	free(text);
	wult_sysdesc_free(sd);

	/* Bad input: refused with the line named. */
	{
		static const struct { const char *text, *msg; } bad[] = {
			{ "", "line 1" },
			{ "wult-sysdesc 2\na=b\n", "line 1" },
			{ "wult-sysdesc 1\nnoequals\n", "line 2" },
			{ "wult-sysdesc 1\na=1\n\nb c=2\n", "line 4" },
			{ "wult-sysdesc 1\na=1\na=2\n", "twice" },
			{ "wult-sysdesc 1\na=\\q\n", "escape" },
			{ "wult-sysdesc 1\na=\\x0\n", "escape" },
			{ "wult-sysdesc 1\na=\\x00\n", "escape" },
			{ "wult-sysdesc 1\na=b\\\n", "escape" },
		};
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			int ret = wult_sysdesc_parse(bad[i].text, strlen(bad[i].text), &back,
						     err, sizeof(err));

			WT_CHECK(ret == -EINVAL && !back && strstr(err, bad[i].msg),
				 "bad %u: %d '%s'", i, ret, err);
		}
	}
}

static char root[128];

static void put(const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A tree with two CPUs of three states, CPU 1 with C6 disabled and its own
 * C1 latency; an MSR file at the Intel offsets; no dmi directory. */
static void collect(void)
{
	static const char *const names[] = { "POLL", "C1", "C6" };
	static const unsigned int lat[] = { 0, 2, 133 };
	struct wult_sysdesc *sd;
	char rel[160], v[32];
	int cpus[] = { 1, 3 }, fd;
	unsigned int c, k;
	uint64_t msr;

	snprintf(root, sizeof(root), "/tmp/wult-sysinfo-XXXXXX");
	if (!mkdtemp(root)) {
		WT_SKIP("mkdtemp");
		return;
	}
	put("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n\n"
	    "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
	    "model name\t: Test CPU\nstepping\t: 7\nmicrocode\t: 0x5003604\n"
	    "flags\t\t: fpu tsc constant_tsc nonstop_tsc_x tsc_known_freq arat\n\n");
	put("/proc/sys/kernel/osrelease", "6.1.0-test-amd64\n");
	put("/proc/cmdline", "quiet intel_idle.max_cstate=3\n");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
	put("/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
	put("/sys/devices/system/cpu/cpuidle/current_governor_ro", "menu\n");
	for (c = 0; c < 2; c++)
		for (k = 0; k < 3; k++) {
			snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/cpuidle/state%u/",
				 cpus[c], k);
			strcat(rel, "name");
			put(rel, names[k]);
			strcpy(strrchr(rel, '/'), "/desc");
			put(rel, "MWAIT");
			strcpy(strrchr(rel, '/'), "/latency");
			snprintf(v, sizeof(v), "%u\n", lat[k] + (c && k == 1));
			put(rel, v);
			strcpy(strrchr(rel, '/'), "/residency");
			snprintf(v, sizeof(v), "%u\n", lat[k] * 3);
			put(rel, v);
			strcpy(strrchr(rel, '/'), "/disable");
			put(rel, c && k == 2 ? "1\n" : "0\n");
		}
	put("/dev/cpu/1/msr", "");
	snprintf(rel, sizeof(rel), "%s/dev/cpu/1/msr", root);
	fd = open(rel, O_WRONLY);
	msr = 0x10008402;	/* limit 2, locked, C1 undemotion */
	WT_CHECK(fd >= 0 && pwrite(fd, &msr, 8, WULT_MSR_PKG_CST_CONFIG_CONTROL) == 8, "msr");
	msr = 2;		/* C1E promotion on, pre-wake on (bit 30 clear) */
	WT_CHECK(fd >= 0 && pwrite(fd, &msr, 8, WULT_MSR_POWER_CTL) == 8, "msr");
	if (fd >= 0)
		close(fd);

	WT_EQ(wult_sysdesc_new(&sd), 0);
	WT_EQ(wult_sysinfo_collect(sd, root, cpus, 2), 0);
#define HAS(key, val) WT_CHECK(streq(wult_sysdesc_get(sd, key), val), "%s: '%s'", key, \
			       wult_sysdesc_get(sd, key))
	HAS("cpu.vendor", "GenuineIntel");	/* CPU 1's block, not CPU 0's */
	HAS("cpu.family", "6");
	HAS("cpu.model", "85");
	HAS("cpu.stepping", "7");
	HAS("cpu.microcode", "0x5003604");
	HAS("cpu.model_name", "Test CPU");
	HAS("tsc.constant_tsc", "yes");
	HAS("tsc.nonstop_tsc", "no");		/* nonstop_tsc_x is another flag */
	HAS("tsc.tsc_reliable", "no");
	HAS("tsc.tsc_known_freq", "yes");
	HAS("cpu.arat", "yes");
	HAS("cpu.tsc_deadline_timer", "no");
	HAS("clocksource.current", "tsc");
	HAS("kernel.release", "6.1.0-test-amd64");
	HAS("kernel.cmdline", "quiet intel_idle.max_cstate=3");
	HAS("cpuidle.driver", "intel_idle");
	HAS("cpuidle.governor", "menu");
	HAS("cpuidle.cpus", "1,3");
	HAS("cpuidle.states", "3");
	HAS("state2.name", "C6");
	HAS("state2.latency_us", "133");
	HAS("state2.residency_us", "399");
	HAS("state2.disable", "0");
	HAS("state2.default_status", "absent");
	HAS("cpu3.state2.disable", "1");	/* only what differs on CPU 3 */
	HAS("cpu3.state1.latency_us", "3");
	WT_CHECK(!wult_sysdesc_get(sd, "cpu3.state2.name"), "CPU 3's same name not repeated");
	WT_CHECK(streq(wult_sysdesc_state(sd, 3, 2, "name"), "C6"), "CPU 3 state 2 name");
	HAS("msr.cpu", "1");
	HAS("msr.pkg_cst_config_control", "0x10008402");
	HAS("msr.pkg_cstate_limit", "2");
	HAS("msr.cst_cfg_lock", "on");
	HAS("msr.c1_demotion", "off");
	HAS("msr.c1_undemotion", "on");
	HAS("msr.power_ctl", "0x2");
	HAS("msr.c1e_promotion", "on");
	HAS("msr.cstate_prewake", "on");
	HAS("bios.vendor", "absent");
	WT_CHECK(!strncmp(wult_sysdesc_get(sd, "pmqos.cpu_dma_latency_us"), "absent", 6),
		 "pmqos");
	/* cpuidle's counters: every measured CPU's, keyed by when; one the
	 * kernel lacks (all but CPU 3 state 1's here) is left out. */
	put("/sys/devices/system/cpu/cpu3/cpuidle/state1/usage", "1234\n");
	put("/sys/devices/system/cpu/cpu3/cpuidle/state1/above", "56\n");
	WT_EQ(wult_sysinfo_counters(sd, root, cpus, 2, "start"), 0);
	HAS("cpu3.state1.usage_start", "1234");
	HAS("cpu3.state1.above_start", "56");
	WT_CHECK(!wult_sysdesc_get(sd, "cpu3.state1.below_start"), "absent counter left out");
	WT_CHECK(!wult_sysdesc_get(sd, "cpu1.state1.usage_start"), "absent counter left out");
	put("/sys/devices/system/cpu/cpu3/cpuidle/state1/usage", "2000\n");
	WT_EQ(wult_sysinfo_counters(sd, root, cpus, 2, "end"), 0);
	HAS("cpu3.state1.usage_end", "2000");
	HAS("cpu3.state1.usage_start", "1234");
	wult_sysdesc_free(sd);

	/* An unreadable MSR is said, never an error. */
	snprintf(rel, sizeof(rel), "%s/dev/cpu/1/msr", root);
	unlink(rel);
	mkdir(rel, 0755);
	WT_EQ(wult_sysdesc_new(&sd), 0);
	WT_EQ(wult_sysinfo_collect(sd, root, cpus, 1), 0);
	WT_CHECK(!strncmp(wult_sysdesc_get(sd, "msr.power_ctl"), "unreadable: ", 12),
		 "msr: %s", wult_sysdesc_get(sd, "msr.power_ctl"));
	wult_sysdesc_free(sd);
	snprintf(rel, sizeof(rel), "rm -rf %s", root);
	WT_EQ(system(rel), 0);
}

static void synthetic(void)
{
	struct wult_sysdesc *sd;

	WT_EQ(wult_sysdesc_new(&sd), 0);
	WT_EQ(wult_sysinfo_synthetic(sd, 4, 3), 0);
	WT_CHECK(!strncmp(wult_sysdesc_get(sd, "synthetic"), "yes", 3), "marked synthetic");
	HAS("cpuidle.cpus", "0-3");
	HAS("state2.name", "C6");
	HAS("state2.latency_us", "170");
	HAS("state1.residency_us", "2");
	WT_CHECK(!wult_sysdesc_get(sd, "state3.name"), "3 states");
	wult_sysdesc_free(sd);
}

/* A description through pdwrite and the reader, in file and pipe mode. */
static void roundtrip(int pipe_mode)
{
	char path[] = "/tmp/wult-sysdesc-XXXXXX", err[256], cmd[600];
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER, .sample_period = 1,
		.sample_id_all = 1,
	};
	const char *text = "wult-sysdesc 1\ncpuidle.driver=intel_idle\nstate1.name=C1\n";
	struct wult_pd_event ev;
	struct wult_pdw *w;
	struct wult_pd *pd;
	int fd = mkstemp(path), saved = -1, ret, i;

	WT_CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	if (pipe_mode) {
		fflush(stdout);
		saved = dup(STDOUT_FILENO);
		dup2(fd, STDOUT_FILENO);
	}
	close(fd);
	ret = wult_pdw_open(pipe_mode ? "-" : path, &w, err, sizeof(err));
	WT_CHECK(ret == 0, "open: %s", err);
	if (!ret) {
		wult_pdw_add_id(w, wult_pdw_add_attr(w, &a, "cpu-clock"), 7);
		wult_pdw_set_str(w, WULT_PDW_HOSTNAME, "sd");
		wult_pdw_add_cstate(w, 0, 1, "C1");
		WT_EQ(wult_pdw_set_sysdesc(w, text), 0);
		for (i = 0; i < 10; i++) {
			struct { struct perf_event_header h; uint64_t id, time; } s = {
				{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(s) }, 7, 100 + i,
			};

			wult_pdw_write(w, &s, sizeof(s));
		}
		ret = wult_pdw_close(w, err, sizeof(err));
	}
	if (pipe_mode) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	WT_CHECK(ret == 0, "write: %s", err);
	ret = wult_pd_open(path, 0, &pd, err, sizeof(err));
	WT_CHECK(ret == 0, "read: %s", err);
	if (!ret) {
		while ((ret = wult_pd_next(pd, &ev)) > 0)
			;
		WT_CHECK(ret == 0, "read: %s", wult_pd_error(pd));
		WT_CHECK(streq(wult_pd_sysdesc(pd), text), "%s mode: the description back",
			 pipe_mode ? "pipe" : "file");
		wult_pd_close(pd);
	}
	/* Stock perf reads the file, the description ignored. */
	if (access("/usr/bin/perf", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "perf script -F time -i %s%s 2>/dev/null | wc -l | "
			 "grep -qx 10", pipe_mode ? "- < " : "", path);
		WT_CHECK(system(cmd) == 0, "%s mode: stock perf script reads all 10 samples",
			 pipe_mode ? "pipe" : "file");
		snprintf(cmd, sizeof(cmd), "perf report --header-only -i %s%s 2>&1 | "
			 "grep -q 'hostname : sd'", pipe_mode ? "- < " : "", path);
		WT_CHECK(system(cmd) == 0, "%s mode: stock perf report --header-only",
			 pipe_mode ? "pipe" : "file");
	} else {
		WT_SKIP("no /usr/bin/perf");
	}
	unlink(path);
}

int main(void)
{
	model();
	collect();
	synthetic();
	roundtrip(0);
	roundtrip(1);
	return wt_done();
}
