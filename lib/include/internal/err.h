/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: the one way its functions explain an error. An object
 * that keeps its first failure (the perf.data reader's pd->err) or a parser
 * that adds where it stopped ("col 3: ") writes through the same helper.
 */
#ifndef WULT_INTERNAL_ERR_H
#define WULT_INTERNAL_ERR_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Formats the reason into @buf (if given, @len bytes) and returns @ret, so
 * callers write: return wult_err_set(err, errlen, -EINVAL, "bad %s", x);
 * Error paths only: it is kept out of line, off the callers' hot paths.
 */
int wult_err_set(char *buf, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), cold, noinline));

/* wult_err_set() with the arguments as a va_list. */
int wult_err_vset(char *buf, size_t len, int ret, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0), cold, noinline));

#endif
