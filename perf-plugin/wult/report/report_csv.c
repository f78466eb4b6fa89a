// SPDX-License-Identifier: GPL-2.0
/*
 * wult report --csv: the kept datapoints of an input exported as a CSV file
 * or an intel wult result directory (datapoints.csv and info.yml), every
 * metric in intel wult's column order, through libwult's CSV writer.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "report_input.h"
#include "report_pass.h"
#include "report_view.h"

/* Every metric in a CSV export, in intel wult's column order. */
static const enum wult_metric csv_cols[] = {
	WULT_M_WAKE_LATENCY, WULT_M_INTR_LATENCY, WULT_M_SILENT_TIME, WULT_M_LDIST,
	WULT_M_REQ_CSTATE, WULT_M_INTR_OFF, WULT_M_CC0, WULT_M_CC1, WULT_M_CC1_DERIVED,
	WULT_M_CC3, WULT_M_CC6, WULT_M_CC7, WULT_M_CC10, WULT_M_MC1, WULT_M_MC6, WULT_M_PC1,
	WULT_M_PC2, WULT_M_PC3, WULT_M_PC6, WULT_M_PC7, WULT_M_PC8, WULT_M_PC9, WULT_M_PC10,
	WULT_M_CPU_FREQ, WULT_M_SMI_CNT, WULT_M_NMI_CNT, WULT_M_SWIRQ_CNT, WULT_M_CPU, WULT_M_LTIME,
	WULT_M_TBI, WULT_M_TAI,
	WULT_M_TINTR, WULT_M_WAKE_LATENCY_RAW, WULT_M_INTR_LATENCY_RAW, WULT_M_SCALED,
	WULT_M_RUN_LATENCY,	/* ours (ipi --wake-task), after intel wult's */
};

int rpt_csv_add(struct rpt_csv *c, const struct wult_point *pt)
{
	double t = pt->v[WULT_M_LTIME].num, src = pt->v[WULT_M_SOURCE].num;

	if (src >= 0 && src < 32)
		c->sources |= 1U << (unsigned int)src;
	if (wult_csv_writer_add(c->w, pt)) {
		fprintf(stderr, "wult report: --csv: write error on %s\n", c->path);
		return -EIO;
	}
	c->written++;
	if (!isnan(t)) {
		if (!c->nrows || t < c->ltime_min)
			c->ltime_min = t;
		if (!c->nrows || t > c->ltime_max)
			c->ltime_max = t;
		c->nrows++;
	}
	return 0;
}

/* Is @path the file @st? */
static int same_inode(const char *path, const struct stat *st)
{
	struct stat si;

	return !stat(path, &si) && st->st_dev == si.st_dev && st->st_ino == si.st_ino;
}

int rpt_out_is_input(const char *out, const char *in)
{
	static const char *const parts[] = { "datapoints.csv", "info.yml" };
	struct stat so;
	char *p = NULL;
	unsigned int i;
	int ret = 0;

	if (stat(out, &so))
		return 0;
	if (same_inode(in, &so))
		return 1;
	for (i = 0; i < 2 && !ret; i++) {
		if (asprintf(&p, "%s/%s", in, parts[i]) < 0)
			return 0;
		ret = same_inode(p, &so);
		free(p);
	}
	return ret;
}

/* @path exists and is not ours to replace without --force. */
static int out_exists(const char *opt, const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return 0;
	fprintf(stderr, "wult report: %s: %s exists: remove it, give another name, or add "
		"--force to overwrite it\n", opt, path);
	return 1;
}

int rpt_out_check(const struct rpt_opts *o, const char *opt, const char *out,
		  const char *const *inputs, unsigned int ninputs)
{
	static const char *const parts[] = { "datapoints.csv", "info.yml" };
	char *paths[2] = { NULL, NULL };
	struct stat st;
	size_t len = strlen(out);
	unsigned int i, j, n = 0;
	int ret = 0;

	/* --csv's directory form: its two files are the targets. */
	if (!strcmp(opt, "--csv") &&
	    ((len && out[len - 1] == '/') || (!stat(out, &st) && S_ISDIR(st.st_mode)))) {
		for (; n < 2; n++)
			if (asprintf(&paths[n], "%s/%s", out, parts[n]) < 0) {
				paths[n] = NULL;
				ret = RPT_EXIT_DATA;
				break;
			}
	} else if (!(paths[0] = strdup(out))) {
		ret = RPT_EXIT_DATA;
	} else {
		n = 1;
	}
	for (i = 0; i < n && !ret; i++) {
		for (j = 0; j < ninputs && !ret; j++)
			if (rpt_out_is_input(paths[i], inputs[j])) {
				fprintf(stderr, "wult report: %s: %s is the input %s: give another "
					"name\n", opt, paths[i], inputs[j]);
				ret = RPT_EXIT_USAGE;
			}
		if (!ret && !o->force && out_exists(opt, paths[i]))
			ret = RPT_EXIT_USAGE;
	}
	for (i = 0; i < 2; i++)
		free(paths[i]);
	if (ret == RPT_EXIT_DATA)
		fprintf(stderr, "wult report: out of memory\n");
	return ret;
}

int rpt_csv_open(const char *out, const char *input, int force, struct rpt_csv *c)
{
	struct stat st;
	size_t len = strlen(out);

	memset(c, 0, sizeof(*c));
	c->force = force;
	if ((len && out[len - 1] == '/') || (!stat(out, &st) && S_ISDIR(st.st_mode))) {
		if (!mkdir(out, 0777)) {
			c->made_dir = 1;
		} else if (errno != EEXIST) {
			fprintf(stderr, "wult report: --csv: cannot create directory %s: %s\n",
				out, strerror(errno));
			return -errno;
		}
		c->dir = strdup(out);
		if (!c->dir || asprintf(&c->path, "%s%sdatapoints.csv", out,
					out[len - 1] == '/' ? "" : "/") < 0)
			return -ENOMEM;
	} else {
		c->path = strdup(out);
		if (!c->path)
			return -ENOMEM;
	}
	if (rpt_out_is_input(c->path, input)) {
		fprintf(stderr, "wult report: --csv: %s is the input: give another OUT\n",
			c->path);
		return -EEXIST;
	}
	/* "w+": the writer may have to re-read it (see wult/csv.h); "x": an
	 * existing file is not ours to replace unless --force said so. */
	c->f = fopen(c->path, force ? "w+" : "w+x");
	if (!c->f) {
		fprintf(stderr, "wult report: --csv: cannot write %s: %s%s\n", c->path,
			strerror(errno), errno == EEXIST ? " (--force to overwrite it)" : "");
		return -errno;
	}
	return wult_csv_writer_new(c->f, csv_cols, sizeof(csv_cols) / sizeof(csv_cols[0]),
				   &c->w);
}

/* An intel wult input's own info.yml value, kept in our export; NULL if
 * none. @buf receives it. */
static const char *input_info(const char *input, const char *key, char *buf, size_t len)
{
	struct wult_csv_reader *r;
	const char *v;
	char err[256];

	if (wult_csv_open(input, &r, err, sizeof(err)))
		return NULL;
	v = wult_csv_info(r, key);
	if (v)
		snprintf(buf, len, "%s", v);
	wult_csv_close(r);
	return v ? buf : NULL;
}

static int write_info(const char *path, const char *input, const struct rpt_src *src,
		      const struct rpt_csv *c)
{
	char *copy = strdup(input), date[64], devid[64], res[32];
	struct wult_csv_info in = {
		.toolver = WULT_VERSION, .cpu = rpt_src_cpu(src), .duration = NAN,
		.resolution = NAN,
	};
	struct stat st;
	struct tm tm;
	FILE *f;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	/* The report id is the input's name, as intel wult names results. */
	in.reportid = basename(copy);
	in.devid = input_info(input, "devid", devid, sizeof(devid));
	/* intel wult's devid: the timer method's name, or the NIC's address. */
	if (!in.devid)
		in.devid = rpt_src_device(src, devid, sizeof(devid));
	if (!in.devid)
		in.devid = rpt_sources_name(c->sources, devid, sizeof(devid));
	if (input_info(input, "resolution", res, sizeof(res)))
		in.resolution = atof(res);
	in.date = input_info(input, "date", date, sizeof(date));
	/* perf writes a perf.data's header last: its mtime is the end of
	 * the recording, the best date the file has. */
	if (!in.date && !stat(input, &st) && gmtime_r(&st.st_mtime, &tm) &&
	    strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm))
		in.date = date;
	if (c->nrows > 1)
		in.duration = (c->ltime_max - c->ltime_min) / 1e9;
	f = fopen(path, c->force ? "w" : "wx");
	if (!f || wult_csv_write_info(f, &in)) {
		fprintf(stderr, "wult report: --csv: cannot write %s: %s\n", path,
			strerror(errno));
		ret = -EIO;
	}
	if (f && fclose(f))
		ret = -EIO;
	free(copy);
	return ret;
}

/* Finishes the export; info.yml needs the input's CPU, known only now. */
int rpt_csv_close(struct rpt_csv *c, const struct rpt_src *src, const char *input, int ok)
{
	char *ipath = NULL;
	int ret = 0;

	if (c->w && wult_csv_writer_close(c->w))
		ret = -EIO;
	if (c->f && fclose(c->f))
		ret = -EIO;
	if (ret)
		fprintf(stderr, "wult report: --csv: write error on %s\n", c->path);
	/* A header-only result would read back as "no wult datapoints". */
	if (c->f && !ret && ok && !c->written) {
		fprintf(stderr, "wult report: --csv: no datapoint kept: nothing exported, %s "
			"not written\n", c->dir ? c->dir : c->path);
		ret = -ENODATA;
	}
	/* A partial export would pass for a whole one. */
	if (c->f && (ret || !ok))
		unlink(c->path);
	if (!ret && ok && c->dir) {
		if (asprintf(&ipath, "%s/info.yml", c->dir) < 0)
			ret = -ENOMEM;
		else
			ret = write_info(ipath, input, src, c);
		if (ret && ipath)
			unlink(ipath);
		if (ret)
			unlink(c->path);
		free(ipath);
	}
	if (c->f && !ret && ok)
		fprintf(stderr, "wult report: wrote %s (%llu datapoints)%s%s\n", c->path,
			(unsigned long long)c->written, c->dir ? " and " : "",
			c->dir ? "info.yml" : "");
	if ((ret || !ok) && c->made_dir)
		rmdir(c->dir);
	free(c->dir);
	free(c->path);
	return ret;
}
