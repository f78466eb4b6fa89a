// SPDX-License-Identifier: GPL-2.0
/*
 * wult report's intel wult input: a raw result directory (datapoints.csv
 * and info.yml) or a bare datapoints.csv, read by libwult's CSV reader.
 * One of the input kinds of report_input.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <wult/csv.h>

#include "report_input_kind.h"

struct src_csv {
	struct rpt_src s;
	struct wult_csv_reader *csv;
	FILE *csvf;			/* a bare datapoints.csv */
};

static struct src_csv *csv_of(struct rpt_src *s)
{
	return (struct src_csv *)s;
}

static const struct src_csv *ccsv_of(const struct rpt_src *s)
{
	return (const struct src_csv *)s;
}

/* The metrics an intel wult CSV provides: the columns of its header, which
 * libwult's CSV reader maps to metrics one to one. All when unreadable
 * here (the reader then says why).
 */
static uint64_t csv_metrics(const char *path, int is_dir)
{
	char file[4096], line[8192], *tok, *save = NULL;
	uint64_t bits = 0;
	FILE *f;
	int m;

	snprintf(file, sizeof(file), is_dir ? "%s/datapoints.csv" : "%s", path);
	f = fopen(file, "r");
	if (!f)
		return WULT_METRICS_ALL;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, ",\r\n", &save); tok; tok = strtok_r(NULL, ",\r\n", &save)) {
			size_t n;

			while (*tok == ' ' || *tok == '"')
				tok++;
			n = strcspn(tok, "\" ");
			m = wult_metric_lookup(tok, n);
			if (m >= 0)
				bits |= WULT_METRIC_BIT(m);
		}
	fclose(f);
	return bits ? bits : WULT_METRICS_ALL;
}

static int csv_open(struct rpt_src *s, char *err, size_t errlen)
{
	struct src_csv *c = csv_of(s);
	struct stat st;
	int ret, is_dir = !stat(s->path, &st) && S_ISDIR(st.st_mode);

	if (is_dir) {
		ret = wult_csv_open(s->path, &c->csv, err, errlen);
	} else {
		c->csvf = fopen(s->path, "r");
		if (!c->csvf) {
			snprintf(err, errlen, "%s", strerror(errno));
			return -errno;
		}
		/* A bare datapoints.csv: intel wult's current layout, times in us. */
		ret = wult_csv_open_stream(c->csvf, s->path, 1, &c->csv, err, errlen);
	}
	/* Not --metrics: the default ones may be missing from old results. */
	if (!ret && rpt_src_check_metrics(s, csv_metrics(s->path, is_dir), 0)) {
		snprintf(err, errlen, "%s", s->err);
		ret = -EINVAL;
	}
	return ret;
}

static int csv_next(struct rpt_src *s, struct wult_point *pt)
{
	struct src_csv *c = csv_of(s);
	int ret = wult_csv_next(c->csv, pt);

	if (ret < 0) {
		rpt_src_err(s, "%s", wult_csv_error(c->csv));
		return ret;
	}
	if (ret) {
		if (s->cpu < 0 && pt->v[WULT_M_CPU].num >= 0)
			s->cpu = (int)pt->v[WULT_M_CPU].num;
		s->read++;
	}
	return ret;
}

static int csv_info_cpu(const struct rpt_src *s)
{
	const char *v = wult_csv_info(ccsv_of(s)->csv, "cpu");

	return v ? atoi(v) : 0;
}

static int csv_describe(const struct rpt_src *s, struct rpt_file *f)
{
	const struct wult_csv_reader *r = ccsv_of(s)->csv;
	const char *tool = wult_csv_info(r, "toolname");
	const char *ver = wult_csv_info(r, "toolver");
	const char *descr = wult_csv_info(r, "devdescr");
	const char *v;

	rpt_desc_add(f, "intel wult raw result%s%s%s%s", tool ? ", " : "", tool ? tool : "",
		     ver ? " " : "", ver ? ver : "");
	if ((v = wult_csv_info(r, "devid")))
		rpt_desc_add(f, "device: %s%s%s%s", v, descr ? " (" : "", descr ? descr : "",
			     descr ? ")" : "");
	if ((v = wult_csv_info(r, "cpu")))
		rpt_desc_add(f, "cpu: %s", v);
	return 0;
}

static int csv_meta(const struct rpt_src *s, struct rpt_meta *m)
{
	const struct wult_csv_reader *r = ccsv_of(s)->csv;
	int ret = 0;

	m->kind = "intel wult";
	ret |= rpt_meta_str(&m->tool, wult_csv_info(r, "toolname"));
	ret |= rpt_meta_str(&m->tool_version, wult_csv_info(r, "toolver"));
	ret |= rpt_meta_str(&m->device, wult_csv_info(r, "devid"));
	ret |= rpt_meta_str(&m->cpu, wult_csv_info(r, "cpu"));
	return ret ? -ENOMEM : 0;
}

static void csv_close(struct rpt_src *s)
{
	struct src_csv *c = csv_of(s);

	if (c->csv)
		wult_csv_close(c->csv);
	if (c->csvf)
		fclose(c->csvf);
}

const struct rpt_src_ops rpt_src_csv_ops = {
	.size = sizeof(struct src_csv),
	.open = csv_open,
	.next = csv_next,
	.info_cpu = csv_info_cpu,
	.describe = csv_describe,
	.meta = csv_meta,
	.close = csv_close,
};
