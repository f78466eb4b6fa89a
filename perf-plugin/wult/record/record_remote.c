// SPDX-License-Identifier: GPL-2.0
/*
 * wult record -H HOST[,HOST...]: record on other systems (SUTs) from this
 * one (the controller). Each SUT runs `wult record -o -` with the other
 * options, over the user's own ssh (its config, keys and agent; --ssh-opts
 * adds options), and its perf.data pipe stream is written to a file here
 * byte for byte as it comes: stock perf and `wult report` read a pipe
 * stream stored in a file as they read the pipe. All SUTs at once.
 *
 * Stopping: the SUT's side is a small sh script that runs wult record in
 * the background and SIGTERMs it when its standard input ends. So closing
 * ssh's standard input here (at SIGINT, SIGTERM or SIGHUP) stops every SUT
 * the way a local wult record stops, its file complete; a connection that
 * drops stops the SUT's wult record too (its states are put back there).
 * The ssh processes are in a process group of their own, out of reach of
 * the terminal's Ctrl-C. A second signal here ends them at once.
 *
 * Each stream's record boundaries are followed as it is written: when a
 * stream ends inside a record (connection lost, ssh killed), the file is
 * cut at the last whole record, so that it stays readable; the host is
 * named in the error.
 *
 * The host specs, quoting and ssh's command line are ssh/ssh.c's, shared
 * with wult deploy.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "record_remote.h"
#include "ssh/ssh.h"

#define RR_MAX_HOSTS	64

/* perf.data pipe mode: the 16-byte header, records that carry data past their size. */
#define RR_PIPE_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */
#define RR_TRACING_DATA		66	/* followed by a u32 size of data */
#define RR_AUXTRACE		71	/* followed by a u64 size of data */

#define RR_NOT_FOUND		SSH_NOT_FOUND
#define RR_SSH_FAILED		SSH_FAILED

struct rr_host {
	const char *spec;		/* as given */
	struct ssh_host sh;		/* parsed */
	char path[4096];		/* the output; "-": standard output */
	pid_t pid;
	int in, out, err;		/* ssh's stdin, stdout, stderr; -1 closed */
	int file;			/* the output, opened at the first byte */
	/* The stream: bytes so far, the current unit (header or record). */
	uint64_t pos, unit, next;
	unsigned char hdr[16];
	unsigned int hdr_have;
	const char *bad;		/* not a perf.data pipe stream: why */
	char line[1024];		/* stderr, the line being received */
	size_t line_len;
	int status;			/* wait status, once exited */
	int failed;			/* writing here failed (said) */
};

static volatile sig_atomic_t rr_signals;
static int rr_wake[2] = { -1, -1 };

static void rr_on_signal(int sig)
{
	int e = errno;

	(void)sig;
	rr_signals++;
	if (write(rr_wake[1], "", 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = e;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= k;
	}
	return 0;
}

static int is_local(const struct rec_opts *o, int i)
{
	unsigned int k;

	for (k = 0; k < o->nr_local; k++)
		if (o->local_idx[k] == i)
			return 1;
	return 0;
}

/*
 * The SUT's side, for `sh -c`: wult there or exit 127; wult record on the
 * stream in the background; its stop (SIGTERM, a clean stop) when ssh's
 * standard input ends, i.e. when we close it or the connection is gone. A
 * background job of a non-interactive shell ignores SIGINT, hence TERM;
 * the watcher reads with the shell's `read`, so killing it leaves nothing.
 */
static int remote_script(const struct rec_opts *o, int argc, char **argv, char *buf,
			 size_t size)
{
	char args[8192] = "";
	int i;

	for (i = 1; i < argc; i++) {
		if (is_local(o, i))
			continue;
		if (ssh_quote(args, sizeof(args), argv[i]) ||
		    strlen(args) + 2 >= sizeof(args))
			return -1;
		strcat(args, " ");
	}
	if ((size_t)snprintf(buf, size,
		"command -v wult >/dev/null 2>&1 || exit %d\n"
		"exec 3<&0\n"
		"wult record -o - %s</dev/null 3<&- &\n"
		"p=$!\n"
		"(while read -r x; do :; done; kill -TERM $p) <&3 >/dev/null 2>&1 &\n"
		"w=$!\n"
		"exec 3<&-\n"
		"wait $p\n"
		"r=$?\n"
		"kill $w 2>/dev/null\n"
		"exit $r\n", RR_NOT_FOUND, args) >= size)
		return -1;
	return 0;
}

/* ssh [--ssh-opts] [our defaults] [-l USER] [-p PORT] HOST 'sh -c SCRIPT'. */
static pid_t spawn(struct rr_host *h, const struct rec_opts *o, const char *remote,
		   char *optbuf)
{
	char *av[SSH_MAX_ARGS + 1];
	int in[2], out[2], err[2];
	pid_t pid;

	/* (--ssh-opts was checked to fit optbuf) */
	ssh_argv(av, &h->sh, o->ssh_opts, optbuf, 4096, remote);
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		fprintf(stderr, "wult record: %s: pipe: %s\n", h->spec, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "wult record: %s: fork: %s\n", h->spec, strerror(errno));
		return -1;
	}
	if (!pid) {
		struct sigaction sa = { .sa_handler = SIG_DFL };

		/* Out of the terminal's reach: a Ctrl-C is ours to pass on. */
		setpgid(0, 0);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGPIPE, &sa, NULL);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
			_exit(RR_SSH_FAILED);
		execvp(av[0], av);
		fprintf(stderr, "cannot run ssh: %s\n", strerror(errno));
		_exit(errno == ENOENT ? SSH_NO_CLIENT : RR_SSH_FAILED);
	}
	/* Also here: a Ctrl-C before the child's own setpgid() must miss it. */
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	h->in = in[1];
	h->out = out[0];
	h->err = err[0];
	return pid;
}

/* As perf record: an existing non-empty output is kept as OUTPUT.old. */
static int open_output(struct rr_host *h)
{
	char old[4200];
	struct stat st;

	if (!strcmp(h->path, "-")) {
		h->file = STDOUT_FILENO;
		return 0;
	}
	if (!stat(h->path, &st) && S_ISREG(st.st_mode) && st.st_size) {
		snprintf(old, sizeof(old), "%s.old", h->path);
		if (rename(h->path, old)) {
			fprintf(stderr, "wult record: %s: cannot rename %s to %s: %s\n",
				h->spec, h->path, old, strerror(errno));
			return -1;
		}
	}
	h->file = open(h->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (h->file < 0) {
		fprintf(stderr, "wult record: %s: cannot create %s: %s\n", h->spec, h->path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static uint64_t get_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * Follows the stream's units (the pipe header, then records, some with
 * data after their size) over @n more bytes. h->unit is where the unit
 * being received starts; everything before it is whole.
 */
static void scan(struct rr_host *h, const unsigned char *p, size_t n)
{
	while (n && !h->bad) {
		unsigned int need, k;

		if (h->pos < h->next) {
			uint64_t skip = h->next - h->pos;

			if (skip > n)
				skip = n;
			h->pos += skip;
			p += skip;
			n -= skip;
			continue;
		}
		if (!h->hdr_have)
			h->unit = h->pos;
		need = 8;
		if (!h->unit ||
		    (h->hdr_have >= 4 && (get_le(h->hdr, 4) == RR_TRACING_DATA ||
					  get_le(h->hdr, 4) == RR_AUXTRACE)))
			need = 16;
		k = need - h->hdr_have;
		if (k > n)
			k = n;
		memcpy(h->hdr + h->hdr_have, p, k);
		h->hdr_have += k;
		h->pos += k;
		p += k;
		n -= k;
		/* Say at once when it is not perf.data (an error text, a shell's noise). */
		if (!h->unit && memcmp(h->hdr, "PERFILE2", h->hdr_have < 8 ? h->hdr_have : 8))
			h->bad = "it does not start as a perf.data pipe stream";
		if (h->bad || h->hdr_have < need ||
		    (need == 8 && (get_le(h->hdr, 4) == RR_TRACING_DATA ||
				   get_le(h->hdr, 4) == RR_AUXTRACE)))
			continue;	/* more header to come */
		if (!h->unit) {
			if (get_le(h->hdr, 8) != RR_PIPE_MAGIC || get_le(h->hdr + 8, 8) != 16)
				h->bad = "it does not start as a perf.data pipe stream";
			h->next = 16;
		} else {
			uint64_t size = get_le(h->hdr + 6, 2);

			if (size < 8)
				h->bad = "a record of size below 8";
			if (need == 16)
				size += get_le(h->hdr + 8, get_le(h->hdr, 4) == RR_AUXTRACE ? 8 : 4);
			h->next = h->unit + size;
			if (h->next < h->pos)
				h->bad = "a record shorter than its header";
		}
		h->hdr_have = 0;
	}
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* More of the stream: into the file as it comes. 0, or -1 at the end. */
static int take_data(struct rr_host *h)
{
	unsigned char buf[65536];
	ssize_t n = read(h->out, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	if (h->failed)
		return 0;	/* drained, so that the SUT is not blocked */
	if (h->file < 0 && open_output(h)) {
		h->failed = 1;
		close_fd(&h->in);	/* nowhere to keep it: the SUT stops */
		return 0;
	}
	scan(h, buf, n);
	if (write_all(h->file, buf, n)) {
		fprintf(stderr, "wult record: %s: writing %s: %s\n", h->spec, h->path,
			strerror(errno));
		h->failed = 1;
		close_fd(&h->in);
	}
	return 0;
}

/* The SUT's messages, a line at a time, each headed by the host. */
static int take_err(struct rr_host *h)
{
	char buf[4096];
	ssize_t n = read(h->err, buf, sizeof(buf));
	ssize_t i;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		if (h->line_len)
			fprintf(stderr, "%s: %.*s\n", h->spec, (int)h->line_len, h->line);
		h->line_len = 0;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' || buf[i] == '\r' || h->line_len == sizeof(h->line)) {
			if (h->line_len)
				fprintf(stderr, "%s: %.*s\n", h->spec, (int)h->line_len,
					h->line);
			h->line_len = 0;
			if (buf[i] == '\n' || buf[i] == '\r')
				continue;
		}
		h->line[h->line_len++] = buf[i];
	}
	return 0;
}

/* The end of one host: its file cut to whole records, its outcome said. 0 or 1. */
static int finish(struct rr_host *h)
{
	int st = h->status, code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	int whole = !h->hdr_have && h->pos == h->next;
	/* What is kept: the whole records, none from a record found bad on. */
	uint64_t keep = whole && !h->bad ? h->pos : h->unit;
	int ret = 0;

	if (h->file >= 0 && h->file != STDOUT_FILENO) {
		if (keep != h->pos && !h->failed && ftruncate(h->file, keep))
			fprintf(stderr, "wult record: %s: cannot cut %s to its whole records: "
				"%s\n", h->spec, h->path, strerror(errno));
		if (fsync(h->file) && !h->failed) {
			fprintf(stderr, "wult record: %s: writing %s: %s\n", h->spec,
				h->path, strerror(errno));
			ret = 1;
		}
		close(h->file);
		/* Not one whole record: no file rather than an unreadable one. */
		if (!keep && !h->failed)
			unlink(h->path);
	}
	if (h->failed)
		return 1;	/* said: nothing here could keep the stream */
	if (h->bad) {
		fprintf(stderr, "wult record: %s: not a perf.data stream (%s, at byte %llu)\n",
			h->spec, h->bad, (unsigned long long)h->unit);
		return 1;
	}
	if (code == RR_NOT_FOUND) {
		fprintf(stderr, "wult record: %s: no wult command there: install it with "
			"`wult deploy -H %s`, or put wult on the PATH of its non-interactive "
			"ssh sessions\n", h->spec, h->spec);
		return 1;
	}
	if (code == SSH_NO_CLIENT) {
		fprintf(stderr, "wult record: no ssh command here: install OpenSSH's "
			"client (openssh-client)\n");
		return 1;
	}
	if (code == 0 && whole && h->pos > 16)
		return ret;
	if (code == 0) {
		fprintf(stderr, "wult record: %s: the stream ended %s after %llu bytes\n",
			h->spec, whole ? "without datapoints" : "inside a record",
			(unsigned long long)h->pos);
	} else if (code == RR_SSH_FAILED || code < 0) {
		if (code < 0)
			fprintf(stderr, "wult record: %s: ssh ended by signal %d",
				h->spec, WTERMSIG(st));
		else
			fprintf(stderr, "wult record: %s: the connection failed or was lost "
				"(ssh exit %d)", h->spec, code);
		if (h->pos)
			fprintf(stderr, " after %llu bytes", (unsigned long long)h->pos);
		fprintf(stderr, "\n");
	} else {
		fprintf(stderr, "wult record: %s: wult record failed there (exit %d)\n",
			h->spec, code);
	}
	if (h->file >= 0 && h->file != STDOUT_FILENO && keep)
		fprintf(stderr, "wult record: %s: %s holds the %llu bytes of whole records "
			"received%s\n", h->spec, h->path, (unsigned long long)keep,
			whole ? "" : " (the cut record left out)");
	return 1;
}

/* Every host's output path: -o FILE with one host, else HOST[-PORT].data. */
static int name_outputs(struct rr_host *hs, unsigned int nr, const struct rec_opts *o)
{
	unsigned int i, j;

	if (o->output_set && nr > 1) {
		fprintf(stderr, "wult record: -o names one file; with several hosts each "
			"goes to HOST.data (HOST-PORT.data with a port)\n");
		return -1;
	}
	for (i = 0; i < nr; i++) {
		if (o->output_set)
			snprintf(hs[i].path, sizeof(hs[i].path), "%s", o->output);
		else
			snprintf(hs[i].path, sizeof(hs[i].path), "%s%s%s.data", hs[i].sh.host,
				 hs[i].sh.port[0] ? "-" : "", hs[i].sh.port);
		for (j = 0; j < i; j++)
			if (!strcmp(hs[i].path, hs[j].path)) {
				fprintf(stderr, "wult record: -H names %s twice (%s and %s)\n",
					hs[i].path, hs[j].spec, hs[i].spec);
				return -1;
			}
	}
	return 0;
}

/* Until every ssh has exited: streams stored, messages relayed, signals passed on. */
static void run_loop(struct rr_host *hs, unsigned int nr)
{
	unsigned int i, running = nr;
	int said = 0;

	while (running) {
		struct pollfd pf[2 * RR_MAX_HOSTS + 1];
		struct rr_host *who[2 * RR_MAX_HOSTS + 1];
		unsigned int n = 0;

		if (rr_signals && said < rr_signals) {
			said = rr_signals;
			for (i = 0; i < nr; i++) {
				/* First: each SUT stops as a local wult record does. */
				close_fd(&hs[i].in);
				if (said > 1 && hs[i].pid > 0)
					kill(hs[i].pid, SIGTERM);
			}
			fprintf(stderr, said > 1 ? "wult record: ending the ssh sessions now\n" :
				"wult record: stopping the recordings (again to end them now)\n");
		}
		pf[n].fd = rr_wake[0];
		pf[n].events = POLLIN;
		who[n++] = NULL;
		for (i = 0; i < nr; i++) {
			if (hs[i].out >= 0) {
				pf[n].fd = hs[i].out;
				pf[n].events = POLLIN;
				who[n++] = &hs[i];
			}
			if (hs[i].err >= 0) {
				pf[n].fd = hs[i].err;
				pf[n].events = POLLIN;
				who[n++] = &hs[i];
			}
		}
		if (n > 1 && poll(pf, n, -1) < 0 && errno != EINTR)
			break;
		if (n > 1 && (pf[0].revents & POLLIN)) {
			char c[64];

			if (read(rr_wake[0], c, sizeof(c)) < 0) {
				/* nothing: the flag is what counts */
			}
		}
		for (i = 1; i < n; i++) {
			struct rr_host *h = who[i];

			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (pf[i].fd == h->out && take_data(h))
				close_fd(&h->out);
			else if (pf[i].fd == h->err && take_err(h))
				close_fd(&h->err);
		}
		for (i = 0; i < nr; i++) {
			struct rr_host *h = &hs[i];

			if (h->pid <= 0 || h->out >= 0 || h->err >= 0)
				continue;
			while (waitpid(h->pid, &h->status, 0) < 0 && errno == EINTR)
				;
			h->pid = 0;
			close_fd(&h->in);
			running--;
		}
	}
}

int rec_remote_run(const struct rec_opts *o, int argc, char **argv)
{
	static struct rr_host hs[RR_MAX_HOSTS];
	static char remote[16384], script[12288], optbuf[4096];
	struct sigaction sa = { .sa_handler = rr_on_signal }, ign = { .sa_handler = SIG_IGN };
	const char *s = o->hosts;
	char specs[4096];
	unsigned int nr = 0, i;
	int ret = 0;

	if (o->local_mixed) {
		fprintf(stderr, "wult record: with -H, give -o, -H and --ssh-opts on their "
			"own, not inside '%s'\n", o->local_mixed);
		return 2;
	}
	if (!strcmp(o->output, "-") && o->output_set && strchr(o->hosts, ',')) {
		fprintf(stderr, "wult record: -o - takes one host\n");
		return 2;
	}
	if (o->ssh_opts && strlen(o->ssh_opts) >= sizeof(optbuf)) {
		fprintf(stderr, "wult record: --ssh-opts is too long\n");
		return 2;
	}
	if (strlen(s) >= sizeof(specs)) {
		fprintf(stderr, "wult record: -H is too long\n");
		return 2;
	}
	strcpy(specs, s);
	for (char *save = NULL, *t = strtok_r(specs, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (nr == RR_MAX_HOSTS) {
			fprintf(stderr, "wult record: more than %d hosts in -H\n", RR_MAX_HOSTS);
			return 2;
		}
		memset(&hs[nr], 0, sizeof(hs[nr]));
		hs[nr].spec = strdup(t);
		if (!hs[nr].spec)
			return 1;
		hs[nr].in = hs[nr].out = hs[nr].err = hs[nr].file = -1;
		if (ssh_host_parse(&hs[nr].sh, hs[nr].spec, "wult record", "-H"))
			return 2;
		nr++;
	}
	if (!nr) {
		fprintf(stderr, "wult record: -H names no host\n");
		return 2;
	}
	if (name_outputs(hs, nr, o))
		return 2;
	strcpy(remote, "sh -c ");
	if (remote_script(o, argc, argv, script, sizeof(script)) ||
	    ssh_quote(remote, sizeof(remote), script)) {
		fprintf(stderr, "wult record: the options are too long for -H\n");
		return 2;
	}
	if (pipe2(rr_wake, O_CLOEXEC | O_NONBLOCK)) {
		fprintf(stderr, "wult record: pipe: %s\n", strerror(errno));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A dead ssh's stdin: its exit status says what happened. */
	sigaction(SIGPIPE, &ign, NULL);
	for (i = 0; i < nr; i++) {
		hs[i].pid = spawn(&hs[i], o, remote, optbuf + 0);
		if (hs[i].pid < 0) {
			ret = 1;
			hs[i].pid = 0;
			break;
		}
		if (!o->quiet)
			fprintf(stderr, "wult record: %s: recording to %s\n", hs[i].spec,
				hs[i].path);
	}
	if (ret) {
		/* Stop those started, as a signal would. */
		rr_on_signal(SIGTERM);
	}
	nr = ret ? i : nr;
	run_loop(hs, nr);
	for (i = 0; i < nr; i++)
		if (finish(&hs[i]))
			ret = 1;
	for (i = 0; i < nr; i++)
		free((char *)hs[i].spec);
	return ret;
}
