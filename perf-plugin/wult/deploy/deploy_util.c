// SPDX-License-Identifier: GPL-2.0
/* wult deploy's small helpers: paths, files, running a command here. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "deploy.h"

/* snprintf() for paths: one that does not fit is "" (found nowhere). 0 or -1. */
int dep_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		buf[0] = '\0';
		return -1;
	}
	return 0;
}

/*
 * Runs @av here (make, tar, strip): its stdout to /dev/null with @quiet,
 * its stderr too with @quiet > 1, else ours. 0, or -1 when it failed.
 */
int dep_run(char **av, int quiet)
{
	int st, fd = -1;
	pid_t pid;

	if (quiet) {
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, DEP_CMD ": fork: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!pid) {
		if (fd >= 0 && (dup2(fd, 1) < 0 || (quiet > 1 && dup2(fd, 2) < 0)))
			_exit(126);
		execvp(av[0], av);
		fprintf(stderr, DEP_CMD ": cannot run %s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	if (fd >= 0)
		close(fd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

int dep_is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int dep_is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* A file's first line into @buf (of @size), without its newline. 0 or -1. */
int dep_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

void dep_say_cmd(char **av)
{
	int i;

	fprintf(stderr, "   ");
	for (i = 0; av[i]; i++)
		fprintf(stderr, " %s", av[i]);
	fprintf(stderr, "\n");
}

/* mkdir -p. 0 or -1. */
int dep_mkdirs(const char *path)
{
	char p[DEP_PLEN];
	size_t i;

	dep_pathf(p, sizeof(p), "%s", path);
	for (i = 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		p[i] = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}
