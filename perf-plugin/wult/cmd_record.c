// SPDX-License-Identifier: GPL-2.0
/*
 * wult record: record wult datapoints with libperf, each one a sample of a
 * group led by the wult event whose members are the counters this machine
 * has, so every datapoint carries the counters read at the same instant.
 * The output is a perf.data file that stock perf and `wult report` read.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include <linux/wult.h>
#include <wult/evparse.h>
#include <wult/pdwrite.h>
#include <wult/perfdata.h>
#include <wult/progress.h>

#include "cmds.h"
#include "record/record.h"

#define MAX_EVENTS	96
/* The ring is drained at least this often (ms)... */
#define POLL_MS		25
/* ...and the file synced (s): a killed wult record loses at most both. */
#define SYNC_EVERY_S	0.05
/* wult.ko's counters are checked this often (s), for a low yield. */
#define YIELD_EVERY_S	1.0
/* The measured CPUs' online state is checked this often (s). */
#define HOTPLUG_EVERY_S	0.25
#define SYSFS_CPU	"/sys/devices/system/cpu"
/* --capture's window (ms): a wake's story is rarely longer. */
#define CAPTURE_DEF_MS	10
#define CAPTURE_MAX_MS	1000
#define WULT_FORMAT	"/sys/kernel/tracing/events/wult/datapoint/format"
#define WULT_PMU_DIR	"/sys/bus/event_source/devices/wult"
#define WULT_FORMAT_DBG	"/sys/kernel/debug/tracing/events/wult/datapoint/format"

/* Counters joined to the group when this machine has them. */
static const char *const discovered[] = {
	"msr/tsc/", "msr/aperf/", "msr/mperf/", "msr/smi/",
	"cstate_core/c1-residency/", "cstate_core/c3-residency/",
	"cstate_core/c6-residency/", "cstate_core/c7-residency/",
	"cstate_pkg/c2-residency/", "cstate_pkg/c3-residency/",
	"cstate_pkg/c6-residency/", "cstate_pkg/c7-residency/",
	"cstate_pkg/c8-residency/", "cstate_pkg/c9-residency/",
	"cstate_pkg/c10-residency/", "cycles", "instructions",
};

#define NR_DISCOVERED (sizeof(discovered) / sizeof(discovered[0]))
/* wult.ko's idle accounting members: idle_time, idle_entries,
 * idle_irq_time and idle_irqs per state.
 */
#define NR_IDLE_EV	(4 * WULT_IDLE_STATES)
/* What -e may add: the group holds the leader, branches, the rest above. */
#define MAX_USER_EV	(MAX_EVENTS - 2 - NR_DISCOVERED - NR_IDLE_EV)

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_READ | \
		     PERF_SAMPLE_RAW)
#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
		     PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/*
 * PERF_FORMAT_LOST (Linux 6.0+, older kernels refuse it): each group entry
 * then ends with the samples the kernel dropped for that event, which tells
 * a datapoint lost by the kernel from one lost on the way to the file.
 */
static uint64_t read_format_lost;

struct rec_opts {
	const char *cpus;
	unsigned int ldist_min, ldist_max;	/* us */
	unsigned int method;			/* enum wult_source_id */
	const char *device;			/* --device BDF (nic) */
	long launcher;				/* --launcher, -1: the kernel's */
	char term[64];				/* the method's event terms */
	unsigned long long count;		/* 0: no limit */
	double time_limit;			/* s, 0: no limit */
	const char *user_ev[MAX_EVENTS];
	unsigned int nr_user_ev;
	int no_counters, no_branches, quiet;
	const char *states, *deepest;		/* --states, --deepest-state */
	const char *governor;			/* --idle-governor */
	const char *stop_on;			/* --stop-on EXPR */
	unsigned int capture_ms;		/* --capture[=MS], 0: no */
	const char *output;
	unsigned int pages;
};

struct ev {
	char name[160];
	struct perf_event_attr attr;
	struct perf_evsel *evsel;
	int pdw_idx;
	int branches;		/* the wult branches member: samples of its own */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: wult record [options]\n"
"\n"
"Record wult datapoints of the selected CPUs into a perf.data file. Each\n"
"datapoint is a sample of the wult event leading a group of the counters\n"
"this machine has (msr, cstate_core, cstate_pkg, cycles, instructions) and\n"
"of every -e event, read at the datapoint, and of wult.ko's idle accounting\n"
"(wult/idle_time/, idle_entries/, idle_irq_time/ and idle_irqs/ of each idle\n"
"state of the measured CPUs, for the report's residency table). Where wult.ko can read the LBR\n"
"(its PMU has the branches event), each datapoint's branch context is\n"
"recorded too, as a sample of a wult/branches/ member. Needs wult.ko loaded.\n"
"\n"
"  -C, --cpu CPUS         CPUs to measure, perf syntax (1,3 or 0-3);\n"
"                         default CPU 1 when it exists, else 0\n"
"  -l, --ldist MIN,MAX    launch distance range in microseconds\n"
"                         (default %u,%u; at most %u); MAX must not be\n"
"                         below the CPUs' LDist floor (measured first)\n"
"      --method M         delayed-event source: hrt (default: a high\n"
"                         resolution timer), tdt (the local APIC's TSC\n"
"                         deadline, where the APIC has that mode), ipi\n"
"                         (a wake sent from a launcher CPU, as a remote\n"
"                         scheduler wakeup: an IPI, or to a polling CPU a\n"
"                         need_resched write without interrupt) or nic (a\n"
"                         PCI device's clock and interrupt; needs --device;\n"
"                         the device leaves its driver while measured and\n"
"                         gets it back after)\n"
"      --launcher N       ipi: the CPU that sends the wakes (default CPU 0,\n"
"                         or, measuring CPU 0, one the kernel picks)\n"
"      --device BDF       the nic method's PCI device, [DOMAIN:]BUS:DEV.FN\n"
"                         (as lspci -D shows it); rtl8139 only for now\n"
"  -c, --count N          stop after N datapoints (all CPUs together)\n"
"  -t, --time-limit T     stop after T seconds (suffixes s, m, h)\n"
"  -e, --event EVENT      also count EVENT in the group: pmu/term=val,.../\n"
"                         or a generic name (cycles, cpu-clock, ...);\n"
"                         repeatable\n"
"      --no-counters      do not add the discovered counters (nor the idle\n"
"                         accounting)\n"
"      --no-branches      no branch context (LBR) even where it can be read\n"
"  -o, --output FILE      output file (default wult.data); an existing one\n"
"                         is kept as FILE.old, as perf record does; '-' is\n"
"                         standard output, in perf's pipe mode\n"
"  -m, --mmap-pages N     ring buffer pages per CPU, a power of 2 (default 256)\n"
"  -q, --quiet            no progress reports and no summary\n"
"      --states NAMES     enable only these idle states of the measured CPUs\n"
"                         (cpuidle names, comma-separated, e.g. POLL,C6)\n"
"                         while recording; restored afterwards\n"
"      --deepest-state NAME  enable NAME and the shallower idle states,\n"
"                         disable the deeper ones while recording\n"
"      --idle-governor NAME  switch the cpuidle governor to NAME (one of\n"
"                         cpuidle/available_governors) while recording\n"
"      --stop-on EXPR     stop at the first datapoint matching EXPR (wult\n"
"                         report's filter language: 'WakeLatency > 200us')\n"
"      --capture[=MS]     with --stop-on: trace the measured CPUs' interrupts,\n"
"                         softirqs, timers, scheduling and idle in a tracefs\n"
"                         instance and keep the MS ms (default %u) before the\n"
"                         stop's datapoint in FILE.capture (wult report\n"
"                         shows it)\n"
"  -h, --help             this text\n"
"\n"
"Stops at -c, -t, SIGINT, SIGTERM, SIGHUP or SIGQUIT, leaving a complete\n"
"file. The file is valid while it is written and synced every 0.05 s, so a\n"
"killed wult record (SIGKILL, SIGUSR1, ...) loses at most the last 0.075 s.\n"
"A measured CPU that goes offline is reported and measured again when it\n"
"returns (with -o -, recording stops then). When fewer than half of the\n"
"armed datapoints were valid (wult.ko's counters), a warning gives the\n"
"counts and the main reasons; datapoints of an idle state that was disabled\n"
"(the kernel polled or fell back instead) are warned about too. Exit\n"
"status: 0 recorded, 1\n"
"failed or stopped early, 2 usage error.\n",
		WULT_LDIST_DEF_MIN_US, WULT_LDIST_DEF_MAX_US, WULT_LDIST_LIMIT_US,
		CAPTURE_DEF_MS);
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -1 : 0;
}

static int parse_time(const char *s, double *secs)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -1;
	if (!strcmp(end, "m"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return -1;
	*secs = v;
	return 0;
}

/* --ldist MIN,MAX (us). 0 or -1 (said why). */
static int parse_ldist(char *arg, struct rec_opts *o)
{
	char *comma = strchr(arg, ',');
	unsigned long long lo, hi;

	if (!comma) {
		fprintf(stderr, "wult record: --ldist wants MIN,MAX in "
			"microseconds, got '%s'\n", arg);
		return -1;
	}
	*comma = '\0';
	if (parse_uint(arg, WULT_LDIST_LIMIT_US, &lo) ||
	    parse_uint(comma + 1, WULT_LDIST_LIMIT_US, &hi) || lo > hi || !hi) {
		fprintf(stderr, "wult record: bad --ldist '%s,%s': want "
			"0 <= MIN <= MAX <= %u microseconds, MAX > 0\n",
			arg, comma + 1, WULT_LDIST_LIMIT_US);
		return -1;
	}
	*comma = ',';	/* the file's command line shows it whole */
	o->ldist_min = lo;
	o->ldist_max = hi;
	return 0;
}

static int parse_method(const char *arg, struct rec_opts *o)
{
	if (!strcmp(arg, "hrt")) {
		o->method = WULT_SOURCE_HRT;
	} else if (!strcmp(arg, "tdt")) {
		o->method = WULT_SOURCE_TDT;
	} else if (!strcmp(arg, "ipi")) {
		o->method = WULT_SOURCE_IPI;
	} else if (!strcmp(arg, "nic")) {
		o->method = WULT_SOURCE_NIC;
	} else {
		fprintf(stderr, "wult record: bad --method '%s': hrt, tdt, ipi or nic\n", arg);
		return -1;
	}
	return 0;
}

/*
 * The method's event terms: none for hrt, so older modules still work;
 * ipi's launcher and nic's device as their config2 terms, the device as
 * (domain << 16) | (bus << 8) | devfn.
 */
static int method_terms(struct rec_opts *o)
{
	unsigned int dom = 0, bus, dev, fn;
	char end;

	if (o->launcher >= 0 && o->method != WULT_SOURCE_IPI) {
		fprintf(stderr, "wult record: --launcher is for --method ipi\n");
		return -1;
	}
	if (o->method == WULT_SOURCE_NIC) {
		if (!o->device) {
			fprintf(stderr, "wult record: --method nic needs --device BDF\n");
			return -1;
		}
		if (sscanf(o->device, "%x:%x:%x.%u%c", &dom, &bus, &dev, &fn, &end) != 4 &&
		    (dom = 0, sscanf(o->device, "%x:%x.%u%c", &bus, &dev, &fn, &end) != 3)) {
			fprintf(stderr, "wult record: bad --device '%s': [DOMAIN:]BUS:DEV.FN\n",
				o->device);
			return -1;
		}
		if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7) {
			fprintf(stderr, "wult record: bad --device '%s': out of range\n",
				o->device);
			return -1;
		}
		snprintf(o->term, sizeof(o->term), ",source=%u,device=0x%x",
			 WULT_SOURCE_NIC, (dom << 16) | (bus << 8) | (dev << 3) | fn);
		return 0;
	}
	if (o->device) {
		fprintf(stderr, "wult record: --device is for --method nic\n");
		return -1;
	}
	if (o->method == WULT_SOURCE_IPI && o->launcher >= 0)
		snprintf(o->term, sizeof(o->term), ",source=%u,launcher=%ld",
			 WULT_SOURCE_IPI, o->launcher);
	else if (o->method != WULT_SOURCE_HRT)
		snprintf(o->term, sizeof(o->term), ",source=%u", o->method);
	return 0;
}

/* The options with a value. 0 or -1 (said why). */
static int parse_valued(int c, char *arg, struct rec_opts *o)
{
	unsigned long long v;

	switch (c) {
	case 'l':
		return parse_ldist(arg, o);
	case 'M':
		return parse_method(arg, o);
	case 'L':
		if (parse_uint(arg, WULT_CFG2_LAUNCHER_MASK, &v)) {
			fprintf(stderr, "wult record: bad --launcher '%s': a CPU number\n", arg);
			return -1;
		}
		o->launcher = (long)v;
		return 0;
	case 'c':
		if (parse_uint(arg, ~0ULL, &v) || !v) {
			fprintf(stderr, "wult record: bad --count '%s'\n", arg);
			return -1;
		}
		o->count = v;
		return 0;
	case 't':
		if (parse_time(arg, &o->time_limit)) {
			fprintf(stderr, "wult record: bad --time-limit '%s' "
				"(e.g. 10, 10s, 2m)\n", arg);
			return -1;
		}
		return 0;
	case 'e':
		if (o->nr_user_ev == MAX_USER_EV) {
			fprintf(stderr, "wult record: too many -e events\n");
			return -1;
		}
		o->user_ev[o->nr_user_ev++] = arg;
		return 0;
	default:	/* 'm' */
		if (parse_uint(arg, 1 << 20, &v) || !v || (v & (v - 1))) {
			fprintf(stderr, "wult record: --mmap-pages must be a "
				"power of 2, got '%s'\n", arg);
			return -1;
		}
		o->pages = v;
		return 0;
	}
}

static int parse_opts(int argc, char **argv, struct rec_opts *o)
{
	static const struct option lopts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "ldist", required_argument, NULL, 'l' },
		{ "method", required_argument, NULL, 'M' },
		{ "launcher", required_argument, NULL, 'L' },
		{ "device", required_argument, NULL, 'V' },
		{ "count", required_argument, NULL, 'c' },
		{ "time-limit", required_argument, NULL, 't' },
		{ "event", required_argument, NULL, 'e' },
		{ "no-counters", no_argument, NULL, 'N' },
		{ "no-branches", no_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "states", required_argument, NULL, 'S' },
		{ "deepest-state", required_argument, NULL, 'D' },
		{ "idle-governor", required_argument, NULL, 'G' },
		{ "stop-on", required_argument, NULL, 'X' },
		{ "capture", optional_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->ldist_min = WULT_LDIST_DEF_MIN_US;
	o->ldist_max = WULT_LDIST_DEF_MAX_US;
	o->output = "wult.data";
	o->pages = 256;
	o->launcher = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "C:l:c:t:e:o:m:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			o->cpus = optarg;
			break;
		case 'l': case 'M': case 'L': case 'c': case 't': case 'e': case 'm':
			if (parse_valued(c, optarg, o))
				return -1;
			break;
		case 'B':
			o->no_branches = 1;
			break;
		case 'N':
			o->no_counters = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'S':
			o->states = optarg;
			break;
		case 'D':
			o->deepest = optarg;
			break;
		case 'G':
			o->governor = optarg;
			break;
		case 'V':
			o->device = optarg;
			break;
		case 'X':
			o->stop_on = optarg;
			break;
		case 'K':
			o->capture_ms = CAPTURE_DEF_MS;
			if (optarg && (parse_uint(optarg, CAPTURE_MAX_MS, &v) || !v)) {
				fprintf(stderr, "wult record: bad --capture '%s': a window of "
					"1-%u ms\n", optarg, CAPTURE_MAX_MS);
				return -1;
			}
			if (optarg)
				o->capture_ms = v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wult record: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (method_terms(o))
		return -1;
	if (o->states && o->deepest) {
		fprintf(stderr, "wult record: --states and --deepest-state exclude each other\n");
		return -1;
	}
	if (o->capture_ms && !o->stop_on) {
		fprintf(stderr, "wult record: --capture needs --stop-on (the datapoint to "
			"capture before)\n");
		return -1;
	}
	if (o->capture_ms && !strcmp(o->output, "-")) {
		fprintf(stderr, "wult record: --capture needs an output file (the capture "
			"goes beside it), not -o -\n");
		return -1;
	}
	return 0;
}

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

static int cpu_online(int cpu)
{
	char path[96], buf[8];

	snprintf(path, sizeof(path), SYSFS_CPU "/cpu%d", cpu);
	if (access(path, F_OK))
		return -1;
	snprintf(path, sizeof(path), SYSFS_CPU "/cpu%d/online", cpu);
	if (read_file(path, buf, sizeof(buf)))
		return 1;	/* CPUs that cannot go offline have no file */
	return buf[0] == '1';
}

/* Explains an errno from opening perf events, with the fix. */
static void explain_open_error(int err, const char *what)
{
	char buf[16] = "?";

	fprintf(stderr, "wult record: cannot open %s: %s\n", what, strerror(err));
	if (err == EACCES || err == EPERM) {
		read_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
		buf[strcspn(buf, "\n")] = '\0';
		fprintf(stderr, "  not permitted: run as root, or grant CAP_PERFMON, or "
			"lower /proc/sys/kernel/perf_event_paranoid (now %s)\n", buf);
	} else if (err == EINVAL) {
		fprintf(stderr, "  the wult PMU rejected the configuration: LDist must "
			"satisfy 0 <= min <= max <= %u us, and max must not be below the "
			"CPU's LDist floor (the kernel log names it); with --method ipi, "
			"the launcher must exist and not be a measured CPU\n",
			WULT_LDIST_LIMIT_US);
	} else if (err == ENODEV || err == ENOENT || err == ENXIO) {
		fprintf(stderr, "  a selected CPU (or the ipi launcher) is offline, or "
			"wult.ko was unloaded\n");
	} else if (err == EBUSY) {
		fprintf(stderr, "  a CPU is measured already with another method (or, "
			"ipi, another launcher)\n");
	}
}

static int sys_perf_event_open(struct perf_event_attr *attr, int cpu, int group)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, group, 0);
}

/* Can @member join a group led by @leader on @cpu? 0 or errno. */
static int probe_member(const struct perf_event_attr *leader,
			const struct perf_event_attr *member, int cpu)
{
	struct perf_event_attr l = *leader, m = *member;
	int lfd, mfd, err = 0;

	lfd = sys_perf_event_open(&l, cpu, -1);
	if (lfd < 0)
		return errno;
	mfd = sys_perf_event_open(&m, cpu, lfd);
	if (mfd < 0)
		err = errno;
	else
		close(mfd);
	close(lfd);
	return err;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct rec_state {
	struct ev *ev;
	unsigned int nr_ev;
	struct wult_pdw *pdw;
	unsigned long long samples, lost, limit;
	unsigned long long br_samples;	/* branch contexts */
	struct rec_fallback *fallback;	/* datapoints of disabled states */
	int keep_lbr;			/* hp[].lbr_fd keep perf's LBR on */
	/*
	 * Datapoints the wult event counted without a sample reaching the
	 * ring (seen rarely, with no LOST record): the leader's count in the
	 * group read grows by more than one between samples of a CPU.
	 */
	unsigned long long unsampled;
	/* ...of which the kernel counted as lost (PERF_FORMAT_LOST) */
	unsigned long long unsampled_klost;
	uint64_t *last_count;		/* per CPU, 0: no sample yet */
	uint64_t *last_klost;		/* per CPU: the leader's lost count */
	int max_cpu;
	int failed;
	/* Ring samples decode with the reader's decoder: every member samples
	 * with the group's layout, so the leader's attr describes them all. */
	struct wult_pd_attr layout;
	struct wult_pd_read_value *vals;	/* WULT_PD_MAX_GROUP: a group read */
	unsigned long long undecoded;	/* samples it refused (written still) */
	struct hp_cpu *hp;		/* the measured CPUs' hotplug state */
	int nr_hp;
	int hp_stop;			/* a CPU returned and cannot be measured */
	int *cpu_ids;			/* the measured CPUs */
	struct rec_yield *yield;	/* their wult.ko counters, NULL: unread */
	struct rec_stop *stop;		/* --stop-on, NULL: none */
};

/*
 * A CPU going offline takes its perf events out of their context for good
 * (re-enabling them does nothing), so a CPU that returns gets its group
 * opened anew, in an evlist of its own.
 */
struct hp_cpu {
	int cpu;
	int online;
	double offline_s;		/* time spent offline */
	double since;			/* when it went offline */
	struct perf_evlist *evlist;	/* the group opened on its return */
	int lbr_fd;			/* keeps perf's LBR recording, -1: none */
};

/*
 * The leader's count read with a sample is its datapoint number on that
 * CPU: a jump of more than one is datapoints counted without a sample,
 * which the kernel's lost count for the leader (if read) says it dropped.
 */
static void count_gap(struct rec_state *st, uint32_t cpu, uint64_t count, uint64_t klost)
{
	if (st->last_count[cpu] && count > st->last_count[cpu] + 1) {
		uint64_t gap = count - st->last_count[cpu] - 1;
		uint64_t dl = klost - st->last_klost[cpu];

		st->unsampled += gap;
		st->unsampled_klost += dl < gap ? dl : gap;
	}
	st->last_count[cpu] = count;
	st->last_klost[cpu] = klost;
}

/*
 * Registers the ids a leader sample carries: IDENTIFIER is the leader's id
 * on that CPU, and the group read lists every member's id in group order.
 */
static void learn_ids(struct rec_state *st, const struct wult_pd_sample *s)
{
	const struct wult_pd_read_value *v = s->read.values;
	uint64_t i;

	if (s->read.nr && (int)s->cpu <= st->max_cpu)
		count_gap(st, s->cpu, v[0].value, v[0].lost);
	for (i = 0; i < s->read.nr && i < st->nr_ev; i++)
		wult_pdw_add_id(st->pdw, st->ev[i].pdw_idx, v[i].id);
}

/*
 * Every event samples with the group read: the leader's samples are those
 * whose IDENTIFIER is the first id of the read (the leader's).
 */
static int is_leader_sample(const struct wult_pd_sample *s)
{
	return !s->read.nr || s->id == s->read.values[0].id;
}

/* One ring sample: counted, its ids learnt. A sample that does not decode
 * is written as it is (wult report then says what is wrong with it). */
static void take_sample(struct rec_state *st, const union perf_event *event)
{
	struct wult_pd_sample s;

	if (wult_pd_sample_parse(&st->layout, event, event->header.size, &s, st->vals,
				 NULL, 0)) {
		st->undecoded++;
		st->samples++;
		return;
	}
	/* A branch context precedes its datapoint. */
	if (!is_leader_sample(&s)) {
		st->br_samples++;
		return;
	}
	learn_ids(st, &s);
	rec_fallback_add(st->fallback, s.cpu, s.raw, s.raw_size);
	st->samples++;
	/* The first match is the file's last datapoint: the rest are dropped. */
	if (st->stop && rec_stop_check(st->stop, s.raw, s.raw_size))
		st->limit = st->samples;
}

static void drain_one(struct perf_evlist *evlist, struct rec_state *st)
{
	struct perf_mmap *map;
	union perf_event *event;

	perf_evlist__for_each_mmap(evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((event = perf_mmap__read_event(map)) != NULL) {
			int keep = 1;

			switch (event->header.type) {
			case PERF_RECORD_SAMPLE:
				if (st->limit && st->samples >= st->limit) {
					keep = 0;
					break;
				}
				take_sample(st, event);
				break;
			case PERF_RECORD_LOST:
				st->lost += event->lost.lost;
				break;
			case PERF_RECORD_LOST_SAMPLES:
				st->lost += event->lost_samples.lost;
				break;
			}
			if (keep && wult_pdw_write(st->pdw, event, event->header.size))
				st->failed = 1;
			perf_mmap__consume(map);
		}
		/*
		 * No perf_mmap__read_done(): it sets the read position to the
		 * head as it is now, skipping (without a LOST record) what the
		 * kernel wrote since the last perf_mmap__read_event() saw the
		 * ring empty. That read position is already where we are.
		 */
	}
}

/* The main group and those reopened after a CPU's return. */
static void drain(struct perf_evlist *evlist, struct rec_state *st)
{
	int i;

	drain_one(evlist, st);
	for (i = 0; i < st->nr_hp; i++)
		if (st->hp[i].evlist)
			drain_one(st->hp[i].evlist, st);
}

/*
 * The measured CPUs' idle-state names, so reports elsewhere name them. With
 * no cpuidle driver the kernel's default idle reports index 0 for polling
 * and 1 for the architecture's default idle (HLT = C1 on x86).
 */
static void describe_cstates(struct rec_state *st, struct perf_cpu_map *cpus)
{
	int i;

	for (i = 0; i < perf_cpu_map__nr(cpus); i++) {
		int cpu = perf_cpu_map__cpu(cpus, i).cpu;
		char path[128], name[64];
		unsigned int k;

		for (k = 0; k < 64; k++) {
			snprintf(path, sizeof(path), SYSFS_CPU "/cpu%d/cpuidle/state%u/name",
				 cpu, k);
			if (read_file(path, name, sizeof(name)))
				break;
			name[strcspn(name, "\n")] = '\0';
			wult_pdw_add_cstate(st->pdw, cpu, k, name);
		}
		if (!k) {
			wult_pdw_add_cstate(st->pdw, cpu, 0, "POLL");
			wult_pdw_add_cstate(st->pdw, cpu, 1, "C1");
		}
	}
}

/* The file's features: host, kernel, command line, PMUs, the format. */
static void describe(struct rec_state *st, int argc, char **argv)
{
	static char fmt[16384];
	struct utsname u;
	unsigned int i;
	long n;

	if (!uname(&u)) {
		wult_pdw_set_str(st->pdw, WULT_PDW_HOSTNAME, u.nodename);
		wult_pdw_set_str(st->pdw, WULT_PDW_OSRELEASE, u.release);
		wult_pdw_set_str(st->pdw, WULT_PDW_ARCH, u.machine);
	}
	wult_pdw_set_str(st->pdw, WULT_PDW_VERSION, "wult " WULT_VERSION);
	{
		/* The subcommand's argv lacks the program name. */
		char *full[argc + 1];

		full[0] = "wult";
		memcpy(full + 1, argv, argc * sizeof(*argv));
		wult_pdw_set_cmdline(st->pdw, argc + 1, full);
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	wult_pdw_set_nrcpus(st->pdw, n > 0 ? n : 1,
			    sysconf(_SC_NPROCESSORS_CONF) > 0 ? sysconf(_SC_NPROCESSORS_CONF) : 1);
	for (i = 0; i < st->nr_ev; i++) {
		const struct perf_event_attr *a = &st->ev[i].attr;
		char pmu[64];
		size_t len;

		if (a->type < PERF_TYPE_MAX)
			continue;
		len = strcspn(st->ev[i].name, "/");
		snprintf(pmu, sizeof(pmu), "%.*s", (int)len, st->ev[i].name);
		wult_pdw_add_pmu(st->pdw, a->type, pmu);
	}
	if (!read_file(WULT_FORMAT, fmt, sizeof(fmt)) ||
	    !read_file(WULT_FORMAT_DBG, fmt, sizeof(fmt)))
		wult_pdw_set_tracing(st->pdw, "wult", fmt);
	else
		fprintf(stderr, "wult record: wult:datapoint format not readable (is "
			"tracefs mounted?); `wult report` will need --format\n");
}

/* What every event of the group records; @period 0 only counts. */
static void group_attr(struct perf_event_attr *attr, uint64_t period)
{
	attr->sample_period = period;
	attr->sample_type = SAMPLE_TYPE;
	attr->read_format = READ_FORMAT | read_format_lost;
	attr->sample_id_all = 1;
}

/*
 * The branches member, where wult.ko can read the LBR: its samples are the
 * datapoints' branch contexts. 1 if added to @ev, 0 if not (said why).
 */
/* The event terms of the method (method_terms()). */
static const char *method_term(const struct rec_opts *o)
{
	return o->term;
}

static int add_branches(const struct rec_opts *o, int cpu, const struct ev *leader,
			struct ev *ev)
{
	struct perf_event_attr attr;
	char str[160], err[256];
	int ret;

	if (access(WULT_PMU_DIR "/events/branches", F_OK)) {
		fprintf(stderr, "wult record: no LBR that wult.ko can read on this CPU: "
			"recording without branch context\n");
		return 0;
	}
	snprintf(str, sizeof(str), "wult/branches,ldist_min=%u,ldist_max=%u%s/",
		 o->ldist_min, o->ldist_max, method_term(o));
	ret = wult_ev_parse(str, NULL, &attr, err, sizeof(err));
	if (!ret) {
		group_attr(&attr, 1);
		ret = -probe_member(&leader->attr, &attr, cpu);
		snprintf(err, sizeof(err), "%s", strerror(-ret));
	}
	if (ret) {
		fprintf(stderr, "wult record: %s: %s: recording without branch context\n",
			str, err);
		return 0;
	}
	ev->attr = attr;
	ev->branches = 1;
	snprintf(ev->name, sizeof(ev->name), "%s", str);
	return 1;
}

/*
 * wult.ko reads the LBR only while perf has it recording, which perf does
 * while an event with a branch stack is scheduled. A kernel-cycles event
 * with a kernel any-branch filter and a period it never reaches keeps it so
 * on each CPU (where the x86 PMU has LBR: cpu/caps/branches). Best effort:
 * without it the branch contexts say LBR was off.
 */
static int lbr_keeper_open(int cpu)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 1ULL << 62,
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL,
		.exclude_user = 1,
		.exclude_hv = 1,
	};
	int fd = sys_perf_event_open(&a, cpu, -1);

	if (fd < 0)
		fprintf(stderr, "wult record: cannot keep the LBR recording on CPU %d: %s; "
			"its branch contexts will say LBR was off\n", cpu, strerror(errno));
	return fd;
}

/* Like the groups, the keepers of a CPU that went offline are reopened. */
static void keep_lbr_on(struct rec_state *st)
{
	int i;

	if (access("/sys/bus/event_source/devices/cpu/caps/branches", F_OK))
		return;
	st->keep_lbr = 1;
	for (i = 0; i < st->nr_hp; i++)
		st->hp[i].lbr_fd = lbr_keeper_open(st->hp[i].cpu);
}

/*
 * Idle states the measured CPUs' cpuidle lists (the most of any CPU), or 2
 * without a driver: the cpu_idle indexes of cpu_idle_poll() (0) and
 * default_idle_call() (1). At most WULT_IDLE_STATES, what wult.ko accounts.
 */
static unsigned int idle_states(struct perf_cpu_map *cpus)
{
	unsigned int k, most = 0;
	char path[128];
	int i;

	for (i = 0; i < perf_cpu_map__nr(cpus); i++) {
		for (k = 0; k < WULT_IDLE_STATES; k++) {
			snprintf(path, sizeof(path), SYSFS_CPU "/cpu%d/cpuidle/state%u",
				 perf_cpu_map__cpu(cpus, i).cpu, k);
			if (access(path, F_OK))
				break;
		}
		most = k > most ? k : most;
	}
	return most ? most : 2;
}

/*
 * wult.ko's idle accounting as members, so every datapoint carries each
 * state's time and entries and `wult report` tells the residency between
 * any two of them. Left out, said why, where the module lacks the events
 * or they cannot join. Returns the members added to @ev.
 */
static unsigned int add_idle_members(struct perf_cpu_map *cpus, const struct ev *leader,
				     struct ev *ev)
{
	static const char *const kinds[] = {
		"idle_time", "idle_entries", "idle_irq_time", "idle_irqs",
	};
	unsigned int k, j, n = 0, nst = idle_states(cpus), nkinds = 4;
	struct perf_event_attr attr;
	char str[160], err[256];
	int ret;

	if (access(WULT_PMU_DIR "/events/idle_time", F_OK)) {
		fprintf(stderr, "wult record: wult.ko has no idle accounting events (an "
			"older module): no idle residency in the report\n");
		return 0;
	}
	if (access(WULT_PMU_DIR "/events/idle_irq_time", F_OK)) {
		fprintf(stderr, "wult record: wult.ko has no idle_irq_time event (an older "
			"module): no interrupt columns in the residency table\n");
		nkinds = 2;
	}
	for (k = 0; k < nst; k++) {
		for (j = 0; j < nkinds; j++) {
			snprintf(str, sizeof(str), "wult/%s,state=%u/", kinds[j], k);
			ret = wult_ev_parse(str, NULL, &attr, err, sizeof(err));
			if (!ret) {
				group_attr(&attr, 0);
				ret = -probe_member(&leader->attr, &attr,
						    perf_cpu_map__cpu(cpus, 0).cpu);
				snprintf(err, sizeof(err), "%s", strerror(-ret));
			}
			if (ret) {
				fprintf(stderr, "wult record: %s: %s: no idle residency in "
					"the report\n", str, err);
				return 0;
			}
			ev[n].attr = attr;
			snprintf(ev[n++].name, sizeof(ev[0].name), "%s", str);
		}
	}
	return n;
}

/*
 * Builds the group: the wult leader, discovered counters, the idle
 * accounting, -e events. Returns 0, 1 when the wult PMU is missing, 2 for
 * a bad -e event.
 */
static int build_events(const struct rec_opts *o, struct perf_cpu_map *cpus, struct ev *ev,
			unsigned int *nr)
{
	int first_cpu = perf_cpu_map__cpu(cpus, 0).cpu;
	char str[160], err[256], absent[1024] = "", nojoin[1024] = "";
	struct perf_event_attr attr;
	unsigned int i, n = 0;
	int ret;

	snprintf(str, sizeof(str), "wult/datapoints,ldist_min=%u,ldist_max=%u%s/",
		 o->ldist_min, o->ldist_max, method_term(o));
	ret = wult_ev_parse(str, NULL, &attr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "wult record: %s\n", err);
		if (ret == -ENOENT)
			fprintf(stderr, "  load the module first: insmod wult.ko "
				"(or modprobe wult)\n");
		return 1;
	}
	group_attr(&attr, 1);		/* every datapoint is a sample */
	attr.disabled = 1;
	ev[n].attr = attr;
	snprintf(ev[n++].name, sizeof(ev[0].name), "%s", str);
	if (!o->no_branches)
		n += add_branches(o, first_cpu, &ev[0], &ev[n]);

	for (i = 0; i < NR_DISCOVERED + o->nr_user_ev; i++) {
		int user = i >= NR_DISCOVERED;
		const char *name = user ? o->user_ev[i - NR_DISCOVERED] : discovered[i];

		if (!user && o->no_counters)
			continue;
		ret = wult_ev_parse(name, NULL, &attr, err, sizeof(err));
		if (ret && user) {
			fprintf(stderr, "wult record: -e %s: %s\n", name, err);
			return 2;
		}
		if (!ret) {
			group_attr(&attr, 0);
			ret = -probe_member(&ev[0].attr, &attr, first_cpu);
			if (ret)
				snprintf(err, sizeof(err), "cannot join the group: %s",
					 strerror(-ret));
		}
		if (ret) {
			char *list = ret == -ENOENT ? absent : nojoin;
			size_t l = strlen(list);

			if (ret == -ENOENT)
				snprintf(list + l, sizeof(absent) - l, " %s", name);
			else
				snprintf(list + l, sizeof(nojoin) - l, "\n  %s: %s", name, err);
			continue;
		}
		ev[n].attr = attr;
		snprintf(ev[n++].name, sizeof(ev[0].name), "%s", name);
	}
	if (!o->no_counters)
		n += add_idle_members(cpus, &ev[0], &ev[n]);
	if (*absent)
		fprintf(stderr, "wult record: counters left out, not on this machine:%s\n",
			absent);
	if (*nojoin)
		fprintf(stderr, "wult record: counters left out:%s\n", nojoin);
	*nr = n;
	return 0;
}

static int check_cpus(const struct rec_opts *o, struct perf_cpu_map **cpus)
{
	int i, nr;

	if (!o->cpus) {
		*cpus = perf_cpu_map__new(cpu_online(1) == 1 ? "1" : "0");
	} else {
		*cpus = perf_cpu_map__new(o->cpus);
		if (!*cpus || perf_cpu_map__empty(*cpus)) {
			fprintf(stderr, "wult record: bad CPU list '%s'\n", o->cpus);
			return 2;
		}
	}
	if (!*cpus)
		return 1;
	nr = perf_cpu_map__nr(*cpus);
	for (i = 0; i < nr; i++) {
		int cpu = perf_cpu_map__cpu(*cpus, i).cpu;
		int on = cpu_online(cpu);

		if (on < 0) {
			fprintf(stderr, "wult record: CPU %d does not exist\n", cpu);
			return 2;
		}
		if (!on) {
			fprintf(stderr, "wult record: CPU %d is offline; bring it online "
				"with: echo 1 > " SYSFS_CPU "/cpu%d/online\n", cpu, cpu);
			return 1;
		}
	}
	return 0;
}

static void note_machine(void)
{
	char buf[64];

	if (read_file(SYSFS_CPU "/cpuidle/current_driver", buf, sizeof(buf)) ||
	    !strncmp(buf, "none", 4))
		fprintf(stderr, "wult record: no cpuidle driver: the kernel's default "
			"idle is measured (POLL with idle=poll, else C1)\n");
}

/*
 * As perf record: an existing non-empty output becomes OUTPUT.old. "-" is
 * standard output (pipe mode), which must not be a terminal.
 */
static int backup_old(const char *path)
{
	char old[4096];
	struct stat sb;

	if (!strcmp(path, "-")) {
		if (!isatty(STDOUT_FILENO))
			return 0;
		fprintf(stderr, "wult record: -o -: standard output is a terminal; "
			"pipe it to a reader (| wult report -) or redirect it\n");
		return -1;
	}
	if (stat(path, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size)
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	if (!rename(path, old))
		return 0;
	fprintf(stderr, "wult record: cannot rename %s to %s: %s\n", path, old,
		strerror(errno));
	return -1;
}

/*
 * Every sample id of the group on every CPU, before any sample: a read of
 * any of its perf fds returns the whole group (PERF_FORMAT_GROUP | ID),
 * members in attr order. Pipe mode announces the ids once, at the start.
 */
static void learn_all_ids(struct rec_state *st)
{
	uint64_t buf[3 + 3 * MAX_EVENTS];
	unsigned int stride = read_format_lost ? 3 : 2;	/* value, id[, lost] */
	char target[64];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	ssize_t n;
	uint64_t i;

	if (!dir)
		return;
	while ((d = readdir(dir)) != NULL) {
		n = readlinkat(dirfd(dir), d->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]"))
			continue;
		n = read(atoi(d->d_name), buf, sizeof(buf));
		if (n < 24 || buf[0] != st->nr_ev || (size_t)n < (3 + stride * buf[0]) * 8)
			continue;
		for (i = 0; i < buf[0]; i++)
			wult_pdw_add_id(st->pdw, st->ev[i].pdw_idx, buf[3 + stride * i + 1]);
	}
	closedir(dir);
}

static void close_evlist(struct perf_evlist *el)
{
	perf_evlist__disable(el);
	perf_evlist__munmap(el);
	perf_evlist__close(el);
	perf_evlist__delete(el);
}

/* The group of st->ev opened, mapped and enabled on @cpu alone. */
static struct perf_evlist *open_cpu(struct rec_state *st, int cpu, unsigned int pages)
{
	struct perf_thread_map *threads = perf_thread_map__new_dummy();
	struct perf_evlist *el = perf_evlist__new();
	struct perf_cpu_map *cpus;
	char list[16];
	unsigned int i;
	int ret = -ENOMEM;

	snprintf(list, sizeof(list), "%d", cpu);
	cpus = perf_cpu_map__new(list);
	for (i = 0; el && cpus && threads && i < st->nr_ev; i++) {
		struct perf_evsel *e = perf_evsel__new(&st->ev[i].attr);

		if (!e)
			break;
		perf_evlist__add(el, e);
	}
	if (el && i == st->nr_ev) {
		perf_evlist__set_leader(el);
		perf_evlist__set_maps(el, cpus, threads);
		ret = perf_evlist__open(el);
		if (!ret && (ret = perf_evlist__mmap(el, pages)))
			perf_evlist__close(el);
	}
	perf_cpu_map__put(cpus);
	perf_thread_map__put(threads);
	if (ret) {
		if (el)
			perf_evlist__delete(el);
		errno = ret < 0 ? -ret : ret;
		return NULL;
	}
	perf_evlist__enable(el);
	return el;
}

/* A measured CPU that went offline or came back: say so, and measure it
 * again on its return (a pipe cannot announce the new events: stop). */
static void check_hotplug(struct rec_state *st, const struct rec_opts *o, double t)
{
	int i;

	for (i = 0; i < st->nr_hp && !st->hp_stop; i++) {
		struct hp_cpu *h = &st->hp[i];
		int on = cpu_online(h->cpu) == 1;

		if (on == h->online)
			continue;
		h->online = on;
		if (!on) {
			fprintf(stderr, "wult record: CPU %d went offline: no datapoints from it "
				"until it returns\n", h->cpu);
			h->since = t;
			if (h->lbr_fd >= 0)
				close(h->lbr_fd);
			h->lbr_fd = -1;
			if (h->evlist) {
				drain_one(h->evlist, st);
				close_evlist(h->evlist);
				h->evlist = NULL;
			}
			continue;
		}
		h->offline_s += t - h->since;
		if (!strcmp(o->output, "-")) {
			fprintf(stderr, "wult record: CPU %d is back online, but a pipe (-o -) "
				"cannot announce its new events: stopping\n", h->cpu);
			st->hp_stop = 1;
			return;
		}
		h->evlist = open_cpu(st, h->cpu, o->pages);
		if (!h->evlist) {
			fprintf(stderr, "wult record: CPU %d is back online but cannot be "
				"measured again (%s): stopping\n", h->cpu, strerror(errno));
			st->hp_stop = 1;
			return;
		}
		if (st->keep_lbr)
			h->lbr_fd = lbr_keeper_open(h->cpu);
		learn_all_ids(st);
		st->last_count[h->cpu] = 0;	/* the new leader counts from 0 */
		st->last_klost[h->cpu] = 0;
		fprintf(stderr, "wult record: CPU %d is back online (after %.1f s): measuring "
			"it again\n", h->cpu, t - h->since);
	}
}

static int init_hotplug(struct rec_state *st, struct perf_cpu_map *cpus)
{
	int i;

	st->hp = calloc(perf_cpu_map__nr(cpus), sizeof(*st->hp));
	if (!st->hp)
		return -ENOMEM;
	st->nr_hp = perf_cpu_map__nr(cpus);
	for (i = 0; i < st->nr_hp; i++) {
		st->hp[i].cpu = perf_cpu_map__cpu(cpus, i).cpu;
		st->hp[i].online = 1;
		st->hp[i].lbr_fd = -1;
	}
	return 0;
}

static void free_hotplug(struct rec_state *st)
{
	int i;

	for (i = 0; i < st->nr_hp; i++) {
		if (st->hp[i].evlist)
			close_evlist(st->hp[i].evlist);
		if (st->hp[i].lbr_fd >= 0)
			close(st->hp[i].lbr_fd);
	}
	free(st->hp);
}

/* The output (FILE.old kept) with the events and features, before any record. */
static int open_output(struct rec_state *st, const struct rec_opts *o,
		       struct perf_cpu_map *cpus, int argc, char **argv)
{
	char err[256];
	unsigned int i;
	int ret;

	if (backup_old(o->output))
		return -1;
	if (wult_pdw_open(o->output, &st->pdw, err, sizeof(err))) {
		fprintf(stderr, "wult record: %s\n", err);
		return -1;
	}
	for (i = 0; i < st->nr_ev; i++)
		st->ev[i].pdw_idx = wult_pdw_add_attr(st->pdw, &st->ev[i].attr, st->ev[i].name);
	wult_pdw_set_group(st->pdw, 0, st->nr_ev);
	describe(st, argc, argv);
	describe_cstates(st, cpus);
	learn_all_ids(st);
	ret = wult_pdw_sync(st->pdw);
	if (ret) {
		fprintf(stderr, "wult record: writing %s failed: %s\n", o->output,
			strerror(-ret));
		wult_pdw_close(st->pdw, NULL, 0);
		st->pdw = NULL;
		return -1;
	}
	return 0;
}

/* Records until a limit, a signal or a failure; returns the time taken (s). */
static double run(struct rec_state *st, const struct rec_opts *o, struct perf_evlist *evlist)
{
	double t0 = now_s(), last_sync = 0, last_hp = 0, t;
	double last_yield = 0;
	struct wult_progress prog;
	char line[160];
	int ret;

	/* A log or a CI pipe gets plain lines, not carriage returns. */
	wult_progress_init(&prog, o->quiet, isatty(STDERR_FILENO));

	perf_evlist__enable(evlist);
	for (;;) {
		perf_evlist__poll(evlist, POLL_MS);
		drain(evlist, st);
		t = now_s() - t0;
		if (t - last_hp >= HOTPLUG_EVERY_S) {
			check_hotplug(st, o, t);
			last_hp = t;
		}
		if (t - last_yield >= YIELD_EVERY_S) {
			rec_yield_poll(st->yield, prog.midline);
			last_yield = t;
		}
		if (stop_signal || st->failed || st->hp_stop || rec_stop_hit(st->stop) ||
		    (o->count && st->samples >= o->count) ||
		    (o->time_limit && t >= o->time_limit))
			break;
		if (t - last_sync >= SYNC_EVERY_S) {
			ret = wult_pdw_sync(st->pdw);
			if (ret) {
				fprintf(stderr, "wult record: writing %s failed: %s\n",
					o->output, strerror(-ret));
				st->failed = 1;
			}
			last_sync = t;
		}
		if (wult_progress_line(&prog, t, st->samples, st->lost, line, sizeof(line)))
			fputs(line, stderr);
	}
	perf_evlist__disable(evlist);
	drain(evlist, st);
	fputs(wult_progress_break(&prog), stderr);
	return now_s() - t0;
}

/* PERF_FORMAT_LOST came with Linux 6.0. */
static int kernel_has_format_lost(void)
{
	struct utsname u;
	int major = 0;

	return !uname(&u) && sscanf(u.release, "%d", &major) == 1 && major >= 6;
}

/* Whether the kernel counted the datapoints it did not sample as lost. */
static const char *unsampled_kind(const struct rec_state *st)
{
	static char buf[96];

	if (!read_format_lost)
		return "kernel lost count not available before Linux 6.0";
	snprintf(buf, sizeof(buf), "%llu lost by the kernel, %llu not",
		 st->unsampled_klost, st->unsampled - st->unsampled_klost);
	return buf;
}

static void summary(struct rec_state *st, const struct rec_opts *o, double t)
{
	int i;

	if (!o->quiet || st->failed)
		fprintf(stderr, "wult record: %llu datapoints in %.1f s (%.0f/s), %llu lost%s, "
			"%llu counted but not sampled (%s), %llu branch contexts, written to %s\n",
			st->samples, t, t > 0 ? st->samples / t : 0.0, st->lost,
			st->lost ? " (use a larger -m)" : "", st->unsampled,
			unsampled_kind(st), st->br_samples, o->output);
	if (st->undecoded)
		fprintf(stderr, "wult record: %llu samples did not decode with the group's "
			"layout (written as they are)\n", st->undecoded);
	for (i = 0; i < st->nr_hp; i++) {
		struct hp_cpu *h = &st->hp[i];

		if (!h->online)
			h->offline_s += t - h->since;
		if (h->offline_s > 0)
			fprintf(stderr, "wult record: CPU %d was offline for %.1f s%s\n", h->cpu,
				h->offline_s, h->online ? "" : " (and still is)");
	}
}

/*
 * The LDist range against the measured CPUs' floors (record_yield.c): 0,
 * 2 when it cannot yield a valid datapoint. Without wult.ko's counters,
 * nothing is checked here; the module still refuses what it knows to be
 * below a floor.
 */
static int check_ldist(const struct rec_opts *o, struct perf_cpu_map *cpus,
		       struct rec_state *st)
{
	int i, nr = perf_cpu_map__nr(cpus);

	st->cpu_ids = calloc(nr, sizeof(*st->cpu_ids));
	if (!st->cpu_ids)
		return 1;
	for (i = 0; i < nr; i++)
		st->cpu_ids[i] = perf_cpu_map__cpu(cpus, i).cpu;
	st->yield = rec_yield_new(st->cpu_ids, nr);
	if (st->yield && rec_yield_check_ldist(st->yield, o->ldist_min, o->ldist_max,
					       method_term(o)))
		return 2;
	return 0;
}

/* A dropped ssh session (SIGHUP) or SIGQUIT stops as SIGINT does. */
static void catch_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGQUIT, on_signal);
	/* A reader of -o - that goes away: EPIPE, and a clean stop. */
	signal(SIGPIPE, SIG_IGN);
}

/*
 * The recording proper, the group open and mapped: the output opened,
 * the ring drained until a limit or a signal, the file closed, the
 * summary said. 0, or 1 when it failed.
 */
static int record_run(struct rec_state *st, const struct rec_opts *o,
		      struct perf_evlist *evlist, struct perf_cpu_map *cpus,
		      int argc, char **argv)
{
	unsigned int i;
	char err[256];
	double t;

	if (open_output(st, o, cpus, argc, argv))
		return 1;
	catch_signals();
	if (!o->quiet) {
		fprintf(stderr, "wult record: %s", st->ev[0].name);
		for (i = 1; i < st->nr_ev; i++)
			fprintf(stderr, "%s%s", i == 1 ? " with " : ", ", st->ev[i].name);
		fprintf(stderr, "\n");
	}
	if (st->nr_ev > 1 && st->ev[1].branches)	/* add_branches() puts it there */
		keep_lbr_on(st);
	t = run(st, o, evlist);
	if (wult_pdw_close(st->pdw, err, sizeof(err))) {
		fprintf(stderr, "wult record: %s\n", err);
		st->failed = 1;
	}
	st->pdw = NULL;
	summary(st, o, t);
	rec_yield_end(st->yield);
	rec_fallback_end(st->fallback);
	return st->failed || st->hp_stop ? 1 : 0;
}

/*
 * --states, --deepest-state, --idle-governor: the idle states and the
 * governor set before anything measures.
 * A signal from here on stops cleanly (the states are put back), also
 * during the setup. 0, or an exit status with the cause said.
 */
static int choose_cstates(const struct rec_opts *o, struct perf_cpu_map *cpus,
			  struct rec_cstates **out)
{
	int i, nr = perf_cpu_map__nr(cpus), *ids, ret;

	*out = NULL;
	if (!o->states && !o->deepest && !o->governor)
		return 0;
	ids = calloc(nr, sizeof(*ids));
	if (!ids)
		return 1;
	for (i = 0; i < nr; i++)
		ids[i] = perf_cpu_map__cpu(cpus, i).cpu;
	catch_signals();
	ret = rec_cstates_set(o->states, o->deepest, o->governor, ids, nr, o->quiet, out);
	free(ids);
	return ret;
}

/* FILE.capture beside FILE. */
static int capture_save(struct rec_capture *cap, const struct rec_stop *stop, const char *output)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s.capture", output);
	return rec_capture_save(cap, stop, path);
}

/* A stop signal during the setup: no recording, and no output file. */
static int stopped_early(void)
{
	fprintf(stderr, "wult record: stopped by signal %d before recording\n",
		(int)stop_signal);
	return 1;
}

static int record(const struct rec_opts *o, int argc, char **argv)
{
	struct perf_thread_map *threads = NULL;
	struct perf_evlist *evlist = NULL;
	struct perf_cpu_map *cpus = NULL;
	struct ev ev[MAX_EVENTS];
	struct rec_state st = { .ev = ev, .limit = o->count };
	struct rec_cstates *cst = NULL;
	struct rec_capture *cap = NULL;
	unsigned int i;
	int ret;

	rec_capture_cleanup();
	ret = check_cpus(o, &cpus);
	if (ret)
		goto out;
	ret = choose_cstates(o, cpus, &cst);
	if (ret)
		goto out;
	note_machine();
	read_format_lost = kernel_has_format_lost() ? PERF_FORMAT_LOST : 0;
	ret = build_events(o, cpus, ev, &st.nr_ev);
	if (ret)
		goto out;
	ret = check_ldist(o, cpus, &st);
	if (ret)
		goto out;
	if (o->stop_on) {
		ret = rec_stop_new(o->stop_on, st.cpu_ids[0], &st.stop);
		if (ret)
			goto out;
	}
	if (o->capture_ms &&
	    rec_capture_start(st.cpu_ids, perf_cpu_map__nr(cpus), o->capture_ms, o->quiet, &cap)) {
		ret = 1;
		goto out;
	}
	ret = 1;

	threads = perf_thread_map__new_dummy();
	evlist = perf_evlist__new();
	if (!threads || !evlist)
		goto out;
	for (i = 0; i < st.nr_ev; i++) {
		ev[i].evsel = perf_evsel__new(&ev[i].attr);
		if (!ev[i].evsel)
			goto out;
		perf_evlist__add(evlist, ev[i].evsel);
	}
	perf_evlist__set_leader(evlist);
	perf_evlist__set_maps(evlist, cpus, threads);
	ret = perf_evlist__open(evlist);
	if (ret) {
		explain_open_error(-ret, ev[0].name);
		ret = 1;
		goto out_delete;
	}
	st.max_cpu = perf_cpu_map__max(cpus).cpu;
	st.last_count = calloc(st.max_cpu + 1, sizeof(*st.last_count));
	st.last_klost = calloc(st.max_cpu + 1, sizeof(*st.last_klost));
	st.vals = calloc(WULT_PD_MAX_GROUP, sizeof(*st.vals));
	st.fallback = rec_fallback_new(st.max_cpu);
	st.layout.attr = ev[0].attr;
	if (!st.last_count || !st.last_klost || !st.vals || init_hotplug(&st, cpus)) {
		ret = 1;
		goto out_close;
	}
	ret = perf_evlist__mmap(evlist, o->pages);
	if (ret) {
		fprintf(stderr, "wult record: cannot map the ring buffers (%u pages per "
			"CPU): %s; try fewer with -m\n", o->pages, strerror(-ret));
		ret = 1;
		goto out_close;
	}
	ret = stop_signal ? stopped_early() : record_run(&st, o, evlist, cpus, argc, argv);
	if (rec_stop_hit(st.stop)) {
		rec_stop_say(st.stop, o->stop_on);
		if (cap && capture_save(cap, st.stop, o->output) && !ret)
			ret = 1;
	}
	perf_evlist__munmap(evlist);
out_close:
	free_hotplug(&st);
	free(st.last_count);
	free(st.last_klost);
	free(st.vals);
	rec_fallback_free(st.fallback);
	perf_evlist__close(evlist);
out_delete:
	perf_evlist__delete(evlist);	/* deletes the evsels too */
	evlist = NULL;
out:
	if (evlist)
		perf_evlist__delete(evlist);
	rec_capture_end(cap);
	rec_stop_free(st.stop);
	rec_yield_free(st.yield);
	free(st.cpu_ids);
	perf_thread_map__put(threads);
	perf_cpu_map__put(cpus);
	if (rec_cstates_restore(cst, o->quiet) && !ret)
		ret = 1;
	return ret;
}

static int silent_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int wult_cmd_record(int argc, char **argv)
{
	struct rec_opts o;
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	/* A run killed with the states changed left them in a restore record. */
	if (rec_cstates_recover(o.states || o.deepest || o.governor))
		return 1;
	libperf_init(silent_print);
	return record(&o, argc, argv);
}
