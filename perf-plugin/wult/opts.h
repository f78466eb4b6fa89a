/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command's options as one table, from which both getopt_long()'s
 * arguments and the usage text are made: a new option is one entry.
 *
 *	const struct wult_opt opts[] = {
 *		WULT_OPT_STRING('o', "output", "FILE", &out, "file to write"),
 *		WULT_OPT_FLAG(0, "quiet", &quiet, "no progress"),
 *		WULT_OPT_CALLBACK('c', "count", "N", count_opt, &count,
 *				  "stop after N\ndatapoints"),
 *		WULT_OPT_HELP(),
 *		WULT_OPT_END(),
 *	};
 *	const struct wult_optset set = { "usage: ...\n\n", opts, "\n...", 24 };
 *	ret = wult_opts_parse(&set, argc, argv, ctx);
 *
 * The usage lists the options in table order: "  -o, --output FILE" (or
 * "      --name ARG", "--name[=ARG]" for an optional value), the help from
 * column @col; help lines are as written ('\n' starts a new one at @col),
 * and one longer than the line is wrapped at spaces. A head too long for
 * @col has its help two spaces after it, or on the next line when the help
 * starts with '\n'. An entry without help (an old name, a letter kept for
 * scripts) parses but is not listed.
 */
#ifndef WULT_OPTS_H
#define WULT_OPTS_H

#include <stdio.h>

struct wult_opt;

/* Called with the option's value (NULL: none given). 0, or non-zero when
 * the value is refused, after saying why. @ctx: wult_opts_parse()'s. */
typedef int (*wult_opt_fn)(const struct wult_opt *opt, const char *arg, void *ctx);

enum wult_opt_kind {
	WULT_OPTK_END,
	WULT_OPTK_FLAG,		/* *flag = 1 */
	WULT_OPTK_STRING,	/* *str = the value */
	WULT_OPTK_CALLBACK,	/* fn(opt, value, ctx) */
	WULT_OPTK_HELP,		/* the usage on stdout, WULT_OPTS_HELP */
};

/* Whether an option takes a value: getopt_long()'s has_arg. */
enum wult_opt_arg {
	WULT_OPT_NOARG,
	WULT_OPT_REQUIRED,
	WULT_OPT_OPTIONAL,
};

struct wult_opt {
	int key;		/* the short letter, or 0 */
	const char *name;	/* the long name, or NULL */
	const char *argname;	/* the value as the usage names it */
	const char *help;	/* NULL: not listed */
	enum wult_opt_kind kind;
	enum wult_opt_arg arg;
	int *flag;
	const char **str;
	wult_opt_fn fn;
	void *data;		/* the callback's, e.g. where the value goes */
};

#define WULT_OPT_FLAG(k, n, dst, h) \
	{ .key = (k), .name = (n), .help = (h), .kind = WULT_OPTK_FLAG, .flag = (dst) }
#define WULT_OPT_STRING(k, n, a, dst, h) \
	{ .key = (k), .name = (n), .argname = (a), .help = (h), .kind = WULT_OPTK_STRING, \
	  .arg = WULT_OPT_REQUIRED, .str = (dst) }
/* A callback with a value, without one, or with an optional one; @d its
 * opt->data. */
#define WULT_OPT_CALLBACK_ARG(k, n, a, has, f, d, h) \
	{ .key = (k), .name = (n), .argname = (a), .help = (h), .kind = WULT_OPTK_CALLBACK, \
	  .arg = (has), .fn = (f), .data = (d) }
#define WULT_OPT_CALLBACK(k, n, a, f, d, h) \
	WULT_OPT_CALLBACK_ARG(k, n, a, WULT_OPT_REQUIRED, f, d, h)
#define WULT_OPT_CALLBACK_NOARG(k, n, f, d, h) \
	WULT_OPT_CALLBACK_ARG(k, n, NULL, WULT_OPT_NOARG, f, d, h)
#define WULT_OPT_CALLBACK_OPTARG(k, n, a, f, d, h) \
	WULT_OPT_CALLBACK_ARG(k, n, a, WULT_OPT_OPTIONAL, f, d, h)
#define WULT_OPT_HELP() \
	{ .key = 'h', .name = "help", .help = "this text", .kind = WULT_OPTK_HELP }
#define WULT_OPT_END()	{ .kind = WULT_OPTK_END }

/* A command's table and the text around its list in the usage. */
struct wult_optset {
	const char *head;		/* "usage: wult CMD ...", up to the list */
	const struct wult_opt *opts;	/* ends with WULT_OPT_END() */
	const char *tail;		/* after the list */
	int col;			/* where help starts */
};

/* The options' values in a string, for a number in a help text. */
#define WULT_OPT_STR_(x)	#x
#define WULT_OPT_STR(x)		WULT_OPT_STR_(x)

enum {
	WULT_OPTS_FAILED = -2,	/* an option's value refused (its callback said why) */
	WULT_OPTS_USAGE = -1,	/* an unknown option or a missing value: getopt said */
	WULT_OPTS_HELP = 1,	/* --help: the usage is on stdout */
};

/*
 * Parses @argv's options by @set with getopt_long() (its messages, its
 * permutation: operands from optind on, as it leaves them). 0, or one of
 * WULT_OPTS_*; -ENOMEM when out of memory (said).
 */
int wult_opts_parse(const struct wult_optset *set, int argc, char **argv, void *ctx);

/*
 * wult_opts_parse() as a command starts: the usage also on stderr after a
 * usage error. 0 to go on; WULT_OPTS_HELP after --help (the command is
 * done, successfully); < 0 after an error, said.
 */
int wult_opts_start(const struct wult_optset *set, int argc, char **argv, void *ctx);

/* The usage text of @set into @f. */
void wult_opts_usage(const struct wult_optset *set, FILE *f);

#endif
