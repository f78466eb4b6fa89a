// SPDX-License-Identifier: GPL-2.0
/*
 * wult_pdw_*: a file written here reads back through libwult's reader with
 * the same attrs, ids, names, features and samples, and stock perf reads it
 * (checked when perf is installed). A writer killed at random points of
 * its progress, and one killed before (or halfway through) each of its
 * writes in turn, leaves a file that reads, features included, with every
 * record of its last sync: in libwult and in stock perf.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <wult/pdwrite.h>
#include <wult/perfdata.h>
#include <wult/dpdec.h>
#include "wt.h"

#define LEADER_TYPE	77
#define NSAMPLES	10
/* What a sync costs in the data: the table it leaves behind (2 entries). */
#define SYNC_PAD	32
/* lib/perfdata/pdwrite.c's RESERVE: room between the table and the slots. */
#define RESERVE		((1 << 20) + (8 << 10))

/*
 * The test is linked with -Wl,--wrap=pwrite: the writer's pwrite() calls
 * come here, so a kill can be placed before any one of them.
 */
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);

static long pw_calls;		/* pwrite() calls so far */
static long pw_kill = -1;	/* die at this call, -1: never */
static int pw_half;		/* ...after writing half of it (not the header) */
static long pw_written;		/* samples handed to the writer so far */
static long pw_synced[4096];	/* [call]: samples on disk once it is done */

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	long call = pw_calls++;
	ssize_t ret;

	if (call == pw_kill) {
		/* The header is one write in the first page: never split. */
		if (pw_half && off && n > 1)
			__real_pwrite(fd, buf, n / 2, off);
		_exit(0);
	}
	ret = __real_pwrite(fd, buf, n, off);
	if (call < 4096)
		pw_synced[call] = !off ? pw_written : call ? pw_synced[call - 1] : 0;
	return ret;
}

struct sample {
	struct perf_event_header h;
	uint64_t id;		/* IDENTIFIER */
	uint64_t ip;		/* stock perf script's default fields need it */
	uint64_t time;
	uint32_t cpu, res;
	struct {		/* READ: GROUP | ID */
		uint64_t nr;
		uint64_t v0, id0, v1, id1;
	} read;
};

static void make_attrs(struct perf_event_attr *lead, struct perf_event_attr *mem)
{
	memset(lead, 0, sizeof(*lead));
	lead->size = sizeof(*lead);
	lead->type = LEADER_TYPE;
	lead->sample_period = 1;
	lead->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_READ;
	lead->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	lead->sample_id_all = 1;
	*mem = *lead;
	mem->type = PERF_TYPE_SOFTWARE;
	mem->config = PERF_COUNT_SW_CPU_CLOCK;
	mem->sample_period = 0;
}

static int write_sample(struct wult_pdw *w, int i)
{
	struct sample s = {
		.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(s) },
		.id = 100, .ip = 0xffffffff81000000ULL, .time = 1000 + i, .cpu = 1,
		.read = { 2, i + 1, 100, 10 * i, 101 },
	};

	return wult_pdw_write(w, &s, sizeof(s));
}

static int write_file(const char *path)
{
	struct perf_event_attr lead, mem;
	char *argv[] = { "wult", "record", "-C", "1" };
	struct wult_pdw *w;
	char err[256];
	int i, li, mi;

	WT_EQ(wult_pdw_open(path, &w, err, sizeof(err)), 0);
	make_attrs(&lead, &mem);
	li = wult_pdw_add_attr(w, &lead, "wult/datapoints/");
	mi = wult_pdw_add_attr(w, &mem, "cpu-clock");
	WT_EQ(li, 0);
	WT_EQ(mi, 1);
	WT_EQ(wult_pdw_add_id(w, li, 100), 0);
	WT_EQ(wult_pdw_add_id(w, li, 100), 0);	/* duplicates are ignored */
	WT_EQ(wult_pdw_add_id(w, li, 200), 0);
	WT_EQ(wult_pdw_add_id(w, mi, 101), 0);
	WT_EQ(wult_pdw_add_id(w, 5, 1), -EINVAL);
	WT_EQ(wult_pdw_set_group(w, li, 2), 0);
	WT_EQ(wult_pdw_set_group(w, li, 3), -EINVAL);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_HOSTNAME, "testhost"), 0);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_OSRELEASE, "6.1.0-test"), 0);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_VERSION, "wult 0.1"), 0);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_ARCH, "x86_64"), 0);
	WT_EQ(wult_pdw_set_cmdline(w, 4, argv), 0);
	WT_EQ(wult_pdw_set_nrcpus(w, 2, 4), 0);
	WT_EQ(wult_pdw_add_pmu(w, LEADER_TYPE, "wult"), 0);
	WT_EQ(wult_pdw_add_pmu(w, LEADER_TYPE, "wult"), 0);	/* mapped once */
	WT_EQ(wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format()), 0);
	WT_EQ(wult_pdw_add_cstate(w, 1, 0, "POLL"), 0);
	WT_EQ(wult_pdw_add_cstate(w, 1, 1, "C1E"), 0);
	for (i = 0; i < NSAMPLES; i++)
		WT_EQ(write_sample(w, i), 0);
	{
		struct perf_event_header bad = { PERF_RECORD_SAMPLE, 0, 99 };

		WT_EQ(wult_pdw_write(w, &bad, sizeof(bad)), -EINVAL);
	}
	WT_EQ(wult_pdw_data_size(w), NSAMPLES * sizeof(struct sample));
	return wult_pdw_close(w, err, sizeof(err));
}

static void read_back(const char *path)
{
	const struct wult_pd_attr *a;
	struct wult_pd_event ev;
	struct wult_pd *pd;
	const char *sys, *text;
	char err[256];
	size_t len;
	int ret, n = 0;

	ret = wult_pd_open(path, 0, &pd, err, sizeof(err));
	WT_CHECK(ret == 0, "open: %s", err);
	if (ret)
		return;
	WT_EQ(wult_pd_nr_attrs(pd), 2);
	a = wult_pd_attr(pd, 0);
	WT_EQ(a->attr.type, LEADER_TYPE);
	WT_EQ(a->nr_ids, 2);
	WT_CHECK(a->name && !strcmp(a->name, "wult/datapoints/"), "name %s", a->name);
	a = wult_pd_attr(pd, 1);
	WT_EQ(a->ids[0], 101);
	WT_CHECK(!strcmp(wult_pd_hostname(pd), "testhost"), "hostname");
	WT_CHECK(!strcmp(wult_pd_osrelease(pd), "6.1.0-test"), "osrelease");
	WT_CHECK(!strcmp(wult_pd_cmdline(pd), "wult record -C 1"), "cmdline '%s'",
		 wult_pd_cmdline(pd));
	WT_EQ(wult_pd_nr_cpus_online(pd), 2);
	WT_EQ(wult_pd_nr_cpus_avail(pd), 4);
	WT_CHECK(wult_pd_pmu_name(pd, LEADER_TYPE) &&
		 !strcmp(wult_pd_pmu_name(pd, LEADER_TYPE), "wult"), "pmu name");
	{
		uint32_t cpu, idx;
		const char *name;

		WT_EQ(wult_pd_nr_cstates(pd), 2);
		WT_EQ(wult_pd_cstate(pd, 1, &cpu, &idx, &name), 0);
		WT_CHECK(cpu == 1 && idx == 1 && !strcmp(name, "C1E"), "cstate %u %u %s",
			 cpu, idx, name);
		WT_EQ(wult_pd_cstate(pd, 2, &cpu, &idx, &name), -ENOENT);
	}
	WT_EQ(wult_pd_nr_formats(pd), 1);
	WT_EQ(wult_pd_format(pd, 0, &sys, &text, &len), 0);
	WT_CHECK(!strcmp(sys, "wult") && len == strlen(wult_dpdec_builtin_format()), "format");
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		WT_EQ(ev.sample.time, 1000 + n);
		WT_EQ(ev.sample.cpu, 1);
		WT_EQ(ev.sample.read.nr, 2);
		WT_EQ(ev.sample.read.values[1].value, 10 * n);
		WT_EQ(ev.sample.read.values[1].id, 101);
		WT_CHECK(ev.sample.attr == wult_pd_attr(pd, 0), "sample matched to leader");
		n++;
	}
	WT_CHECK(ret == 0, "read: %s", wult_pd_error(pd));
	WT_EQ(n, NSAMPLES);
	wult_pd_close(pd);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* Samples in @path, or -1 when it does not read; *@named: names read. */
static long count_samples(const char *path, int *named)
{
	struct wult_pd_event ev;
	struct wult_pd *pd;
	char err[256];
	long n = 0;
	int ret;

	if (wult_pd_open(path, 0, &pd, err, sizeof(err))) {
		printf("  killed writer's file: %s\n", err);
		return -1;
	}
	*named = wult_pd_nr_attrs(pd) >= 1 && wult_pd_attr(pd, 0)->name &&
		 !strcmp(wult_pd_attr(pd, 0)->name, "wult/datapoints/");
	while ((ret = wult_pd_next(pd, &ev)) > 0)
		n += ev.type == PERF_RECORD_SAMPLE;
	if (ret) {
		printf("  killed writer's file: %s\n", wult_pd_error(pd));
		n = -1;
	}
	wult_pd_close(pd);
	return n;
}

/* The writer the kill tests use, its events and features set; exits on failure. */
static struct wult_pdw *kill_test_writer(const char *path, const char *host)
{
	struct perf_event_attr lead, mem;
	struct wult_pdw *w;
	char err[256];

	make_attrs(&lead, &mem);
	if (wult_pdw_open(path, &w, err, sizeof(err)))
		_exit(1);
	wult_pdw_add_attr(w, &lead, "wult/datapoints/");
	wult_pdw_add_attr(w, &mem, "cpu-clock");
	wult_pdw_add_id(w, 0, 100);
	wult_pdw_add_id(w, 1, 101);
	wult_pdw_set_group(w, 0, 2);
	wult_pdw_set_str(w, WULT_PDW_HOSTNAME, host);
	wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format());
	return w;
}

/* endless_writer()'s sync period, in samples. */
#define SYNC_EVERY	97
/* How long a writer may take to reach a target before the test gives up. */
#define PROGRESS_MAX_S	60

/* What endless_writer() shares with the test, in a shared page. */
struct progress {
	long stop_at;	/* in: samples after which to wait for the kill, -1 never */
	long written;	/* out: samples handed over, -1 until the file is open */
	long synced;	/* out: samples of the last sync */
	long paused;	/* out: 1 once waiting at stop_at */
};

/*
 * Writes samples for ever, syncing every SYNC_EVERY, or until stop_at and
 * then waits to be killed. Each count is published once its step is done.
 */
static void endless_writer(const char *path, struct progress *p)
{
	struct wult_pdw *w = kill_test_writer(path, "killed");
	long i;

	__atomic_store_n(&p->written, 0, __ATOMIC_RELEASE);
	for (i = 0;; i++) {
		/* i samples handed over, and the syncs they called for done. */
		if (i == p->stop_at) {
			__atomic_store_n(&p->paused, 1, __ATOMIC_RELEASE);
			for (;;)
				pause();
		}
		if (write_sample(w, i))
			_exit(1);
		__atomic_store_n(&p->written, i + 1, __ATOMIC_RELEASE);
		if (i % SYNC_EVERY == SYNC_EVERY - 1) {
			if (wult_pdw_sync(w))
				_exit(1);
			__atomic_store_n(&p->synced, i + 1, __ATOMIC_RELEASE);
		}
	}
}

/*
 * Waits until *@count, one of @p's counts, reaches @target. 1 when it did;
 * 0 when the writer @pid ended first (reaped) or did not get there in
 * PROGRESS_MAX_S (killed and reaped), said with @what.
 */
static int wait_progress(pid_t pid, struct progress *p, long *count, long target,
			 const char *what)
{
	struct timespec t0, t;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < target) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			printf("  %s: the writer ended (%s %d) after %ld samples\n", what,
			       WIFSIGNALED(st) ? "signal" : "exit status",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), p->written);
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > PROGRESS_MAX_S) {
			printf("  %s: not there after %d s (%ld samples written)\n", what,
			       PROGRESS_MAX_S, __atomic_load_n(&p->written, __ATOMIC_ACQUIRE));
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 0;
		}
		usleep(100);
	}
	return 1;
}

/* The kinds of kill of killed_writer(), in turn. */
enum kill_kind {
	KILL_AT_ONCE,		/* running from its start: before or after the file is ready */
	KILL_OPEN,		/* waiting with its file open, before the first write */
	KILL_MID_BUFFER,	/* waiting with 1 to SYNC_EVERY - 1 samples, none synced */
	KILL_PAUSED,		/* waiting after 1 to 20 syncs */
	KILL_RUNNING,		/* running, once past a target after 1 to 20 syncs */
	KILL_KINDS,
};

/*
 * SIGKILL a writer at a point of its progress picked at random for each
 * kill. One that waits for the kill there leaves exactly the samples of its
 * syncs so far; one still running is killed anywhere past its target (in a
 * sync too) and leaves no fewer samples than its last sync and than the
 * target implies, and no more than it was handed. Every file it opened
 * reads, and has its event names once it has samples.
 */
static void killed_writer(const char *path)
{
	static const char *const kinds[KILL_KINDS] = {
		"at once", "open, before the first write", "mid-buffer",
		"waiting after syncs", "running after syncs",
	};
	struct progress *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t seed = (uint64_t)getpid() << 16 | 1;
	int k, bad = 0, unready = 0, nm, ok;
	long n, t, want, w, sy;
	enum kill_kind kind;
	char what[96];
	pid_t pid;

	WT_CHECK(p != MAP_FAILED, "mmap");
	if (p == MAP_FAILED)
		return;
	printf("  killed writers: seed %" PRIu64 "\n", seed);
	for (k = 0; k < 8 * KILL_KINDS; k++) {
		kind = k % KILL_KINDS;
		if (kind == KILL_AT_ONCE || kind == KILL_OPEN)
			t = 0;
		else if (kind == KILL_MID_BUFFER)
			t = 1 + (long)(wt_xorshift(&seed) % (SYNC_EVERY - 1));
		else
			t = SYNC_EVERY + (long)(wt_xorshift(&seed) % (19 * SYNC_EVERY + 1));
		snprintf(what, sizeof(what), "kill %d (%s, %ld samples)", k, kinds[kind], t);
		p->stop_at = kind == KILL_AT_ONCE || kind == KILL_RUNNING ? -1 : t;
		p->written = -1;
		p->synced = p->paused = 0;
		unlink(path);
		pid = fork();
		if (!pid)
			endless_writer(path, p);
		if (kind == KILL_AT_ONCE)
			ok = 1;
		else if (kind == KILL_RUNNING)
			ok = wait_progress(pid, p, &p->written, t, what);
		else
			ok = wait_progress(pid, p, &p->paused, 1, what);
		if (!ok) {
			bad++;
			continue;
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		w = p->written;
		sy = p->synced;
		/* Killed before its file was ready: none, or empty. */
		if (w < 0 && ((access(path, F_OK) && errno == ENOENT) || !file_size(path))) {
			unready++;
			continue;
		}
		nm = 0;
		n = count_samples(path, &nm);
		if (p->stop_at >= 0) {
			/* Waiting: exactly the samples its syncs wrote. */
			want = t / SYNC_EVERY * SYNC_EVERY;
			ok = n == want && sy == want && (!want || nm);
		} else {
			/* Past t: the sync after sample t - 1 may be under way. */
			want = t < 1 ? 0 : (t - 1) / SYNC_EVERY * SYNC_EVERY;
			ok = n >= 0 && n >= sy && n >= want && n <= (w > 0 ? w : 0) && (!sy || nm);
		}
		if (!ok) {
			printf("  %s: %ld samples read (%ld wanted), %ld synced, %ld written, "
			       "names %s\n", what, n, want, sy, w, nm ? "read" : "lost");
			bad++;
		}
	}
	WT_EQ(bad, 0);
	printf("  %d kills, %d of each kind (%d at once before the file was ready): every file "
	       "read with its syncs\n", 8 * KILL_KINDS, 8, unready);

	/* Last, one killed once it synced 500: the file stock perf is given. */
	p->stop_at = p->written = -1;
	p->synced = p->paused = 0;
	pid = fork();
	if (!pid)
		endless_writer(path, p);
	if (wait_progress(pid, p, &p->synced, 500, "the writer for stock perf")) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	WT_CHECK(count_samples(path, &nm) >= 500, "killed after 500 synced");
	munmap(p, sizeof(*p));
}

/*
 * The writer of killed_at(): small syncs, a change of ids, a sync forced
 * by a full buffer (which moves the slots), a close.
 */
static void staged_writer(const char *path)
{
	struct wult_pdw *w = kill_test_writer(path, "staged");
	char err[256];
	int i;

	for (i = 0; i < 14000; i++) {
		if (write_sample(w, i))
			_exit(1);
		pw_written = i + 1;
		if (i == 9 || i == 19 || i == 13999) {
			if (i == 19)
				wult_pdw_add_id(w, 0, 200);
			if (wult_pdw_sync(w))
				_exit(1);
		}
	}
	if (wult_pdw_close(w, err, sizeof(err)))
		_exit(1);
}

/* stock perf's view of @path: samples of the leader, and its header. */
static void perf_reads(const char *path, long want, const char *what)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "perf script -i %s 2>/dev/null | "
		 "grep -c ' wult/datapoints/:' | grep -qx %ld", path, want);
	WT_CHECK(system(cmd) == 0, "%s: stock perf script reads %ld samples", what, want);
	snprintf(cmd, sizeof(cmd), "perf report -i %s --header-only 2>&1 | "
		 "grep -q 'hostname : staged'", path);
	WT_CHECK(system(cmd) == 0, "%s: stock perf reads the features", what);
}

/* Kill the writer before, or halfway through, each of its writes in turn. */
static void killed_at(const char *path)
{
	long total, k, n;
	int half, nm, bad = 0, perf = access("/usr/bin/perf", X_OK) == 0;
	char what[64];
	pid_t pid;

	/* A full run counts the writes and what each one leaves on disk. */
	pw_kill = -1;
	pw_calls = 0;
	staged_writer(path);
	total = pw_calls;
	WT_CHECK(total >= 16 && total < 4096, "%ld writes", total);
	WT_EQ(count_samples(path, &nm), 14000);
	for (k = 0; k < total && k < 4096; k++) {
		for (half = 0; half < 2; half++) {
			pw_kill = k;
			pw_half = half;
			pw_calls = 0;
			pid = fork();
			if (!pid)
				staged_writer(path);
			waitpid(pid, NULL, 0);
			n = count_samples(path, &nm);
			if (!k && !file_size(path))
				continue;	/* died before writing anything */
			if (n != (k ? pw_synced[k - 1] : 0) || (n && !nm)) {
				printf("  killed at write %ld%s: %ld samples read, %ld synced, "
				       "names %s\n", k, half ? " (half)" : "", n,
				       k ? pw_synced[k - 1] : 0, nm ? "read" : "lost");
				bad++;
			}
			snprintf(what, sizeof(what), "killed at write %ld%s", k,
				 half ? " (half)" : "");
			if (perf && half && n > 0)
				perf_reads(path, n, what);
		}
	}
	pw_kill = -1;
	WT_EQ(bad, 0);
	printf("  killed before and halfway through each of %ld writes: every file "
	       "read with its last sync\n", total);
}

/* A file in use is valid: right after open, and with unsynced records. */
static void valid_while_written(const char *path)
{
	struct perf_event_attr lead, mem;
	struct wult_pdw *w;
	char err[256];
	int i, k, nm = 0;

	make_attrs(&lead, &mem);
	WT_EQ(wult_pdw_open(path, &w, err, sizeof(err)), 0);
	WT_EQ(count_samples(path, &nm), 0);
	wult_pdw_add_attr(w, &lead, "wult/datapoints/");
	wult_pdw_add_attr(w, &mem, "cpu-clock");
	wult_pdw_add_id(w, 0, 100);
	wult_pdw_add_id(w, 1, 101);
	for (i = 0; i < 5; i++)
		write_sample(w, i);
	WT_EQ(count_samples(path, &nm), 0);	/* buffered */
	WT_EQ(wult_pdw_sync(w), 0);
	WT_EQ(count_samples(path, &nm), 5);
	WT_CHECK(nm, "attr name read back after a sync");
	/* More than 1 MiB of records force syncs without the caller's. */
	for (i = 5; (size_t)i < 5 + (4U << 20) / sizeof(struct sample) + 1; i++)
		write_sample(w, i);
	WT_CHECK(count_samples(path, &nm) > 5, "a full buffer is synced");
	/*
	 * A sync per record: the file grows by the records and one table per
	 * sync, plus the room kept for the slots while it is written.
	 */
	for (k = 0; k < 5000; k++, i++) {
		write_sample(w, i);
		wult_pdw_sync(w);
	}
	WT_CHECK(file_size(path) < (long)(104 + i * sizeof(struct sample) + 5010 * SYNC_PAD +
					  RESERVE + (64 << 10)),
		 "%ld bytes for %d records synced one by one", file_size(path), i);
	WT_EQ(wult_pdw_close(w, err, sizeof(err)), 0);
	WT_EQ(count_samples(path, &nm), i);
	/* Closed: the sections follow the table, nothing after them. */
	WT_CHECK(file_size(path) < (long)(104 + i * sizeof(struct sample) + 5010 * SYNC_PAD +
					  4096),
		 "closed: %ld bytes for %d records", file_size(path), i);
}

/* -o - : pipe mode on standard output, read back by libwult and perf. */
static void pipe_mode(const char *path)
{
	struct perf_event_attr lead, mem;
	struct wult_pd_event ev;
	struct wult_pdw *w;
	struct wult_pd *pd;
	const char *sys, *text;
	char err[256], cmd[512];
	int fd, saved, i, n = 0, ret;
	size_t len;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	WT_CHECK(fd >= 0 && saved >= 0, "redirect");
	if (fd < 0 || saved < 0)
		return;
	dup2(fd, STDOUT_FILENO);
	close(fd);
	make_attrs(&lead, &mem);
	ret = wult_pdw_open("-", &w, err, sizeof(err));
	if (!ret) {
		wult_pdw_add_attr(w, &lead, "wult/datapoints/");
		wult_pdw_add_attr(w, &mem, "cpu-clock");
		wult_pdw_add_id(w, 0, 100);
		wult_pdw_add_id(w, 1, 101);
		wult_pdw_set_group(w, 0, 2);
		wult_pdw_set_str(w, WULT_PDW_HOSTNAME, "piped");
		wult_pdw_add_pmu(w, LEADER_TYPE, "wult");
		wult_pdw_add_cstate(w, 1, 1, "C1E");
		wult_pdw_set_tracing(w, "wult", wult_dpdec_builtin_format());
		for (i = 0; i < 3 * NSAMPLES; i++) {
			write_sample(w, i);
			if (i % NSAMPLES == 0)
				wult_pdw_sync(w);
		}
		ret = wult_pdw_close(w, err, sizeof(err));
	}
	dup2(saved, STDOUT_FILENO);
	close(saved);
	WT_CHECK(ret == 0, "pipe mode write: %s", err);

	ret = wult_pd_open(path, 0, &pd, err, sizeof(err));
	WT_CHECK(ret == 0, "pipe mode open: %s", err);
	if (ret)
		return;
	while ((ret = wult_pd_next(pd, &ev)) > 0)
		n += ev.type == PERF_RECORD_SAMPLE;
	WT_CHECK(ret == 0, "pipe mode read: %s", wult_pd_error(pd));
	WT_CHECK(wult_pd_is_pipe(pd), "read as pipe mode");
	WT_EQ(n, 3 * NSAMPLES);
	WT_EQ(wult_pd_nr_attrs(pd), 2);
	WT_EQ(wult_pd_attr(pd, 0)->nr_ids, 1);
	WT_CHECK(wult_pd_attr(pd, 0)->name &&
		 !strcmp(wult_pd_attr(pd, 0)->name, "wult/datapoints/"), "name");
	WT_CHECK(wult_pd_hostname(pd) && !strcmp(wult_pd_hostname(pd), "piped"), "hostname");
	WT_EQ(wult_pd_nr_formats(pd), 1);
	WT_EQ(wult_pd_format(pd, 0, &sys, &text, &len), 0);
	WT_EQ(wult_pd_nr_cstates(pd), 0);	/* not sent: perf would refuse it */
	wult_pd_close(pd);
	if (access("/usr/bin/perf", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "perf script -i - < %s 2>/dev/null | "
			 "grep -c ' wult/datapoints/:' | grep -qx %d", path, 3 * NSAMPLES);
		WT_CHECK(system(cmd) == 0, "stock perf script reads the pipe");
	}
}

int main(void)
{
	char path[] = "/tmp/wult-pdw-XXXXXX";
	struct wult_pdw *w;
	char err[256];
	int fd = mkstemp(path);

	WT_CHECK(fd >= 0, "mkstemp");
	close(fd);
	WT_EQ(write_file(path), 0);
	read_back(path);
	if (access("/usr/bin/perf", X_OK) == 0) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "perf report -i %s --header-only 2>&1 | "
			 "grep -q 'hostname : testhost'", path);
		WT_EQ(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "perf report -i %s --header-only 2>&1 | "
			 "grep 'pmu mappings' | grep -o 'wult = ' | wc -l | grep -qx 1", path);
		WT_EQ(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "perf script -i %s 2>/dev/null | "
			 "grep -c ' wult/datapoints/:' | grep -qx %d", path, NSAMPLES);
		WT_EQ(system(cmd), 0);
	} else {
		WT_SKIP("perf not installed: stock perf not checked");
	}
	valid_while_written(path);
	killed_at(path);
	killed_writer(path);
	if (access("/usr/bin/perf", X_OK) == 0) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "perf script -i %s 2>/dev/null | "
			 "grep -c ' wult/datapoints/:\\| raw 0x4d:' | grep -qvx 0", path);
		WT_CHECK(system(cmd) == 0, "stock perf script reads a killed writer's file");
	}
	pipe_mode(path);
	if (!getenv("WULT_KEEP"))
		unlink(path);

	WT_EQ(wult_pdw_open("/nonexistent/dir/x.data", &w, err, sizeof(err)), -ENOENT);
	WT_CHECK(strstr(err, "/nonexistent/dir/x.data") != NULL, "%s", err);
	WT_EQ(wult_pdw_open(NULL, &w, err, sizeof(err)), -EINVAL);
	WT_EQ(wult_pdw_close(NULL, err, sizeof(err)), -EINVAL);
	return wt_done();
}
