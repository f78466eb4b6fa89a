// SPDX-License-Identifier: GPL-2.0
/*
 * netns_hold: runs a command while a network interface sits in another
 * network namespace, as a container's would. For tests/vm/nic_faults.sh:
 * busybox's ip cannot move an interface into a namespace.
 *
 *   netns_hold IFNAME CMD [ARG...]
 *
 * A child makes a new network namespace and holds it; IFNAME is moved into
 * it (rtnetlink RTM_NEWLINK with IFLA_NET_NS_PID, what `ip link set IFNAME
 * netns PID` sends); CMD runs here, in the caller's namespace; then the
 * child exits, its namespace goes, and the kernel moves the interface back
 * to the initial namespace, which is waited for (at most 10 s).
 * Exit status: CMD's, or 2 for a usage error or a failed step (said).
 */
#include <errno.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "netns_hold: %s: %s\n", what, strerror(errno));
	return 2;
}

/* Moves interface @idx into the network namespace of @pid. */
static int move_if(unsigned int idx, pid_t pid)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		struct rtattr rta;
		__u32 pid;
	} req = { 0 };
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
	} ack;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	ssize_t n;

	if (fd < 0)
		return -errno;
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = (int)idx;
	req.rta.rta_type = IFLA_NET_NS_PID;
	req.rta.rta_len = RTA_LENGTH(sizeof(req.pid));
	req.pid = (__u32)pid;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	n = recv(fd, &ack, sizeof(ack), 0);
	close(fd);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(ack) || ack.nh.nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	return ack.err.error;	/* 0 or -errno */
}

int main(int argc, char **argv)
{
	int up[2], hold[2], status = 0, ret, i;
	unsigned int idx;
	pid_t child, cmd;
	char c;

	if (argc < 3) {
		fprintf(stderr, "usage: netns_hold IFNAME CMD [ARG...]\n");
		return 2;
	}
	idx = if_nametoindex(argv[1]);
	if (!idx)
		return fail(argv[1]);
	if (pipe(up) || pipe(hold))
		return fail("pipe");
	child = fork();
	if (child < 0)
		return fail("fork");
	if (!child) {
		/* Holds the namespace until the parent closes its end. */
		close(up[0]);
		close(hold[1]);
		c = unshare(CLONE_NEWNET) ? 'e' : 'k';
		if (write(up[1], &c, 1) != 1)
			_exit(1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(up[1]);
	close(hold[0]);
	if (read(up[0], &c, 1) != 1 || c != 'k') {
		errno = c == 'e' ? EPERM : EIO;
		return fail("unshare(CLONE_NEWNET) in the child");
	}
	ret = move_if(idx, child);
	if (ret) {
		errno = -ret;
		close(hold[1]);
		waitpid(child, NULL, 0);
		return fail("moving the interface into the new namespace");
	}
	cmd = fork();
	if (cmd < 0)
		return fail("fork");
	if (!cmd) {
		close(hold[1]);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "netns_hold: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	waitpid(cmd, &status, 0);
	close(hold[1]);
	waitpid(child, NULL, 0);
	/* The namespace is torn down by a work item: wait for the interface. */
	for (i = 0; i < 200 && !if_nametoindex(argv[1]); i++)
		usleep(50000);
	if (!if_nametoindex(argv[1])) {
		fprintf(stderr, "netns_hold: %s did not come back within 10 s\n", argv[1]);
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
