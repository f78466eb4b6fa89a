// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader, the input: the file by offset (pread) and the data
 * (or the whole pipe) streamed through one buffer; bounded sub-readers over
 * either; record framing. A record is at most 64 KiB (its size is a u16),
 * so records are decoded in place or from a fixed, aligned copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal/pd.h"

/* ---- raw input ---- */

int pd_pread(struct wult_pd *pd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(pd->fd, (char *)buf + done, n - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return pd_fail(pd, -errno, "read at offset %llu: %s",
				       (unsigned long long)(off + done), strerror(errno));
		if (!r)
			return pd_fail(pd, -EINVAL, "unexpected end of file at offset %llu "
				       "(wanted %zu bytes at %llu)",
				       (unsigned long long)(off + done), n, (unsigned long long)off);
		done += r;
	}
	return 0;
}

/* Makes @n bytes available in the stream buffer: 1, 0 at a clean end, or
 * an error.
 */
int pd_in_fill(struct wult_pd *pd, size_t n)
{
	if (pd->map_ok && pd->in_len - pd->in_pos < n) {
		int ret = pd_map_window(pd, n);

		if (ret != PD_MAP_READ)
			return ret;
	}
	while (pd->in_len - pd->in_pos < n) {
		size_t want;
		ssize_t r;

		if (pd->in_pos) {
			memmove(pd->in, pd->in + pd->in_pos, pd->in_len - pd->in_pos);
			pd->in_len -= pd->in_pos;
			pd->in_pos = 0;
		}
		want = INBUF_SIZE - pd->in_len;
		if (!pd->pipe) {
			uint64_t left = pd->data_end - (pd->in_off + pd->in_len);

			if (left < want)
				want = left;
		}
		if (!want)
			return 0;
		r = read(pd->fd, pd->in + pd->in_len, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return pd_fail(pd, -errno, "read: %s", strerror(errno));
		if (!r)
			return 0;
		pd->in_len += r;
	}
	return 1;
}

static int in_read(struct wult_pd *pd, void *dst, size_t n, const char *what)
{
	int ret = pd_in_fill(pd, n);

	if (ret < 0)
		return ret;
	if (!ret)
		return pd_fail(pd, -EINVAL, "offset %llu: %s truncated: %zu of %zu bytes before "
			       "the end of the %s", (unsigned long long)pd->in_off, what,
			       pd->in_len - pd->in_pos, n, pd->pipe ? "stream" : "data section");
	memcpy(dst, pd->in + pd->in_pos, n);
	pd->in_pos += n;
	pd->in_off += n;
	return 0;
}

int pd_in_skip(struct wult_pd *pd, uint64_t n, const char *what)
{
	while (n) {
		size_t chunk = n > INBUF_SIZE / 2 ? INBUF_SIZE / 2 : n;
		int ret = pd_in_fill(pd, chunk);

		if (ret < 0)
			return ret;
		if (!ret)
			return pd_fail(pd, -EINVAL, "offset %llu: %s runs past the end of the %s",
				       (unsigned long long)pd->in_off, what,
				       pd->pipe ? "stream" : "data section");
		pd->in_pos += chunk;
		pd->in_off += chunk;
		n -= chunk;
	}
	return 0;
}



int pd_rd_read(struct pd_rd *r, void *dst, uint64_t n)
{
	int ret = 0;

	if (n > r->left)
		return pd_fail(r->pd, -EINVAL, "%s: %llu bytes wanted past its end (%llu left)",
			       r->what, (unsigned long long)n, (unsigned long long)r->left);
	if (r->mem)
		memcpy(dst, r->mem + r->off, n);
	else if (r->stream)
		/* In pieces: the stream buffer is smaller than a format may be. */
		for (uint64_t done = 0, k; !ret && done < n; done += k) {
			k = n - done > INBUF_SIZE / 2 ? INBUF_SIZE / 2 : n - done;
			ret = in_read(r->pd, (uint8_t *)dst + done, k, r->what);
		}
	else
		ret = pd_pread(r->pd, dst, n, r->off);
	if (ret)
		return ret;
	r->off += n;
	r->left -= n;
	return 0;
}

int pd_rd_skip(struct pd_rd *r, uint64_t n)
{
	int ret = 0;

	if (n > r->left)
		return pd_fail(r->pd, -EINVAL, "%s: %llu bytes to skip past its end (%llu left)",
			       r->what, (unsigned long long)n, (unsigned long long)r->left);
	if (r->stream)
		ret = pd_in_skip(r->pd, n, r->what);
	if (ret)
		return ret;
	r->off += n;
	r->left -= n;
	return 0;
}

int pd_rd_u32(struct pd_rd *r, uint32_t *v)
{
	return pd_rd_read(r, v, 4);
}

int pd_rd_u64(struct pd_rd *r, uint64_t *v)
{
	return pd_rd_read(r, v, 8);
}

/* Reads up to and including a NUL (at most @max bytes) into a new string. */
int pd_rd_cstr(struct pd_rd *r, size_t max, char **out)
{
	char *s = malloc(max + 1);
	size_t i;
	int ret;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < max; i++) {
		ret = pd_rd_read(r, &s[i], 1);
		if (ret) {
			free(s);
			return ret;
		}
		if (!s[i]) {
			*out = s;
			return 0;
		}
	}
	free(s);
	return pd_fail(r->pd, -EINVAL, "%s: string longer than %zu bytes", r->what, max);
}

/* struct perf_header_string: u32 len, then len bytes (NUL-padded). */
int pd_rd_hstr(struct pd_rd *r, char **out)
{
	uint32_t len;
	char *s;
	int ret;

	ret = pd_rd_u32(r, &len);
	if (ret)
		return ret;
	if (len > MAX_FEAT_STR || len > r->left)
		return pd_fail(r->pd, -EINVAL, "%s: string length %u past the section end",
			       r->what, len);
	s = malloc(len + 1);
	if (!s)
		return -ENOMEM;
	ret = pd_rd_read(r, s, len);
	if (ret) {
		free(s);
		return ret;
	}
	s[len] = '\0';
	*out = s;
	return 0;
}

/* ---- records ---- */

static int known_type(uint32_t t)
{
	return (t >= PERF_RECORD_MMAP && t < PERF_RECORD_MAX) ||
	       (t >= PERF_RECORD_HEADER_ATTR && t < PERF_RECORD_HEADER_MAX);
}

int pd_decompress(struct wult_pd *pd, const uint8_t *src, size_t len)
{
	ZSTD_inBuffer zin = { src, len, 0 };

	if (!pd->zd) {
		pd->zd = ZSTD_createDCtx();
		if (!pd->zd)
			return -ENOMEM;
	}
	pd->dlen = pd->dpos = 0;
	pd->dsrc_off = pd->rec_off;
	/* Until the input is consumed and zstd had room to flush all. */
	while (zin.size) {
		ZSTD_outBuffer zout;
		size_t r;

		if (pd->dlen == pd->dcap) {
			size_t ncap = pd->dcap ? pd->dcap * 2 : 1U << 20;
			uint8_t *nb;

			if (ncap > MAX_DECOMP)
				return pd_fail(pd, -EINVAL, "offset %llu: compressed record expands "
					       "past %u MiB", (unsigned long long)pd->rec_off,
					       MAX_DECOMP >> 20);
			nb = realloc(pd->dbuf, ncap);
			if (!nb)
				return -ENOMEM;
			pd->dbuf = nb;
			pd->dcap = ncap;
		}
		zout.dst = pd->dbuf;
		zout.size = pd->dcap;
		zout.pos = pd->dlen;
		r = ZSTD_decompressStream(pd->zd, &zout, &zin);
		if (ZSTD_isError(r))
			return pd_fail(pd, -EINVAL, "offset %llu: zstd: %s",
				       (unsigned long long)pd->rec_off, ZSTD_getErrorName(r));
		pd->dlen = zout.pos;
		if (zout.pos < zout.size && zin.pos == zin.size)
			break;
	}
	return 0;
}

/* Reads the next raw record into pd->rec: 1, 0 at the end, or an error. */
int pd_read_record(struct wult_pd *pd)
{
	struct perf_event_header h;
	int ret;

	pd->rec_inner = 0;
	if (pd->dpos < pd->dlen) {
		size_t left = pd->dlen - pd->dpos;

		if (left < sizeof(h))
			return pd_fail(pd, -EINVAL, "compressed record at %llu: %zu stray bytes "
				       "at its end", (unsigned long long)pd->dsrc_off, left);
		memcpy(&h, pd->dbuf + pd->dpos, sizeof(h));
		if (h.size < sizeof(h) || h.size > left)
			return pd_fail(pd, -EINVAL, "compressed record at %llu: inner record size %u "
				       "(%zu bytes left)", (unsigned long long)pd->dsrc_off, h.size,
				       left);
		if ((pd->dpos & 7) || (h.size & 7)) {
			memcpy(pd->rec, pd->dbuf + pd->dpos, h.size);
			pd->cur = (const uint8_t *)pd->rec;
		} else {
			pd->cur = pd->dbuf + pd->dpos;
		}
		pd->dpos += h.size;
		pd->rec_inner = 1;
		if (!known_type(h.type))
			return pd_fail(pd, -EINVAL, "compressed record at %llu: unknown inner record "
				       "type %u", (unsigned long long)pd->dsrc_off, h.type);
		if (h.type == PERF_RECORD_COMPRESSED)
			return pd_fail(pd, -EINVAL, "compressed record at %llu holds another "
				       "compressed record", (unsigned long long)pd->dsrc_off);
		return 1;
	}
	pd->rec_off = pd->in_off;
	ret = pd_in_fill(pd, sizeof(h));
	if (ret <= 0) {
		if (!ret && pd->in_len - pd->in_pos)
			return pd_fail(pd, -EINVAL, "offset %llu: data truncated: %zu bytes left, less than a record "
				       "header", (unsigned long long)pd->in_off,
				       pd->in_len - pd->in_pos);
		return ret;
	}
	memcpy(&h, pd->in + pd->in_pos, sizeof(h));
	if (h.size < sizeof(h))
		return pd_fail(pd, -EINVAL, "offset %llu: record of type %u has size %u, less than "
			       "its own header", (unsigned long long)pd->in_off, h.type, h.size);
	if (!known_type(h.type))
		return pd_fail(pd, -EINVAL, "offset %llu: unknown record type %u (size %u)",
			       (unsigned long long)pd->in_off, h.type, h.size);
	/*
	 * Decode in place when the record is whole and aligned in the buffer
	 * (the common case: perf pads records to 8 bytes). Records followed by
	 * out-of-record data move the buffer while handled: copy those.
	 */
	ret = pd_in_fill(pd, h.size);
	if (ret < 0)
		return ret;
	if (ret && !(pd->in_pos & 7) && !(h.size & 7) &&
	    h.type != PERF_RECORD_HEADER_TRACING_DATA && h.type != PERF_RECORD_AUXTRACE) {
		pd->cur = pd->in + pd->in_pos;
		pd->in_pos += h.size;
		pd->in_off += h.size;
		return 1;
	}
	pd->cur = (const uint8_t *)pd->rec;
	ret = in_read(pd, pd->rec, h.size, "record");
	return ret ?: 1;
}
