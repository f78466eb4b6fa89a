// SPDX-License-Identifier: GPL-2.0
/*
 * The system description's model and text form (wult/sysdesc.h). Entries
 * stay in the order they were set, so a description reads as written
 * (CPU, then kernel, then idle states); lookups are linear, as a
 * description holds tens to hundreds of entries, and the parser caps them.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/sysdesc.h>
#include "internal/err.h"

#define KEY_MAX	127

struct sd_entry {
	char *key, *value;
};

struct wult_sysdesc {
	struct sd_entry *e;
	unsigned int n, cap;
};

int wult_sysdesc_new(struct wult_sysdesc **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void wult_sysdesc_free(struct wult_sysdesc *sd)
{
	unsigned int i;

	if (!sd)
		return;
	for (i = 0; i < sd->n; i++) {
		free(sd->e[i].key);
		free(sd->e[i].value);
	}
	free(sd->e);
	free(sd);
}

static int key_ok(const char *k, size_t n)
{
	size_t i;

	if (!n || n > KEY_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
		      (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '.' || k[i] == '-'))
			return 0;
	return 1;
}

static int find(const struct wult_sysdesc *sd, const char *key)
{
	unsigned int i;

	for (i = 0; i < sd->n; i++)
		if (!strcmp(sd->e[i].key, key))
			return i;
	return -1;
}

/* Takes ownership of @value. */
static int set_owned(struct wult_sysdesc *sd, const char *key, char *value)
{
	int i = find(sd, key);

	if (i >= 0) {
		free(sd->e[i].value);
		sd->e[i].value = value;
		return 0;
	}
	if (sd->n >= WULT_SYSDESC_MAX_ENTRIES) {
		free(value);
		return -EINVAL;
	}
	if (sd->n == sd->cap) {
		unsigned int cap = sd->cap ? sd->cap * 2 : 32;
		struct sd_entry *e = realloc(sd->e, cap * sizeof(*e));

		if (!e) {
			free(value);
			return -ENOMEM;
		}
		sd->e = e;
		sd->cap = cap;
	}
	sd->e[sd->n].key = strdup(key);
	if (!sd->e[sd->n].key) {
		free(value);
		return -ENOMEM;
	}
	sd->e[sd->n++].value = value;
	return 0;
}

int wult_sysdesc_set(struct wult_sysdesc *sd, const char *key, const char *value)
{
	char *v;

	if (!sd || !key || !key_ok(key, strlen(key)))
		return -EINVAL;
	v = strdup(value ? value : "");
	if (!v)
		return -ENOMEM;
	return set_owned(sd, key, v);
}

int wult_sysdesc_setf(struct wult_sysdesc *sd, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v;
	int n;

	if (!sd || !key || !key_ok(key, strlen(key)))
		return -EINVAL;
	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	return set_owned(sd, key, v);
}

const char *wult_sysdesc_get(const struct wult_sysdesc *sd, const char *key)
{
	int i = sd && key ? find(sd, key) : -1;

	return i >= 0 ? sd->e[i].value : NULL;
}

const char *wult_sysdesc_state(const struct wult_sysdesc *sd, int cpu, unsigned int k,
			       const char *field)
{
	char key[KEY_MAX + 1];
	const char *v = NULL;

	if (cpu >= 0) {
		snprintf(key, sizeof(key), "cpu%d.state%u.%s", cpu, k, field);
		v = wult_sysdesc_get(sd, key);
	}
	if (!v) {
		snprintf(key, sizeof(key), "state%u.%s", k, field);
		v = wult_sysdesc_get(sd, key);
	}
	return v;
}

unsigned int wult_sysdesc_nr(const struct wult_sysdesc *sd)
{
	return sd ? sd->n : 0;
}

int wult_sysdesc_entry(const struct wult_sysdesc *sd, unsigned int i, const char **key,
		       const char **value)
{
	if (!sd || i >= sd->n)
		return -ERANGE;
	*key = sd->e[i].key;
	*value = sd->e[i].value;
	return 0;
}

static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

int wult_sysdesc_format(const struct wult_sysdesc *sd, char **text)
{
	size_t len;
	FILE *f;
	unsigned int i;

	*text = NULL;
	f = open_memstream(text, &len);
	if (!f)
		return -ENOMEM;
	fputs(WULT_SYSDESC_MAGIC, f);
	for (i = 0; sd && i < sd->n; i++) {
		fprintf(f, "%s=", sd->e[i].key);
		put_escaped(f, sd->e[i].value);
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescapes @n bytes of @s into a new string: 0, or -EINVAL/-ENOMEM. */
static int unescape(const char *s, size_t n, char **out)
{
	char *d = malloc(n + 1), *p = d;
	size_t i;

	if (!d)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '\\') {
			if (!s[i])
				goto bad;
			*p++ = s[i];
			continue;
		}
		if (++i >= n)
			goto bad;
		switch (s[i]) {
		case '\\': *p++ = '\\'; break;
		case 'n': *p++ = '\n'; break;
		case 't': *p++ = '\t'; break;
		case 'x':
			if (i + 2 >= n || (hi = hexval(s[i + 1])) < 0 ||
			    (lo = hexval(s[i + 2])) < 0 || !(hi || lo))
				goto bad;
			*p++ = (char)(hi * 16 + lo);
			i += 2;
			break;
		default:
			goto bad;
		}
	}
	*p = '\0';
	*out = d;
	return 0;
bad:
	free(d);
	return -EINVAL;
}

int wult_sysdesc_parse(const char *text, size_t len, struct wult_sysdesc **out,
		       char *err, size_t errlen)
{
	size_t ml = strlen(WULT_SYSDESC_MAGIC), pos;
	struct wult_sysdesc *sd;
	unsigned int line = 1;
	int ret;

	*out = NULL;
	/* A perf_header_string is padded with NULs: they end the text. */
	len = strnlen(text, len);
	if (len > WULT_SYSDESC_MAX_TEXT)
		return wult_err_set(err, errlen, -EINVAL, "system description of %zu bytes, "
				    "more than %u", len, WULT_SYSDESC_MAX_TEXT);
	if (len < ml || memcmp(text, WULT_SYSDESC_MAGIC, ml))
		return wult_err_set(err, errlen, -EINVAL, "system description: line 1 is not "
				    "\"wult-sysdesc 1\"");
	ret = wult_sysdesc_new(&sd);
	if (ret)
		return ret;
	for (pos = ml; pos < len;) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos), *eq;
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		char key[KEY_MAX + 1], *v;

		line++;
		pos += n + 1;
		if (!n)
			continue;
		eq = memchr(l, '=', n);
		if (!eq || !key_ok(l, eq - l)) {
			ret = wult_err_set(err, errlen, -EINVAL, "system description line %u: "
					   "not KEY=VALUE with a key of [A-Za-z0-9_.-]", line);
			break;
		}
		memcpy(key, l, eq - l);
		key[eq - l] = '\0';
		if (find(sd, key) >= 0) {
			ret = wult_err_set(err, errlen, -EINVAL, "system description line %u: "
					   "key %s given twice", line, key);
			break;
		}
		ret = unescape(eq + 1, n - (eq + 1 - l), &v);
		if (ret == -EINVAL) {
			wult_err_set(err, errlen, ret, "system description line %u: a bad "
				     "escape in %s's value", line, key);
			break;
		}
		ret = ret ?: set_owned(sd, key, v);
		if (ret == -EINVAL)
			wult_err_set(err, errlen, ret, "system description: more than %u "
				     "entries", WULT_SYSDESC_MAX_ENTRIES);
		if (ret)
			break;
	}
	if (ret) {
		wult_sysdesc_free(sd);
		return ret;
	}
	*out = sd;
	return 0;
}

double wult_sysdesc_num(const char *value)
{
	char *end;
	double v;

	if (!value || !*value)
		return NAN;
	v = strtod(value, &end);
	return *end ? NAN : v;
}
