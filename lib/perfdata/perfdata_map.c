// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader, file mode's data section mapped a window at a time
 * instead of copied by read(), so records decode in place from the page
 * cache (the copy was the largest single cost of a pass). The window left
 * behind is unmapped, so mapping does not add the file's size to the
 * resident set.
 *
 * With WULT_PD_PREFETCH a helper thread maps (and faults in) the next
 * window while the caller decodes this one, and unmaps the one left
 * behind: mapping is a sixth of a pass's CPU time, and where the caller
 * hands its datapoints to another thread (wult report) it is the reading
 * thread that bounds the pass. Windows then follow a fixed chain, each
 * starting MAP_OVERLAP before the previous one's end: a record (at most
 * 64 KiB) that did not fit the previous window fits the next one whole.
 * Memory: three windows at most (the current one, the next, the one being
 * unmapped).
 *
 * Mapping is not always the cheaper way: where page faults are expensive
 * (a PVM guest: the hypervisor's work on each fault was a tenth of a
 * report's CPU time, the mapping thread 29%), copying by pread() costs a
 * fraction of it. pd_input_choose() measures both on the file's first
 * windows and keeps the cheaper. Read windows are two reused buffers the
 * helper fills in turn; each window starts where the previous one ended,
 * and the record left unfinished at its end is copied into the headroom
 * before the next one's data (READ_HEAD), so nothing is read twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal/pd.h"

#define MAP_OVERLAP	(64U << 10)	/* a record's largest size, rounded up */
/* a read buffer's room before its data for the previous window's tail: a
 * record, or a pd_in_skip() chunk (else that window is read again) */
#define READ_HEAD	(64U << 10)
#define READ_BUF	(READ_HEAD + READ_WINDOW)
/* the measurement: rounds of each way over the data's first MAP_WINDOW */
#define PROBE_ROUNDS	3
/* smaller data is mapped without measuring: the pass is too short to gain */
#define PROBE_MIN	(4ULL * MAP_WINDOW)

struct pd_mapper {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd, stop;
	/* the request: [want, want_end), pending until taken */
	uint64_t want, want_end;
	int pending, busy;
	/* the answer: a mapping of [ready_start, ready_end), or NULL */
	void *ready;
	uint64_t ready_start, ready_end;
	/* a window left behind, to unmap */
	void *drop;
	size_t drop_len;
	/* read mode (pd->map_bufs): the two buffers, and those not in use */
	uint8_t *buf[2], *free[2];
	int nfree;
};

/*
 * [@start, @end) of the file mapped, its pages in the page tables. The
 * helper (@touch) faults them in a page at a time: the kernel's fault-around
 * then maps them 16 pages a fault, about 10% less CPU than MAP_POPULATE's
 * page-by-page walk (measured here, per thread).
 */
static void *map_range(int fd, uint64_t start, uint64_t end, int touch)
{
	void *p = mmap(NULL, end - start, PROT_READ, MAP_PRIVATE | (touch ? 0 : MAP_POPULATE),
		       fd, start);
	volatile const uint8_t *b = p;
	uint64_t i;

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, end - start, MADV_SEQUENTIAL);
	for (i = 0; touch && i < end - start; i += 4096)
		(void)b[i];
	return p;
}

/* [@start, @end) read into buffer @b after its headroom: 0, or -1. */
static int read_range(int fd, uint8_t *b, uint64_t start, uint64_t end)
{
	uint64_t done = 0;
	ssize_t r;

	while (done < end - start) {
		r = pread(fd, b + READ_HEAD + done, end - start - done, start + done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;	/* the caller's read() path says why */
		done += r;
	}
	return 0;
}

/* A window of the helper's pool filled with [@start, @end), or NULL (@m->mu held). */
static void *fill_buf(struct pd_mapper *m, uint64_t start, uint64_t end)
{
	uint8_t *b;

	if (!m->nfree)
		return NULL;
	b = m->free[--m->nfree];
	pthread_mutex_unlock(&m->mu);
	if (read_range(m->fd, b, start, end)) {
		pthread_mutex_lock(&m->mu);
		m->free[m->nfree++] = b;
		return NULL;
	}
	pthread_mutex_lock(&m->mu);
	return b;
}

static void *mapper(void *arg)
{
	struct pd_mapper *m = arg;
	uint64_t start, end;
	size_t len;
	void *p;

	pthread_mutex_lock(&m->mu);
	while (!m->stop) {
		if (m->drop) {
			p = m->drop;
			len = m->drop_len;
			m->drop = NULL;
			pthread_mutex_unlock(&m->mu);
			munmap(p, len);
			pthread_mutex_lock(&m->mu);
			continue;
		}
		if (m->pending) {
			start = m->want;
			end = m->want_end;
			m->pending = 0;
			m->busy = 1;
			if (m->buf[0]) {
				p = fill_buf(m, start, end);
			} else {
				pthread_mutex_unlock(&m->mu);
				p = map_range(m->fd, start, end, 1);
				pthread_mutex_lock(&m->mu);
			}
			m->ready = p;
			m->ready_start = start;
			m->ready_end = end;
			m->busy = 0;
			pthread_cond_broadcast(&m->cv);
			continue;
		}
		pthread_cond_wait(&m->cv, &m->mu);
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

int pd_mapper_start(struct wult_pd *pd)
{
	struct pd_mapper *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->fd = pd->fd;
	if (pd->map_bufs) {
		void *b = mmap(NULL, 2 * READ_BUF, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (b == MAP_FAILED) {
			free(m);
			goto no_helper;
		}
		m->buf[0] = m->free[0] = b;
		m->buf[1] = m->free[1] = (uint8_t *)b + READ_BUF;
		m->nfree = 2;
	}
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	if (pthread_create(&m->tid, NULL, mapper, m)) {
		pthread_cond_destroy(&m->cv);
		pthread_mutex_destroy(&m->mu);
		if (m->buf[0])
			munmap(m->buf[0], 2 * READ_BUF);
		free(m);
		goto no_helper;
	}
	pd->mapper = m;
	return 0;
no_helper:
	/* windows are mapped in the caller's thread, or the data read() */
	if (pd->map_bufs)
		pd->map_ok = pd->map_bufs = 0;
	return 0;
}

void pd_map_close(struct wult_pd *pd)
{
	struct pd_mapper *m = pd->mapper;

	if (m) {
		pthread_mutex_lock(&m->mu);
		m->stop = 1;
		pthread_cond_broadcast(&m->cv);
		pthread_mutex_unlock(&m->mu);
		pthread_join(m->tid, NULL);
		if (m->buf[0]) {
			/* the current window is one of the buffers */
			munmap(m->buf[0], 2 * READ_BUF);
			pd->map = NULL;
		} else {
			if (m->ready)
				munmap(m->ready, m->ready_end - m->ready_start);
			if (m->drop)
				munmap(m->drop, m->drop_len);
		}
		pthread_cond_destroy(&m->cv);
		pthread_mutex_destroy(&m->mu);
		free(m);
		pd->mapper = NULL;
	}
	if (pd->map)
		munmap(pd->map, pd->map_len);
	pd->map = NULL;
}

/* Where a window starting at @start ends. */
static uint64_t window_end(const struct wult_pd *pd, uint64_t start)
{
	return start + MAP_WINDOW < pd->data_end ? start + MAP_WINDOW : pd->data_end;
}

/* The window that follows one ending at @end (< data_end). */
static void next_window(const struct wult_pd *pd, uint64_t end, uint64_t *ns, uint64_t *ne)
{
	*ns = (end > MAP_OVERLAP ? end - MAP_OVERLAP : 0) & ~(uint64_t)4095;
	*ne = window_end(pd, *ns);
}

/*
 * The helper's window if it covers @n bytes at in_off (waiting for it
 * while it is being mapped), else NULL; either way the helper is idle and
 * holds no window after. The window left behind goes to the helper.
 */
static void *take_ready(struct wult_pd *pd, size_t n, uint64_t *start, uint64_t *end)
{
	struct pd_mapper *m = pd->mapper;
	void *p, *stale = NULL;
	size_t stale_len = 0;

	pthread_mutex_lock(&m->mu);
	while (m->pending || m->busy || m->drop)
		pthread_cond_wait(&m->cv, &m->mu);
	p = m->ready;
	*start = m->ready_start;
	*end = m->ready_end;
	m->ready = NULL;
	if (p && !(*start <= pd->in_off &&
		   (pd->in_off + n <= *end || *end == pd->data_end))) {
		stale = p;
		stale_len = *end - *start;
		p = NULL;
	}
	if (pd->map) {
		m->drop = pd->map;
		m->drop_len = pd->map_len;
		pd->map = NULL;
		pthread_cond_broadcast(&m->cv);
	}
	pthread_mutex_unlock(&m->mu);
	if (stale)
		munmap(stale, stale_len);
	return p;
}

/* Asks the helper for the window after [.., @end). */
static void request_next(struct wult_pd *pd, uint64_t end)
{
	struct pd_mapper *m = pd->mapper;

	if (end >= pd->data_end)
		return;
	pthread_mutex_lock(&m->mu);
	next_window(pd, end, &m->want, &m->want_end);
	m->pending = 1;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

/*
 * Read mode's pd_map_window(): the helper's next window if the data
 * from in_off on continues in it, the current window's tail copied into
 * its headroom; else a window read here from in_off's page. The buffer
 * left behind goes back to the helper, which reads the next window into it.
 */
static int read_window(struct wult_pd *pd, size_t n)
{
	struct pd_mapper *m = pd->mapper;
	uint64_t start = 0, end = 0, off = pd->in_off;
	uint8_t *p, *old = pd->map;
	size_t tail = 0;

	pthread_mutex_lock(&m->mu);
	while (m->pending || m->busy)
		pthread_cond_wait(&m->cv, &m->mu);
	p = m->ready;
	start = m->ready_start;
	end = m->ready_end;
	m->ready = NULL;
	if (p && off < start)
		tail = start - off;
	if (p && (tail > READ_HEAD || off > end || (off + n > end && end != pd->data_end))) {
		m->free[m->nfree++] = p;	/* not the data that follows */
		p = NULL;
	}
	if (!p) {
		start = off & ~(uint64_t)4095;
		end = start + READ_WINDOW < pd->data_end ? start + READ_WINDOW : pd->data_end;
		tail = 0;
		if (off + n > end && end != pd->data_end)
			p = NULL;	/* more than a window asked: not from here */
		else
			p = fill_buf(m, start, end);
	}
	if (p && tail)
		memcpy(p + READ_HEAD - tail, pd->in + pd->in_pos, tail);
	if (old)
		m->free[m->nfree++] = old;
	pd->map = NULL;
	if (p && end < pd->data_end) {
		m->want = end;
		m->want_end = end + READ_WINDOW < pd->data_end ? end + READ_WINDOW : pd->data_end;
		m->pending = 1;
		pthread_cond_broadcast(&m->cv);
	}
	pthread_mutex_unlock(&m->mu);
	if (!p) {
		pd->map_ok = 0;
		pd->in = pd->inbuf;
		pd->in_pos = pd->in_len = 0;
		if (lseek(pd->fd, off, SEEK_SET) < 0)
			return pd_fail(pd, -errno, "seek to offset %llu: %s",
				       (unsigned long long)off, strerror(errno));
		return PD_MAP_READ;
	}
	pd->map = p;
	pd->map_len = READ_BUF;
	pd->in = p + READ_HEAD + (off - start);	/* off - start < 0: in the headroom */
	pd->in_pos = 0;
	pd->in_len = end - off;
	return pd->in_len >= n;
}

/* Returns as pd_in_fill(), or PD_MAP_READ: mapping failed, reads take over. */
int pd_map_window(struct wult_pd *pd, size_t n)
{
	uint64_t start, end;
	void *p = NULL;

	if (pd->in_off + (pd->in_len - pd->in_pos) >= pd->data_end)
		return 0;		/* the window reaches the end already */
	if (pd->map_bufs)
		return read_window(pd, n);
	if (pd->mapper)
		p = take_ready(pd, n, &start, &end);
	if (!p) {
		start = pd->in_off & ~(uint64_t)4095;
		end = window_end(pd, start);
		if (pd->map)
			munmap(pd->map, pd->map_len);
		pd->map = NULL;
		p = map_range(pd->fd, start, end, 0);
	}
	if (!p) {
		pd->map_ok = 0;
		pd->in = pd->inbuf;
		pd->in_pos = pd->in_len = 0;
		if (lseek(pd->fd, pd->in_off, SEEK_SET) < 0)
			return pd_fail(pd, -errno, "seek to offset %llu: %s",
				       (unsigned long long)pd->in_off, strerror(errno));
		return PD_MAP_READ;
	}
	pd->map = p;
	pd->map_len = end - start;
	pd->in = (uint8_t *)p + (pd->in_off - start);
	pd->in_pos = 0;
	pd->in_len = end - pd->in_off;
	if (pd->mapper)
		request_next(pd, end);
	return pd->in_len >= n;
}

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads a byte of each cache line: what decoding the window would. */
static uint64_t sweep(const uint8_t *p, size_t len)
{
	volatile const uint8_t *b = p;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < len; i += 64)
		sum += b[i];
	return sum;
}

/* CPU seconds to map, fault in, read and unmap [@off, @off + @len), or -1. */
static double probe_map(int fd, uint64_t off, size_t len)
{
	double t0 = thread_cpu();
	void *p = map_range(fd, off, off + len, 1);

	if (!p)
		return -1;
	sweep(p, len);
	munmap(p, len);
	return thread_cpu() - t0;
}

/* CPU seconds to pread() and read [@off, @off + @len) a READ_WINDOW at a time. */
static double probe_read(int fd, uint8_t *buf, uint64_t off, size_t len)
{
	double t0 = thread_cpu();
	size_t done, k;

	for (done = 0; done < len; done += k) {
		k = len - done < READ_WINDOW ? len - done : READ_WINDOW;
		if (pread(fd, buf, k, off + done) != (ssize_t)k)
			return -1;
		sweep(buf, k);
	}
	return thread_cpu() - t0;
}

void pd_input_choose(struct wult_pd *pd, uint64_t data_off)
{
	const char *force = getenv("WULT_PD_INPUT");
	uint64_t off = data_off & ~(uint64_t)4095;
	double tm = -1, tr = -1, t;
	int r, rd;

	pd->map_ok = 1;
	pd->map_bufs = 0;
	if (force && !strcmp(force, "map")) {
		snprintf(pd->input, sizeof(pd->input), "mapped (WULT_PD_INPUT=map)");
		return;
	}
	if (force && !strcmp(force, "read")) {
		rd = 1;
		snprintf(pd->input, sizeof(pd->input), "read (WULT_PD_INPUT=read)");
	} else if (pd->data_end - off < PROBE_MIN) {
		snprintf(pd->input, sizeof(pd->input), "mapped (data under %llu MiB: not measured)",
			 PROBE_MIN >> 20);
		return;
	} else {
		/*
		 * The same first window each way, in turn, the order swapped
		 * each round (the way that comes first may find the pages
		 * still out of the cache); the cheapest of each counts.
		 */
		for (r = 0; r < 2 * PROBE_ROUNDS; r++) {
			t = (r & 1) == (r / 2 & 1) ? probe_map(pd->fd, off, MAP_WINDOW)
						  : probe_read(pd->fd, pd->inbuf, off, MAP_WINDOW);
			if ((r & 1) == (r / 2 & 1))
				tm = t >= 0 && (tm < 0 || t < tm) ? t : tm;
			else
				tr = t >= 0 && (tr < 0 || t < tr) ? t : tr;
		}
		rd = tr >= 0 && (tm < 0 || tr < tm);
		snprintf(pd->input, sizeof(pd->input), "%s: measured here, read %.0f us/MiB, "
			 "mapped %.0f us/MiB of CPU", rd ? "read" : "mapped",
			 tr * 1e6 / (MAP_WINDOW >> 20), tm * 1e6 / (MAP_WINDOW >> 20));
	}
	if (rd) {
		/* with the helper: its buffers; without: the caller's read() */
		pd->map_bufs = !!(pd->flags & WULT_PD_PREFETCH);
		pd->map_ok = pd->map_bufs;
		posix_fadvise(pd->fd, data_off, pd->data_end - data_off, POSIX_FADV_SEQUENTIAL);
	}
}
