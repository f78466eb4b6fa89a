// SPDX-License-Identifier: GPL-2.0
/*
 * The recorded system's description in wult report: parsed from the
 * input's feature (wult/sysdesc.h), shown by --info, and compared across
 * the inputs of a diff, so two results say which settings they differ in.
 * The JSON and HTML views read the same parsed description.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_view.h"

int rpt_sysinfo_parse(struct rpt_meta *m, const char *text)
{
	char err[256];
	int ret;

	if (!text)
		return 0;
	ret = wult_sysdesc_parse(text, strlen(text), &m->sysdesc, err, sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		m->sysdesc_err = strdup(err);
		return m->sysdesc_err ? 0 : -ENOMEM;
	}
	return 0;
}

/* The widest key of @sd, for aligned columns. */
static int key_width(const struct wult_sysdesc *sd)
{
	unsigned int i;
	const char *k, *v;
	int w = 0;

	for (i = 0; !wult_sysdesc_entry(sd, i, &k, &v); i++)
		if ((int)strlen(k) > w)
			w = strlen(k);
	return w;
}

void rpt_sysinfo_print(FILE *out, struct rpt_file *const *files, unsigned int nfiles)
{
	unsigned int j, i;
	const char *k, *v;

	for (j = 0; j < nfiles; j++) {
		const struct rpt_meta *m = &files[j]->meta;
		int w;

		fprintf(out, "%s%s: ", j ? "\n" : "", files[j]->path);
		if (m->sysdesc_err) {
			fprintf(out, "the system description is unreadable: %s\n", m->sysdesc_err);
			continue;
		}
		if (!m->sysdesc) {
			fprintf(out, "no system description (%s)\n", m->kind && !strcmp(m->kind,
				"intel wult") ? "an intel wult result" :
				"recorded by a wult before the descriptions, or not by wult record");
			continue;
		}
		fprintf(out, "system description%s\n", wult_sysdesc_get(m->sysdesc, "synthetic") ?
			" (synthetic: not of a real machine)" : "");
		w = key_width(m->sysdesc);
		for (i = 0; !wult_sysdesc_entry(m->sysdesc, i, &k, &v); i++)
			fprintf(out, "  %-*s  %s\n", w, k, v);
	}
	if (nfiles > 1)
		rpt_sysinfo_print_diff(out, files, nfiles);
}

/* The union of the inputs' keys, each once, in the order met. */
static const char **key_union(struct rpt_file *const *files, unsigned int nfiles,
			      unsigned int *n)
{
	unsigned int j, i, c, total = 0;
	const char **keys, *k, *v;

	for (j = 0; j < nfiles; j++)
		total += wult_sysdesc_nr(files[j]->meta.sysdesc);
	keys = calloc(total ? total : 1, sizeof(*keys));
	*n = 0;
	if (!keys)
		return NULL;
	for (j = 0; j < nfiles; j++) {
		const struct wult_sysdesc *sd = files[j]->meta.sysdesc;

		for (i = 0; !wult_sysdesc_entry(sd, i, &k, &v); i++) {
			int seen = 0;

			/* An earlier input has the key: it is already listed. */
			for (c = 0; c < j && !seen; c++)
				seen = !!wult_sysdesc_get(files[c]->meta.sysdesc, k);
			if (!seen)
				keys[(*n)++] = k;
		}
	}
	return keys;
}

unsigned int rpt_sysinfo_diff(struct rpt_file *const *files, unsigned int nfiles,
			      void (*fn)(const char *key, const char *const *vals, void *ctx),
			      void *ctx)
{
	const char **vals = calloc(nfiles, sizeof(*vals));
	unsigned int nkeys, i, j, ndiff = 0, nwith = 0;
	const char **keys = key_union(files, nfiles, &nkeys);

	for (j = 0; j < nfiles; j++)
		nwith += files[j]->meta.sysdesc != NULL;
	for (i = 0; keys && vals && nwith > 1 && i < nkeys; i++) {
		int differ = 0;
		const char *first = NULL;
		int have_first = 0;

		for (j = 0; j < nfiles; j++) {
			const struct wult_sysdesc *sd = files[j]->meta.sysdesc;

			vals[j] = sd ? wult_sysdesc_get(sd, keys[i]) : NULL;
			if (!sd)
				continue;
			if (!have_first) {
				first = vals[j];
				have_first = 1;
			} else if (!first != !vals[j] || (first && strcmp(first, vals[j]))) {
				differ = 1;
			}
		}
		if (differ) {
			ndiff++;
			if (fn)
				fn(keys[i], vals, ctx);
		}
	}
	free(keys);
	free(vals);
	return ndiff;
}

struct diff_ctx {
	FILE *out;
	unsigned int nfiles;
	int w;
};

static void print_row(const char *key, const char *const *vals, void *ctx)
{
	struct diff_ctx *c = ctx;
	unsigned int j;

	fprintf(c->out, "  %-*s  ", c->w, key);
	for (j = 0; j < c->nfiles; j++)
		fprintf(c->out, "%s%s", j ? " | " : "", vals[j] ? vals[j] : "-");
	fputc('\n', c->out);
}

static void width_row(const char *key, const char *const *vals, void *ctx)
{
	struct diff_ctx *c = ctx;

	(void)vals;
	if ((int)strlen(key) > c->w)
		c->w = strlen(key);
}

void rpt_sysinfo_print_diff(FILE *out, struct rpt_file *const *files, unsigned int nfiles)
{
	struct diff_ctx c = { out, nfiles, 0 };
	unsigned int j, nwith = 0;

	for (j = 0; j < nfiles; j++)
		nwith += files[j]->meta.sysdesc != NULL;
	if (nwith < 2 || !rpt_sysinfo_diff(files, nfiles, width_row, &c))
		return;
	fprintf(out, "\nSystem settings that differ (values in input order");
	for (j = 0; j < nfiles; j++)
		if (!files[j]->meta.sysdesc)
			fprintf(out, "; %s has no description: '-'", files[j]->path);
	fprintf(out, ", '-': not in that input):\n");
	rpt_sysinfo_diff(files, nfiles, print_row, &c);
}
