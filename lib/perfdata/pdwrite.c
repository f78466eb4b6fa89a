// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer. The layout follows perf's (see
 * tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   header | data (records) | feature table | [gap] | features, attrs, ids
 *
 * perf finds the feature table right after the data section; the feature
 * sections, attrs and ids are found through offsets and may lie anywhere.
 *
 * Durability: the file is a valid perf.data from wult_pdw_open() on, so a
 * writer killed at any instant leaves a readable file, features included,
 * with every record of the last wult_pdw_sync(). Records are buffered and
 * written only by a sync, which writes nothing the header on disk refers
 * to until its last step, one pwrite() of the header:
 *   1. the new features, attrs and ids go to the slot the header does not
 *      use (two slots, used in turn, placed RESERVE past the table);
 *   2. the buffered records go right after the feature table on disk;
 *   3. the new feature table after them;
 *   4. the header says: the data up to the new table, the new attrs.
 * The old table thereby becomes part of the data. It stays a valid record
 * because every table opens with the entry of feature bit 0
 * (HEADER_RESERVED, which perf and libwult skip), written as the header of
 * a FINISHED_ROUND record as long as the table: readers step over it as a
 * round boundary. A sync therefore costs one table's bytes in the data
 * (16 per feature, plus 16), and a round marker, as perf record writes
 * after each pass over its buffers. The slots move further when the data
 * could reach them within one sync; close writes the sections right after
 * the table (where they fit) and cuts the file there.
 *
 * Pipe mode (path "-": standard output, as `perf record -o -`): the pipe
 * header, one HEADER_ATTR record per event with its ids, the features as
 * HEADER_FEATURE records and the event format as HEADER_TRACING_DATA go
 * out at the first sync, the records at every sync. Ids added later are
 * not announced, so a pipe writer learns them all before. perf rejects
 * feature ids beyond its own, so WULT_PDW_FEAT_CSTATES is left out, and
 * WULT_PDW_FEAT_SYSDESC goes under HEADER_STAT's id (see pdwrite.h).
 *
 * This file is the writer and its syncs; pdwrite_format.c writes the bytes
 * of perf's header, feature table and sections, attrs and pipe records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wult/pdwrite.h>
#include "internal/err.h"
#include "internal/pdwrite.h"
#include "internal/perf_file.h"

/* Records buffered before a sync is forced, whatever the caller's pace. */
#define BUF_MAX		(1U << 20)
/*
 * Space kept between the feature table and the slots: one sync's records
 * (at most BUF_MAX) and its table (at most 257 entries of 16 bytes) never
 * reach the slot the header uses.
 */
#define RESERVE		(BUF_MAX + (8U << 10))

int wult_pdw_open(const char *path, struct wult_pdw **out, char *err, size_t errlen)
{
	struct wult_pdw *w;
	int ret;

	if (!path || !out)
		return wult_err_set(err, errlen, -EINVAL, "no output file given");
	w = calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		free(w);
		return wult_err_set(err, errlen, -ENOMEM, "out of memory");
	}
	w->group_leader = -1;
	w->slot = -1;
	w->data_end = w->sec_lo = w->tail_end = PERF_FILE_HDR_SIZE;
	if (!strcmp(path, "-")) {
		w->pipe = 1;
		w->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (w->fd < 0) {
			ret = -errno;
			free(w->path);
			free(w);
			return wult_err_set(err, errlen, ret, "standard output: %s",
					    strerror(-ret));
		}
		*out = w;
		return 0;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		ret = -errno;
		wult_err_set(err, errlen, ret, "cannot create %s: %s", path, strerror(errno));
		free(w->path);
		free(w);
		return ret;
	}
	/* A valid (empty) perf.data from the first write on. */
	ret = wult_pdw_sync(w);
	if (ret) {
		wult_err_set(err, errlen, ret, "writing %s failed: %s", path, strerror(-ret));
		close(w->fd);
		unlink(path);
		free(w->path);
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int wult_pdw_add_attr(struct wult_pdw *w, const struct perf_event_attr *attr,
		      const char *name)
{
	w->dirty = 1;
	struct pdw_event *ev;

	ev = realloc(w->ev, (w->nr_ev + 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	w->ev = ev;
	ev = &w->ev[w->nr_ev];
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, attr, attr->size && attr->size < ATTR_SIZE ? attr->size : ATTR_SIZE);
	ev->attr.size = ATTR_SIZE;
	ev->name = strdup(name ? name : "");
	if (!ev->name)
		return -ENOMEM;
	return w->nr_ev++;
}

int wult_pdw_add_id(struct wult_pdw *w, int idx, uint64_t id)
{
	struct pdw_event *ev;
	uint32_t i;

	if (idx < 0 || (unsigned int)idx >= w->nr_ev)
		return -EINVAL;
	ev = &w->ev[idx];
	for (i = 0; i < ev->nr_ids; i++)
		if (ev->ids[i] == id)
			return 0;
	if (ev->nr_ids == ev->cap_ids) {
		uint32_t cap = ev->cap_ids ? ev->cap_ids * 2 : 8;
		uint64_t *ids = realloc(ev->ids, cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		ev->ids = ids;
		ev->cap_ids = cap;
	}
	ev->ids[ev->nr_ids++] = id;
	w->dirty = 1;
	return 0;
}

int wult_pdw_set_group(struct wult_pdw *w, int leader, unsigned int nr)
{
	w->dirty = 1;
	if (leader < 0 || nr < 1 || leader + nr > w->nr_ev)
		return -EINVAL;
	w->group_leader = leader;
	w->group_nr = nr;
	return 0;
}

int wult_pdw_write(struct wult_pdw *w, const void *rec, size_t size)
{
	const struct perf_event_header *h = rec;

	if (size < sizeof(*h) || h->size != size)
		return -EINVAL;
	if (w->failed)
		return -EIO;
	/* A sync never writes more than BUF_MAX bytes of records (RESERVE). */
	if (w->buf_len && w->buf_len + size > BUF_MAX) {
		int ret = wult_pdw_sync(w);

		if (ret)
			return ret;
	}
	if (w->buf_len + size > w->buf_cap) {
		size_t cap = w->buf_cap ? w->buf_cap : 65536;
		char *b;

		while (cap < w->buf_len + size)
			cap *= 2;
		b = realloc(w->buf, cap);
		if (!b)
			return -ENOMEM;
		w->buf = b;
		w->buf_cap = cap;
	}
	memcpy(w->buf + w->buf_len, rec, size);
	w->buf_len += size;
	return 0;
}

static int dup_str(char **dst, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		return -ENOMEM;
	free(*dst);
	*dst = d;
	return 0;
}

int wult_pdw_set_str(struct wult_pdw *w, enum wult_pdw_str which, const char *s)
{
	w->dirty = 1;
	if ((unsigned int)which >= WULT_PDW_NR_STR)
		return -EINVAL;
	return dup_str(&w->str[which], s);
}

int wult_pdw_set_cmdline(struct wult_pdw *w, int argc, char *const *argv)
{
	w->dirty = 1;
	int i;

	w->argv = calloc(argc > 0 ? argc : 1, sizeof(*w->argv));
	if (!w->argv)
		return -ENOMEM;
	for (i = 0; i < argc; i++) {
		if (dup_str(&w->argv[i], argv[i]))
			return -ENOMEM;
		w->argc = i + 1;
	}
	return 0;
}

int wult_pdw_set_nrcpus(struct wult_pdw *w, uint32_t online, uint32_t avail)
{
	w->dirty = 1;
	w->cpus_online = online;
	w->cpus_avail = avail;
	return 0;
}

int wult_pdw_set_tracing(struct wult_pdw *w, const char *system, const char *format)
{
	w->dirty = 1;
	if (!system || !format)
		return -EINVAL;
	if (dup_str(&w->trace_system, system) || dup_str(&w->trace_format, format))
		return -ENOMEM;
	return 0;
}

int wult_pdw_add_pmu(struct wult_pdw *w, uint32_t type, const char *name)
{
	w->dirty = 1;
	struct pdw_pmu *p;
	unsigned int i;

	/* Several events of one PMU: one mapping. */
	for (i = 0; i < w->nr_pmu; i++)
		if (w->pmu[i].type == type)
			return 0;
	p = realloc(w->pmu, (w->nr_pmu + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->pmu = p;
	p[w->nr_pmu].type = type;
	p[w->nr_pmu].name = NULL;
	if (dup_str(&p[w->nr_pmu].name, name))
		return -ENOMEM;
	w->nr_pmu++;
	return 0;
}

int wult_pdw_add_cstate(struct wult_pdw *w, uint32_t cpu, uint32_t idx, const char *name)
{
	w->dirty = 1;
	struct pdw_cstate *c = realloc(w->cst, (w->nr_cst + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	w->cst = c;
	c[w->nr_cst].cpu = cpu;
	c[w->nr_cst].idx = idx;
	c[w->nr_cst].name = NULL;
	if (dup_str(&c[w->nr_cst].name, name))
		return -ENOMEM;
	w->nr_cst++;
	return 0;
}

int wult_pdw_set_sysdesc(struct wult_pdw *w, const char *text)
{
	w->dirty = 1;
	if (!text)
		return -EINVAL;
	/* u32 length, the text padded to 64 bytes, in a 16-byte record. */
	if (w->pipe && 16 + 4 + strlen(text) + 64 > 0xffff)
		return -E2BIG;
	return dup_str(&w->sysdesc, text);
}

uint64_t wult_pdw_data_size(const struct wult_pdw *w)
{
	return w->rec_bytes + w->buf_len;
}

static void pdw_free(struct wult_pdw *w)
{
	unsigned int i;

	for (i = 0; i < w->nr_ev; i++) {
		free(w->ev[i].name);
		free(w->ev[i].ids);
	}
	free(w->ev);
	for (i = 0; i < w->nr_pmu; i++)
		free(w->pmu[i].name);
	free(w->pmu);
	for (i = 0; i < w->nr_cst; i++)
		free(w->cst[i].name);
	free(w->cst);
	free(w->sysdesc);
	for (i = 0; i < WULT_PDW_NR_STR; i++)
		free(w->str[i]);
	for (i = 0; i < (unsigned int)w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	free(w->trace_system);
	free(w->trace_format);
	free(w->buf);
	free(w->path);
	free(w);
}

static void pwrite_all(struct wult_pdw *w, const void *p, size_t n, uint64_t off)
{
	while (n && !w->failed) {
		ssize_t k = pwrite(w->fd, p, n, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->failed = k < 0 ? errno : EIO;
			return;
		}
		p = (const char *)p + k;
		n -= k;
		off += k;
	}
}

/* An in-memory stream: the bytes of one write. */
struct mbuf {
	char *p;
	size_t n;
	FILE *f;
};

static int mbuf_open(struct mbuf *m)
{
	m->p = NULL;
	m->n = 0;
	m->f = open_memstream(&m->p, &m->n);
	return m->f ? 0 : -ENOMEM;
}

static void mbuf_close(struct wult_pdw *w, struct mbuf *m)
{
	if (fclose(m->f))
		w->failed = ENOMEM;
	m->f = NULL;
}

static void write_all(struct wult_pdw *w, const void *p, size_t n)
{
	while (n && !w->failed) {
		ssize_t k = write(w->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->failed = k < 0 ? errno : EIO;
			return;
		}
		p = (const char *)p + k;
		n -= k;
	}
}

static int sync_pipe(struct wult_pdw *w)
{
	struct mbuf m;

	if (!w->announced && !w->failed) {
		if (mbuf_open(&m))
			return -ENOMEM;
		pdw_put_pipe_meta(w, m.f);
		mbuf_close(w, &m);
		if (!w->failed)
			write_all(w, m.p, m.n);
		free(m.p);
		w->announced = 1;
	}
	write_all(w, w->buf, w->buf_len);
	w->buf_len = 0;
	return w->failed ? -w->failed : 0;
}

/*
 * Where the sections of @len bytes go, when this sync's records and table
 * end at @need: with @compact (close), right after the table if they do not
 * reach the sections the header uses; else the slot the header does not
 * use, unless the next sync's records could reach the slots or @len
 * outgrew them: then two new slots past the old ones.
 */
static uint64_t place_sections(struct wult_pdw *w, uint64_t need, uint64_t len, int compact)
{
	uint64_t end_old;

	if (!len)		/* nothing to place: point inside the file */
		return need;
	if (compact && (w->tail_end == w->sec_lo || need + len <= w->sec_lo))
		return need;
	if (w->slot >= 0 && need + RESERVE <= w->slot_base && len <= w->slot_size) {
		w->slot ^= 1;
		return w->slot_base + w->slot * w->slot_size;
	}
	end_old = w->slot >= 0 ? w->slot_base + 2 * w->slot_size : 0;
	if (end_old < w->tail_end)
		end_old = w->tail_end;
	if (len > w->slot_size)
		w->slot_size = (2 * len + 4095) & ~4095ULL;
	w->slot_base = need + RESERVE > end_old ? need + RESERVE : end_old;
	w->slot = 0;
	return w->slot_base;
}

/* Steps 1-4 of the comment at the top, in that order. */
static void write_sync(struct wult_pdw *w, const struct mbuf *tbl, const struct mbuf *sec,
		       uint64_t sec_off, const struct mbuf *hdr)
{
	uint64_t rec_off = w->data_end + w->tbl_len;
	char first[PERF_FILE_HDR_SIZE + 16];

	if (!w->tbl_len && !w->buf_len && !sec->n && tbl->n == 16) {
		/* The first sync (open): header and table in one write. */
		memcpy(first, hdr->p, PERF_FILE_HDR_SIZE);
		memcpy(first + PERF_FILE_HDR_SIZE, tbl->p, 16);
		pwrite_all(w, first, sizeof(first), 0);
		return;
	}
	pwrite_all(w, sec->p, sec->n, sec_off);
	pwrite_all(w, w->buf, w->buf_len, rec_off);
	pwrite_all(w, tbl->p, tbl->n, rec_off + w->buf_len);
	/* One write within the first page: a kill cannot split it. */
	pwrite_all(w, hdr->p, PERF_FILE_HDR_SIZE, 0);
}

static int pdw_sync(struct wult_pdw *w, int compact)
{
	uint64_t feats[PERF_FEAT_BITS / 64] = { 0 }, new_end, sec_off, attrs_off, tbl_len;
	struct mbuf tbl, sec, hdr;
	int ret;

	new_end = w->data_end + w->tbl_len + w->buf_len;
	tbl_len = pdw_table_size(w);
	sec_off = place_sections(w, new_end + tbl_len, pdw_tail_size(w), compact);
	ret = mbuf_open(&tbl);
	if (!ret && (ret = mbuf_open(&sec)))
		mbuf_close(w, &tbl);
	if (!ret && (ret = mbuf_open(&hdr))) {
		mbuf_close(w, &tbl);
		mbuf_close(w, &sec);
	}
	if (ret)
		return ret;
	attrs_off = pdw_put_tail(w, tbl.f, sec.f, sec_off, feats);
	pdw_put_header(w, hdr.f, new_end, attrs_off, feats);
	mbuf_close(w, &tbl);
	mbuf_close(w, &sec);
	mbuf_close(w, &hdr);
	if (!w->failed && (tbl.n != tbl_len || hdr.n != PERF_FILE_HDR_SIZE))
		w->failed = EIO;	/* a size computed apart disagrees: a bug */
	if (!w->failed)
		write_sync(w, &tbl, &sec, sec_off, &hdr);
	free(tbl.p);
	free(sec.p);
	free(hdr.p);
	if (w->failed)
		return -(w->failed > 0 ? w->failed : EIO);
	w->rec_bytes += w->buf_len;
	w->data_end = new_end;
	w->tbl_len = tbl_len;
	w->sec_lo = sec_off;
	w->tail_end = sec_off + sec.n;
	w->buf_len = 0;
	w->dirty = 0;
	return 0;
}

int wult_pdw_sync(struct wult_pdw *w)
{
	if (!w)
		return -EINVAL;
	if (w->pipe)
		return sync_pipe(w);
	if (!w->failed && !w->buf_len && !w->dirty && w->tbl_len)
		return 0;
	return pdw_sync(w, 0);
}

int wult_pdw_close(struct wult_pdw *w, char *err, size_t errlen)
{
	int ret;

	if (!w)
		return -EINVAL;
	ret = w->pipe ? sync_pipe(w) : pdw_sync(w, 1);
	if (!ret && !w->pipe && ftruncate(w->fd, w->tail_end))
		ret = -errno;
	if (close(w->fd) && !ret)
		ret = -errno;
	if (ret)
		ret = wult_err_set(err, errlen, -EIO, "writing %s failed: %s", w->path,
				   strerror(-ret));
	pdw_free(w);
	return ret;
}
