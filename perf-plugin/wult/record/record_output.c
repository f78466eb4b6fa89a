// SPDX-License-Identifier: GPL-2.0
/*
 * wult record's outputs: the perf.data file that stock perf and `wult
 * report` read (its events, their sample ids, the features describing
 * the host, the kernel, the command line, the PMUs, the datapoint format
 * and the idle states' names), and the summary at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <perf/cpumap.h>

#include <wult/pdwrite.h>

#include "cmds.h"
#include "record_events.h"
#include "record_loop.h"
#include "record_opts.h"
#include "record_output.h"
#include "record_sys.h"
#include "record_sysdesc.h"

#define WULT_FORMAT	"/sys/kernel/tracing/events/wult/datapoint/format"
#define WULT_FORMAT_DBG	"/sys/kernel/debug/tracing/events/wult/datapoint/format"

/* The group reads the kernel's lost counts (PERF_FORMAT_LOST, Linux 6.0+). */
static int reads_lost(const struct rec_state *st)
{
	return !!(st->ev[0].attr.read_format & PERF_FORMAT_LOST);
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
			snprintf(path, sizeof(path), REC_SYSFS_CPU "/cpu%d/cpuidle/state%u/name",
				 cpu, k);
			if (rec_file_read(path, name, sizeof(name)))
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
	if (!rec_file_read(WULT_FORMAT, fmt, sizeof(fmt)) ||
	    !rec_file_read(WULT_FORMAT_DBG, fmt, sizeof(fmt)))
		wult_pdw_set_tracing(st->pdw, "wult", fmt);
	else
		fprintf(stderr, "wult record: wult:datapoint format not readable (is "
			"tracefs mounted?); `wult report` will need --format\n");
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
void rec_output_add_ids(struct rec_state *st)
{
	uint64_t buf[3 + 3 * REC_MAX_EVENTS];
	unsigned int stride = reads_lost(st) ? 3 : 2;	/* value, id[, lost] */
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

/* The output (FILE.old kept) with the events and features, before any record. */
int rec_output_open(struct rec_state *st, const struct rec_opts *o,
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
	st->sysdesc = rec_sysdesc_store(st->pdw, cpus, o->quiet);
	rec_output_add_ids(st);
	ret = wult_pdw_sync(st->pdw);
	if (ret) {
		fprintf(stderr, "wult record: writing %s failed: %s\n", o->output,
			strerror(-ret));
		wult_pdw_close(st->pdw, NULL, 0);
		st->pdw = NULL;
		rec_sysdesc_free(st->sysdesc);
		st->sysdesc = NULL;
		return -1;
	}
	return 0;
}

/* Whether the kernel counted the datapoints it did not sample as lost. */
static const char *unsampled_kind(const struct rec_state *st)
{
	static char buf[96];

	if (!reads_lost(st))
		return "kernel lost count not available before Linux 6.0";
	snprintf(buf, sizeof(buf), "%llu lost by the kernel, %llu not",
		 st->unsampled_klost, st->unsampled - st->unsampled_klost);
	return buf;
}

void rec_output_summary(struct rec_state *st, const struct rec_opts *o, double t)
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
		struct rec_hp *h = &st->hp[i];

		if (!h->online)
			h->offline_s += t - h->since;
		if (h->offline_s > 0)
			fprintf(stderr, "wult record: CPU %d was offline for %.1f s%s\n", h->cpu,
				h->offline_s, h->online ? "" : " (and still is)");
	}
}
