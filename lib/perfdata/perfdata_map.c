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
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal/pd.h"

#define MAP_OVERLAP	(64U << 10)	/* a record's largest size, rounded up */

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
			pthread_mutex_unlock(&m->mu);
			p = map_range(m->fd, start, end, 1);
			pthread_mutex_lock(&m->mu);
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
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	if (pthread_create(&m->tid, NULL, mapper, m)) {
		/* no helper: windows are mapped in the caller's thread */
		pthread_cond_destroy(&m->cv);
		pthread_mutex_destroy(&m->mu);
		free(m);
		return 0;
	}
	pd->mapper = m;
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
		if (m->ready)
			munmap(m->ready, m->ready_end - m->ready_start);
		if (m->drop)
			munmap(m->drop, m->drop_len);
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

/* Returns as pd_in_fill(), or PD_MAP_READ: mapping failed, reads take over. */
int pd_map_window(struct wult_pd *pd, size_t n)
{
	uint64_t start, end;
	void *p = NULL;

	if (pd->in_off + (pd->in_len - pd->in_pos) >= pd->data_end)
		return 0;		/* the window reaches the end already */
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
