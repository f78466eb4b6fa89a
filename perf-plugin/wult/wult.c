// SPDX-License-Identifier: GPL-2.0
/*
 * wult: the user-space front end. Dispatches to a subcommand the way perf
 * does: `wult <command> [options]`; `wult <command> --help` documents each.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"

static const struct wult_cmd cmds[] = {
	{ "version", "print the version", wult_cmd_version },
	{ "record", "record wult datapoints with correlated counters", wult_cmd_record },
	{ "report", "per-state statistics of recorded datapoints", wult_cmd_report },
	{ "tsc", "evaluate the TSC and print conversion parameters", wult_cmd_tsc },
	{ "synth", "write a perf.data of synthetic datapoints", wult_cmd_synth },
	{ "script", "perf script with wult's plugin, dlfilter and scripts", wult_cmd_script },
	{ "hist", "show wult.ko's in-kernel latency histograms", wult_cmd_hist },
	{ "sweep", "record over the product of settings (states, governor, ...)",
	  wult_cmd_sweep },
	{ "deploy", "build and install wult.ko and wult on a system under test",
	  wult_cmd_deploy },
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

int wult_cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("wult %s\n", WULT_VERSION);
	return 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: wult <command> [options]\n\ncommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n`wult <command> --help` describes a command's options;\n"
		"`wult --version` prints the version.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	/* As perf: `wult --version` is `wult version`. */
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v"))
		return wult_cmd_version(argc - 1, argv + 1);
	for (i = 0; i < NCMDS; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "wult: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
