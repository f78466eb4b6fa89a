// SPDX-License-Identifier: GPL-2.0
/*
 * ssh plumbing for the commands that reach other systems (ssh.h): the
 * host spec, sh quoting, ssh's command line and a blocking run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "ssh.h"

int ssh_host_parse(struct ssh_host *h, const char *spec, const char *cmd, const char *opt)
{
	const char *s = spec, *at = strchr(s, '@'), *hs, *colon;
	size_t hl;

	memset(h, 0, sizeof(*h));
	h->spec = spec;
	if (at) {
		if (at == s || (size_t)(at - s) >= sizeof(h->user))
			goto bad;
		memcpy(h->user, s, at - s);
		h->user[at - s] = '\0';
		s = at + 1;
	}
	hs = s;
	if (*s == '[') {
		const char *e = strchr(s, ']');

		if (!e || (e[1] && e[1] != ':'))
			goto bad;
		hs = s + 1;
		hl = e - hs;
		colon = e[1] ? e + 1 : NULL;
	} else {
		colon = strchr(s, ':');
		hl = colon ? (size_t)(colon - s) : strlen(s);
	}
	/* Nothing sh or ssh would read as more than a name. */
	if (!hl || hl >= sizeof(h->host) || strcspn(hs, " \t'\"\\;&|<>$`()") < hl ||
	    hs[0] == '-' || strcspn(h->user, " \t'\"\\;&|<>$`()") < strlen(h->user) ||
	    h->user[0] == '-')
		goto bad;
	memcpy(h->host, hs, hl);
	h->host[hl] = '\0';
	if (colon) {
		char *end;
		long p = strtol(colon + 1, &end, 10);

		if (!colon[1] || *end || p < 1 || p > 65535)
			goto bad;
		snprintf(h->port, sizeof(h->port), "%ld", p);
	}
	return 0;
bad:
	fprintf(stderr, "%s: bad host '%s' in %s: [USER@]HOST[:PORT]\n", cmd, spec, opt);
	return -1;
}

int ssh_quote(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	if (n + 2 >= size)
		return -1;
	buf[n++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			if (n + 4 >= size)
				return -1;
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			if (n + 1 >= size)
				return -1;
			buf[n++] = *s;
		}
	}
	if (n + 2 >= size)
		return -1;
	buf[n++] = '\'';
	buf[n] = '\0';
	return 0;
}

int ssh_argv(char **av, const struct ssh_host *h, const char *opts, char *optbuf,
	     size_t optsize, const char *remote)
{
	char *tok, *save = NULL;
	int n = 0;

	av[n++] = "ssh";
	if (opts) {
		if (strlen(opts) >= optsize)
			return -1;
		strcpy(optbuf, opts);
		for (tok = strtok_r(optbuf, " \t", &save); tok && n < SSH_MAX_ARGS - 24;
		     tok = strtok_r(NULL, " \t", &save))
			av[n++] = tok;
	}
	/*
	 * After the user's, which win (ssh keeps an option's first value): no
	 * password prompts (the ssh processes have no terminal), no tty, and
	 * a lost connection noticed within ~30 s even when nothing is sent.
	 */
	av[n++] = "-T";
	av[n++] = "-o";
	av[n++] = "BatchMode=yes";
	av[n++] = "-o";
	av[n++] = "ServerAliveInterval=10";
	av[n++] = "-o";
	av[n++] = "ServerAliveCountMax=3";
	if (h->user[0]) {
		av[n++] = "-l";
		av[n++] = (char *)h->user;
	}
	if (h->port[0]) {
		av[n++] = "-p";
		av[n++] = (char *)h->port;
	}
	av[n++] = "--";
	av[n++] = (char *)h->host;
	av[n++] = (char *)remote;
	av[n] = NULL;
	return 0;
}

int ssh_run(char **av, int in, char *out, size_t size, const char *cmd)
{
	int p[2] = { -1, -1 }, st;
	size_t have = 0;
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, "%s: pipe: %s\n", cmd, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", cmd, strerror(errno));
		if (out) {
			close(p[0]);
			close(p[1]);
		}
		return -1;
	}
	if (!pid) {
		int null = in < 0 ? open("/dev/null", O_RDONLY) : in;

		if (null < 0 || dup2(null, 0) < 0 || (out && dup2(p[1], 1) < 0))
			_exit(SSH_FAILED);
		execvp(av[0], av);
		fprintf(stderr, "%s: cannot run %s: %s\n", cmd, av[0], strerror(errno));
		_exit(errno == ENOENT ? SSH_NO_CLIENT : SSH_FAILED);
	}
	if (out) {
		close(p[1]);
		for (;;) {
			char junk[4096];
			ssize_t k = have + 1 < size ? read(p[0], out + have, size - 1 - have) :
				read(p[0], junk, sizeof(junk));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			if (have + 1 < size)
				have += k;
		}
		close(p[0]);
		out[have] = '\0';
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "%s: waitpid: %s\n", cmd, strerror(errno));
			return -1;
		}
	return st;
}
