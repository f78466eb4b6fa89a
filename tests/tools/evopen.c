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
 *   evopen [-w] CPU EVENT...
 *
 * EVENT as perf writes it: pmu/terms/ and aliases (libwult's parser) and
 * the modifiers u, k, I (exclude_idle) and G (exclude_host), after the
 * closing '/' or a ':' (taken off here), and A (aux_output: perf refuses
 * it itself, once the PMU's event_init took the event, with EOPNOTSUPP).
 * -w: a refusal's line goes on with a tab and "wult.ko: REASON" where
 * wult.ko kept a reason for that open (libwult's wult_refusal_read(), as
 * wult record reads it), with "?: WHERE" where the reasons cannot be read.
 * Exit status: 0 if every line was printed, 2 for a usage or parse error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <wult/evparse.h>
#include <wult/refusal.h>

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
		else if (*m == 'A')
			attr->aux_output = 1;
		else
			return -1;
	}
	if (slash && slash[1])
		slash[1] = '\0';
	else
		*colon = '\0';
	return 0;
}

/* -w: what wult.ko kept of the refusal of the open begun at @mark. */
static void print_reason(uint64_t mark, int cpu, int e)
{
	char why[320], where[320];
	int r = wult_refusal_read(mark, cpu, e, why, sizeof(why), where, sizeof(where));

	if (r > 0)
		printf("\twult.ko: %s", why);
	else if (r < 0)
		printf("\t?: %s", where);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr, mods;
	char err[256], s[512];
	int cpu, i, fd, e, first = 1, reasons = 0;
	uint64_t mark;

	if (argc > 1 && !strcmp(argv[1], "-w")) {
		reasons = 1;
		first = 2;
	}
	if (argc < first + 2) {
		fprintf(stderr, "usage: evopen [-w] CPU EVENT...\n");
		return 2;
	}
	cpu = atoi(argv[first]);
	for (i = first + 1; i < argc; i++) {
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
		attr.aux_output = mods.aux_output;
		attr.disabled = 1;
		if (!attr.sample_period) {
			attr.freq = 1;
			attr.sample_freq = 4000;
		}
		mark = wult_refusal_mark();
		fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
		if (fd >= 0) {
			close(fd);
			printf("0\n");
			continue;
		}
		e = errno;
		printf("%s %d", errname(e), e);
		if (reasons)
			print_reason(mark, cpu, e);
		printf("\n");
	}
	return 0;
}
