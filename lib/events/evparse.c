// SPDX-License-Identifier: GPL-2.0
/*
 * Perf event strings to perf_event_attr: generic names from a table, PMU
 * events through the PMU's sysfs format and alias files.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wult/evparse.h>
#include "internal/err.h"

#define MAX_STR		512
#define MAX_ALIAS_DEPTH	2

struct generic {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct generic generics[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

/*
 * Reads the small sysfs file <dir>/<pmu>/<rel> into @buf without its
 * trailing whitespace.
 */
static int read_small(const char *dir, const char *pmu, const char *rel,
		      char *buf, size_t len)
{
	char path[MAX_STR * 2];
	size_t n;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, pmu, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "r");

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

/* A PMU, term or alias name: no path tricks. */
static int valid_name(const char *s, size_t n)
{
	size_t i;

	if (!n || (n == 2 && !strncmp(s, "..", 2)) || (n == 1 && s[0] == '.'))
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
			return 0;
	return 1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/* The attr field a format targets: "config", "config1", "config2". */
static __u64 *config_field(struct perf_event_attr *attr, const char *name, size_t n)
{
	if (n == 6 && !strncmp(name, "config", 6))
		return &attr->config;
	if (n == 7 && !strncmp(name, "config1", 7))
		return &attr->config1;
	if (n == 7 && !strncmp(name, "config2", 7))
		return &attr->config2;
	return NULL;
}

/*
 * Puts @val into the bit ranges of format @fmt ("config:0-7,32-35"),
 * lowest value bits into the first range.
 */
static int apply_format(struct perf_event_attr *attr, const char *fmt, uint64_t val,
			const char *term, char *err, size_t errlen)
{
	const char *colon = strchr(fmt, ':'), *p;
	unsigned int used = 0;
	__u64 *dst;

	dst = colon ? config_field(attr, fmt, colon - fmt) : NULL;
	if (!dst)
		return wult_err_set(err, errlen, -EINVAL, "format of '%s' not understood: '%s'",
			    term, fmt);
	for (p = colon + 1; *p;) {
		unsigned long lo, hi;
		char *end;
		uint64_t bits, mask;

		lo = strtoul(p, &end, 10);
		if (end == p)
			return wult_err_set(err, errlen, -EINVAL, "format of '%s' not understood: '%s'",
				    term, fmt);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return wult_err_set(err, errlen, -EINVAL,
					    "format of '%s' not understood: '%s'", term, fmt);
		}
		if (hi < lo || hi > 63)
			return wult_err_set(err, errlen, -EINVAL, "format of '%s' has bad bits: '%s'",
				    term, fmt);
		bits = hi - lo + 1;
		mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
		*dst = (*dst & ~(mask << lo)) | (((used < 64 ? val >> used : 0) & mask) << lo);
		used += bits;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return wult_err_set(err, errlen, -EINVAL, "format of '%s' not understood: '%s'",
				    term, fmt);
	}
	if (used < 64 && (val >> used))
		return wult_err_set(err, errlen, -EINVAL, "value %#llx of '%s' does not fit in %u bits",
			    (unsigned long long)val, term, used);
	return 0;
}

static int apply_terms(const char *dir, const char *pmu, const char *terms,
		       struct perf_event_attr *attr, int depth, char *err, size_t errlen);

/* One "name[=value]" term of PMU @pmu. */
static int apply_term(const char *dir, const char *pmu, const char *t, size_t n,
		      struct perf_event_attr *attr, int depth, char *err, size_t errlen)
{
	const char *eq = memchr(t, '=', n);
	size_t nlen = eq ? (size_t)(eq - t) : n;
	char name[64], sval[64], rel[80], buf[MAX_STR];
	uint64_t val = 1;
	__u64 *raw;

	if (!valid_name(t, nlen) || nlen >= sizeof(name))
		return wult_err_set(err, errlen, -EINVAL, "bad term '%.*s' in %s event", (int)n, t, pmu);
	memcpy(name, t, nlen);
	name[nlen] = '\0';
	if (eq) {
		size_t vlen = n - nlen - 1;

		if (vlen >= sizeof(sval))
			return wult_err_set(err, errlen, -EINVAL, "value of '%s' too long", name);
		memcpy(sval, eq + 1, vlen);
		sval[vlen] = '\0';
		if (parse_u64(sval, &val))
			return wult_err_set(err, errlen, -EINVAL, "bad value '%s' for term '%s'%s",
				    sval, name, !strcmp(sval, "?") ?
				    " (the alias needs a value: give it)" : "");
	}
	if (!strcmp(name, "period")) {
		attr->sample_period = val;
		return 0;
	}
	raw = config_field(attr, name, nlen);
	if (raw && eq) {
		*raw = val;
		return 0;
	}
	snprintf(rel, sizeof(rel), "format/%s", name);
	if (!read_small(dir, pmu, rel, buf, sizeof(buf)))
		return apply_format(attr, buf, val, name, err, errlen);
	snprintf(rel, sizeof(rel), "events/%s", name);
	if (!eq && !read_small(dir, pmu, rel, buf, sizeof(buf))) {
		if (depth >= MAX_ALIAS_DEPTH)
			return wult_err_set(err, errlen, -EINVAL, "alias '%s' nests too deep", name);
		return apply_terms(dir, pmu, buf, attr, depth + 1, err, errlen);
	}
	return wult_err_set(err, errlen, -ENOENT, "PMU '%s' has no term or event '%s' here",
		    pmu, name);
}

static int apply_terms(const char *dir, const char *pmu, const char *terms,
		       struct perf_event_attr *attr, int depth, char *err, size_t errlen)
{
	const char *p = terms;

	while (*p) {
		size_t n = strcspn(p, ",");
		int ret;

		if (!n)
			return wult_err_set(err, errlen, -EINVAL, "empty term in '%s'", terms);
		ret = apply_term(dir, pmu, p, n, attr, depth, err, errlen);
		if (ret)
			return ret;
		p += n;
		if (*p == ',') {
			p++;
			if (!*p)
				return wult_err_set(err, errlen, -EINVAL, "trailing ',' in '%s'", terms);
		}
	}
	return 0;
}

/* ":u" / ":k" modifiers at the end of @s (cut off in place). */
static int modifiers(char *s, struct perf_event_attr *attr, char *err, size_t errlen)
{
	char *colon = strrchr(s, ':');
	char *m;

	if (!colon || strchr(colon, '/'))
		return 0;
	for (m = colon + 1; *m; m++) {
		if (*m == 'u')
			attr->exclude_kernel = 1, attr->exclude_hv = 1;
		else if (*m == 'k')
			attr->exclude_user = 1, attr->exclude_hv = 1;
		else
			return wult_err_set(err, errlen, -EINVAL, "unsupported modifier ':%s'", colon + 1);
	}
	*colon = '\0';
	return 0;
}

int wult_ev_parse(const char *str, const char *sysfs, struct perf_event_attr *attr,
		  char *err, size_t errlen)
{
	char s[MAX_STR], buf[64];
	const char *dir = sysfs ? sysfs : WULT_EV_SYSFS;
	char *slash, *end;
	uint64_t type;
	size_t i, len;
	int ret;

	if (!str || !attr)
		return wult_err_set(err, errlen, -EINVAL, "no event given");
	len = strlen(str);
	if (!len || len >= sizeof(s))
		return wult_err_set(err, errlen, -EINVAL, "event string empty or too long");
	memcpy(s, str, len + 1);
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	ret = modifiers(s, attr, err, errlen);
	if (ret)
		return ret;

	slash = strchr(s, '/');
	if (!slash) {
		for (i = 0; i < sizeof(generics) / sizeof(generics[0]); i++) {
			if (!strcmp(s, generics[i].name)) {
				attr->type = generics[i].type;
				attr->config = generics[i].config;
				return 0;
			}
		}
		return wult_err_set(err, errlen, -ENOENT, "unknown event '%s' (use pmu/event/ or a "
			    "generic name such as cycles, instructions, cpu-clock)", s);
	}
	end = strrchr(s, '/');
	if (end == slash || end[1])
		return wult_err_set(err, errlen, -EINVAL, "'%s': expected pmu/terms/", str);
	*slash = '\0';
	*end = '\0';
	if (!valid_name(s, strlen(s)))
		return wult_err_set(err, errlen, -EINVAL, "bad PMU name '%s'", s);
	if (read_small(dir, s, "type", buf, sizeof(buf)))
		return wult_err_set(err, errlen, -ENOENT, "no PMU '%s' on this machine", s);
	if (parse_u64(buf, &type) || type > UINT32_MAX)
		return wult_err_set(err, errlen, -EINVAL, "PMU '%s' has a bad type '%s'", s, buf);
	attr->type = (uint32_t)type;
	if (!slash[1])
		return wult_err_set(err, errlen, -EINVAL, "'%s': no event or terms for PMU '%s'", str, s);
	return apply_terms(dir, s, slash + 1, attr, 0, err, errlen);
}
