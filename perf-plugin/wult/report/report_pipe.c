// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's two-thread pass: one thread reads and decodes the input
 * (rpt_src_next()), the caller's thread counts. Datapoints cross in batches,
 * in input order, carrying only the metrics the counting reads, so the
 * statistics see the same values in the same order as a one-thread pass
 * and the report is byte for byte the same.
 *
 * Reading and decoding cost about as much as counting, so on two CPUs a
 * pass takes about half the time. A batch is PIPE_BATCH datapoints of a
 * few doubles each; PIPE_NBATCH of them bound what is in flight.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "report_input.h"

#define PIPE_BATCH	4096		/* datapoints per handoff */
#define PIPE_NBATCH	4		/* batches in flight */
#define PIPE_AHEAD	16		/* datapoints the counting thread prefetches */
#define PIPE_PART	256		/* datapoints the reader decodes at once */
/*
 * Pauses before sleeping (each ~25 ns). Reading and counting now take
 * about as long (43% and 46% of a report's CPU): the side that waits
 * usually waits for a whole batch to be counted or read (about 200 us),
 * so a long spin burns CPU for nothing (the reader's 4096 pauses were 3.5%
 * of a report's CPU once the reader became the faster side), and the
 * wake-up delay is absorbed by the batches in flight.
 */
#define PIPE_SPIN_READER	256
#define PIPE_SPIN_COUNTER	256

/*
 * Each thread writes only its own cache lines while a batch is in flight
 * (a line both wrote per datapoint cost a third of the pass): a batch's
 * header is written by the reader before it hands it over, the counting
 * thread's place is in a line of its own.
 */
#define LINE	64

struct pipe_batch {
	double *val;			/* PIPE_BATCH x nm values */
	const char **str;		/* PIPE_BATCH ReqCState names */
	unsigned int n;			/* datapoints in it */
	int end;			/* the last batch: ret is the source's */
	int full;			/* 1: the reader filled it, 0: free */
} __attribute__((aligned(LINE)));

struct rpt_pipe {
	struct rpt_src *src;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;			/* the counting thread gave up */
	int sleepers;			/* threads in pthread_cond_wait() */
	int ret;			/* the source's last return */
	enum wult_metric m[WULT_M_NR];	/* the metrics carried, ascending */
	unsigned int nm;
	uint64_t set;			/* and as a set */
	int col[WULT_M_NR];		/* metric -> its column, -1: not carried */
	int known;			/* m[] cut to what the input has */
	struct rpt_notes *nt;		/* where the reader notes, NULL: it does not */
	struct pipe_batch b[PIPE_NBATCH];
	/* the counting thread's batch (NULL: wait for the next) and point */
	struct pipe_batch *cb __attribute__((aligned(LINE)));
	unsigned int cur, pos, cn;	/* cn: cb's datapoints */
};

/*
 * Whether @b->full is @want after a short spin: a thread put to sleep and
 * woken costs tens of microseconds on a VM, more than a batch's slack.
 */
static int spin_for(const struct pipe_batch *b, int want, unsigned int spins)
{
	unsigned int i;

	for (i = 0; i < spins; i++) {
		if (__atomic_load_n(&b->full, __ATOMIC_ACQUIRE) == want)
			return 1;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	return 0;
}

/* Sets @b->full to @v; wakes the other thread only if it sleeps. */
static void set_full(struct rpt_pipe *p, struct pipe_batch *b, int v)
{
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&b->full, v, __ATOMIC_RELEASE);
	if (p->sleepers)
		pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* Sleeps until @b->full is @want or the pass stops. 0, or 1 when stopped. */
static int sleep_for(struct rpt_pipe *p, struct pipe_batch *b, int want)
{
	int stop;

	pthread_mutex_lock(&p->lock);
	p->sleepers++;
	while (__atomic_load_n(&b->full, __ATOMIC_ACQUIRE) != want && !p->stop)
		pthread_cond_wait(&p->cond, &p->lock);
	p->sleepers--;
	stop = p->stop;
	pthread_mutex_unlock(&p->lock);
	return stop;
}

/* Reader side: the next free batch (in order), or NULL when told to stop. */
static struct pipe_batch *wait_free(struct rpt_pipe *p, unsigned int i)
{
	struct pipe_batch *b = &p->b[i % PIPE_NBATCH];

	if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
		return NULL;
	return spin_for(b, 0, PIPE_SPIN_READER) || !sleep_for(p, b, 0) ? b : NULL;
}

static void publish(struct rpt_pipe *p, struct pipe_batch *b)
{
	set_full(p, b, 1);
}

static void set_cols(struct rpt_pipe *p)
{
	unsigned int k;

	for (k = 0; k < WULT_M_NR; k++)
		p->col[k] = -1;
	for (k = 0; k < p->nm; k++)
		p->col[p->m[k]] = (int)k;
}

/*
 * At the first datapoint the input knows which metrics its datapoints can
 * carry: the others are NaN on every one, as the counting thread's point
 * starts, so they need not cross.
 */
static void carry_known(struct rpt_pipe *p)
{
	uint64_t avail = rpt_src_metrics(p->src);
	unsigned int i, n = 0;

	p->set = 0;
	for (i = 0; i < p->nm; i++)
		if ((avail & WULT_METRIC_BIT(p->m[i])) || p->m[i] == WULT_M_REQ_CSTATE) {
			p->m[n++] = p->m[i];
			p->set |= WULT_METRIC_BIT(p->m[i]);
		}
	p->nm = n;
	p->known = 1;
	set_cols(p);
}

static void *reader(void *arg)
{
	struct rpt_pipe *p = arg;
	struct pipe_batch *b;
	struct wult_point pt;
	unsigned int i, k, n, got;
	int ret = 1;

	for (i = 0; ret > 0 && (b = wait_free(p, i)); i++) {
		n = 0;
		if (!p->known) {
			/* The first: what the input has is known after it. */
			ret = rpt_src_next(p->src, &pt);
			if (ret > 0) {
				carry_known(p);
				for (k = 0; k < p->nm; k++)
					b->val[k] = pt.v[p->m[k]].num;
				b->str[n++] = pt.v[WULT_M_REQ_CSTATE].str;
			}
		}
		if (p->nt)
			rpt_notes_rows(p->nt, b->val, n, p->nm, p->col);
		/* The rest of the batch in a few calls (a call chain per
		 * datapoint, the source's op and its frame, was 4% of a
		 * report), each part noted while its rows are in L1. */
		while (ret > 0 && n < PIPE_BATCH) {
			double *v = b->val + (size_t)n * p->nm;

			ret = rpt_src_next_some(p->src, p->set, p->nm, v, &b->str[n],
						PIPE_BATCH - n < PIPE_PART ? PIPE_BATCH - n :
						PIPE_PART, &got);
			if (p->nt)
				rpt_notes_rows(p->nt, v, got, p->nm, p->col);
			n += got;
		}
		b->n = n;
		b->end = ret <= 0;
		p->ret = ret;
		publish(p, b);
	}
	return NULL;
}

int rpt_pipe_start(struct rpt_src *src, uint64_t metrics, struct rpt_notes *nt,
		   struct rpt_pipe **out)
{
	/* Aligned: the lines each thread writes are its own. */
	struct rpt_pipe *p = aligned_alloc(LINE, (sizeof(*p) + LINE - 1) & ~(size_t)(LINE - 1));
	unsigned int i;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	p->src = src;
	p->nt = nt;
	for (i = 0; i < WULT_M_NR; i++)
		if (metrics & WULT_METRIC_BIT(i))
			p->m[p->nm++] = i;
	set_cols(p);
	for (i = 0; i < PIPE_NBATCH; i++) {
		p->b[i].val = malloc(PIPE_BATCH * (p->nm ? p->nm : 1) * sizeof(double));
		p->b[i].str = malloc(PIPE_BATCH * sizeof(*p->b[i].str));
		if (!p->b[i].val || !p->b[i].str)
			goto fail;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->thread, NULL, reader, p)) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		goto fail;
	}
	*out = p;
	return 0;
fail:
	for (i = 0; i < PIPE_NBATCH; i++) {
		free(p->b[i].val);
		free(p->b[i].str);
	}
	free(p);
	return -EAGAIN;
}

/* Counting side: the current batch once the reader filled it. */
static struct pipe_batch *wait_full(struct rpt_pipe *p)
{
	struct pipe_batch *b = &p->b[p->cur % PIPE_NBATCH];

	if (!spin_for(b, 1, PIPE_SPIN_COUNTER))
		sleep_for(p, b, 1);	/* the reader stops only when told */
	return b;
}

/* Counting side: @b handed back to the reader, the next batch once full. */
static struct pipe_batch *next_full(struct rpt_pipe *p, struct pipe_batch *b)
{
	set_full(p, b, 0);
	p->cur++;
	return p->cb = wait_full(p);
}

int rpt_pipe_next(struct rpt_pipe *p, struct wult_point *pt)
{
	struct pipe_batch *b = p->cb;
	const double *v;
	unsigned int k;

	if (!b) {
		b = p->cb = wait_full(p);
		p->cn = b->n;
	}
	while (p->pos == p->cn) {
		if (b->end)
			return p->ret;
		p->pos = 0;
		b = next_full(p, b);
		p->cn = b->n;
	}
	v = b->val + (size_t)p->pos * p->nm;
	/* the reader's lines come from the other CPU's cache: ask ahead */
	if (p->pos + PIPE_AHEAD < p->cn) {
		__builtin_prefetch(v + PIPE_AHEAD * p->nm);
		__builtin_prefetch(&b->str[p->pos + PIPE_AHEAD]);
	}
	for (k = 0; k < p->nm; k++)
		pt->v[p->m[k]].num = v[k];
	pt->v[WULT_M_REQ_CSTATE].str = b->str[p->pos++];
	return 1;
}

int rpt_pipe_rows(struct rpt_pipe *p, struct rpt_rows *rows)
{
	struct pipe_batch *b = p->cb;

	do {
		if (b && b->end)
			return p->ret;
		b = b ? next_full(p, b) : (p->cb = wait_full(p));
	} while (!b->n);
	rows->val = b->val;
	rows->str = b->str;
	rows->n = b->n;
	rows->stride = p->nm;
	memcpy(rows->col, p->col, sizeof(rows->col));
	return 1;
}

void rpt_pipe_stop(struct rpt_pipe *p)
{
	unsigned int i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	for (i = 0; i < PIPE_NBATCH; i++) {
		free(p->b[i].val);
		free(p->b[i].str);
	}
	free(p);
}
