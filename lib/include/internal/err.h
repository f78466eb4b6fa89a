/* SPDX-License-Identifier: GPL-2.0 */
/* libwult internal: the one way its functions explain an error. */
#ifndef WULT_LIB_ERR_H
#define WULT_LIB_ERR_H

#include <stddef.h>

/*
 * Formats the reason into @buf (if given, @len bytes) and returns @ret, so
 * callers write: return wult_err_set(err, errlen, -EINVAL, "bad %s", x);
 */
int wult_err_set(char *buf, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
