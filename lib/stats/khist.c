// SPDX-License-Identifier: GPL-2.0
/*
 * libwult: parser of wult.ko's latency histogram files (wult/khist.h).
 * Line-oriented: '#' lines are headers, known ones are read and unknown
 * ones skipped (later module versions may add some); other non-empty
 * lines are bin rows "LOWER_US<ws>COUNT" of the current state, LOWER_US
 * negative in a bipolar metric's bins below zero.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <wult/khist.h>

#include "internal/err.h"

#define KH_MAX_STATES	64	/* the module has 10; a bound for bad input */
#define KH_LINE_MAX	256
#define KH_MAX_BINS	1000000U	/* the module's bound on hist_bins */

struct kh_state {
	struct wult_khist_state pub;
	char *name;
	int64_t *bin_us;
	uint64_t *bin_n;
	size_t cap;
	uint64_t binsum;
	bool have_total, have_exact, have_over;
};

struct wult_khist {
	unsigned int bin_us;
	size_t n;
	struct kh_state st[KH_MAX_STATES];
};

/* Parses an unsigned decimal at *p, skipping blanks first; advances *p. */
static bool kh_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = x;
	return true;
}

/* A signed decimal ("-" then digits, or kh_u64's), within int64_t. */
static bool kh_s64(const char **p, int64_t *v)
{
	const char *s = *p;
	bool neg;
	uint64_t x;

	while (*s == ' ' || *s == '\t')
		s++;
	neg = *s == '-';
	s += neg;
	if (!isdigit((unsigned char)*s) || !kh_u64(&s, &x))
		return false;
	if (x > (uint64_t)INT64_MAX + neg)
		return false;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*p = s;
	return true;
}

/* Expects the literal @word at *p (after blanks). */
static bool kh_word(const char **p, const char *word)
{
	const char *s = *p;
	size_t n = strlen(word);

	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, word, n))
		return false;
	*p = s + n;
	return true;
}

static int kh_add_bin(struct kh_state *st, int64_t lo, uint64_t n)
{
	int64_t *a;
	uint64_t *b;
	size_t cap;

	if (st->pub.nbins && lo <= st->bin_us[st->pub.nbins - 1])
		return -EINVAL;
	if (st->binsum + n < st->binsum)
		return -EINVAL;
	if (st->pub.nbins == st->cap) {
		cap = st->cap ? st->cap * 2 : 64;
		a = realloc(st->bin_us, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		st->bin_us = a;
		b = realloc(st->bin_n, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		st->bin_n = b;
		st->cap = cap;
	}
	st->bin_us[st->pub.nbins] = lo;
	st->bin_n[st->pub.nbins++] = n;
	st->binsum += n;
	return 0;
}

static int kh_state_new(struct wult_khist *h, const char *name)
{
	struct kh_state *st;
	size_t len = strlen(name);

	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (h->n == KH_MAX_STATES)
		return -EINVAL;
	st = &h->st[h->n];
	st->name = strndup(name, len);
	if (!st->name)
		return -ENOMEM;
	h->n++;
	return 0;
}

/* A '#' header line; @st is the current state or NULL. */
static int kh_header(struct wult_khist *h, struct kh_state *st, const char *l)
{
	const char *p = l;
	uint64_t v, c;
	int64_t s, mn, mx;

	if (kh_word(&p, "#State:")) {
		while (*p == ' ')
			p++;
		return kh_state_new(h, p);
	}
	if (kh_word(&p, "#Bin width:")) {
		if (!kh_u64(&p, &v) || !v || v > 1000000)
			return -EINVAL;
		h->bin_us = (unsigned int)v;
		return 0;
	}
	if (!st)
		return 0;	/* file headers we do not need */
	if (kh_word(&p, "#Total samples:")) {
		if (!kh_u64(&p, &st->pub.count))
			return -EINVAL;
		st->have_total = true;
	} else if (kh_word(&p, "#There are")) {
		if (!kh_u64(&p, &v))
			return -EINVAL;
		if (kh_word(&p, "samples greater or equal than")) {
			if (!kh_s64(&p, &st->pub.over_us))
				return -EINVAL;
			st->pub.over = v;
			st->have_over = true;
		} else if (kh_word(&p, "samples lower than")) {
			if (!kh_s64(&p, &st->pub.under_us))
				return -EINVAL;
			st->pub.under = v;
		}
	} else if (kh_word(&p, "#Exact: count")) {
		if (!kh_u64(&p, &c) || !kh_word(&p, "sum") || !kh_s64(&p, &s) ||
		    !kh_word(&p, "min") || !kh_s64(&p, &mn) ||
		    !kh_word(&p, "max") || !kh_s64(&p, &mx) || (c && mn > mx))
			return -EINVAL;
		st->pub.sum_ns = s;
		st->pub.min_ns = mn;
		st->pub.max_ns = mx;
		st->have_exact = true;
	}
	return 0;
}

/*
 * Every section is whole: its bins, underflow and overflow add up to its
 * total, and its bins lie between the underflow and the overflow.
 */
static int kh_check(struct wult_khist *h, char *err, size_t errlen)
{
	const struct wult_khist_state *p;
	struct kh_state *st;
	uint64_t out;
	size_t i;

	for (i = 0; i < h->n; i++) {
		st = &h->st[i];
		p = &st->pub;
		if (!st->have_total || !st->have_exact)
			return wult_err_set(err, errlen, -EINVAL,
					    "state %s: no #Total samples or #Exact line", st->name);
		out = p->under + p->over;
		if (out < p->under || st->binsum + out < out || st->binsum + out != p->count)
			return wult_err_set(err, errlen, -EINVAL,
					    "state %s: bins, underflow and overflow (%" PRIu64 " + %" PRIu64 " + %" PRIu64 ") differ from the total %" PRIu64,
					    st->name, st->binsum, p->under, p->over, p->count);
		if (st->have_over && p->over_us < p->under_us)
			return wult_err_set(err, errlen, -EINVAL,
					    "state %s: the overflow starts (%" PRId64 " us) below the underflow (%" PRId64 " us)",
					    st->name, p->over_us, p->under_us);
		/* The module has at most 10^6 bins (hist_bins); unsigned: no overflow. */
		if (((uint64_t)p->over_us - (uint64_t)p->under_us) / h->bin_us > KH_MAX_BINS)
			return wult_err_set(err, errlen, -EINVAL,
					    "state %s: [%" PRId64 ", %" PRId64 ") us is more than %u bins",
					    st->name, p->under_us, p->over_us, KH_MAX_BINS);
		if (p->nbins && (st->bin_us[0] < p->under_us ||
				 (st->have_over && st->bin_us[p->nbins - 1] >= p->over_us)))
			return wult_err_set(err, errlen, -EINVAL,
					    "state %s: bin rows outside [%" PRId64 ", %" PRId64 ") us",
					    st->name, p->under_us, p->over_us);
		st->pub.name = st->name;
		st->pub.bin_us = st->bin_us;
		st->pub.bin_n = st->bin_n;
	}
	return 0;
}

/* One line (NUL-terminated, no newline). */
static int kh_line(struct wult_khist *h, const char *l)
{
	struct kh_state *st = h->n ? &h->st[h->n - 1] : NULL;
	const char *p = l;
	uint64_t n;
	int64_t lo;

	if (*l == '#')
		return kh_header(h, st, l);
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return 0;
	if (!st || !kh_s64(&p, &lo) || !kh_u64(&p, &n))
		return -EINVAL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p)
		return -EINVAL;
	return kh_add_bin(st, lo, n);
}

int wult_khist_parse(const char *buf, size_t len, struct wult_khist **out,
		     char *err, size_t errlen)
{
	struct wult_khist *h = calloc(1, sizeof(*h));
	char line[KH_LINE_MAX];
	size_t i = 0, n, lineno = 0;
	int ret = 0;

	if (!h)
		return -ENOMEM;
	h->bin_us = 1;
	while (i < len && !ret) {
		lineno++;
		for (n = 0; i < len && buf[i] != '\n'; i++, n++) {
			if (n + 1 >= sizeof(line) || !buf[i]) {
				ret = -EINVAL;
				break;
			}
			line[n] = buf[i];
		}
		i++;
		line[n < sizeof(line) ? n : 0] = '\0';
		if (!ret)
			ret = kh_line(h, line);
	}
	if (ret == -ENOMEM) {
		wult_khist_free(h);
		return ret;
	}
	if (ret) {
		wult_khist_free(h);
		return wult_err_set(err, errlen, ret, "line %zu: not a wult histogram line", lineno);
	}
	ret = kh_check(h, err, errlen);
	if (ret) {
		wult_khist_free(h);
		return ret;
	}
	*out = h;
	return 0;
}

void wult_khist_free(struct wult_khist *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++) {
		free(h->st[i].name);
		free(h->st[i].bin_us);
		free(h->st[i].bin_n);
	}
	free(h);
}

unsigned int wult_khist_bin_us(const struct wult_khist *h)
{
	return h->bin_us;
}

size_t wult_khist_nstates(const struct wult_khist *h)
{
	return h->n;
}

const struct wult_khist_state *wult_khist_state(const struct wult_khist *h, size_t i)
{
	return i < h->n ? &h->st[i].pub : NULL;
}

int wult_khist_percentile(const struct wult_khist_state *s, double pct, int64_t *us)
{
	uint64_t rank, k = s->under;
	double r;
	size_t i;

	if (!s->count || !(pct >= 0 && pct <= 100))
		return -EINVAL;
	r = pct * (double)s->count / 100.0;
	rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;
	if (!rank)
		rank = 1;
	if (k >= rank) {
		*us = s->under_us;
		return WULT_KHIST_UNDER;
	}
	for (i = 0; i < s->nbins; i++) {
		k += s->bin_n[i];
		if (k >= rank) {
			*us = s->bin_us[i];
			return WULT_KHIST_IN_BINS;
		}
	}
	*us = s->over_us;
	return WULT_KHIST_OVER;
}
