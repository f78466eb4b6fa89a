/* SPDX-License-Identifier: GPL-2.0 */
/* The wult command's subcommands: one wult_cmd_<name>() per cmd_<name>.c. */
#ifndef WULT_CMDS_H
#define WULT_CMDS_H

#define WULT_VERSION "0.1"

struct wult_cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);	/* argv[0] is the subcommand */
};

int wult_cmd_version(int argc, char **argv);
int wult_cmd_record(int argc, char **argv);
int wult_cmd_report(int argc, char **argv);
int wult_cmd_tsc(int argc, char **argv);
int wult_cmd_synth(int argc, char **argv);
int wult_cmd_script(int argc, char **argv);
int wult_cmd_hist(int argc, char **argv);
int wult_cmd_sweep(int argc, char **argv);
int wult_cmd_deploy(int argc, char **argv);

#endif
