// SPDX-License-Identifier: GPL-2.0
/*
 * A sweep's manifest, sweep.json (wult/sweep.h): written by wult sweep
 * after every point, read by wult report DIR. The reader takes any JSON
 * (RFC 8259) into a small tree and then looks for the keys it knows,
 * ignoring the others, so that later writers may add keys.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wult/args.h>
#include <wult/sweep.h>

#include "internal/err.h"
#include "internal/sweep.h"

#define MF_MAX_SIZE	(16 << 20)	/* a manifest of WULT_SWEEP_MAX_POINTS is < 4 MB */
#define MF_MAX_DEPTH	16

/* ---- writing ---- */

static void put_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_doc(FILE *f, const struct wult_sweep *s)
{
	const char *argv[2 * WULT_SWEEP_NR_AXES];
	unsigned int i, v, p, n;

	fprintf(f, "{\n  \"wult_sweep\": %d,\n  \"host\": ", WULT_SWEEP_FORMAT);
	put_str(f, s->host);
	fputs(",\n  \"record_options\": [", f);
	for (i = 0; i < s->nropts; i++) {
		fputs(i ? ", " : "", f);
		put_str(f, s->ropts[i]);
	}
	fputs("],\n  \"axes\": [", f);
	for (i = 0; i < s->nax; i++) {
		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		put_str(f, wult_sweep_axis_name(s->ax[i].id));
		fputs(", \"option\": ", f);
		put_str(f, wult_sweep_axis_option(s->ax[i].id));
		fputs(", \"values\": [", f);
		for (v = 0; v < s->ax[i].n; v++) {
			fputs(v ? ", " : "", f);
			put_str(f, s->ax[i].v[v].text);
		}
		fputs("]}", f);
	}
	fputs("\n  ],\n  \"points\": [", f);
	for (p = 0; p < s->npt; p++) {
		const struct sw_point *pt = &s->pt[p];

		fprintf(f, "%s\n    {\"moniker\": ", p ? "," : "");
		put_str(f, pt->moniker);
		fputs(", \"file\": ", f);
		put_str(f, pt->file);
		fputs(",\n     \"settings\": {", f);
		for (i = 0; i < s->nax; i++) {
			fputs(i ? ", " : "", f);
			put_str(f, wult_sweep_axis_name(s->ax[i].id));
			fputs(": ", f);
			put_str(f, s->ax[i].v[pt->vi[i]].text);
		}
		fputs("},\n     \"record\": [", f);
		n = wult_sweep_point_args(s, p, argv, 2 * WULT_SWEEP_NR_AXES);
		for (i = 0; i < n; i++) {
			fputs(i ? ", " : "", f);
			put_str(f, argv[i]);
		}
		fputs("],\n     \"status\": ", f);
		put_str(f, wult_sweep_status_name(pt->status));
		if (pt->status == WULT_SWEEP_PENDING)
			;
		else if (pt->code < 0)
			fprintf(f, ", \"signal\": %d", -pt->code);
		else
			fprintf(f, ", \"exit_status\": %d", pt->code);
		fputs("}", f);
	}
	fputs("\n  ]\n}\n", f);
}

int wult_sweep_write(const struct wult_sweep *s, const char *path, char *err, size_t errlen)
{
	size_t n = strlen(path) + 5;
	char *tmp = malloc(n);
	FILE *f;
	int ret = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, n, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		ret = wult_err_set(err, errlen, -errno, "cannot write %s: %s", tmp,
				   strerror(errno));
		free(tmp);
		return ret;
	}
	put_doc(f, s);
	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		ret = wult_err_set(err, errlen, -EIO, "write error on %s: %s", tmp,
				   strerror(errno));
	if (fclose(f) && !ret)
		ret = wult_err_set(err, errlen, -EIO, "write error on %s: %s", tmp,
				   strerror(errno));
	if (!ret && rename(tmp, path))
		ret = wult_err_set(err, errlen, -errno, "cannot rename %s to %s: %s", tmp, path,
				   strerror(errno));
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* ---- reading: JSON into a tree ---- */

enum jt { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jt t;
	double num;
	char *str;		/* J_STR */
	struct jv *item;	/* J_ARR, J_OBJ */
	char **key;		/* J_OBJ */
	unsigned int n;
};

struct jp {
	const char *p, *start, *end;
	char *err;
	size_t errlen;
	int depth;
};

static void jv_free(struct jv *v)
{
	unsigned int i;

	for (i = 0; i < v->n; i++) {
		jv_free(&v->item[i]);
		if (v->key)
			free(v->key[i]);
	}
	free(v->item);
	free(v->key);
	free(v->str);
}

static int jerr(struct jp *j, const char *what)
{
	return wult_err_set(j->err, j->errlen, -EINVAL, "byte %ld: %s",
			    (long)(j->p - j->start) + 1, what);
}

static void ws(struct jp *j)
{
	while (j->p < j->end && strchr(" \t\r\n", *j->p) && *j->p)
		j->p++;
}

static int hex4(const char *p, unsigned int *u)
{
	unsigned int i, d;

	for (*u = 0, i = 0; i < 4; i++) {
		char c = p[i];

		d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		    c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
		if (d == 16)
			return -1;
		*u = *u * 16 + d;
	}
	return 0;
}

/* A string at j->p (its opening quote) into a new *@out, UTF-8. */
static int jstr(struct jp *j, char **out)
{
	const char *p = j->p + 1;
	size_t n = 0, cap = 16;
	char *s = malloc(cap);
	unsigned int u, lo;

	if (!s)
		return -ENOMEM;
	for (;;) {
		if (p >= j->end) {
			free(s);
			return jerr(j, "a string without its closing quote");
		}
		if (n + 5 > cap) {
			char *ns = realloc(s, cap *= 2);

			if (!ns) {
				free(s);
				return -ENOMEM;
			}
			s = ns;
		}
		if (*p == '"')
			break;
		if ((unsigned char)*p < 0x20) {
			free(s);
			j->p = p;
			return jerr(j, "a control character in a string");
		}
		if (*p != '\\') {
			s[n++] = *p++;
			continue;
		}
		if (++p >= j->end) {
			free(s);
			return jerr(j, "a string without its closing quote");
		}
		switch (*p) {
		case '"': case '\\': case '/':
			s[n++] = *p++;
			continue;
		case 'b': s[n++] = '\b'; p++; continue;
		case 'f': s[n++] = '\f'; p++; continue;
		case 'n': s[n++] = '\n'; p++; continue;
		case 'r': s[n++] = '\r'; p++; continue;
		case 't': s[n++] = '\t'; p++; continue;
		case 'u':
			break;
		default:
			free(s);
			j->p = p;
			return jerr(j, "an unknown escape in a string");
		}
		if (p + 5 > j->end || hex4(p + 1, &u)) {
			free(s);
			j->p = p;
			return jerr(j, "a bad \\u escape");
		}
		p += 5;
		if (u >= 0xd800 && u < 0xdc00) {
			if (p + 6 > j->end || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &lo) ||
			    lo < 0xdc00 || lo > 0xdfff) {
				free(s);
				j->p = p;
				return jerr(j, "a lone surrogate in a \\u escape");
			}
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		} else if (u >= 0xdc00 && u < 0xe000) {
			free(s);
			j->p = p;
			return jerr(j, "a lone surrogate in a \\u escape");
		}
		if (!u) {
			free(s);
			j->p = p;
			return jerr(j, "a NUL in a string");
		}
		if (u < 0x80) {
			s[n++] = u;
		} else if (u < 0x800) {
			s[n++] = 0xc0 | (u >> 6);
			s[n++] = 0x80 | (u & 0x3f);
		} else if (u < 0x10000) {
			s[n++] = 0xe0 | (u >> 12);
			s[n++] = 0x80 | ((u >> 6) & 0x3f);
			s[n++] = 0x80 | (u & 0x3f);
		} else {
			s[n++] = 0xf0 | (u >> 18);
			s[n++] = 0x80 | ((u >> 12) & 0x3f);
			s[n++] = 0x80 | ((u >> 6) & 0x3f);
			s[n++] = 0x80 | (u & 0x3f);
		}
	}
	s[n] = '\0';
	j->p = p + 1;
	*out = s;
	return 0;
}

static int jvalue(struct jp *j, struct jv *v);

/* An array or object's members; @obj: keyed. */
static int jlist(struct jp *j, struct jv *v, int obj)
{
	char close = obj ? '}' : ']';
	int ret;

	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		if (v->n % 16 == 0) {
			struct jv *ni = realloc(v->item, (v->n + 16) * sizeof(*ni));

			if (!ni)
				return -ENOMEM;
			v->item = ni;
			if (obj) {
				char **nk = realloc(v->key, (v->n + 16) * sizeof(*nk));

				if (!nk)
					return -ENOMEM;
				v->key = nk;
			}
		}
		memset(&v->item[v->n], 0, sizeof(v->item[v->n]));
		if (obj) {
			ws(j);
			if (j->p >= j->end || *j->p != '"')
				return jerr(j, "an object key is not a string");
			v->key[v->n] = NULL;
			ret = jstr(j, &v->key[v->n]);
			if (ret)
				return ret;
			v->n++;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return jerr(j, "no ':' after an object key");
			j->p++;
			ret = jvalue(j, &v->item[v->n - 1]);
		} else {
			v->n++;
			ret = jvalue(j, &v->item[v->n - 1]);
		}
		if (ret)
			return ret;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		return jerr(j, obj ? "no ',' or '}' after an object member" :
			    "no ',' or ']' after an array item");
	}
}

static int jvalue(struct jp *j, struct jv *v)
{
	size_t len;
	char *end;
	int ret;

	ws(j);
	if (j->p >= j->end)
		return jerr(j, "a value is missing");
	switch (*j->p) {
	case '{': case '[':
		if (++j->depth > MF_MAX_DEPTH)
			return jerr(j, "nested too deep");
		v->t = *j->p == '{' ? J_OBJ : J_ARR;
		ret = jlist(j, v, v->t == J_OBJ);
		j->depth--;
		return ret;
	case '"':
		v->t = J_STR;
		return jstr(j, &v->str);
	}
	len = j->end - j->p;
	if (len >= 4 && !strncmp(j->p, "null", 4)) {
		v->t = J_NULL;
		j->p += 4;
	} else if (len >= 4 && !strncmp(j->p, "true", 4)) {
		v->t = J_BOOL;
		v->num = 1;
		j->p += 4;
	} else if (len >= 5 && !strncmp(j->p, "false", 5)) {
		v->t = J_BOOL;
		j->p += 5;
	} else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
		/* JSON's number syntax (no hex, inf or nan); the buffer ends in a
		 * NUL, so strtod stops inside it. */
		len = wult_number_len(j->p, 1);
		v->t = J_NUM;
		v->num = strtod(j->p, &end);
		if (!len || end != j->p + len)
			return jerr(j, "a bad number");
		j->p = end;
	} else {
		return jerr(j, "not a JSON value");
	}
	return 0;
}

/* Member @key of object @o, or NULL. */
static const struct jv *jget(const struct jv *o, const char *key)
{
	unsigned int i;

	if (o->t != J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->key[i], key))
			return &o->item[i];
	return NULL;
}

static const char *jget_str(const struct jv *o, const char *key)
{
	const struct jv *v = jget(o, key);

	return v && v->t == J_STR ? v->str : NULL;
}

/* ---- reading: the tree into a sweep ---- */

static int read_axes(struct wult_sweep *s, const struct jv *axes, char *err, size_t errlen)
{
	unsigned int i, v;
	int a, ret;

	if (!axes || axes->t != J_ARR || !axes->n || axes->n > WULT_SWEEP_NR_AXES)
		return wult_err_set(err, errlen, -EINVAL, "no \"axes\" array of 1-%d axes",
				    WULT_SWEEP_NR_AXES);
	for (i = 0; i < axes->n; i++) {
		const struct jv *ax = &axes->item[i], *vals = jget(ax, "values");
		const char *name = jget_str(ax, "name");
		struct sw_axis *sa = &s->ax[s->nax];

		a = name ? wult_sweep_axis_lookup(name, strlen(name)) : -1;
		if (a < 0 || !vals || vals->t != J_ARR || !vals->n)
			return wult_err_set(err, errlen, -EINVAL, "axis %u: no known \"name\" "
					    "or no \"values\"", i + 1);
		for (v = 0; v < s->nax; v++)
			if ((int)s->ax[v].id == a)
				return wult_err_set(err, errlen, -EINVAL, "axis %s twice", name);
		memset(sa, 0, sizeof(*sa));
		sa->id = a;
		sa->v = calloc(vals->n, sizeof(*sa->v));
		if (!sa->v)
			return -ENOMEM;
		s->nax++;
		for (v = 0; v < vals->n; v++) {
			if (vals->item[v].t != J_STR)
				return wult_err_set(err, errlen, -EINVAL, "axis %s: value %u is "
						    "not a string", name, v + 1);
			sa->v[v].text = strdup(vals->item[v].str);
			if (!sa->v[v].text)
				return -ENOMEM;
			sa->n++;
			ret = sw_value_arg(a, sa->v[v].text, &sa->v[v].arg, err, errlen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int read_point(struct wult_sweep *s, struct sw_point *pt, const struct jv *jp,
		      unsigned int idx, char *err, size_t errlen)
{
	const struct jv *set = jget(jp, "settings"), *code;
	const char *m = jget_str(jp, "moniker"), *file = jget_str(jp, "file");
	const char *st = jget_str(jp, "status"), *val;
	unsigned int i, v;
	int status;

	if (!m || !file || !set || set->t != J_OBJ)
		return wult_err_set(err, errlen, -EINVAL, "point %u: no \"moniker\", \"file\" "
				    "or \"settings\"", idx + 1);
	/* A file name in the sweep's directory, never a path out of it. */
	if (!*file || strchr(file, '/') || !strcmp(file, ".") || !strcmp(file, ".."))
		return wult_err_set(err, errlen, -EINVAL, "point %s: \"file\" is not a file "
				    "name of the directory", m);
	status = st ? sw_status_lookup(st) : -1;
	if (status < 0)
		return wult_err_set(err, errlen, -EINVAL, "point %s: no known \"status\"", m);
	pt->moniker = strdup(m);
	pt->file = strdup(file);
	pt->vi = calloc(s->nax, sizeof(*pt->vi));
	if (!pt->moniker || !pt->file || !pt->vi)
		return -ENOMEM;
	pt->status = status;
	code = jget(jp, "signal");
	if (code && code->t == J_NUM)
		pt->code = -(int)code->num;
	code = jget(jp, "exit_status");
	if (code && code->t == J_NUM)
		pt->code = (int)code->num;
	for (i = 0; i < s->nax; i++) {
		val = jget_str(set, wult_sweep_axis_name(s->ax[i].id));
		for (v = 0; val && v < s->ax[i].n; v++)
			if (!strcmp(s->ax[i].v[v].text, val))
				break;
		if (!val || v == s->ax[i].n)
			return wult_err_set(err, errlen, -EINVAL, "point %s: its %s is %s%s%s, "
					    "not one of the axis's values", m,
					    wult_sweep_axis_name(s->ax[i].id), val ? "'" : "",
					    val ? val : "missing", val ? "'" : "");
		pt->vi[i] = v;
	}
	return 0;
}

static int read_doc(struct wult_sweep *s, const struct jv *doc, char *err, size_t errlen)
{
	const struct jv *fmt = jget(doc, "wult_sweep"), *pts = jget(doc, "points");
	const struct jv *ro = jget(doc, "record_options");
	const char *host = jget_str(doc, "host");
	unsigned int i;
	int ret;

	if (!fmt || fmt->t != J_NUM)
		return wult_err_set(err, errlen, -EINVAL, "not a wult sweep manifest (no "
				    "\"wult_sweep\" key)");
	if (fmt->num != WULT_SWEEP_FORMAT)
		return wult_err_set(err, errlen, -EINVAL, "manifest format %g, this wult reads "
				    "%d", fmt->num, WULT_SWEEP_FORMAT);
	ret = read_axes(s, jget(doc, "axes"), err, errlen);
	if (ret)
		return ret;
	if (host && !(s->host = strdup(host)))
		return -ENOMEM;
	if (ro && ro->t == J_ARR) {
		s->ropts = calloc(ro->n + 1, sizeof(*s->ropts));
		if (!s->ropts)
			return -ENOMEM;
		for (i = 0; i < ro->n; i++)
			if (ro->item[i].t == J_STR) {
				s->ropts[s->nropts] = strdup(ro->item[i].str);
				if (!s->ropts[s->nropts++])
					return -ENOMEM;
			}
	}
	if (!pts || pts->t != J_ARR || !pts->n || pts->n > WULT_SWEEP_MAX_POINTS)
		return wult_err_set(err, errlen, -EINVAL, "no \"points\" array of 1-%d points",
				    WULT_SWEEP_MAX_POINTS);
	s->pt = calloc(pts->n, sizeof(*s->pt));
	if (!s->pt)
		return -ENOMEM;
	for (i = 0; i < pts->n; i++) {
		s->npt++;
		ret = read_point(s, &s->pt[i], &pts->item[i], i, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* @path's content, NUL-terminated, into a new *@buf of *@len bytes. */
static int slurp(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	ssize_t r;
	size_t n = 0;
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0)
		return wult_err_set(err, errlen, -errno, "cannot open %s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MF_MAX_SIZE) {
		ret = wult_err_set(err, errlen, -EINVAL, "%s: not a regular file of at most "
				   "%d bytes", path, MF_MAX_SIZE);
		close(fd);
		return ret;
	}
	*buf = malloc(st.st_size + 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	while (n < (size_t)st.st_size && (r = read(fd, *buf + n, st.st_size - n)) > 0)
		n += r;
	close(fd);
	(*buf)[n] = '\0';
	*len = n;
	return 0;
}

int wult_sweep_read(const char *path, struct wult_sweep **out, char *err, size_t errlen)
{
	struct jv doc = { .t = J_NULL };
	struct wult_sweep *s;
	struct jp j = { .err = err, .errlen = errlen };
	char *buf = NULL, e[256];
	size_t len = 0;
	int ret;

	*out = NULL;
	ret = slurp(path, &buf, &len, err, errlen);
	if (ret)
		return ret;
	if (strlen(buf) != len) {
		free(buf);
		return wult_err_set(err, errlen, -EINVAL, "%s: a NUL byte: not JSON", path);
	}
	j.p = j.start = buf;
	j.end = buf + len;
	j.err = e;
	j.errlen = sizeof(e);
	ret = jvalue(&j, &doc);
	if (!ret) {
		ws(&j);
		if (j.p != j.end)
			ret = jerr(&j, "more after the document");
	}
	if (ret) {
		if (ret == -EINVAL)
			wult_err_set(err, errlen, ret, "%s: not JSON: %s", path, e);
		jv_free(&doc);
		free(buf);
		return ret;
	}
	ret = wult_sweep_new(&s);
	if (!ret)
		ret = read_doc(s, &doc, e, sizeof(e));
	if (ret) {
		if (ret == -EINVAL)
			wult_err_set(err, errlen, ret, "%s: %s", path, e);
		wult_sweep_free(s);
		s = NULL;
	}
	jv_free(&doc);
	free(buf);
	*out = s;
	return ret;
}
