/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wult command's ssh plumbing (ssh.c), shared by the commands that
 * reach other systems: wult record -H and wult deploy -H. Every session
 * is the user's own OpenSSH client, its config, keys and agent, with
 * --ssh-opts before our defaults (ssh keeps an option's first value).
 */
#ifndef WULT_SSH_H
#define WULT_SSH_H

#include <stddef.h>
#include <sys/types.h>

/* Most words ssh_argv() makes (the user's --ssh-opts included). */
#define SSH_MAX_ARGS	256

/* Exit status of a command that was not found, from sh. */
#define SSH_NOT_FOUND	127
/* ssh's own failures (connection refused, lost, authentication...). */
#define SSH_FAILED	255
/* Our child's status when there is no ssh command to run. */
#define SSH_NO_CLIENT	(SSH_NOT_FOUND + 1)

/* A system to reach: [USER@]HOST[:PORT], parsed. */
struct ssh_host {
	const char *spec;		/* as given */
	char user[128], host[256], port[8];
};

/*
 * Parses @spec ([USER@]HOST[:PORT], [V6ADDR] in brackets; no shell
 * metacharacters, no leading '-') into @h, which keeps @spec. 0, or -1
 * after saying "@cmd: bad host 'SPEC' in @opt: ...".
 */
int ssh_host_parse(struct ssh_host *h, const char *spec, const char *cmd, const char *opt);

/* Appends @s in single quotes for sh to @buf (of @size). 0, or -1 when too long. */
int ssh_quote(char *buf, size_t size, const char *s);

/*
 * @av (of SSH_MAX_ARGS + 1) for execvp(): ssh, @opts split at spaces and
 * tabs (into @optbuf, of @optsize), our defaults (no tty, BatchMode, a
 * lost connection noticed within ~30 s), -l USER, -p PORT, --, HOST and
 * @remote. 0, or -1 when @opts does not fit @optbuf.
 */
int ssh_argv(char **av, const struct ssh_host *h, const char *opts, char *optbuf,
	     size_t optsize, const char *remote);

/*
 * Runs ssh with @av: its stdin from @in (-1: /dev/null), its stdout into
 * @out (of @size, NUL-terminated; NULL: ours), its stderr ours. The wait
 * status, or -1 when it could not be started (said, naming @cmd). A child
 * that finds no ssh exits SSH_NO_CLIENT.
 */
int ssh_run(char **av, int in, char *out, size_t size, const char *cmd);

#endif
