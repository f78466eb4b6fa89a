// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV reader's input (internal/csv_read.h): a window of bytes over the
 * stream, mapped or read, cut into lines and RFC 4180 fields in place.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/csv_read.h"

#define MAP_WINDOW	(4 << 20)	/* input mapped this much at a time */
#define IN_BUF		(1 << 20)	/* input read this much at a time (pipes) */

_Static_assert(MAP_WINDOW > MAX_LINE + 8192 && IN_BUF > MAX_LINE + 1,
	       "an input window holds a whole line");

void csv_rerr(struct wult_csv_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "%s:%lu: ", r->name, r->lineno);
	if (n < 0 || (size_t)n >= sizeof(r->err))
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
}

/*
 * Maps the window holding r->pos onward. 1 when it holds more than the
 * last one, 0 at the end of the file, -1 on error. The window starts at
 * r->pos's page and is MAP_WINDOW long, so it holds a whole line.
 */
static int map_more(struct wult_csv_reader *r)
{
	off_t cur = r->map ? r->map_off + (r->pos - r->map) : r->map_off;
	off_t start = cur & ~(off_t)(sysconf(_SC_PAGESIZE) - 1);
	size_t len;
	void *p;

	if (cur >= r->size || (r->map && r->map_off + (off_t)r->map_len >= r->size))
		return 0;
	len = r->size - start < MAP_WINDOW ? (size_t)(r->size - start) : MAP_WINDOW;
	/* The old window goes first: two would double the resident set. */
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, r->fd, start);
	if (p == MAP_FAILED) {
		csv_rerr(r, "cannot map %zu bytes at offset %lld: %s", len, (long long)start,
		     strerror(errno));
		r->map_off = cur;	/* a later call tries again from here */
		r->pos = r->end = NULL;
		return -1;
	}
	madvise(p, len, MADV_SEQUENTIAL);
	r->map = p;
	r->map_len = len;
	r->map_off = start;
	r->pos = r->map + (cur - start);
	r->end = r->map + len;
	return 1;
}

/* The stream's next bytes after those not yet used: as map_more(). */
static int read_more(struct wult_csv_reader *r)
{
	size_t keep = r->end - r->pos, got;

	if (r->eof)
		return 0;
	if (keep)
		memmove(r->buf, r->pos, keep);
	got = fread(r->buf + keep, 1, IN_BUF - keep, r->f);
	r->pos = r->buf;
	r->end = r->buf + keep + got;
	if (got)
		return 1;
	if (ferror(r->f)) {
		csv_rerr(r, "read error");
		return -1;
	}
	r->eof = 1;
	return 0;
}

/*
 * Sets the input up: a regular file is mapped from the stream's position
 * on; anything else, or a file that does not map, is read through @f.
 */
int csv_input_init(struct wult_csv_reader *r)
{
	struct stat st;
	off_t at;

	r->fd = fileno(r->f);
	if (r->fd >= 0 && !fstat(r->fd, &st) && S_ISREG(st.st_mode) &&
	    (at = ftello(r->f)) >= 0) {
		r->size = st.st_size;
		r->map_off = at;
		if (at >= r->size || map_more(r) > 0)
			return 0;
		if (fseeko(r->f, at, SEEK_SET))
			return -1;
	}
	r->fd = -1;
	r->pos = r->end = r->buf = malloc(IN_BUF);
	return r->buf ? 0 : -1;
}

/*
 * Reads one line into @dst (MAX_LINE + 1 bytes) without its newline and
 * trailing CRs, NUL-terminated, its length in *@len: 1, 0 at EOF, -1 on
 * error.
 */
int csv_read_line(struct wult_csv_reader *r, char *dst, size_t *len)
{
	const char *nl;
	size_t n;
	int ret;

	for (;;) {
		nl = r->pos < r->end ? memchr(r->pos, '\n', r->end - r->pos) : NULL;
		if (nl || r->end - r->pos > MAX_LINE)
			break;
		ret = r->fd >= 0 ? map_more(r) : read_more(r);
		if (ret < 0)
			return -1;
		if (!ret)
			break;
	}
	n = (nl ? nl : r->end) - r->pos;
	if (!nl && !n)
		return 0;
	r->lineno++;
	if (n > MAX_LINE) {
		csv_rerr(r, "line longer than %d bytes", MAX_LINE);
		return -1;
	}
	/* One copy of the line (not of each field): fields are cut in place. */
	memcpy(dst, r->pos, n);
	r->pos += n + !!nl;
	if (memchr(dst, '\0', n)) {
		csv_rerr(r, "NUL byte in line");
		return -1;
	}
	while (n && dst[n - 1] == '\r')
		n--;
	dst[n] = '\0';
	*len = n;
	return 1;
}

/*
 * Cuts the field at *@pp (in a line csv_read_line() copied) in place:
 * RFC 4180 quotes undone, NUL-terminated in *@field. *@pp moves to the
 * next field, to NULL after the last one. 0, or -1 on a malformed quoted
 * field (field @n, from 1).
 */
int csv_cut_field(struct wult_csv_reader *r, char **pp, int n, char **field)
{
	char *p = *pp, *o;

	if (*p != '"') {
		*field = p;
		p = strchrnul(p, ',');
	} else {
		*field = o = ++p;
		for (;;) {
			if (!*p) {
				csv_rerr(r, "unterminated quoted field %d", n);
				return -1;
			}
			if (*p == '"' && p[1] == '"') {
				*o++ = '"';
				p += 2;
			} else if (*p == '"') {
				p++;
				break;
			} else {
				*o++ = *p++;
			}
		}
		if (*p && *p != ',') {
			csv_rerr(r, "text after quoted field %d", n);
			return -1;
		}
		*o = '\0';
	}
	*pp = *p ? p + 1 : NULL;
	*p = '\0';
	return 0;
}

/* Unmaps the window or frees the buffer. */
void csv_input_free(struct wult_csv_reader *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->buf);
}
