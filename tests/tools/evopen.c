// SPDX-License-Identifier: GPL-2.0
/*
 * evopen: opens each perf event string on one CPU as perf record would (a
 * sampling event: the string's period, else frequency 4000; disabled) and
 * prints one line per event: "0" if the kernel took it, else its errno's
 * name and number ("EINVAL 22"). For the refusal checks of
 * tests/vm/engine.sh: one process for all of them, where a perf record
 * each cost ~0.5 s of host CPU in a TCG guest (perf's start); two of them
 * stay perf record's, for its words.
 *
 *   evopen CPU EVENT...
 *
 * EVENT as perf writes it: pmu/terms/ and aliases (libwult's parser) and
 * the modifiers u, k, I (exclude_idle) and G (exclude_host), after the
 * closing '/' or a ':' (taken off here).
 * Exit status: 0 if every line was printed, 2 for a usage or parse error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <wult/evparse.h>

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case EBUSY: return "EBUSY";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	default: return "E?";
	}
}

/*
 * Takes the modifiers off @s, perf's way: after the closing '/' of a
 * pmu/terms/ event ("wult/datapoints/uI", "wult/datapoints/:u") or after a
 * ':' ("cycles:u"). All four here: libwult's parser takes only ":u"/":k".
 */
static int own_modifiers(char *s, struct perf_event_attr *attr)
{
	char *slash = strrchr(s, '/'), *colon = strrchr(s, ':'), *m;

	if (slash && slash[1])
		m = slash + 1;
	else if (colon && !strchr(colon, '/'))
		m = colon + 1;
	else
		return 0;
	if (*m == ':')
		m++;
	for (; *m; m++) {
		if (*m == 'u')
			attr->exclude_kernel = 1, attr->exclude_hv = 1;
		else if (*m == 'k')
			attr->exclude_user = 1, attr->exclude_hv = 1;
		else if (*m == 'I')
			attr->exclude_idle = 1;
		else if (*m == 'G')
			attr->exclude_host = 1;
		else
			return -1;
	}
	if (slash && slash[1])
		slash[1] = '\0';
	else
		*colon = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr, mods;
	char err[256], s[512];
	int cpu, i, fd;

	if (argc < 3) {
		fprintf(stderr, "usage: evopen CPU EVENT...\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	for (i = 2; i < argc; i++) {
		if (strlen(argv[i]) >= sizeof(s)) {
			fprintf(stderr, "evopen: event too long: %s\n", argv[i]);
			return 2;
		}
		strcpy(s, argv[i]);
		memset(&mods, 0, sizeof(mods));
		if (own_modifiers(s, &mods)) {
			fprintf(stderr, "evopen: %s: unknown modifier\n", argv[i]);
			return 2;
		}
		if (wult_ev_parse(s, NULL, &attr, err, sizeof(err))) {
			fprintf(stderr, "evopen: %s: %s\n", argv[i], err);
			return 2;
		}
		attr.exclude_kernel = mods.exclude_kernel;
		attr.exclude_user = mods.exclude_user;
		attr.exclude_hv = mods.exclude_hv;
		attr.exclude_idle = mods.exclude_idle;
		attr.exclude_host = mods.exclude_host;
		attr.disabled = 1;
		if (!attr.sample_period) {
			attr.freq = 1;
			attr.sample_freq = 4000;
		}
		fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		if (fd >= 0) {
			close(fd);
			printf("0\n");
		} else {
			printf("%s %d\n", errname(errno), errno);
		}
	}
	return 0;
}
