// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader, the public API: open (file or pipe mode), the next
 * record (in file order, or in time order per FINISHED_ROUND), close, and
 * what the file says. The parts are described in internal/pd.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/pd.h"

#define PIPE_WANT	(1 << 20)	/* bytes of pipe buffer asked for */

/* Fills @ev from the record in pd->rec. */
static inline __attribute__((always_inline)) int decode(struct wult_pd *pd, const uint8_t *rec,
							struct wult_pd_event *ev)
{
	struct perf_event_header h;
	int a;

	memcpy(&h, rec, sizeof(h));
	/* No memset of the whole event: the sample part is cleared by
	 * pd_parse_sample() only for samples.
	 */
	ev->attr = NULL;
	ev->lost = 0;
	ev->type = h.type;
	ev->misc = h.misc;
	ev->size = h.size;
	ev->raw = rec;
	if (h.type == PERF_RECORD_SAMPLE) {
		int ret = pd_parse_sample(pd, rec, h.size, &ev->sample);

		ev->attr = ev->sample.attr;
		return ret;
	}
	if (h.type == PERF_RECORD_LOST || h.type == PERF_RECORD_LOST_SAMPLES) {
		size_t off = h.type == PERF_RECORD_LOST ? 16 : 8;

		if (h.size < off + 8)
			return pd_fail(pd, -EINVAL, "offset %llu: lost record too short (%u)",
				       (unsigned long long)pd->rec_off, h.size);
		memcpy(&ev->lost, rec + off, 8);
		a = pd_find_attr(pd, rec + 8, h.size - 8, 0);
		if (a >= 0)
			ev->attr = &pd->attrs[a].pub;
	}
	return 0;
}

/* ---- ordered mode ---- */

static int qcmp(const void *a, const void *b)
{
	const struct qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int queue_sample(struct wult_pd *pd, const struct wult_pd_event *ev)
{
	uint64_t t = ev->sample.time;

	if (pd->qlen + ev->size > pd->qcap) {
		size_t ncap = pd->qcap ? pd->qcap * 2 : 1U << 20;
		uint8_t *nb;

		while (ncap < pd->qlen + ev->size)
			ncap *= 2;
		if (ncap > MAX_QUEUE)
			return pd_fail(pd, -E2BIG, "more than %u MiB of samples between two "
				       "FINISHED_ROUND records", MAX_QUEUE >> 20);
		nb = realloc(pd->qbuf, ncap);
		if (!nb)
			return -ENOMEM;
		pd->qbuf = nb;
		pd->qcap = ncap;
	}
	if (pd->qn == pd->qcapn) {
		size_t ncap = pd->qcapn ? pd->qcapn * 2 : 4096;
		struct qent *nq = realloc(pd->q, ncap * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		pd->q = nq;
		pd->qcapn = ncap;
	}
	memcpy(pd->qbuf + pd->qlen, ev->raw, ev->size);
	pd->q[pd->qn].time = t;
	pd->q[pd->qn].seq = pd->qseq++;
	pd->q[pd->qn].off = pd->qlen;
	pd->qn++;
	pd->qlen += (ev->size + 7) & ~7U;
	if (t > pd->round_max)
		pd->round_max = t;
	return 0;
}

/* Marks the queued samples up to @limit ready, in time order. */
static void queue_flush(struct wult_pd *pd, uint64_t limit)
{
	size_t i;

	if (pd->qn)
		qsort(pd->q, pd->qn, sizeof(*pd->q), qcmp);
	for (i = 0; i < pd->qn && pd->q[i].time <= limit; i++)
		;
	pd->qready = i;
	pd->qemit = 0;
}

/* After the ready part was emitted: keep the rest, compacted. */
static void queue_compact(struct wult_pd *pd)
{
	size_t i, off = 0;
	uint8_t *tmp;

	if (!pd->qready)
		return;
	tmp = pd->qn > pd->qready ? malloc(pd->qlen) : NULL;
	for (i = pd->qready; tmp && i < pd->qn; i++) {
		uint16_t sz;

		memcpy(&sz, pd->qbuf + pd->q[i].off + 6, 2);
		memcpy(tmp + off, pd->qbuf + pd->q[i].off, sz);
		pd->q[i - pd->qready] = pd->q[i];
		pd->q[i - pd->qready].off = off;
		off += (sz + 7) & ~7U;
	}
	if (tmp) {
		memcpy(pd->qbuf, tmp, off);
		free(tmp);
	} else if (pd->qn > pd->qready) {
		/* No memory to compact: keep entries where they are. */
		memmove(pd->q, pd->q + pd->qready, (pd->qn - pd->qready) * sizeof(*pd->q));
		pd->qn -= pd->qready;
		pd->qready = pd->qemit = 0;
		return;
	}
	pd->qn -= pd->qready;
	pd->qlen = off;
	pd->qready = pd->qemit = 0;
}

/* For the record at @rec (@size bytes, @left in the data): the one 4 KiB
 * ahead, a line per 64 bytes taken. */
static inline void prefetch_ahead(const uint8_t *rec, size_t left, uint16_t size)
{
	if (left > 4096 + 256) {
		const uint8_t *ahead = rec + 4096;

		__builtin_prefetch(ahead);
		__builtin_prefetch(ahead + 64);
		__builtin_prefetch(ahead + 128);
		if (size > 192)
			__builtin_prefetch(ahead + 192);
	}
}

/*
 * The common record: a whole, aligned sample in the buffer or window (not
 * inside a COMPRESSED record). Taken without pd_read_record()'s general
 * path; the data a few records ahead is fetched meanwhile. 1 when taken.
 */
static inline int next_sample_fast(struct wult_pd *pd)
{
	size_t left = pd->in_len - pd->in_pos;
	struct perf_event_header h;

	if (pd->dpos < pd->dlen || left < sizeof(h) || (pd->in_pos & 7))
		return 0;
	memcpy(&h, pd->in + pd->in_pos, sizeof(h));
	if (h.type != PERF_RECORD_SAMPLE || h.size < sizeof(h) || (h.size & 7) || h.size > left)
		return 0;
	prefetch_ahead(pd->in + pd->in_pos, left, h.size);
	pd->rec_inner = 0;
	pd->rec_off = pd->in_off;
	pd->cur = pd->in + pd->in_pos;
	pd->in_pos += h.size;
	pd->in_off += h.size;
	pd->counts[PERF_RECORD_SAMPLE]++;
	return 1;
}

/* The next record in file order, inlined into wult_pd_next() (its call and
 * frame were 20 instructions a sample). */
static inline __attribute__((always_inline)) int next_raw(struct wult_pd *pd,
							  struct wult_pd_event *ev)
{
	struct perf_event_header h;
	int ret;

	if (next_sample_fast(pd))
		return decode(pd, pd->cur, ev) ?: 1;
	for (;;) {
		ret = pd_read_record(pd);
		if (ret <= 0)
			return ret;
		memcpy(&h, pd->cur, sizeof(h));
		if (h.type < 128)
			pd->counts[h.type]++;
		if (h.type != PERF_RECORD_SAMPLE) {
			ret = pd_handle_meta(pd, &h);
			if (ret)
				return ret;
			if (h.type == PERF_RECORD_COMPRESSED)
				continue;	/* its inner records come next */
		}
		ret = decode(pd, pd->cur, ev);
		return ret ?: 1;
	}
}

/* wult_pd_next() but for an unordered file's common record. */
static int __attribute__((noinline)) next_slow(struct wult_pd *pd, struct wult_pd_event *ev)
{
	int ret;

	if (!(pd->flags & WULT_PD_ORDERED))
		return next_raw(pd, ev);
	for (;;) {
		if (pd->qemit < pd->qready) {
			struct qent *q = &pd->q[pd->qemit++];

			return decode(pd, pd->qbuf + q->off, ev) ?: 1;
		}
		queue_compact(pd);
		if (pd->draining)
			return 0;
		ret = next_raw(pd, ev);
		if (ret < 0)
			return ret;
		if (!ret) {
			pd->draining = 1;
			queue_flush(pd, UINT64_MAX);
			continue;
		}
		if (ev->type == PERF_RECORD_SAMPLE &&
		    (ev->sample.attr->attr.sample_type & PERF_SAMPLE_TIME)) {
			ret = queue_sample(pd, ev);
			if (ret)
				return ret;
			continue;
		}
		if (ev->type == PERF_RECORD_FINISHED_ROUND) {
			/* As perf: what came before the previous round's
			 * newest sample can no longer be overtaken.
			 */
			queue_flush(pd, pd->prev_round_max);
			pd->prev_round_max = pd->round_max;
		}
		return 1;
	}
}

/*
 * The common record of an unordered file taken here, the rest by
 * next_slow(): small enough for the link-time optimiser to inline into a
 * caller's per-record loop (wult report's reader: its call and frame were
 * 13 instructions a datapoint).
 */
int wult_pd_next(struct wult_pd *pd, struct wult_pd_event *ev)
{
	if (!(pd->flags & WULT_PD_ORDERED) && next_sample_fast(pd))
		return decode(pd, pd->cur, ev) ?: 1;
	return next_slow(pd, ev);
}

/*
 * The common sample's payloads, a run at a time: what wult_pd_next() and
 * pd_parse_sample() would take of each (their checks, the counts) but only
 * the RAW data kept, for a reader that decodes payloads itself (wult
 * report: 140 instructions a datapoint were the event and sample structs).
 * Stops before anything else: another record type, a record not whole in
 * the window, a malformed one (wult_pd_next() then says why).
 */
unsigned int wult_pd_next_raws(struct wult_pd *pd, const void **raw, uint32_t *size,
			       unsigned int max)
{
	size_t pos = pd->in_pos, len = pd->in_len, off, last = pos;
	struct perf_event_header h;
	unsigned int n = 0;
	uint64_t st;
	uint32_t rs;

	if ((pd->flags & WULT_PD_ORDERED) || pd->nattrs != 1 || pd->dpos < pd->dlen || (pos & 7))
		return 0;
	st = pd->attrs[0].pub.attr.sample_type;
	if ((st & ~FIXED_HEAD) != PERF_SAMPLE_RAW)
		return 0;
	/* RAW's size field: after the header and the fixed fields' u64s */
	off = sizeof(h) + 8 * (size_t)__builtin_popcountll(st & FIXED_HEAD);
	while (n < max && len - pos >= sizeof(h)) {
		memcpy(&h, pd->in + pos, sizeof(h));
		if (h.type != PERF_RECORD_SAMPLE || (h.size & 7) || h.size > len - pos ||
		    h.size < off + 4)
			break;
		memcpy(&rs, pd->in + pos + off, 4);
		if (!pd_raw_fits(rs, h.size - off))
			break;
		prefetch_ahead(pd->in + pos, len - pos, h.size);
		raw[n] = pd->in + pos + off + 4;
		size[n++] = rs;
		last = pos;
		pos += h.size;
	}
	if (!n)
		return 0;
	pd->rec_inner = 0;
	pd->rec_off = pd->in_off + (last - pd->in_pos);
	pd->cur = pd->in + last;
	pd->in_off += pos - pd->in_pos;
	pd->in_pos = pos;
	pd->counts[PERF_RECORD_SAMPLE] += n;
	return n;
}

/* ---- open / close ---- */

/* The file's first 8 bytes are perf.data's magic, of this byte order. */
static int check_magic(struct wult_pd *pd)
{
	uint64_t magic;

	memcpy(&magic, pd->in, 8);
	if (magic == PERF_FILE_MAGIC2_SWAPPED)
		return pd_fail(pd, -EINVAL, "perf.data of the other endianness (byte-swapped "
			       "magic): not supported, re-record on this architecture");
	if (magic == PERF_FILE_MAGIC1)
		return pd_fail(pd, -EINVAL, "perf.data version 1 (\"PERFFILE\"): too old, not "
			       "supported");
	if (magic != PERF_FILE_MAGIC2)
		return pd_fail(pd, -EINVAL, "not a perf.data file (magic 0x%016llx, expected "
			       "\"PERFILE2\")", (unsigned long long)magic);
	return 0;
}

int wult_pd_open_fd(int fd, unsigned int flags, struct wult_pd **out, char *err,
		    size_t errlen)
{
	struct file_header h;
	struct wult_pd *pd;
	struct stat st;
	int ret;

	*out = NULL;
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		close(fd);
		return -ENOMEM;
	}
	pd->fd = fd;
	pd->flags = flags;
	pd->data_end = UINT64_MAX;	/* until the header says where data ends */
	pd->in = pd->inbuf = malloc(INBUF_SIZE);
	if (!pd->in) {
		ret = -ENOMEM;
		goto out;
	}
	if (fstat(fd, &st)) {
		ret = pd_fail(pd, -errno, "fstat: %s", strerror(errno));
		goto out;
	}
	pd->file_size = st.st_size;
	/* Read the magic and size through the stream: works for pipes too. */
	ret = pd_in_fill(pd, PERF_PIPE_HDR_SIZE);
	if (ret <= 0) {
		if (!ret)
			ret = pd_fail(pd, -EINVAL, "file header truncated: %zu bytes, a perf.data "
				      "header needs at least %d", pd->in_len, PERF_PIPE_HDR_SIZE);
		goto out;
	}
	ret = check_magic(pd);
	if (ret)
		goto out;
	memcpy(&h.size, pd->in + 8, 8);
	if (h.size == PERF_PIPE_HDR_SIZE) {
		/*
		 * A pipe of 64 KiB (the default) wakes reader and writer for
		 * every 64 KiB: ask for 1 MiB (pipe-max-size's default), or
		 * whatever the system allows; failing is harmless.
		 */
		if (S_ISFIFO(st.st_mode) && fcntl(fd, F_SETPIPE_SZ, PIPE_WANT) < 0)
			fcntl(fd, F_SETPIPE_SZ, PIPE_WANT / 4);
		pd->pipe = 1;
		pd->in_pos = PERF_PIPE_HDR_SIZE;
		pd->in_off = PERF_PIPE_HDR_SIZE;
		*out = pd;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = pd_fail(pd, -EINVAL, "file-mode perf.data (header size %llu) on a pipe: "
			      "record with -o - for pipe mode", (unsigned long long)h.size);
		goto out;
	}
	if (st.st_size < PERF_FILE_HDR_SIZE) {
		ret = pd_fail(pd, -EINVAL, "file header truncated: %lld bytes, a perf.data "
			      "header needs %d", (long long)st.st_size, PERF_FILE_HDR_SIZE);
		goto out;
	}
	ret = pd_pread(pd, &h, sizeof(h), 0);
	if (ret)
		goto out;
	pd->in_pos = pd->in_len = 0;
	ret = pd_read_file_header(pd, &h);
	if (ret)
		goto out;
	*out = pd;
	return 0;
out:
	if (err && errlen)
		snprintf(err, errlen, "%s", pd->err[0] ? pd->err : strerror(-ret));
	wult_pd_close(pd);
	return ret;
}

int wult_pd_open(const char *path, unsigned int flags, struct wult_pd **out, char *err,
		 size_t errlen)
{
	int fd;

	*out = NULL;
	if (!strcmp(path, "-"))
		fd = dup(0);
	else
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	return wult_pd_open_fd(fd, flags, out, err, errlen);
}

void wult_pd_close(struct wult_pd *pd)
{
	unsigned int i;

	if (!pd)
		return;
	if (pd->fd >= 0)
		close(pd->fd);
	for (i = 0; i < pd->nattrs; i++) {
		free(pd->attrs[i].ids);
		free(pd->attrs[i].name);
	}
	free(pd->attrs);
	free(pd->idmap);
	for (i = 0; i < pd->nformats; i++) {
		free(pd->formats[i].system);
		free(pd->formats[i].text);
	}
	free(pd->formats);
	for (i = 0; i < pd->npmus; i++)
		free(pd->pmus[i].name);
	free(pd->pmus);
	for (i = 0; i < pd->ncstates; i++)
		free(pd->cstates[i].name);
	free(pd->cstates);
	free(pd->sysdesc);
	free(pd->hostname);
	free(pd->osrelease);
	free(pd->cmdline);
	ZSTD_freeDCtx(pd->zd);
	free(pd->dbuf);
	free(pd->qbuf);
	free(pd->q);
	pd_map_close(pd);
	free(pd->inbuf);
	free(pd);
}

const char *wult_pd_error(const struct wult_pd *pd)
{
	return pd->err;
}

const char *wult_pd_input(const struct wult_pd *pd)
{
	return pd->pipe ? "a stream: read() into a 1 MiB buffer" : pd->input;
}

int wult_pd_is_pipe(const struct wult_pd *pd)
{
	return pd->pipe;
}

unsigned int wult_pd_nr_attrs(const struct wult_pd *pd)
{
	return pd->nattrs;
}

const struct wult_pd_attr *wult_pd_attr(const struct wult_pd *pd, unsigned int idx)
{
	return idx < pd->nattrs ? &pd->attrs[idx].pub : NULL;
}

const char *wult_pd_hostname(const struct wult_pd *pd)
{
	return pd->hostname;
}

const char *wult_pd_osrelease(const struct wult_pd *pd)
{
	return pd->osrelease;
}

const char *wult_pd_cmdline(const struct wult_pd *pd)
{
	return pd->cmdline;
}

uint32_t wult_pd_nr_cpus_online(const struct wult_pd *pd)
{
	return pd->cpus_online;
}

uint32_t wult_pd_nr_cpus_avail(const struct wult_pd *pd)
{
	return pd->cpus_avail;
}

const char *wult_pd_pmu_name(const struct wult_pd *pd, uint32_t type)
{
	unsigned int i;

	for (i = 0; i < pd->npmus; i++)
		if (pd->pmus[i].type == type)
			return pd->pmus[i].name;
	return NULL;
}

unsigned int wult_pd_nr_cstates(const struct wult_pd *pd)
{
	return pd->ncstates;
}

int wult_pd_cstate(const struct wult_pd *pd, unsigned int i, uint32_t *cpu, uint32_t *idx,
		   const char **name)
{
	if (i >= pd->ncstates)
		return -ENOENT;
	*cpu = pd->cstates[i].cpu;
	*idx = pd->cstates[i].idx;
	*name = pd->cstates[i].name;
	return 0;
}

const char *wult_pd_sysdesc(const struct wult_pd *pd)
{
	return pd->sysdesc;
}

unsigned int wult_pd_nr_formats(const struct wult_pd *pd)
{
	return pd->nformats;
}

int wult_pd_format(const struct wult_pd *pd, unsigned int idx, const char **system,
		   const char **text, size_t *len)
{
	if (idx >= pd->nformats)
		return -ENOENT;
	*system = pd->formats[idx].system;
	*text = pd->formats[idx].text;
	*len = pd->formats[idx].len;
	return 0;
}

uint64_t wult_pd_count(const struct wult_pd *pd, uint32_t type)
{
	return type < 128 ? pd->counts[type] : 0;
}

