// SPDX-License-Identifier: GPL-2.0
/*
 * wult record's event group: every datapoint is a sample of the wult
 * event leading a group of the counters this machine has, so it carries
 * the counters read at the same instant. Each member is probed against
 * the leader before it joins; the ones that cannot are left out and said.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <perf/cpumap.h>

#include <wult/evparse.h>
#include <wult/refusal.h>

#include "record_events.h"
#include "record_opts.h"
#include "record_sys.h"

#define WULT_PMU_DIR	"/sys/bus/event_source/devices/wult"

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

_Static_assert(sizeof(discovered) / sizeof(discovered[0]) == REC_NR_DISCOVERED,
	       "REC_NR_DISCOVERED counts the discovered counters");

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

/* PERF_FORMAT_LOST came with Linux 6.0. */
static int kernel_has_format_lost(void)
{
	struct utsname u;
	int major = 0;

	return !uname(&u) && sscanf(u.release, "%d", &major) == 1 && major >= 6;
}

/*
 * Explains an errno from opening perf events: wult.ko's reason where it
 * gave one (then that is all), else the likely causes and their fixes.
 */
void rec_events_explain(int err, const char *what, int cpu, uint64_t mark)
{
	char buf[16] = "?", why[320], where[320];
	int r = wult_refusal_read(mark, cpu, err, why, sizeof(why), where, sizeof(where));

	if (r > 0) {
		fprintf(stderr, "wult record: cannot open %s: %s: wult.ko: %s\n", what,
			strerror(err), why);
		return;
	}
	fprintf(stderr, "wult record: cannot open %s: %s\n", what, strerror(err));
	if (r < 0)
		fprintf(stderr, "  wult.ko's reason, if it gave one: %s\n", where);
	if (err == EACCES || err == EPERM) {
		rec_file_read("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
		buf[strcspn(buf, "\n")] = '\0';
		fprintf(stderr, "  not permitted: run as root, or grant CAP_PERFMON, or "
			"lower /proc/sys/kernel/perf_event_paranoid (now %s)\n", buf);
	} else if (err == ENODEV || err == ENOENT || err == ENXIO) {
		fprintf(stderr, "  a selected CPU (or the ipi launcher) is offline, or "
			"wult.ko was unloaded\n");
	} else if (!r) {
		/* wult.ko says why it refuses: perf itself refused this one. */
	} else if (err == EINVAL) {
		fprintf(stderr, "  the wult PMU rejected the configuration: LDist must "
			"satisfy 0 <= min <= max <= %u us, and max must not be below the "
			"CPU's LDist floor (the kernel log names it); with --method ipi, "
			"the launcher must exist and not be a measured CPU\n",
			WULT_LDIST_LIMIT_US);
	} else if (err == EBUSY) {
		fprintf(stderr, "  a CPU is measured already with another method (or, "
			"ipi, another launcher)\n");
	}
}

static int sys_perf_event_open(struct perf_event_attr *attr, int cpu, int group)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, group, 0);
}

/*
 * The group as far as it is built, on its first CPU: the leader first (a
 * refusal ends the recording there: one open, one refusal, said once),
 * then each member, probed by opening it into the group, staying open
 * while the rest are probed. Each open and close of a wult event that is
 * the first or the last of its kind registers or unregisters wult.ko's
 * probes (text patching, then RCU grace periods): probing every member
 * against a leader of its own did that about twenty times a recording
 * (~1 s of host CPU in a TCG guest). Kept open, the leader and the
 * members only count references, and each member is tried beside the
 * ones the group will hold; kept open until the recording's events are
 * (rec_events_release()), the probes are registered once.
 */
struct rec_held {
	int cpu;
	int fd;				/* the leader's, disabled */
	int mfd[REC_MAX_EVENTS];
	unsigned int nr;
};

/* Can @member join @pg's group? 0 (it stays in the group) or errno. */
static int probe_member(struct rec_held *pg, const struct perf_event_attr *member)
{
	struct perf_event_attr m = *member;
	int mfd;

	mfd = sys_perf_event_open(&m, pg->cpu, pg->fd);
	if (mfd < 0)
		return errno;
	if (pg->nr < REC_MAX_EVENTS)
		pg->mfd[pg->nr++] = mfd;
	else
		close(mfd);
	return 0;
}

void rec_events_release(struct rec_held *pg)
{
	if (!pg)
		return;
	while (pg->nr)
		close(pg->mfd[--pg->nr]);
	close(pg->fd);
	free(pg);
}

/*
 * The leader, open and disabled on @cpu, to probe the members with; NULL
 * if it cannot be opened (said).
 */
static struct rec_held *open_leader(const struct perf_event_attr *attr, const char *name,
				    int cpu)
{
	struct perf_event_attr l = *attr;
	struct rec_held *pg = calloc(1, sizeof(*pg));
	uint64_t mark = wult_refusal_mark();

	if (!pg) {
		fprintf(stderr, "wult record: out of memory\n");
		return NULL;
	}
	pg->cpu = cpu;
	pg->fd = sys_perf_event_open(&l, cpu, -1);
	if (pg->fd < 0) {
		rec_events_explain(errno, name, cpu, mark);
		free(pg);
		return NULL;
	}
	return pg;
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
static int add_branches(const struct rec_opts *o, struct rec_held *pg, struct rec_ev *ev)
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
		 o->ldist_min, o->ldist_max, o->term);
	ret = wult_ev_parse(str, NULL, &attr, err, sizeof(err));
	if (!ret) {
		group_attr(&attr, 1);
		ret = -probe_member(pg, &attr);
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
int rec_lbr_open(int cpu)
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
			snprintf(path, sizeof(path), REC_SYSFS_CPU "/cpu%d/cpuidle/state%u",
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
static unsigned int add_idle_members(struct perf_cpu_map *cpus, struct rec_held *pg,
				     struct rec_ev *ev)
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
				ret = -probe_member(pg, &attr);
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
 * accounting, -e events. Returns 0, 1 when the wult PMU is missing or
 * refuses the leader, 2 for a bad -e event.
 */
int rec_events_build(const struct rec_opts *o, struct perf_cpu_map *cpus, struct rec_ev *ev,
		     unsigned int *nr, struct rec_held **held)
{
	char str[160], err[256], absent[1024] = "", nojoin[1024] = "";
	struct perf_event_attr attr;
	struct rec_held *pg;
	unsigned int i, n = 0;
	int ret;

	*held = NULL;
	read_format_lost = kernel_has_format_lost() ? PERF_FORMAT_LOST : 0;
	snprintf(str, sizeof(str), "wult/datapoints,ldist_min=%u,ldist_max=%u%s/",
		 o->ldist_min, o->ldist_max, o->term);
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
	pg = open_leader(&attr, str, perf_cpu_map__cpu(cpus, 0).cpu);
	if (!pg)
		return 1;
	if (!o->no_branches)
		n += add_branches(o, pg, &ev[n]);

	for (i = 0; i < REC_NR_DISCOVERED + o->nr_user_ev; i++) {
		int user = i >= REC_NR_DISCOVERED;
		const char *name = user ? o->user_ev[i - REC_NR_DISCOVERED] : discovered[i];

		if (!user && o->no_counters)
			continue;
		ret = wult_ev_parse(name, NULL, &attr, err, sizeof(err));
		if (ret && user) {
			fprintf(stderr, "wult record: -e %s: %s\n", name, err);
			rec_events_release(pg);
			return 2;
		}
		if (!ret) {
			group_attr(&attr, 0);
			ret = -probe_member(pg, &attr);
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
		n += add_idle_members(cpus, pg, &ev[n]);
	if (*absent)
		fprintf(stderr, "wult record: counters left out, not on this machine:%s\n",
			absent);
	if (*nojoin)
		fprintf(stderr, "wult record: counters left out:%s\n", nojoin);
	*nr = n;
	*held = pg;
	return 0;
}
