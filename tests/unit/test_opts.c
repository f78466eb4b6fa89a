// SPDX-License-Identifier: GPL-2.0
/*
 * The wult command's option tables (perf-plugin/wult/opts.c): the usage
 * list laid out from the table (columns, help lines, a head too long, help
 * below its head, wrapping, unlisted old names), and parsing through it
 * (flags, strings, callbacks with and without values, an old name and its
 * abbreviation, getopt's refusals, --help).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "wt.h"

static int quiet;
static const char *out;
static char seen[256];	/* each callback call: "name=value;" */

static int note(const struct wult_opt *opt, const char *arg, void *ctx)
{
	size_t n = strlen(seen);

	(void)ctx;
	snprintf(seen + n, sizeof(seen) - n, "%s=%s;", opt->name ? opt->name : "-",
		 arg ? arg : "(none)");
	return arg && !strcmp(arg, "bad");	/* "bad": refused */
}

static const struct wult_opt opts[] = {
	WULT_OPT_STRING('o', "output", "FILE", &out, "file to write"),
	WULT_OPT_FLAG('q', "quiet", &quiet, "no progress\nand no summary"),
	WULT_OPT_CALLBACK(0, "cpus", "LIST", note, NULL, "CPUs"),
	WULT_OPT_CALLBACK(0, "cpu", "LIST", note, NULL, NULL),	/* an old name */
	WULT_OPT_CALLBACK_OPTARG(0, "hist", "METRIC", note, NULL, "a histogram"),
	WULT_OPT_CALLBACK_NOARG(0, "raw", note, NULL, "raw"),
	WULT_OPT_CALLBACK(0, "a-rather-long-name", "VALUE", note, NULL, "two spaces after"),
	WULT_OPT_CALLBACK(0, "another-long-one", "N", note, NULL, "\nbelow its head"),
	WULT_OPT_CALLBACK(0, "wrapped", "W", note, NULL,
			  "one line longer than the usage's eighty columns, wrapped at a "
			  "space by the table"),
	WULT_OPT_HELP(),
	WULT_OPT_END(),
};

static const struct wult_optset set = { "usage: t [options]\n\n", opts, "\ntail\n", 24 };

static const char usage[] =
	"usage: t [options]\n\n"
	"  -o, --output FILE     file to write\n"
	"  -q, --quiet           no progress\n"
	"                        and no summary\n"
	"      --cpus LIST       CPUs\n"
	"      --hist[=METRIC]   a histogram\n"
	"      --raw             raw\n"
	"      --a-rather-long-name VALUE  two spaces after\n"
	"      --another-long-one N\n"
	"                        below its head\n"
	"      --wrapped W       one line longer than the usage's eighty columns, wrapped\n"
	"                        at a space by the table\n"
	"  -h, --help            this text\n"
	"\ntail\n";

/* Parses @args (NULL-terminated, argv[0] "t") from a clean state. */
static int parse(const char *const *args, int *argc_out, char ***argv_out)
{
	static char *argv[16];
	int argc = 0;

	argv[argc++] = (char *)"t";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	quiet = 0;
	out = NULL;
	seen[0] = '\0';
	opterr = 0;	/* getopt's messages are not this test's */
	*argc_out = argc;
	*argv_out = argv;
	return wult_opts_parse(&set, argc, argv, NULL);
}

int main(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	char **argv;
	int argc, ret, saved, null;

	wult_opts_usage(&set, f);
	fclose(f);
	WT_CHECK(!strcmp(text, usage), "the usage:\n%s", text);
	free(text);

	ret = parse((const char *[]){ "-q", "--output", "x", "--cpus=1", "--hist", "--hist=W",
				       "--raw", "op", NULL }, &argc, &argv);
	WT_EQ(ret, 0);
	WT_EQ(quiet, 1);
	WT_CHECK(out && !strcmp(out, "x"), "out %s", out);
	WT_CHECK(!strcmp(seen, "cpus=1;hist=(none);hist=W;raw=(none);"), "%s", seen);
	WT_CHECK(optind == argc - 1 && !strcmp(argv[optind], "op"), "the operand at %d", optind);

	/* An old name is the option under its own name; an abbreviation of both is no
	 * ambiguity, while one of two listed options is. */
	WT_EQ(parse((const char *[]){ "--cpu", "2", "--cp", "3", NULL }, &argc, &argv), 0);
	WT_CHECK(!strcmp(seen, "cpu=2;cpus=3;"), "%s", seen);
	WT_EQ(parse((const char *[]){ "--a", "1", NULL }, &argc, &argv), WULT_OPTS_USAGE);

	WT_EQ(parse((const char *[]){ "--cpus", "bad", "--raw", NULL }, &argc, &argv),
	      WULT_OPTS_FAILED);
	WT_CHECK(!strcmp(seen, "cpus=bad;"), "parsing stops at a refusal: %s", seen);
	WT_EQ(parse((const char *[]){ "--nope", NULL }, &argc, &argv), WULT_OPTS_USAGE);
	WT_EQ(parse((const char *[]){ "-o", NULL }, &argc, &argv), WULT_OPTS_USAGE);
	WT_EQ(parse((const char *[]){ "-x", NULL }, &argc, &argv), WULT_OPTS_USAGE);
	WT_EQ(parse((const char *[]){ "--raw=1", NULL }, &argc, &argv), WULT_OPTS_USAGE);

	/* --help prints the usage on stdout (here into /dev/null) and stops. */
	fflush(stdout);
	saved = dup(1);
	null = open("/dev/null", O_WRONLY);
	WT_CHECK(saved >= 0 && null >= 0 && dup2(null, 1) == 1, "stdout to /dev/null");
	ret = parse((const char *[]){ "-q", "-h", "--nope", NULL }, &argc, &argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(null);
	WT_EQ(ret, WULT_OPTS_HELP);
	WT_EQ(quiet, 1);
	return wt_done();
}
