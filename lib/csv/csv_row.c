// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV reader's rows (internal/csv_read.h): the header's columns as
 * metrics, and each line's values, parsed and scaled where they stand.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal/csv_read.h"
#include "internal/csvnum.h"

/* Splits r->line in place into r->fields; the count or -1. */
static int split(struct wult_csv_reader *r)
{
	char *p = r->line;
	int n = 0;

	while (p) {
		if (n == MAX_COLS) {
			csv_rerr(r, "more than %d fields", MAX_COLS);
			return -1;
		}
		if (csv_cut_field(r, &p, n + 1, &r->fields[n]))
			return -1;
		n++;
	}
	return n;
}

int csv_read_header(struct wult_csv_reader *r)
{
	const struct wult_metric_desc *d;
	int i, ret, known = 0;
	size_t len;

	ret = csv_read_line(r, r->line, &len);
	if (ret < 0)
		return -EINVAL;
	if (!ret || !r->line[0]) {
		snprintf(r->err, sizeof(r->err), "%s: empty file, expected a header line",
			 r->name);
		return -EINVAL;
	}
	r->ncols = split(r);
	if (r->ncols < 0)
		return -EINVAL;
	for (i = 0; i < r->ncols; i++) {
		int m = wult_metric_lookup(r->fields[i], strlen(r->fields[i]));
		int j;

		for (j = 0; j < i; j++) {
			if (!strcmp(r->fields[i], r->fields[j])) {
				csv_rerr(r, "column '%s' appears twice", r->fields[i]);
				return -EINVAL;
			}
		}
		r->col2metric[i] = m;
		d = m >= 0 ? wult_metric_desc(m) : NULL;
		r->col_str[i] = d && d->type == WULT_VAL_STR;
		r->col_exp[i] = d && d->is_time && d->csv_scale == 1e3 && r->times_in_us ? 3 : 0;
		/* Our absolute stamps are ns; intel wult has its own LTime etc. */
		if (m >= 0 && m != WULT_M_SCALED)
			known++;
	}
	if (!known) {
		csv_rerr(r, "no known column in the header (expected WakeLatency, ...)");
		return -EINVAL;
	}
	return 0;
}

/*
 * Parses @s scaled by 10^@exp10 in one correctly rounded strtod() call, so
 * that "1.007" us becomes exactly 1007 ns (1.007 * 1e3 would not).
 */
static double strtod_scaled(const char *s, int exp10, char **end)
{
	char buf[128];
	const char *e;
	long ex = 0;
	size_t ml;

	if (!exp10)
		return strtod(s, end);
	e = strpbrk(s, "eE");
	ml = e ? (size_t)(e - s) : strlen(s);
	if (e) {
		char *ee;

		ex = strtol(e + 1, &ee, 10);
		if (*ee || ee == e + 1 || ex > 100000 || ex < -100000) {
			*end = (char *)s;
			return 0;
		}
	}
	if (ml > 100 || strpbrk(s, "xXpP") || !ml) {
		*end = (char *)s;	/* hex or absurd: not a CSV number */
		return 0;
	}
	snprintf(buf, sizeof(buf), "%.*se%ld", (int)ml, s, ex + exp10);
	{
		char *bend;
		double v = strtod(buf, &bend);

		/* Map the end back onto @s for the caller's check. */
		*end = *bend ? (char *)s : (char *)s + strlen(s);
		return v;
	}
}

static int parse_num(struct wult_csv_reader *r, int col, const char *s, int exp10,
		     double *out)
{
	char *end;

	if (!*s) {
		*out = NAN;
		return 0;
	}
	if (!strcasecmp(s, "true") || !strcasecmp(s, "false")) {
		*out = !strcasecmp(s, "true");	/* pandas writes bools so */
		return 0;
	}
	errno = 0;
	*out = strtod_scaled(s, exp10, &end);
	if (*end || errno == ERANGE || end == s || isinf(*out) || isnan(*out)) {
		csv_rerr(r, "column '%s': '%.40s' is not a number",
		     wult_metric_desc(r->col2metric[col])->name, s);
		return -1;
	}
	return 0;
}

/*
 * One field of a row into @slots (one per header column): the plain
 * decimals of a numeric column are parsed where they stand, everything
 * else is cut out first. *@pp and the return value as csv_cut_field(); a bad
 * value sets *@bad (r->err says why).
 */
static int row_field(struct wult_csv_reader *r, char **pp, int n, union slot *slots,
		     int *bad)
{
	int m = n < r->ncols ? r->col2metric[n] : -1;
	const char *end;
	char *field;
	double v;

	if (m >= 0 && !r->col_str[n] && **pp != '"') {
		end = wult_csvnum_parse(*pp, r->col_exp[n], &slots[n].num);
		if (end && (*end == ',' || !*end)) {
			*pp = *end ? (char *)end + 1 : NULL;
			return 0;
		}
	}
	if (csv_cut_field(r, pp, n + 1, &field))
		return -1;
	if (m < 0)
		return 0;
	if (r->col_str[n])
		slots[n].str = field;
	else if (*bad || parse_num(r, n, field, r->col_exp[n], &v))
		*bad = 1;	/* the first bad value's reason stays in r->err */
	else
		slots[n].num = v;
	return 0;
}

/* A line (not blank) into @slots: 0, or -1 with r->err set. The field
 * count is checked before a value's error is reported, so a short row
 * says so. */
int csv_parse_row(struct wult_csv_reader *r, char *line, union slot *slots)
{
	int n = 0, bad = 0;
	char *p;

	for (p = line; p; n++) {
		if (n == MAX_COLS) {
			csv_rerr(r, "more than %d fields", MAX_COLS);
			return -1;
		}
		if (row_field(r, &p, n, slots, &bad))
			return -1;
	}
	if (n != r->ncols) {
		csv_rerr(r, "%d fields, but the header has %d", n, r->ncols);
		return -1;
	}
	return bad ? -1 : 0;
}
