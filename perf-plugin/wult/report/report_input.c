// SPDX-License-Identifier: GPL-2.0
/*
 * wult report inputs as one stream of datapoints: the kind of input is
 * chosen by its path (report_input.h lists the kinds, each in its own
 * file), and every rpt_src_*() call goes to that kind's ops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_input_kind.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Is the file's start perf.data's magic? Decides how a regular file is read. */
static int has_perf_magic(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	int ret;

	if (!f)
		return 0;
	ret = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	      !memcmp(magic, "PERFILE2", 8);
	fclose(f);
	return ret;
}

/*
 * The kind of input @path is: "-" a pipe, a directory an intel wult
 * result, a regular *.csv without perf.data's magic its datapoints.csv,
 * anything else perf.data. NULL, with @err set, when it cannot be read.
 */
static const struct rpt_src_ops *src_kind(const char *path, char *err, size_t errlen, int *ret)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return &rpt_src_pipe_ops;
	if (stat(path, &st)) {
		*ret = -errno;
		snprintf(err, errlen, "%s (give a perf.data file, an intel wult result "
			 "directory or a sweep's directory)", strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode))
		return &rpt_src_csv_ops;
	if (access(path, R_OK)) {
		*ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	/* Only regular files are peeked at: a FIFO would lose the bytes. */
	if (S_ISREG(st.st_mode) && ends_with(path, ".csv") && !has_perf_magic(path))
		return &rpt_src_csv_ops;
	return &rpt_src_pd_ops;
}

int rpt_src_open(const char *path, const struct rpt_opts *o, struct rpt_src **out,
		 char *err, size_t errlen)
{
	const struct rpt_src_ops *ops;
	struct rpt_src *s;
	int ret = 0;

	*out = NULL;
	ops = src_kind(path, err, errlen, &ret);
	if (!ops)
		return ret;
	s = calloc(1, ops->size);
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	s->path = path;
	s->o = o;
	s->cpu = -1;
	ret = ops->open(s, err, errlen);
	if (ret) {
		rpt_src_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int rpt_src_next(struct rpt_src *s, struct wult_point *pt)
{
	return s->ops->next(s, pt);
}

int rpt_src_next_some(struct rpt_src *s, uint64_t set, unsigned int stride, double *out,
		      const char **state, unsigned int max, unsigned int *got)
{
	struct wult_point pt;
	unsigned int n;
	uint64_t m;
	double *v;
	int ret = 1;

	if (s->ops->next_some)
		return s->ops->next_some(s, set, stride, out, state, max, got);
	/* A kind without a short path: the whole datapoint, then its part. */
	for (n = 0; n < max; n++) {
		ret = s->ops->next(s, &pt);
		if (ret <= 0)
			break;
		for (m = set, v = out + (size_t)n * stride; m; m &= m - 1)
			*v++ = pt.v[__builtin_ctzll(m)].num;
		state[n] = pt.v[WULT_M_REQ_CSTATE].str;
	}
	*got = n;
	return ret;
}

uint64_t rpt_src_metrics(const struct rpt_src *s)
{
	return s->ops->metrics ? s->ops->metrics(s) : WULT_METRICS_ALL;
}

int rpt_src_stable_names(const struct rpt_src *s)
{
	return s->ops->stable_names;
}

int rpt_src_has_sysdesc(const struct rpt_src *s)
{
	return s->ops->has_sysdesc && s->ops->has_sysdesc(s);
}

const struct wult_branches *rpt_src_branches(const struct rpt_src *s)
{
	return s->ops->branches ? s->ops->branches(s) : NULL;
}

struct rpt_resid *rpt_src_take_resid(struct rpt_src *s)
{
	return s->ops->take_resid ? s->ops->take_resid(s) : NULL;
}

const char *rpt_src_error(const struct rpt_src *s)
{
	return s->err;
}

int rpt_src_cpu(const struct rpt_src *s)
{
	if (s->cpu >= 0)
		return s->cpu;
	return s->ops->info_cpu ? s->ops->info_cpu(s) : 0;
}

const char *rpt_src_device(const struct rpt_src *s, char *buf, size_t len)
{
	return s->ops->device ? s->ops->device(s, buf, len) : NULL;
}

void rpt_meta_free(struct rpt_meta *m)
{
	unsigned int i;

	free(m->host);
	free(m->kernel);
	free(m->command);
	free(m->format);
	free(m->format_warning);
	free(m->tool);
	free(m->tool_version);
	free(m->device);
	free(m->cpu);
	wult_sysdesc_free(m->sysdesc);
	free(m->sysdesc_err);
	for (i = 0; i < m->nevents; i++)
		free(m->events[i]);
	free(m->events);
	memset(m, 0, sizeof(*m));
}

int rpt_src_describe(const struct rpt_src *s, struct rpt_file *f)
{
	int ret;

	free(f->desc);
	f->desc = NULL;
	f->undecodable = f->lost = f->lost_records = f->other = 0;
	f->br_read = f->br_matched = 0;
	ret = s->ops->describe(s, f);
	f->read = s->read;
	rpt_meta_free(&f->meta);
	return ret ?: s->ops->meta(s, &f->meta);
}

void rpt_src_close(struct rpt_src *s)
{
	if (!s)
		return;
	s->ops->close(s);
	free(s);
}
