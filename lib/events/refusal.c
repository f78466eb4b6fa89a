// SPDX-License-Identifier: GPL-2.0
/*
 * libwult: why wult.ko refused an event (wult/refusal.h), from the lines
 * of its debugfs refusals file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>

#include <wult/refusal.h>

#include "internal/err.h"

#define DEBUGFS_DIR	"/sys/kernel/debug"
/* A line is under 320 bytes (a reason of at most 255); longer ones are cut. */
#define LINE_MAX_LEN	512

uint64_t wult_refusal_mark(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One line's fields; the reason is what follows them. */
struct refusal_line {
	uint64_t seq, time_ns;
	int pid, cpu, err;
	const char *reason;
};

static int parse_line(char *line, struct refusal_line *r)
{
	int n = -1;

	if (sscanf(line, "seq=%" SCNu64 " time_ns=%" SCNu64 " pid=%d cpu=%d errno=%d %n",
		   &r->seq, &r->time_ns, &r->pid, &r->cpu, &r->err, &n) != 5 || n < 0)
		return -EINVAL;
	r->reason = line + n;
	return 0;
}

int wult_refusal_find(const char *buf, size_t len, int tid, int cpu, int errnum,
		      uint64_t mark, char *why, size_t whylen)
{
	char line[LINE_MAX_LEN];
	uint64_t newest = 0;
	size_t i = 0;
	int found = 0;

	while (i < len) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t l = (nl ? (size_t)(nl - buf) : len) - i;
		struct refusal_line r;

		snprintf(line, sizeof(line), "%.*s", (int)l, buf + i);
		i += l + 1;
		if (parse_line(line, &r) || r.pid != tid || r.err != errnum ||
		    (cpu >= 0 && r.cpu != cpu) || r.time_ns < mark ||
		    (found && r.seq <= newest))
			continue;
		newest = r.seq;
		found = 1;
		if (whylen)
			snprintf(why, whylen, "%s", r.reason);
	}
	return found;
}

/* The file's whole text in *@out (@len bytes), or a negative errno. */
static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r;

	while (buf) {
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(buf);
			return (int)r;
		}
		if (!r) {
			*out = buf;
			*len = n;
			return 0;
		}
		n += (size_t)r;
		if (n == cap) {
			p = realloc(buf, cap * 2);
			if (!p)
				free(buf);
			buf = p;
			cap *= 2;
		}
	}
	return -ENOMEM;
}

/* Why the file cannot be opened (@e, an errno), and where to look then. */
static int unreadable(int e, char *err, size_t errlen)
{
	struct statfs fs;

	if (e != ENOENT)
		return wult_err_set(err, errlen, -e, "cannot read %s: %s",
				    WULT_REFUSALS_PATH, strerror(e));
	if (statfs(DEBUGFS_DIR, &fs) || fs.f_type != DEBUGFS_MAGIC)
		return wult_err_set(err, errlen, -ENODEV,
				    "debugfs, where wult.ko keeps it, is not mounted: "
				    "mount -t debugfs none %s and read %s",
				    DEBUGFS_DIR, WULT_REFUSALS_PATH);
	return wult_err_set(err, errlen, -ENOENT,
			    "no %s (a wult.ko older than this wult?): see the kernel log",
			    WULT_REFUSALS_PATH);
}

int wult_refusal_read(uint64_t mark, int cpu, int errnum, char *why, size_t whylen,
		      char *err, size_t errlen)
{
	int fd = open(WULT_REFUSALS_PATH, O_RDONLY | O_CLOEXEC), ret;
	char *buf = NULL;
	size_t len = 0;

	if (fd < 0)
		return unreadable(errno, err, errlen);
	ret = read_all(fd, &buf, &len);
	close(fd);
	if (ret)
		return wult_err_set(err, errlen, ret, "cannot read %s: %s",
				    WULT_REFUSALS_PATH, strerror(-ret));
	ret = wult_refusal_find(buf, len, gettid(), cpu, errnum, mark, why, whylen);
	free(buf);
	return ret;
}
