// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "internal/err.h"

int wult_err_vset(char *buf, size_t len, int ret, const char *fmt, va_list ap)
{
	if (buf && len)
		vsnprintf(buf, len, fmt, ap);
	return ret;
}

int wult_err_set(char *buf, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wult_err_vset(buf, len, ret, fmt, ap);
	va_end(ap);
	return ret;
}
