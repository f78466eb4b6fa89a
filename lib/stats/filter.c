// SPDX-License-Identifier: GPL-2.0
/*
 * The filter language: a recursive-descent parser that builds a small tree
 * in one array, type-checked at compile time so evaluation never fails.
 *
 *   expr := and { ("||" | "or") and }
 *   and  := not { ("&&" | "and") not }
 *   not  := ("!" | "not") not | cmp
 *   cmp  := atom [ ("==" | "!=" | "<" | "<=" | ">" | ">=") atom ]
 *   atom := "(" expr ")" | NUMBER [unit] | STRING | METRIC
 *   unit := ns | us | ms | s           (times become ns)
 *
 * A number without a unit compared with a time metric is in microseconds,
 * intel wult's unit, so its filters keep their meaning here.
 * A bare numeric metric as a condition means "is non-zero".
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/args.h>
#include <wult/filter.h>
#include "internal/err.h"

#define MAX_NODES	1024	/* bounds the tree and the recursion depth */
#define MAX_DEPTH	200

enum node_kind { N_NUM, N_STR, N_METRIC, N_CMP, N_AND, N_OR, N_NOT, N_TRUTH };
enum cmp_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

struct node {
	enum node_kind kind;
	enum cmp_op op;
	enum wult_val_type type;
	int is_time;		/* N_NUM: written with a time unit */
	int fast;		/* N_CMP: numeric metric vs a number constant */
	int l, r;		/* child node indexes */
	unsigned int index;	/* N_METRIC */
	double num;
	char *str;
};

struct wult_filter {
	struct node *nodes;
	int n;
	int root;
	unsigned int nvals;
};

struct parser {
	const char *src, *p;
	wult_filter_resolve_fn resolve;
	void *ctx;
	struct wult_filter *f;
	int depth;
	char *err;
	size_t errlen;
	int failed;
};

static int perr(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->failed)
		return -1;
	ps->failed = 1;
	if (!ps->errlen)
		return -1;
	n = snprintf(ps->err, ps->errlen, "col %d: ", (int)(at - ps->src) + 1);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -1;
	va_start(ap, fmt);
	wult_err_vset(ps->err + n, ps->errlen - n, -1, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static int is_ident(char c)
{
	/* '%' belongs to names such as CC0% and CC1Derived%. */
	return isalnum((unsigned char)c) || c == '_' || c == '%';
}

static int new_node(struct parser *ps, enum node_kind kind)
{
	struct wult_filter *f = ps->f;

	if (f->n >= MAX_NODES)
		return perr(ps, ps->p, "expression too long");
	memset(&f->nodes[f->n], 0, sizeof(f->nodes[0]));
	f->nodes[f->n].kind = kind;
	f->nodes[f->n].l = f->nodes[f->n].r = -1;
	return f->n++;
}

/* Matches the keyword @kw as a whole word. */
static int word(struct parser *ps, const char *kw)
{
	size_t len = strlen(kw);

	skip_ws(ps);
	if (strncmp(ps->p, kw, len) || is_ident(ps->p[len]))
		return 0;
	ps->p += len;
	return 1;
}

static int op2(struct parser *ps, const char *op)
{
	skip_ws(ps);
	if (strncmp(ps->p, op, strlen(op)))
		return 0;
	ps->p += strlen(op);
	return 1;
}

/* @p starts one of the word operators (and, or, not) as a whole word. */
static int is_keyword(const char *p)
{
	static const char *const kws[] = { "and", "or", "not" };
	size_t i, n;

	for (i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
		n = strlen(kws[i]);
		if (!strncmp(p, kws[i], n) && !is_ident(p[n]))
			return 1;
	}
	return 0;
}

static int parse_or(struct parser *ps);

static int parse_number(struct parser *ps)
{
	const char *start = ps->p, *q = ps->p, *u;
	char buf[64];
	double mult;
	size_t ulen;
	int idx;

	/* Scanned by hand: strtod would also take "inf", "nan" and hex. */
	while (isdigit((unsigned char)*q))
		q++;
	if (*q == '.') {
		q++;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if (q == start || (q == start + 1 && *start == '.'))
		return perr(ps, start, "bad number");
	if ((*q == 'e' || *q == 'E') &&
	    (isdigit((unsigned char)q[1]) ||
	     ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
		q += 2;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if ((size_t)(q - start) >= sizeof(buf))
		return perr(ps, start, "number too long");
	memcpy(buf, start, q - start);
	buf[q - start] = '\0';
	idx = new_node(ps, N_NUM);
	if (idx < 0)
		return -1;
	ps->f->nodes[idx].num = strtod(buf, NULL);
	ps->f->nodes[idx].type = WULT_VAL_NUM;
	u = q;
	/*
	 * A word after blanks can only be a unit ("100 us", "5 parsecs") or
	 * the next keyword: say "unknown unit", not "unexpected 'p'".
	 */
	while (*u == ' ' || *u == '\t')
		u++;
	ps->p = q;
	if (u != q && (!is_ident_start(*u) || is_keyword(u)))
		return idx;
	for (q = u; is_ident(*q); q++)
		;
	ulen = q - u;
	if (!ulen)
		return idx;
	ps->p = q;
	mult = wult_time_unit(u, ulen, 0);
	if (!mult)
		return perr(ps, u, "unknown unit '%.*s' (use ns, us, ms or s)", (int)ulen, u);
	ps->f->nodes[idx].num *= mult;
	ps->f->nodes[idx].is_time = 1;
	return idx;
}

static int parse_string(struct parser *ps)
{
	const char *start = ps->p, *q;
	char quote = *ps->p;
	int idx;

	for (q = start + 1; *q && *q != quote; q++)
		;
	if (!*q)
		return perr(ps, start, "unterminated string");
	idx = new_node(ps, N_STR);
	if (idx < 0)
		return -1;
	ps->f->nodes[idx].type = WULT_VAL_STR;
	ps->f->nodes[idx].str = strndup(start + 1, q - start - 1);
	if (!ps->f->nodes[idx].str)
		return perr(ps, start, "out of memory");
	ps->p = q + 1;
	return idx;
}

static int parse_atom(struct parser *ps)
{
	struct wult_filter_metric m;
	const char *start;
	int idx, ret;

	skip_ws(ps);
	start = ps->p;
	if (*start == '(') {
		ps->p++;
		idx = parse_or(ps);
		if (idx < 0)
			return -1;
		skip_ws(ps);
		if (!*ps->p)
			return perr(ps, ps->p, "expected ')' at end of expression");
		if (*ps->p != ')')
			return perr(ps, ps->p, "expected ')', got '%c'", *ps->p);
		ps->p++;
		return idx;
	}
	if (isdigit((unsigned char)*start) || *start == '.')
		return parse_number(ps);
	if (*start == '-' && (isdigit((unsigned char)start[1]) || start[1] == '.')) {
		ps->p++;
		idx = parse_number(ps);
		if (idx >= 0)
			ps->f->nodes[idx].num = -ps->f->nodes[idx].num;
		return idx;
	}
	if (*start == '"' || *start == '\'')
		return parse_string(ps);
	if (is_ident_start(*start)) {
		const char *q = start;

		while (is_ident(*q))
			q++;
		m.avail = NULL;
		ret = ps->resolve(ps->ctx, start, q - start, &m);
		if (ret)
			return perr(ps, start, "%s '%.*s'%s%s%s",
				    ret == -ENODATA ? "this input does not provide metric" :
				    "unknown metric", (int)(q - start), start,
				    m.avail ? " (available: " : "", m.avail ? m.avail : "",
				    m.avail ? ")" : "");
		idx = new_node(ps, N_METRIC);
		if (idx < 0)
			return -1;
		ps->f->nodes[idx].index = m.index;
		ps->f->nodes[idx].type = m.type;
		ps->f->nodes[idx].is_time = m.is_time;
		if (m.index + 1 > ps->f->nvals)
			ps->f->nvals = m.index + 1;
		ps->p = q;
		return idx;
	}
	if (!*start)
		return perr(ps, start, "unexpected end of expression");
	return perr(ps, start, "unexpected '%c'", *start);
}

static int parse_cmp(struct parser *ps)
{
	static const struct { const char *s; enum cmp_op op; } ops[] = {
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE },
		{ "<", OP_LT }, { ">", OP_GT },
	};
	const char *opat;
	struct node *l, *r;
	int li, ri, idx;
	size_t i;

	li = parse_atom(ps);
	if (li < 0)
		return -1;
	skip_ws(ps);
	opat = ps->p;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (op2(ps, ops[i].s))
			break;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		if (*opat == '=')
			return perr(ps, opat, "'=' is not a comparison, use '=='");
		l = &ps->f->nodes[li];
		if (l->kind == N_METRIC && l->type == WULT_VAL_NUM) {
			idx = new_node(ps, N_TRUTH);
			if (idx < 0)
				return -1;
			ps->f->nodes[idx].l = li;
			return idx;
		}
		if (l->kind == N_METRIC || l->kind == N_NUM || l->kind == N_STR)
			return perr(ps, opat, *opat ? "expected a comparison operator" :
				    "expected a comparison operator at end of expression");
		return li;	/* a parenthesised condition */
	}
	ri = parse_atom(ps);
	if (ri < 0)
		return -1;
	l = &ps->f->nodes[li];
	r = &ps->f->nodes[ri];
	if (l->kind > N_METRIC || r->kind > N_METRIC)
		return perr(ps, opat, "cannot compare a condition");
	if (l->type != r->type)
		return perr(ps, opat, "cannot compare a name with a number");
	if (l->type == WULT_VAL_STR && ops[i].op != OP_EQ && ops[i].op != OP_NE)
		return perr(ps, opat, "names compare only with == and !=");
	if ((l->kind == N_NUM && l->is_time && r->kind == N_METRIC && !r->is_time) ||
	    (r->kind == N_NUM && r->is_time && l->kind == N_METRIC && !l->is_time))
		return perr(ps, opat, "time value compared with a metric that is not a time");
	if (l->kind == N_NUM && !l->is_time && r->kind == N_METRIC && r->is_time)
		l->num *= 1e3;
	if (r->kind == N_NUM && !r->is_time && l->kind == N_METRIC && l->is_time)
		r->num *= 1e3;
	idx = new_node(ps, N_CMP);
	if (idx < 0)
		return -1;
	ps->f->nodes[idx].op = ops[i].op;
	/* Constant on the right: one shape to evaluate fast. */
	if (l->kind == N_NUM && r->kind == N_METRIC) {
		static const enum cmp_op flip[] = {
			[OP_EQ] = OP_EQ, [OP_NE] = OP_NE, [OP_LT] = OP_GT,
			[OP_LE] = OP_GE, [OP_GT] = OP_LT, [OP_GE] = OP_LE,
		};
		int t = li;

		ps->f->nodes[idx].op = flip[ops[i].op];
		li = ri;
		ri = t;
	}
	ps->f->nodes[idx].l = li;
	ps->f->nodes[idx].r = ri;
	ps->f->nodes[idx].fast = ps->f->nodes[li].kind == N_METRIC &&
				 ps->f->nodes[li].type == WULT_VAL_NUM &&
				 ps->f->nodes[ri].kind == N_NUM;
	return idx;
}

static int parse_not(struct parser *ps)
{
	int idx, sub;

	skip_ws(ps);
	if (op2(ps, "!=")) {
		ps->p -= 2;
		return perr(ps, ps->p, "unexpected '!='");
	}
	if (op2(ps, "!") || word(ps, "not")) {
		if (++ps->depth > MAX_DEPTH)
			return perr(ps, ps->p, "expression nested too deeply");
		sub = parse_not(ps);
		ps->depth--;
		if (sub < 0)
			return -1;
		idx = new_node(ps, N_NOT);
		if (idx >= 0)
			ps->f->nodes[idx].l = sub;
		return idx;
	}
	return parse_cmp(ps);
}

static int parse_bin(struct parser *ps, int is_or)
{
	int li, ri, idx;

	li = is_or ? parse_bin(ps, 0) : parse_not(ps);
	while (li >= 0) {
		if (is_or ? !(op2(ps, "||") || word(ps, "or")) :
			    !(op2(ps, "&&") || word(ps, "and")))
			break;
		ri = is_or ? parse_bin(ps, 0) : parse_not(ps);
		if (ri < 0)
			return -1;
		idx = new_node(ps, is_or ? N_OR : N_AND);
		if (idx < 0)
			return -1;
		ps->f->nodes[idx].l = li;
		ps->f->nodes[idx].r = ri;
		li = idx;
	}
	return li;
}

static int parse_or(struct parser *ps)
{
	int ret;

	if (++ps->depth > MAX_DEPTH)
		return perr(ps, ps->p, "expression nested too deeply");
	ret = parse_bin(ps, 1);
	ps->depth--;
	return ret;
}

void wult_filter_free(struct wult_filter *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free(f->nodes[i].str);
	free(f->nodes);
	free(f);
}

int wult_filter_compile(const char *expr, wult_filter_resolve_fn resolve, void *ctx,
			struct wult_filter **out, char *err, size_t errlen)
{
	struct parser ps = {
		.src = expr, .p = expr, .resolve = resolve, .ctx = ctx,
		.err = err, .errlen = errlen,
	};
	struct node *root;
	int idx;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	ps.f = calloc(1, sizeof(*ps.f));
	if (!ps.f)
		return -ENOMEM;
	ps.f->nodes = calloc(MAX_NODES, sizeof(*ps.f->nodes));
	if (!ps.f->nodes) {
		free(ps.f);
		return -ENOMEM;
	}
	idx = parse_or(&ps);
	if (idx >= 0) {
		skip_ws(&ps);
		if (*ps.p)
			idx = perr(&ps, ps.p, "unexpected '%c' after expression", *ps.p);
	}
	if (idx >= 0) {
		root = &ps.f->nodes[idx];
		if (root->kind == N_NUM || root->kind == N_STR ||
		    (root->kind == N_METRIC && root->type == WULT_VAL_STR))
			idx = perr(&ps, expr, "expression is not a condition");
	}
	if (idx < 0) {
		wult_filter_free(ps.f);
		return -EINVAL;
	}
	ps.f->root = idx;
	*out = ps.f;
	return 0;
}

unsigned int wult_filter_nvals(const struct wult_filter *f)
{
	return f->nvals;
}

int wult_filter_reads(const struct wult_filter *f, unsigned int index)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->nodes[i].kind == N_METRIC && f->nodes[i].index == index)
			return 1;
	return 0;
}

static const struct wult_val *operand(const struct node *n, const struct wult_val *vals,
				      struct wult_val *tmp)
{
	if (n->kind == N_METRIC)
		return &vals[n->index];
	tmp->num = n->num;
	tmp->str = n->str;
	return tmp;
}

static int eval(const struct wult_filter *f, int i, const struct wult_val *vals)
{
	const struct node *n = &f->nodes[i];
	const struct wult_val *a, *b;
	struct wult_val ta, tb;
	int c;

	switch (n->kind) {
	case N_AND:
		return eval(f, n->l, vals) && eval(f, n->r, vals);
	case N_OR:
		return eval(f, n->l, vals) || eval(f, n->r, vals);
	case N_NOT:
		return !eval(f, n->l, vals);
	case N_TRUTH:
		a = &vals[f->nodes[n->l].index];
		return !isnan(a->num) && a->num != 0;
	case N_CMP:
		if (n->fast) {
			/* The common shape: numeric metric vs a constant. */
			double x = vals[f->nodes[n->l].index].num, y = f->nodes[n->r].num;

			switch (n->op) {
			case OP_EQ: return x == y;
			case OP_NE: return !isnan(x) && x != y;
			case OP_LT: return x < y;
			case OP_LE: return x <= y;
			case OP_GT: return x > y;
			case OP_GE: return x >= y;
			}
		}
		a = operand(&f->nodes[n->l], vals, &ta);
		b = operand(&f->nodes[n->r], vals, &tb);
		if (f->nodes[n->l].type == WULT_VAL_STR) {
			if (!a->str || !b->str)
				return 0;
			c = strcmp(a->str, b->str);
			return n->op == OP_EQ ? !c : !!c;
		}
		/* NaN compares false everywhere, != included: a missing value
		 * matches nothing.
		 */
		if (isnan(a->num) || isnan(b->num))
			return 0;
		switch (n->op) {
		case OP_EQ: return a->num == b->num;
		case OP_NE: return a->num != b->num;
		case OP_LT: return a->num < b->num;
		case OP_LE: return a->num <= b->num;
		case OP_GT: return a->num > b->num;
		case OP_GE: return a->num >= b->num;
		}
		return 0;
	default:
		return 0;	/* constants are rejected at compile time */
	}
}

int wult_filter_eval(const struct wult_filter *f, const struct wult_val *vals)
{
	return eval(f, f->root, vals);
}
