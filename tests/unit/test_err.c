// SPDX-License-Identifier: GPL-2.0
/*
 * libwult's one error-message helper (lib/err/err.c, internal/err.h): the
 * reason written whole or truncated to the buffer and NUL-terminated, no
 * write at all without a buffer, the caller's return value handed back
 * either way, and wult_err_vset() the same from a va_list (as the filter
 * parser uses it, after its "col N: " prefix).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "internal/err.h"
#include "wt.h"

static int vset(char *buf, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = wult_err_vset(buf, len, ret, fmt, ap);
	va_end(ap);
	return ret;
}

int main(void)
{
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	WT_EQ(wult_err_set(buf, sizeof(buf), -EINVAL, "bad %s at %d", "value", 7), -EINVAL);
	WT_CHECK(!strcmp(buf, "bad value at 7"), "got '%s'", buf);

	/* Truncated to the buffer, NUL-terminated. */
	memset(buf, 'x', sizeof(buf));
	WT_EQ(wult_err_set(buf, 8, -EIO, "%s", "a long reason"), -EIO);
	WT_CHECK(!strcmp(buf, "a long "), "got '%s'", buf);
	WT_EQ(buf[8], 'x');

	/* No buffer, or no room: nothing written, the value still returned. */
	WT_EQ(wult_err_set(NULL, 0, -ENOMEM, "unused %d", 1), -ENOMEM);
	memset(buf, 'x', sizeof(buf));
	WT_EQ(wult_err_set(buf, 0, -ENOENT, "unused"), -ENOENT);
	WT_EQ(buf[0], 'x');
	WT_EQ(wult_err_set(buf, sizeof(buf), 0, "fine"), 0);
	WT_CHECK(!strcmp(buf, "fine"), "got '%s'", buf);

	/* The va_list form, after a prefix the caller wrote. */
	strcpy(buf, "col 3: ");
	WT_EQ(vset(buf + 7, sizeof(buf) - 7, -1, "no %s", "operand here"), -1);
	WT_CHECK(!strcmp(buf, "col 3: no opera"), "got '%s'", buf);
	WT_EQ(vset(NULL, 0, -EINVAL, "unused"), -EINVAL);
	return wt_done();
}
