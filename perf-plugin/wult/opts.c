// SPDX-License-Identifier: GPL-2.0
/*
 * A command's option table (opts.h) turned into getopt_long()'s short
 * string and long options, and into the usage text's list. getopt_long()
 * stays underneath so that option syntax and its messages are the C
 * library's, as they always were for these commands.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define WULT_OPTS_WIDTH	80	/* columns of the usage text */
#define WULT_OPTS_LONG	256	/* getopt's value of entry i's long form: 256 + i */

/* One help line from column @at (the head's end, 0 for a new line), wrapped
 * at spaces to the width. */
static void put_line(FILE *f, const char *p, size_t len, int col, int at)
{
	size_t width = WULT_OPTS_WIDTH - col, n;

	do {
		n = len;
		if (n > width) {
			for (n = width; n > 0 && p[n] != ' '; n--)
				;
			if (!n)		/* one word wider than the column: whole */
				n = strcspn(p, " ") < len ? strcspn(p, " ") : len;
		}
		if (at > col - 2)
			fputs("  ", f);
		else
			fprintf(f, "%*s", col - at, "");
		fprintf(f, "%.*s\n", (int)n, p);
		at = 0;
		while (n < len && p[n] == ' ')
			n++;
		p += n;
		len -= n;
	} while (len);
}

static void put_opt(FILE *f, const struct wult_opt *o, int col)
{
	const char *p = o->help;
	int at;
	size_t len;

	if (o->key && o->name)
		at = fprintf(f, "  -%c, --%s", o->key, o->name);
	else if (o->name)
		at = fprintf(f, "      --%s", o->name);
	else
		at = fprintf(f, "  -%c", o->key);
	if (o->argname)
		at += fprintf(f, o->arg == WULT_OPT_OPTIONAL ? "[=%s]" : " %s", o->argname);
	if (*p == '\n') {	/* the help below the head */
		fputc('\n', f);
		at = 0;
		p++;
	}
	for (;;) {
		len = strcspn(p, "\n");
		put_line(f, p, len, col, at);
		at = 0;
		if (!p[len] || !p[len + 1])
			break;
		p += len + 1;
	}
}

void wult_opts_usage(const struct wult_optset *set, FILE *f)
{
	const struct wult_opt *o;

	fputs(set->head, f);
	for (o = set->opts; o->kind != WULT_OPTK_END; o++)
		if (o->help)
			put_opt(f, o, set->col);
	fputs(set->tail, f);
}

static size_t count_opts(const struct wult_opt *opts)
{
	size_t n = 0;

	while (opts[n].kind != WULT_OPTK_END)
		n++;
	return n;
}

/* Whether two entries do the same (an old name and its new one). */
static int same_action(const struct wult_opt *a, const struct wult_opt *b)
{
	return a->kind == b->kind && a->arg == b->arg && a->flag == b->flag && a->str == b->str &&
	       a->fn == b->fn && a->data == b->data;
}

/*
 * The value getopt_long() returns for entry @i's long name. An unlisted
 * entry doing what an earlier one does is an old name of it: both get the
 * same value, so that glibc takes an abbreviation of both (--cp of --cpu
 * and --cpus) for one option rather than an ambiguous one, as it did.
 */
static int long_val(const struct wult_opt *opts, size_t i)
{
	size_t j;

	for (j = 0; !opts[i].help && j < i; j++)
		if (opts[j].name && same_action(&opts[j], &opts[i]))
			return WULT_OPTS_LONG + (int)j;
	return WULT_OPTS_LONG + (int)i;
}

/* getopt_long()'s arguments for @opts (@n entries), and @map: the entry
 * of each long option. 0 or -ENOMEM. */
static int make_getopt(const struct wult_opt *opts, size_t n, char **shortsp,
		       struct option **longsp, size_t **mapp)
{
	struct option *longs = calloc(n + 1, sizeof(*longs));
	char *shorts = malloc(3 * n + 1), *s = shorts;
	size_t *map = calloc(n + 1, sizeof(*map));
	size_t i, j = 0;

	if (!longs || !shorts || !map) {
		free(longs);
		free(shorts);
		free(map);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (opts[i].key) {
			*s++ = (char)opts[i].key;
			if (opts[i].arg != WULT_OPT_NOARG)
				*s++ = ':';
			if (opts[i].arg == WULT_OPT_OPTIONAL)
				*s++ = ':';
		}
		if (opts[i].name) {
			map[j] = i;
			longs[j++] = (struct option){ opts[i].name, opts[i].arg, NULL,
						      long_val(opts, i) };
		}
	}
	*s = '\0';
	*shortsp = shorts;
	*longsp = longs;
	*mapp = map;
	return 0;
}

/* The entry getopt_long() returned @c for (@li: the long option's index),
 * or NULL. The name given, not the first of its synonyms: messages say
 * what the user typed. */
static const struct wult_opt *find_opt(const struct wult_opt *opts, size_t n,
				       const size_t *map, int c, int li)
{
	size_t i;

	if (c >= WULT_OPTS_LONG)
		return &opts[map[li]];
	for (i = 0; i < n; i++)
		if (opts[i].key == c)
			return &opts[i];
	return NULL;
}

/* One option: 0 or a WULT_OPTS_* status. */
static int apply_opt(const struct wult_optset *set, const struct wult_opt *o, char *arg,
		     void *ctx)
{
	switch (o->kind) {
	case WULT_OPTK_FLAG:
		*o->flag = 1;
		return 0;
	case WULT_OPTK_STRING:
		*o->str = arg;
		return 0;
	case WULT_OPTK_CALLBACK:
		return o->fn(o, arg, ctx) ? WULT_OPTS_FAILED : 0;
	case WULT_OPTK_HELP:
		wult_opts_usage(set, stdout);
		return WULT_OPTS_HELP;
	default:
		return WULT_OPTS_USAGE;
	}
}

int wult_opts_parse(const struct wult_optset *set, int argc, char **argv, void *ctx)
{
	size_t n = count_opts(set->opts);
	const struct wult_opt *o;
	struct option *longs;
	size_t *map;
	char *shorts;
	int c, li, ret = 0;

	if (make_getopt(set->opts, n, &shorts, &longs, &map)) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return -ENOMEM;
	}
	optind = 1;
	while (!ret && (c = getopt_long(argc, argv, shorts, longs, &li)) != -1) {
		o = find_opt(set->opts, n, map, c, li);
		ret = o ? apply_opt(set, o, optarg, ctx) : WULT_OPTS_USAGE;
	}
	free(shorts);
	free(longs);
	free(map);
	return ret;
}

int wult_opts_start(const struct wult_optset *set, int argc, char **argv, void *ctx)
{
	int ret = wult_opts_parse(set, argc, argv, ctx);

	if (ret == WULT_OPTS_USAGE)
		wult_opts_usage(set, stderr);
	return ret;
}
