// SPDX-License-Identifier: GPL-2.0
/* CPU lists in perf's syntax ("0,2-3"), for every command's -C/--cpus. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <wult/args.h>

#include "internal/err.h"

/* A CPU number at *@p below @nr, *@p moved past it; -1 if there is none. */
static long cpu_num(const char **p, unsigned int nr)
{
	char *end;
	long v;

	if (**p < '0' || **p > '9')
		return -1;
	v = strtol(*p, &end, 10);
	if (v >= (long)nr || end - *p > 9)
		return -1;
	*p = end;
	return v;
}

int wult_cpulist_parse(const char *s, unsigned char *set, unsigned int nr, char *err,
		       size_t errlen)
{
	const char *p = s, *item;
	long a, b;
	int count = 0;

	memset(set, 0, nr);
	if (!*s)
		return wult_err_set(err, errlen, -EINVAL, "an empty CPU list");
	for (;;) {
		item = p;
		a = cpu_num(&p, nr);
		b = a;
		if (a >= 0 && *p == '-') {
			p++;
			b = cpu_num(&p, nr);
		}
		if (a < 0 || b < a || (*p && *p != ','))
			return wult_err_set(err, errlen, -EINVAL, "bad CPU list '%s' at '%s' "
					    "(want e.g. 0,2-3, CPUs below %u)", s, item, nr);
		for (; a <= b; a++) {
			count += !set[a];
			set[a] = 1;
		}
		if (!*p)
			return count;
		p++;
	}
}
