// SPDX-License-Identifier: GPL-2.0
/* The measured CPUs' idle states through cpuidle's sysfs (wult/cpuidle.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/cpuidle.h>

#include "err.h"

#define NAME_MAX_LEN	32
#define PATH_LEN	512
#define RECORD_MAGIC	"wult cpuidle restore 1"

struct cpu_states {
	int cpu;
	unsigned int n;
	char name[WULT_CPUIDLE_MAX_STATES][NAME_MAX_LEN];
	int old[WULT_CPUIDLE_MAX_STATES];	/* "disable" when opened */
	int want[WULT_CPUIDLE_MAX_STATES];	/* the plan */
	int written[WULT_CPUIDLE_MAX_STATES];	/* changed by apply */
};

struct wult_cpuidle {
	char root[256];			/* shorter than PATH_LEN: room for the rest */
	char record[PATH_LEN];		/* "": none written */
	unsigned int ncpus;
	struct cpu_states cpu[];
};

/* A sysfs file's first line, without its newline. 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		ret = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

static int write_val(const char *path, int v)
{
	char buf[16];
	int fd = open(path, O_WRONLY), n, ret = 0;
	ssize_t w;

	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", v);
	w = write(fd, buf, n);
	if (w != n)
		ret = w < 0 ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static void state_path(const struct wult_cpuidle *c, int cpu, unsigned int k, const char *file,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s/cpu%d/cpuidle/state%u/%s", c->root, cpu, k, file);
}

static int read_cpu(struct wult_cpuidle *c, struct cpu_states *s, char *err, size_t errlen)
{
	char path[PATH_LEN], val[64];
	unsigned int k;
	int ret;

	for (k = 0; k < WULT_CPUIDLE_MAX_STATES; k++) {
		state_path(c, s->cpu, k, "name", path, sizeof(path));
		ret = read_line(path, s->name[k], sizeof(s->name[k]));
		if (ret == -ENOENT)
			break;
		if (!ret) {
			state_path(c, s->cpu, k, "disable", path, sizeof(path));
			ret = read_line(path, val, sizeof(val));
		}
		if (ret)
			return wult_err_set(err, errlen, ret, "cannot read %s: %s", path,
					    strerror(-ret));
		s->old[k] = s->want[k] = atoi(val) ? 1 : 0;
	}
	s->n = k;
	if (!s->n)
		return wult_err_set(err, errlen, -ENOENT, "CPU %d has no cpuidle states in "
				    "%s/cpu%d/cpuidle (no cpuidle driver: its idle states "
				    "cannot be chosen)", s->cpu, c->root, s->cpu);
	return 0;
}

int wult_cpuidle_open(const char *root, const int *cpus, unsigned int ncpus,
		      struct wult_cpuidle **out, char *err, size_t errlen)
{
	struct wult_cpuidle *c;
	unsigned int i;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c) + ncpus * sizeof(c->cpu[0]));
	if (!c)
		return wult_err_set(err, errlen, -ENOMEM, "out of memory");
	snprintf(c->root, sizeof(c->root), "%s", root ? root : WULT_CPUIDLE_ROOT);
	c->ncpus = ncpus;
	for (i = 0; i < ncpus; i++) {
		c->cpu[i].cpu = cpus[i];
		ret = read_cpu(c, &c->cpu[i], err, errlen);
		if (ret) {
			free(c);
			return ret;
		}
	}
	*out = c;
	return 0;
}

/* State @name's index on @s, or -1. */
static int find_state(const struct cpu_states *s, const char *name, size_t len)
{
	unsigned int k;

	for (k = 0; k < s->n; k++)
		if (strlen(s->name[k]) == len && !strncmp(s->name[k], name, len))
			return (int)k;
	return -1;
}

/* "POLL, C1, C6": @s's state names, for messages. */
static const char *names_of(const struct cpu_states *s, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < s->n && n < len; k++)
		n += snprintf(buf + n, len - n, "%s%s", k ? ", " : "", s->name[k]);
	return buf;
}

int wult_cpuidle_only(struct wult_cpuidle *c, const char *names, char *err, size_t errlen)
{
	char list[512];
	const char *p, *end;
	unsigned int i, k;
	size_t n;
	int idx;

	for (i = 0; i < c->ncpus; i++)
		for (k = 0; k < c->cpu[i].n; k++)
			c->cpu[i].want[k] = 1;
	for (p = names; ; p = end + 1) {
		end = p + strcspn(p, ",");
		n = end - p;
		if (!n)
			return wult_err_set(err, errlen, -EINVAL, "an empty state name in '%s'",
					    names);
		for (i = 0; i < c->ncpus; i++) {
			idx = find_state(&c->cpu[i], p, n);
			if (idx < 0)
				return wult_err_set(err, errlen, -EINVAL, "CPU %d has no idle "
						    "state '%.*s' (it has %s)", c->cpu[i].cpu,
						    (int)n, p, names_of(&c->cpu[i], list,
									 sizeof(list)));
			c->cpu[i].want[idx] = 0;
		}
		if (!*end)
			break;
	}
	return 0;
}

int wult_cpuidle_deepest(struct wult_cpuidle *c, const char *name, char *err, size_t errlen)
{
	char list[512];
	unsigned int i, k;
	int idx;

	for (i = 0; i < c->ncpus; i++) {
		idx = find_state(&c->cpu[i], name, strlen(name));
		if (idx < 0)
			return wult_err_set(err, errlen, -EINVAL, "CPU %d has no idle state '%s' "
					    "(it has %s)", c->cpu[i].cpu, name,
					    names_of(&c->cpu[i], list, sizeof(list)));
		for (k = 0; k < c->cpu[i].n; k++)
			c->cpu[i].want[k] = (int)k > idx;
	}
	return 0;
}

/* Appends the states of @s whose plan is @dis to @buf. */
static size_t describe_set(const struct cpu_states *s, int dis, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int k;
	int any = 0;

	for (k = 0; k < s->n && n < len; k++) {
		if (s->want[k] != dis)
			continue;
		n += snprintf(buf + n, len - n, "%s%s", any ? " " : "", s->name[k]);
		any = 1;
	}
	if (n < len)
		n += snprintf(buf + n, len - n, any ? " %s" : "none %s",
			      dis ? "disabled" : "enabled");
	return n;
}

void wult_cpuidle_describe(const struct wult_cpuidle *c, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < c->ncpus && n < len; i++) {
		n += snprintf(buf + n, len - n, "%sCPU %d: ", i ? "; " : "", c->cpu[i].cpu);
		if (n < len)
			n += describe_set(&c->cpu[i], 0, buf + n, len - n);
		if (n < len)
			n += snprintf(buf + n, len - n, ", ");
		if (n < len)
			n += describe_set(&c->cpu[i], 1, buf + n, len - n);
	}
}

/* The restore record: the values to put back, synced before any write so
 * that a SIGKILL at any later point leaves it complete. */
static int write_record(const struct wult_cpuidle *c, const char *record, char *err,
			size_t errlen)
{
	char tmp[PATH_LEN + 8], path[PATH_LEN];
	unsigned int i, k;
	FILE *f;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", record);
	f = fopen(tmp, "w");
	if (!f)
		return wult_err_set(err, errlen, -errno, "cannot write the restore record %s: "
				    "%s", tmp, strerror(errno));
	fprintf(f, "%s\npid %d\n", RECORD_MAGIC, (int)getpid());
	for (i = 0; i < c->ncpus; i++) {
		for (k = 0; k < c->cpu[i].n; k++) {
			if (c->cpu[i].want[k] == c->cpu[i].old[k])
				continue;
			state_path(c, c->cpu[i].cpu, k, "disable", path, sizeof(path));
			fprintf(f, "%s %d\n", path, c->cpu[i].old[k]);
		}
	}
	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, record))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return wult_err_set(err, errlen, ret, "cannot write the restore record %s: %s",
				    record, strerror(-ret));
	}
	return 0;
}

int wult_cpuidle_apply(struct wult_cpuidle *c, const char *record, char *err, size_t errlen)
{
	char path[PATH_LEN];
	unsigned int i, k;
	int ret;

	ret = write_record(c, record, err, errlen);
	if (ret)
		return ret;
	snprintf(c->record, sizeof(c->record), "%s", record);
	for (i = 0; i < c->ncpus; i++) {
		for (k = 0; k < c->cpu[i].n; k++) {
			if (c->cpu[i].want[k] == c->cpu[i].old[k])
				continue;
			state_path(c, c->cpu[i].cpu, k, "disable", path, sizeof(path));
			ret = write_val(path, c->cpu[i].want[k]);
			if (ret) {
				wult_err_set(err, errlen, ret, "cannot write %s: %s", path,
					     strerror(-ret));
				wult_cpuidle_restore(c, NULL, 0);
				return ret;
			}
			c->cpu[i].written[k] = 1;
		}
	}
	return 0;
}

int wult_cpuidle_restore(struct wult_cpuidle *c, char *err, size_t errlen)
{
	char path[PATH_LEN];
	unsigned int i, k;
	int ret, first = 0;

	for (i = 0; c && i < c->ncpus; i++) {
		for (k = 0; k < c->cpu[i].n; k++) {
			if (!c->cpu[i].written[k])
				continue;
			state_path(c, c->cpu[i].cpu, k, "disable", path, sizeof(path));
			ret = write_val(path, c->cpu[i].old[k]);
			if (!ret)
				c->cpu[i].written[k] = 0;
			else if (!first)
				first = wult_err_set(err, errlen, ret, "cannot restore %s: %s",
						     path, strerror(-ret));
		}
	}
	/* A value not put back keeps the record, for the next run to retry. */
	if (c && !first && c->record[0]) {
		unlink(c->record);
		c->record[0] = '\0';
	}
	return first;
}

void wult_cpuidle_free(struct wult_cpuidle *c)
{
	free(c);
}

/* Whether wult process @pid still runs (a reused pid is another program). */
static int writer_alive(int pid)
{
	char path[64], comm[64];

	if (pid <= 0 || pid == (int)getpid() || (kill(pid, 0) && errno != EPERM))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	return !read_line(path, comm, sizeof(comm)) && !strcmp(comm, "wult");
}

int wult_cpuidle_record_line(char *line, const char **path, int *value, char *err,
			     size_t errlen)
{
	char *sp, *end;
	size_t n;
	long v;

	line[strcspn(line, "\n")] = '\0';
	sp = strrchr(line, ' ');
	if (!sp)
		return wult_err_set(err, errlen, -EINVAL, "restore record line '%.200s' is "
				    "not 'PATH VALUE'", line);
	*sp = '\0';
	v = strtol(sp + 1, &end, 10);
	n = strlen(line);
	if (*end || end == sp + 1 || (v != 0 && v != 1) || !strstr(line, "/cpuidle/state") ||
	    strstr(line, "/..") || n < 8 || strcmp(line + n - 8, "/disable"))
		return wult_err_set(err, errlen, -EINVAL, "restore record line '%.200s %.16s' "
				    "is not a cpuidle disable file and 0 or 1", line, sp + 1);
	*path = line;
	*value = (int)v;
	return 0;
}

/* A record line "PATH VALUE" put back. */
static int recover_line(char *line, char *err, size_t errlen)
{
	const char *path;
	int v, ret = wult_cpuidle_record_line(line, &path, &v, err, errlen);

	if (ret)
		return ret;
	ret = write_val(path, v);
	if (ret)
		return wult_err_set(err, errlen, ret, "cannot restore %s: %s", path,
				    strerror(-ret));
	return 0;
}

int wult_cpuidle_recover(const char *record, int *pid, char *err, size_t errlen)
{
	char line[PATH_LEN + 32];
	FILE *f = fopen(record, "r");
	int ret = 0;

	*pid = 0;
	if (!f)
		return errno == ENOENT ? 0 : wult_err_set(err, errlen, -errno, "cannot read "
							  "%s: %s", record, strerror(errno));
	if (!fgets(line, sizeof(line), f) || strncmp(line, RECORD_MAGIC, strlen(RECORD_MAGIC)) ||
	    !fgets(line, sizeof(line), f) || sscanf(line, "pid %d", pid) != 1) {
		fclose(f);
		return wult_err_set(err, errlen, -EINVAL, "%s is not a wult restore record",
				    record);
	}
	if (writer_alive(*pid)) {
		fclose(f);
		return -EBUSY;
	}
	while (!ret && fgets(line, sizeof(line), f))
		ret = recover_line(line, err, errlen);
	fclose(f);
	if (ret)
		return ret;
	unlink(record);
	return 1;
}
