// SPDX-License-Identifier: GPL-2.0
/* The measured CPUs' idle states through cpuidle's sysfs (wult/cpuidle.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <wult/cpuidle.h>

#include "internal/err.h"

#define NAME_MAX_LEN	32
#define PATH_LEN	512
#define RECORD_MAGIC	"wult cpuidle restore 1"
/* The kernel's CPUIDLE_NAME_LEN is 16 with the NUL. */
#define GOV_LEN		16
#define GOV_FILE	"cpuidle/current_governor"

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
	/* The cpuidle governor (system-wide): "" in gov_want, none planned. */
	char gov_old[GOV_LEN], gov_want[GOV_LEN];
	int gov_written;
	int states_planned;		/* only() or deepest() was called */
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

static int write_str(const char *path, const char *v)
{
	char buf[GOV_LEN + 2];
	int fd = open(path, O_WRONLY | O_TRUNC), n, ret = 0;	/* as a shell's > */
	ssize_t w;

	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%s\n", v);
	w = write(fd, buf, n);
	if (w != n)
		ret = w < 0 ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int write_val(const char *path, int v)
{
	return write_str(path, v ? "1" : "0");
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
	return 0;
}

/* Choosing states needs them: -ENOENT with @err for a CPU without any. */
static int have_states(const struct wult_cpuidle *c, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < c->ncpus; i++)
		if (!c->cpu[i].n)
			return wult_err_set(err, errlen, -ENOENT, "CPU %d has no cpuidle "
					    "states in %s/cpu%d/cpuidle (no cpuidle driver: its "
					    "idle states cannot be chosen)", c->cpu[i].cpu,
					    c->root, c->cpu[i].cpu);
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

	if (have_states(c, err, errlen))
		return -ENOENT;
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
	c->states_planned = 1;
	return 0;
}

int wult_cpuidle_deepest(struct wult_cpuidle *c, const char *name, char *err, size_t errlen)
{
	char list[512];
	unsigned int i, k;
	int idx;

	if (have_states(c, err, errlen))
		return -ENOENT;
	for (i = 0; i < c->ncpus; i++) {
		idx = find_state(&c->cpu[i], name, strlen(name));
		if (idx < 0)
			return wult_err_set(err, errlen, -EINVAL, "CPU %d has no idle state '%s' "
					    "(it has %s)", c->cpu[i].cpu, name,
					    names_of(&c->cpu[i], list, sizeof(list)));
		for (k = 0; k < c->cpu[i].n; k++)
			c->cpu[i].want[k] = (int)k > idx;
	}
	c->states_planned = 1;
	return 0;
}

/* Is @word one of the space-separated words of @list? */
static int word_in(const char *list, const char *word)
{
	size_t n = strlen(word), w;

	while (*list) {
		list += strspn(list, " ");
		w = strcspn(list, " ");
		if (w == n && !strncmp(list, word, n))
			return 1;
		list += w;
	}
	return 0;
}

static int changes_governor(const struct wult_cpuidle *c)
{
	return c->gov_want[0] && strcmp(c->gov_want, c->gov_old);
}

int wult_cpuidle_governor(struct wult_cpuidle *c, const char *name, char *err, size_t errlen)
{
	char path[PATH_LEN], avail[256];
	struct stat st;
	int ret;

	snprintf(path, sizeof(path), "%s/cpuidle/available_governors", c->root);
	ret = read_line(path, avail, sizeof(avail));
	if (ret)
		return wult_err_set(err, errlen, ret == -ENOENT ? -EOPNOTSUPP : ret,
				    "cannot read %s: %s", path, strerror(-ret));
	if (!*name || strlen(name) >= GOV_LEN || !word_in(avail, name))
		return wult_err_set(err, errlen, -EINVAL, "no cpuidle governor '%.64s' "
				    "(this kernel has: %s)", name, avail);
	/*
	 * Since Linux 5.8 current_governor is always there and writable;
	 * before, only with the cpuidle_sysfs_switch boot parameter (else
	 * the kernel shows current_governor_ro alone).
	 */
	snprintf(path, sizeof(path), "%s/" GOV_FILE, c->root);
	ret = stat(path, &st) ? -errno : 0;
	if (ret || !(st.st_mode & 0222))
		return wult_err_set(err, errlen, -EOPNOTSUPP, "this kernel does not let the "
				    "cpuidle governor be switched (%s %s; before Linux 5.8 "
				    "boot with cpuidle_sysfs_switch)", path,
				    ret ? strerror(-ret) : "is read-only");
	ret = read_line(path, c->gov_old, sizeof(c->gov_old));
	if (ret)
		return wult_err_set(err, errlen, ret, "cannot read %s: %s", path,
				    strerror(-ret));
	snprintf(c->gov_want, sizeof(c->gov_want), "%s", name);
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
	for (i = 0; c->states_planned && i < c->ncpus && n < len; i++) {
		n += snprintf(buf + n, len - n, "%sCPU %d: ", i ? "; " : "", c->cpu[i].cpu);
		if (n < len)
			n += describe_set(&c->cpu[i], 0, buf + n, len - n);
		if (n < len)
			n += snprintf(buf + n, len - n, ", ");
		if (n < len)
			n += describe_set(&c->cpu[i], 1, buf + n, len - n);
	}
	if (c->gov_want[0] && n < len)
		snprintf(buf + n, len - n, "%sgovernor %s (%s%s)", n ? "; " : "", c->gov_want,
			 changes_governor(c) ? "was " : "unchanged",
			 changes_governor(c) ? c->gov_old : "");
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
	if (changes_governor(c))
		fprintf(f, "%s/" GOV_FILE " %s\n", c->root, c->gov_old);
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
	if (changes_governor(c)) {
		snprintf(path, sizeof(path), "%s/" GOV_FILE, c->root);
		ret = write_str(path, c->gov_want);
		if (ret) {
			wult_err_set(err, errlen, ret, "cannot switch the cpuidle governor to "
				     "%s (%s): %s", c->gov_want, path, strerror(-ret));
			wult_cpuidle_restore(c, NULL, 0);
			return ret;
		}
		c->gov_written = 1;
	}
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
	if (c && c->gov_written) {
		snprintf(path, sizeof(path), "%s/" GOV_FILE, c->root);
		ret = write_str(path, c->gov_old);
		if (!ret)
			c->gov_written = 0;
		else if (!first)
			first = wult_err_set(err, errlen, ret, "cannot restore the cpuidle "
					     "governor %s (%s): %s", c->gov_old, path,
					     strerror(-ret));
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

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* A governor name as the kernel gives it: 1-15 of [a-z0-9_-]. */
static int is_gov_name(const char *v)
{
	size_t n = strlen(v);

	return n && n < GOV_LEN && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

int wult_cpuidle_record_line(char *line, const char **path, const char **value, char *err,
			     size_t errlen)
{
	char *sp;
	const char *v;

	line[strcspn(line, "\n")] = '\0';
	sp = strrchr(line, ' ');
	if (!sp)
		return wult_err_set(err, errlen, -EINVAL, "restore record line '%.200s' is "
				    "not 'PATH VALUE'", line);
	*sp = '\0';
	v = sp + 1;
	/* Only the files wult record changes, and none reached through "..". */
	if (!strstr(line, "/..") &&
	    ((strstr(line, "/cpuidle/state") && ends_with(line, "/disable") &&
	      (!strcmp(v, "0") || !strcmp(v, "1"))) ||
	     (ends_with(line, "/" GOV_FILE) && is_gov_name(v)))) {
		*path = line;
		*value = v;
		return 0;
	}
	return wult_err_set(err, errlen, -EINVAL, "restore record line '%.200s %.16s' is not "
			    "a cpuidle disable file and 0 or 1, nor the cpuidle governor and "
			    "a name", line, v);
}

/* A record line "PATH VALUE" put back. */
static int recover_line(char *line, char *err, size_t errlen)
{
	const char *path, *v;
	int ret = wult_cpuidle_record_line(line, &path, &v, err, errlen);

	if (ret)
		return ret;
	ret = write_str(path, v);
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
