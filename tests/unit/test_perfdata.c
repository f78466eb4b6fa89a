// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader: files written by the real perf (tests/data/, recorded
 * with perf 6.1 on the host; expected values from `perf script`), and every
 * bad-input class made by corrupting them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <perf/event.h>
#include <wult/perfdata.h>
#include <wult/synth.h>
#include "wt.h"
#include "wt_data.h"


struct expect {
	const char *file;
	int pipe;
	unsigned int samples;
	uint32_t pid;
	uint64_t time_us;	/* first sample's time, in us as perf script prints */
	uint64_t ip;
};

static const struct expect files[] = {
	{ "cpuclock.data", 0, 5, 6547, 628799756, 0x7f9c10f13145ULL },
	{ "pipe.data", 1, 3, 6579, 631069194, 0x561902177d55ULL },
	{ "zstd.data", 0, 5, 6660, 632209796, 0xffffffff815fd387ULL },
	{ "group.data", 0, 5, 6688, 633323294, 0 },
	{ "raw.data", 0, 3, 6755, 635612967, 0x7f9a76f87158ULL },
	{ "sched_pipe.data", 1, 42, 14900, 744398335, 0xffffffff821f8b58ULL },
};

static char *path(const char *f)
{
	static char buf[PATH_MAX + 64];

	snprintf(buf, sizeof(buf), "%s/%s", wt_data_dir(), f);
	return buf;
}

static void check_file(const struct expect *e, unsigned int flags)
{
	struct wult_pd *pd;
	struct wult_pd_event ev;
	unsigned int n = 0;
	uint64_t last_time = 0;
	char err[512];
	int ret, ordered_ok = 1;

	ret = wult_pd_open(path(e->file), flags, &pd, err, sizeof(err));
	WT_CHECK(!ret, "%s: %s", e->file, err);
	if (ret)
		return;
	WT_EQ(wult_pd_is_pipe(pd), e->pipe);
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		const struct wult_pd_sample *s = &ev.sample;

		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		if (!n) {
			WT_CHECK(s->pid == e->pid, "%s pid %u", e->file, s->pid);
			WT_CHECK(s->time / 1000 == e->time_us, "%s time %llu", e->file,
				 (unsigned long long)s->time);
			if (e->ip)
				WT_CHECK(s->ip == e->ip, "%s ip %llx", e->file,
					 (unsigned long long)s->ip);
		}
		if (s->time < last_time)
			ordered_ok = 0;
		last_time = s->time;
		if (!strcmp(e->file, "group.data")) {
			WT_EQ(s->read.nr, 2);
			WT_CHECK(s->read.values[1].id == s->attr->ids[0] ||
				 s->read.values[1].id != 0, "group ids");
			WT_CHECK(s->callchain_nr > 0 && s->callchain_nr < 200, "callchain");
		}
		if (!strcmp(e->file, "raw.data")) {
			WT_EQ(s->regs_user_nr, 2);
			WT_CHECK(s->regs_user_abi != 0, "abi");
		}
		if (!strcmp(e->file, "sched_pipe.data")) {
			WT_CHECK(s->raw_size > 8, "raw size %u", s->raw_size);
			WT_CHECK(s->cpu == 0, "cpu");
		}
		n++;
	}
	WT_CHECK(ret == 0, "%s: %s", e->file, wult_pd_error(pd));
	WT_CHECK(n == e->samples, "%s: %u samples, want %u", e->file, n, e->samples);
	if (flags & WULT_PD_ORDERED)
		WT_CHECK(ordered_ok, "%s: ordered", e->file);
	WT_CHECK(wult_pd_nr_attrs(pd) >= 1, "attrs");
	if (!strcmp(e->file, "cpuclock.data")) {
		WT_CHECK(wult_pd_hostname(pd) && wult_pd_osrelease(pd), "host/os");
		WT_CHECK(wult_pd_cmdline(pd) && strstr(wult_pd_cmdline(pd), "perf record"),
			 "cmdline '%s'", wult_pd_cmdline(pd));
		WT_EQ(wult_pd_nr_cpus_online(pd), 2);
		WT_CHECK(wult_pd_pmu_name(pd, 1) && !strcmp(wult_pd_pmu_name(pd, 1), "software"),
			 "pmu");
		WT_CHECK(wult_pd_attr(pd, 0)->name &&
			 !strcmp(wult_pd_attr(pd, 0)->name, "cpu-clock"), "name");
	}
	if (!strcmp(e->file, "group.data"))
		WT_CHECK(!strcmp(wult_pd_attr(pd, 1)->name, "task-clock"), "member name");
	if (!strcmp(e->file, "sched_pipe.data")) {
		const char *sys, *text;
		size_t len;
		unsigned int i, found = 0;

		for (i = 0; i < wult_pd_nr_formats(pd); i++) {
			wult_pd_format(pd, i, &sys, &text, &len);
			if (!strcmp(sys, "sched") && strstr(text, "name: sched_switch"))
				found = 1;
		}
		WT_CHECK(found, "sched_switch format in TRACING_DATA (%u formats)",
			 wult_pd_nr_formats(pd));
		WT_CHECK(!strcmp(wult_pd_attr(pd, 0)->name, "sched:sched_switch"), "tp name");
	}
	if (!strcmp(e->file, "zstd.data"))
		WT_CHECK(wult_pd_count(pd, PERF_RECORD_COMPRESSED) > 0, "compressed records");
	wult_pd_close(pd);
}

/* ---- corrupted inputs ---- */

static uint8_t *slurp_path(const char *file, size_t *len)
{
	FILE *fp = fopen(file, "rb");
	uint8_t *b;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	*len = ftell(fp);
	rewind(fp);
	b = malloc(*len);
	if (fread(b, 1, *len, fp) != *len) {
		free(b);
		b = NULL;
	}
	fclose(fp);
	return b;
}

static uint8_t *slurp(const char *f, size_t *len)
{
	return slurp_path(path(f), len);
}

/* Opens @buf as a file and reads it to the end; the error text or NULL. */
static const char *try_buf(const uint8_t *buf, size_t len)
{
	static char err[512];
	struct wult_pd *pd;
	struct wult_pd_event ev;
	int fd = memfd_create("t", 0), ret;

	if (write(fd, buf, len) != (ssize_t)len)
		return "write failed";
	lseek(fd, 0, SEEK_SET);
	ret = wult_pd_open_fd(fd, 0, &pd, err, sizeof(err));
	if (ret)
		return err;
	while ((ret = wult_pd_next(pd, &ev)) > 0)
		;
	if (ret < 0)
		snprintf(err, sizeof(err), "%s", wult_pd_error(pd));
	wult_pd_close(pd);
	return ret < 0 ? err : NULL;
}

static void expect_err(const char *what, const uint8_t *buf, size_t len, const char *want)
{
	const char *e = try_buf(buf, len);

	WT_CHECK(e && strstr(e, want), "%s: got '%s', want '%s'", what, e ? e : "(success)",
		 want);
	if (e)
		printf("  %-22s -> %s\n", what, e);
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void wr64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Offset of the first record of @type in a file-mode buffer, or 0. */
static size_t find_rec(const uint8_t *b, size_t len, uint32_t type)
{
	size_t off = rd64(b + 40), end = off + rd64(b + 48);

	while (off + 8 <= end && off + 8 <= len) {
		uint32_t t;
		uint16_t sz;

		memcpy(&t, b + off, 4);
		memcpy(&sz, b + off + 6, 2);
		if (t == type)
			return off;
		if (!sz)
			return 0;
		off += sz;
	}
	return 0;
}

static void bad_inputs(void)
{
	uint8_t *b, *c;
	size_t len, off;
	uint64_t v;

	b = slurp("cpuclock.data", &len);
	WT_CHECK(b, "read fixture");
	if (!b)
		return;
	c = malloc(len);

	expect_err("empty", b, 0, "header truncated");
	expect_err("truncated header", b, 50, "header truncated");
	memcpy(c, b, len);
	memcpy(c, "NOTPERF!", 8);
	expect_err("wrong magic", c, len, "not a perf.data file");
	memcpy(c, b, len);
	for (off = 0; off < 8; off++)
		c[off] = b[7 - off];
	expect_err("other endianness", c, len, "other endianness");
	memcpy(c, b, len);
	memcpy(c, "PERFFILE", 8);
	expect_err("version 1", c, len, "too old");

	/* attr_size in the header disagrees with perf_event_attr.size */
	memcpy(c, b, len);
	wr64(c + 16, rd64(b + 16) + 8);
	expect_err("attr size mismatch", c, len, "attr");
	memcpy(c, b, len);
	v = rd64(b + 24);	/* attrs.offset: the attr's own size field */
	c[v + 4] += 8;
	expect_err("attr.size mismatch", c, len, "attr size mismatch");

	/* sections past the end of the file */
	memcpy(c, b, len);
	wr64(c + 48, len);	/* data.size */
	expect_err("data past EOF", c, len, "runs past the end of the file");
	memcpy(c, b, len);
	wr64(c + 24, len - 8);
	expect_err("attrs past EOF", c, len, "runs past the end of the file");
	expect_err("truncated file", b, len - 300, "past the end of the file");

	/* records */
	memcpy(c, b, len);
	off = find_rec(c, len, PERF_RECORD_SAMPLE);
	WT_CHECK(off, "sample found");
	c[off + 6] = 0;
	c[off + 7] = 0;
	expect_err("zero-size record", c, len, "less than its own header");
	memcpy(c, b, len);
	c[off] = 200;
	expect_err("unknown record type", c, len, "unknown record type 200");
	memcpy(c, b, len);
	c[off + 6] = 0xf0;
	c[off + 7] = 0x7f;
	expect_err("record past data end", c, len, "truncated");
	memcpy(c, b, len);
	c[off + 6] = 16;	/* shorter than the sample_type needs */
	c[off + 7] = 0;
	expect_err("short sample", c, len, "record");
	free(b);
	free(c);

	/* absurd group count: the READ nr of group.data's first sample */
	b = slurp("group.data", &len);
	if (b) {
		off = find_rec(b, len, PERF_RECORD_SAMPLE);
		/* IP, TID, TIME, ID, then READ nr */
		wr64(b + off + 8 + 32, 1ULL << 40);
		expect_err("absurd group count", b, len, "absurd group read count");
		free(b);
	}
	/* pipe mode: truncated stream */
	b = slurp("pipe.data", &len);
	if (b) {
		expect_err("truncated pipe", b, len - 5, "truncated");
		free(b);
	}
}

/* ---- a synthetic pipe stream with every sample_type bit ---- */

struct buf {
	uint8_t b[16384];
	size_t n;
};

static void b64(struct buf *b, uint64_t v)
{
	memcpy(b->b + b->n, &v, 8);
	b->n += 8;
}

static void bhdr(struct buf *b, uint32_t type, size_t size)
{
	struct perf_event_header h = { type, 0, size };

	memcpy(b->b + b->n, &h, 8);
	b->n += 8;
}

#define ALL_BITS (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
		  PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
		  PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_RAW | \
		  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
		  PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER | \
		  PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | \
		  PERF_SAMPLE_AUX | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | \
		  PERF_SAMPLE_CODE_PAGE_SIZE)

/* The body (after the header) of a sample with every field. */
static void sample_body(struct buf *b)
{
	int i;

	b64(b, 77);			/* IDENTIFIER */
	b64(b, 0x1111);			/* IP */
	b64(b, 5 | 6ULL << 32);		/* TID */
	b64(b, 1000);			/* TIME */
	b64(b, 0x2222);			/* ADDR */
	b64(b, 77);			/* ID */
	b64(b, 88);			/* STREAM_ID */
	b64(b, 3);			/* CPU */
	b64(b, 1);			/* PERIOD */
	b64(b, 2);			/* READ: nr, enabled, running, 2 x {value, id, lost} */
	b64(b, 200);
	b64(b, 100);
	b64(b, 10); b64(b, 77); b64(b, 0);
	b64(b, 20); b64(b, 78); b64(b, 1);
	b64(b, 2); b64(b, 0xa); b64(b, 0xb);	/* CALLCHAIN */
	{				/* RAW: u32 12 + 12 bytes */
		uint32_t rs = 12;

		memcpy(b->b + b->n, &rs, 4);
		memcpy(b->b + b->n + 4, "0123456789ab", 12);
		b->n += 16;
	}
	b64(b, 1); b64(b, 5);		/* BRANCH_STACK nr, hw_idx */
	b64(b, 0xf0); b64(b, 0xf1); b64(b, 0);
	b64(b, 2);			/* REGS_USER abi + 3 regs */
	for (i = 0; i < 3; i++)
		b64(b, 100 + i);
	b64(b, 16); b64(b, 0x1234); b64(b, 0x5678); b64(b, 8);	/* STACK_USER */
	b64(b, 9);			/* WEIGHT */
	b64(b, 10);			/* DATA_SRC */
	b64(b, 11);			/* TRANSACTION */
	b64(b, 2); b64(b, 200); b64(b, 201);	/* REGS_INTR abi + 2 regs */
	b64(b, 12);			/* PHYS_ADDR */
	b64(b, 13);			/* CGROUP */
	b64(b, 4096);			/* DATA_PAGE_SIZE */
	b64(b, 8192);			/* CODE_PAGE_SIZE */
	b64(b, 8); b64(b, 0x99);	/* AUX */
}

static void sample_id(struct buf *b)
{
	b64(b, 5 | 6ULL << 32);	/* TID */
	b64(b, 1000);		/* TIME */
	b64(b, 78);		/* ID */
	b64(b, 88);		/* STREAM_ID */
	b64(b, 3);		/* CPU */
	b64(b, 78);		/* IDENTIFIER */
}

static void all_bits(void)
{
	static struct buf b, body, cbuf;
	struct perf_event_attr attr = { 0 };
	struct wult_pd *pd;
	struct wult_pd_event ev;
	char err[256];
	int p[2], ret, nsamples = 0, lost = 0, rounds = 0;
	size_t start, clen;

	attr.size = PERF_ATTR_SIZE_VER7;
	attr.sample_type = ALL_BITS;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
			   PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	attr.sample_regs_user = 0x7;
	attr.sample_regs_intr = 0x3;
	attr.sample_id_all = 1;
	b64(&b, 0x32454c4946524550ULL);	/* pipe header */
	b64(&b, 16);
	bhdr(&b, PERF_RECORD_HEADER_ATTR, 8 + PERF_ATTR_SIZE_VER7 + 16);
	memcpy(b.b + b.n, &attr, PERF_ATTR_SIZE_VER7);
	b.n += PERF_ATTR_SIZE_VER7;
	b64(&b, 77);
	b64(&b, 78);
	bhdr(&b, PERF_RECORD_HEADER_FEATURE, 8 + 8 + 4 + 12);	/* HOSTNAME */
	b64(&b, 3);
	{
		uint32_t len = 12;

		memcpy(b.b + b.n, &len, 4);
		memcpy(b.b + b.n + 4, "synthhost\0\0\0", 12);
		b.n += 16;
	}
	sample_body(&body);
	bhdr(&b, PERF_RECORD_SAMPLE, 8 + body.n);
	memcpy(b.b + b.n, body.b, body.n);
	b.n += body.n;
	start = b.n;				/* LOST: id, lost, sample_id */
	bhdr(&b, PERF_RECORD_LOST, 8 + 16 + 48);
	b64(&b, 78);
	b64(&b, 5);
	sample_id(&b);
	bhdr(&b, PERF_RECORD_LOST_SAMPLES, 8 + 8 + 48);
	b64(&b, 7);
	sample_id(&b);
	bhdr(&b, PERF_RECORD_FINISHED_ROUND, 8);
	/* The sample again, inside a zstd COMPRESSED record. */
	cbuf.n = 0;
	bhdr(&cbuf, PERF_RECORD_SAMPLE, 8 + body.n);
	memcpy(cbuf.b + cbuf.n, body.b, body.n);
	cbuf.n += body.n;
	clen = ZSTD_compress(b.b + b.n + 8, sizeof(b.b) - b.n - 16, cbuf.b, cbuf.n, 1);
	WT_CHECK(!ZSTD_isError(clen), "zstd");
	/* Not padded: perf writes COMPRESSED records at their exact size, and
	 * the records after one may be unaligned (the reader copies them). */
	(void)start;
	bhdr(&b, PERF_RECORD_COMPRESSED, 8 + clen);
	b.n += clen;
	bhdr(&b, PERF_RECORD_FINISHED_ROUND, 8);	/* unaligned now */

	/* WULT_WRITE_SEED=FILE saves the stream as a fuzzing seed. */
	if (getenv("WULT_WRITE_SEED")) {
		FILE *f = fopen(getenv("WULT_WRITE_SEED"), "wb");

		if (f) {
			fwrite(b.b, 1, b.n, f);
			fclose(f);
		}
	}
	WT_CHECK(!pipe(p), "pipe");
	WT_CHECK(write(p[1], b.b, b.n) == (ssize_t)b.n, "write");
	close(p[1]);
	ret = wult_pd_open_fd(p[0], 0, &pd, err, sizeof(err));
	WT_CHECK(!ret, "open: %s", err);
	if (ret)
		return;
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		const struct wult_pd_sample *s = &ev.sample;

		if (ev.type == PERF_RECORD_LOST || ev.type == PERF_RECORD_LOST_SAMPLES) {
			WT_EQ(ev.lost, ev.type == PERF_RECORD_LOST ? 5 : 7);
			WT_CHECK(ev.attr == wult_pd_attr(pd, 0), "lost attr by id");
			lost++;
		}
		rounds += ev.type == PERF_RECORD_FINISHED_ROUND;
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		nsamples++;
		WT_EQ(s->id, 77);
		WT_EQ(s->ip, 0x1111);
		WT_EQ(s->pid, 5);
		WT_EQ(s->tid, 6);
		WT_EQ(s->time, 1000);
		WT_EQ(s->addr, 0x2222);
		WT_EQ(s->stream_id, 88);
		WT_EQ(s->cpu, 3);
		WT_EQ(s->period, 1);
		WT_EQ(s->read.nr, 2);
		WT_EQ(s->read.time_enabled, 200);
		WT_EQ(s->read.time_running, 100);
		WT_EQ(s->read.values[1].value, 20);
		WT_EQ(s->read.values[1].id, 78);
		WT_EQ(s->read.values[1].lost, 1);
		WT_EQ(s->callchain_nr, 2);
		WT_EQ(s->callchain[1], 0xb);
		WT_EQ(s->raw_size, 12);
		WT_CHECK(!memcmp(s->raw, "0123456789ab", 12), "raw");
		WT_EQ(s->branch_nr, 1);
		WT_EQ(s->branch_hw_idx, 5);
		WT_EQ(s->branches[0].to, 0xf1);
		WT_EQ(s->regs_user_nr, 3);
		WT_EQ(s->regs_user[2], 102);
		WT_EQ(s->stack_size, 16);
		WT_EQ(s->stack_dyn_size, 8);
		WT_EQ(s->weight, 9);
		WT_EQ(s->data_src, 10);
		WT_EQ(s->transaction, 11);
		WT_EQ(s->regs_intr_nr, 2);
		WT_EQ(s->regs_intr[1], 201);
		WT_EQ(s->phys_addr, 12);
		WT_EQ(s->cgroup, 13);
		WT_EQ(s->data_page_size, 4096);
		WT_EQ(s->code_page_size, 8192);
		WT_EQ(s->aux_size, 8);
	}
	WT_CHECK(ret == 0, "all bits: %s", wult_pd_error(pd));
	WT_EQ(nsamples, 2);
	WT_EQ(lost, 2);
	WT_EQ(rounds, 2);
	WT_CHECK(wult_pd_hostname(pd) && !strcmp(wult_pd_hostname(pd), "synthhost"), "host");
	WT_EQ(wult_pd_count(pd, PERF_RECORD_COMPRESSED), 1);
	wult_pd_close(pd);
}

/*
 * Ordered mode: samples come out in time order, released at each
 * FINISHED_ROUND up to the previous round's newest time (perf's rule).
 */
static void ordered(void)
{
	static const uint64_t times[] = { 30, 10, 20, 0, 25, 5, 40, 0, 35, 50, 0, 45 };
	static struct buf b;
	struct perf_event_attr attr = { 0 };
	struct wult_pd *pd;
	struct wult_pd_event ev;
	uint64_t out[16], last = 0;
	char err[256];
	int p[2], n = 0, sorted = 1;
	size_t i;

	attr.size = PERF_ATTR_SIZE_VER7;
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME;
	b.n = 0;
	b64(&b, 0x32454c4946524550ULL);
	b64(&b, 16);
	bhdr(&b, PERF_RECORD_HEADER_ATTR, 8 + PERF_ATTR_SIZE_VER7 + 8);
	memcpy(b.b + b.n, &attr, PERF_ATTR_SIZE_VER7);
	b.n += PERF_ATTR_SIZE_VER7;
	b64(&b, 1);
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		if (!times[i]) {	/* 0: a round ends */
			bhdr(&b, PERF_RECORD_FINISHED_ROUND, 8);
			continue;
		}
		bhdr(&b, PERF_RECORD_SAMPLE, 24);
		b64(&b, 1);
		b64(&b, times[i]);
	}
	WT_CHECK(!pipe(p), "pipe");
	WT_CHECK(write(p[1], b.b, b.n) == (ssize_t)b.n, "write");
	close(p[1]);
	WT_CHECK(!wult_pd_open_fd(p[0], WULT_PD_ORDERED, &pd, err, sizeof(err)), "%s", err);
	while (wult_pd_next(pd, &ev) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		out[n++] = ev.sample.time;
		sorted &= ev.sample.time >= last;
		last = ev.sample.time;
	}
	WT_EQ(n, 9);
	WT_CHECK(sorted, "order: %llu %llu %llu %llu", (unsigned long long)out[0],
		 (unsigned long long)out[1], (unsigned long long)out[2],
		 (unsigned long long)out[3]);
	wult_pd_close(pd);
}

/* Fields valid in both (by sample_type bit) are equal. */
static int same_sample(const struct wult_pd_sample *a, const struct wult_pd_sample *b)
{
	uint64_t st = a->attr->attr.sample_type;
	uint64_t i;

	if (((st & PERF_SAMPLE_TIME) && a->time != b->time) ||
	    ((st & PERF_SAMPLE_CPU) && a->cpu != b->cpu) ||
	    ((st & PERF_SAMPLE_IP) && a->ip != b->ip) ||
	    ((st & PERF_SAMPLE_TID) && (a->pid != b->pid || a->tid != b->tid)) ||
	    ((st & PERF_SAMPLE_CALLCHAIN) && a->callchain_nr != b->callchain_nr) ||
	    ((st & PERF_SAMPLE_REGS_USER) && a->regs_user_nr != b->regs_user_nr) ||
	    a->raw_size != b->raw_size || a->read.nr != b->read.nr)
		return 0;
	for (i = 0; i < a->read.nr; i++)
		if (a->read.values[i].value != b->read.values[i].value ||
		    a->read.values[i].id != b->read.values[i].id)
			return 0;
	return 1;
}

/* The public sample decoder (wult record's live path) agrees with the
 * reader on every sample of real files, and says what is wrong with a
 * short one.
 */
static void sample_parse(void)
{
	static const char *const names[] = { "group.data", "raw.data", "cpuclock.data" };
	static struct wult_pd_read_value vals[WULT_PD_MAX_GROUP];
	struct wult_pd_sample s2;
	struct wult_pd_event ev;
	struct wult_pd *pd;
	char err[256];
	unsigned int i, n = 0, same = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (wult_pd_open(path(names[i]), 0, &pd, err, sizeof(err)))
			continue;
		while (wult_pd_next(pd, &ev) > 0) {
			const struct wult_pd_sample *s = &ev.sample;

			if (ev.type != PERF_RECORD_SAMPLE)
				continue;
			n++;
			if (wult_pd_sample_parse(s->attr, ev.raw, ev.size, &s2, vals, err,
						 sizeof(err)))
				continue;
			same += same_sample(s, &s2);
			if (n == 1) {
				WT_EQ(wult_pd_sample_parse(s->attr, ev.raw, 16, &s2, vals, err,
							   sizeof(err)), -EINVAL);
				WT_CHECK(strstr(err, "needs 8 bytes, 0 left"), "%s", err);
			}
		}
		wult_pd_close(pd);
	}
	WT_CHECK(n >= 13 && same == n, "%u of %u samples decode the same", same, n);
}

/* ---- kept metadata: budget, repeated features, 64-bit sizes ---- */

struct dbuf {
	uint8_t *b;
	size_t n, cap;
};

static void dput(struct dbuf *d, const void *p, size_t n)
{
	if (d->n + n > d->cap) {
		d->cap = (d->n + n) * 2;
		d->b = realloc(d->b, d->cap);
	}
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void d32(struct dbuf *d, uint32_t v) { dput(d, &v, 4); }
static void d64(struct dbuf *d, uint64_t v) { dput(d, &v, 8); }

static void dhdr(struct dbuf *d, uint32_t type, size_t size)
{
	struct perf_event_header h = { type, 0, size };

	dput(d, &h, 8);
}

/* A HEADER_FEATURE record of PMU_MAPPINGS: @n PMUs, types from @type0. */
static void pmu_feature(struct dbuf *d, uint32_t type0, unsigned int n)
{
	unsigned int i;

	dhdr(d, PERF_RECORD_HEADER_FEATURE, 16 + 4 + n * (4 + 4 + 8));
	d64(d, 16);			/* HEADER_PMU_MAPPINGS */
	d32(d, n);
	for (i = 0; i < n; i++) {
		d32(d, type0 + i);
		d32(d, 8);
		dput(d, i & 1 ? "pmu_odd\0" : "pmu_evn\0", 8);
	}
}

/* A HEADER_TRACING_DATA record and its data: @n formats of @size bytes. */
static void tracing_record(struct dbuf *d, unsigned int n, size_t size, char fill)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char *text = malloc(size);
	size_t start;
	uint32_t len;
	unsigned int i;

	memset(text, fill, size);
	dhdr(d, PERF_RECORD_HEADER_TRACING_DATA, 16);
	start = d->n;
	d64(d, 0);			/* size, padding: set below */
	dput(d, magic, sizeof(magic));
	dput(d, "0.6\0\0\x08", 6);	/* version, little endian, long size */
	d32(d, 4096);
	dput(d, "header_page\0", 12);
	d64(d, 0);
	dput(d, "header_event\0", 13);
	d64(d, 0);
	d32(d, 0);			/* ftrace formats */
	d32(d, 1);			/* systems */
	dput(d, "sys\0", 4);
	d32(d, n);
	for (i = 0; i < n; i++) {
		d64(d, size);
		dput(d, text, size);
	}
	d32(d, 0);			/* kallsyms */
	d32(d, 0);			/* printk formats */
	while ((d->n - start - 8) % 8)
		dput(d, "", 1);
	len = d->n - start - 8;
	memcpy(d->b + start, &len, 4);
	free(text);
}

static struct wult_pd *open_dbuf(const struct dbuf *d, unsigned int flags, char *err,
				 size_t errlen, int *ret)
{
	struct wult_pd_event ev;
	struct wult_pd *pd;
	int fd = memfd_create("t", 0);

	if (write(fd, d->b, d->n) != (ssize_t)d->n)
		return NULL;
	lseek(fd, 0, SEEK_SET);
	*ret = wult_pd_open_fd(fd, flags, &pd, err, errlen);
	if (*ret)
		return NULL;
	while ((*ret = wult_pd_next(pd, &ev)) > 0)
		;
	if (*ret < 0)
		snprintf(err, errlen, "%s", wult_pd_error(pd));
	return pd;
}

static void meta_limits(void)
{
	struct dbuf d = { 0 };
	struct wult_pd *pd;
	const char *sys, *text;
	size_t len;
	char err[512];
	int i, ret;

	/* A feature sent again replaces the old one, however often. */
	d64(&d, 0x32454c4946524550ULL);
	d64(&d, 16);
	pmu_feature(&d, 100, 3);
	for (i = 0; i < 20000; i++)
		pmu_feature(&d, 200, 2);
	/* 2 x 20 MiB of formats: over the budget if they added up */
	tracing_record(&d, 20, 1 << 20, 'a');
	tracing_record(&d, 20, 1 << 20, 'b');
	pd = open_dbuf(&d, 0, err, sizeof(err), &ret);
	WT_CHECK(pd && !ret, "repeated features: %s", err);
	if (pd) {
		WT_CHECK(!wult_pd_pmu_name(pd, 100), "the first PMU_MAPPINGS is gone");
		WT_CHECK(wult_pd_pmu_name(pd, 201) && !strcmp(wult_pd_pmu_name(pd, 201),
			 "pmu_odd"), "the last PMU_MAPPINGS is kept");
		WT_EQ(wult_pd_nr_formats(pd), 20);
		WT_EQ(wult_pd_format(pd, 19, &sys, &text, &len), 0);
		WT_CHECK(len == 1 << 20 && text[0] == 'b' && !strcmp(sys, "sys"),
			 "the second TRACING_DATA's formats");
		wult_pd_close(pd);
	}
	/* 40 MiB at once is over the budget: a clear error, no crash. */
	d.n = 16;
	tracing_record(&d, 40, 1 << 20, 'c');
	pd = open_dbuf(&d, 0, err, sizeof(err), &ret);
	WT_EQ(ret, -EFBIG);
	WT_CHECK(strstr(err, "budget of 32 MiB") && strstr(err, "TRACING_DATA"), "%s", err);
	printf("  %-22s -> %s\n", "metadata budget", err);
	wult_pd_close(pd);
	/* The small budget (for fuzzing): 20 KB of formats exceed it. */
	d.n = 16;
	tracing_record(&d, 5, 4000, 'd');
	pd = open_dbuf(&d, WULT_PD_SMALL_META, err, sizeof(err), &ret);
	WT_EQ(ret, -EFBIG);
	WT_CHECK(strstr(err, "budget of 16 KiB"), "%s", err);
	wult_pd_close(pd);
	pd = open_dbuf(&d, 0, err, sizeof(err), &ret);
	WT_EQ(ret, 0);
	wult_pd_close(pd);
	/* A u32 size near 4 GiB: in 32 bits, size + padding wraps to 0. */
	d.n = 16;
	dhdr(&d, PERF_RECORD_HEADER_TRACING_DATA, 16);
	d64(&d, 0xfffffff9U);
	d64(&d, 0);
	pd = open_dbuf(&d, 0, err, sizeof(err), &ret);
	WT_EQ(ret, -EINVAL);
	WT_CHECK(strstr(err, "tracing data of 4294967296 bytes"), "%s", err);
	printf("  %-22s -> %s\n", "tracing data size", err);
	wult_pd_close(pd);
	free(d.b);
}

/* Samples, and a hash of their times and payloads, of @fd (the reader's)
 * read with @flags. */
static uint64_t digest_fd(int fd, const char *what, unsigned int flags, uint64_t *n)
{
	uint64_t h = 1469598103934665603ULL;
	struct wult_pd_event ev;
	struct wult_pd *pd;
	char err[256];
	uint32_t i;
	int ret;

	*n = 0;
	ret = wult_pd_open_fd(fd, flags, &pd, err, sizeof(err));
	WT_CHECK(!ret, "open %s: %s", what, err);
	if (ret)
		return 0;
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		(*n)++;
		h = (h ^ ev.sample.time) * 1099511628211ULL;
		for (i = 0; i < ev.sample.raw_size; i++)
			h = (h ^ ((const uint8_t *)ev.sample.raw)[i]) * 1099511628211ULL;
	}
	WT_CHECK(ret == 0, "read %s: %s", what, wult_pd_error(pd));
	wult_pd_close(pd);
	return h;
}

/* Test-only flag of the digests: payloads taken by wult_pd_next_raws()
 * wherever it takes them. */
#define RAWS_TOO	(1U << 30)

/* A payload into the hash. */
static uint64_t hash_raw(uint64_t h, const void *raw, uint32_t size)
{
	uint32_t i;

	h = (h ^ size) * 1099511628211ULL;
	for (i = 0; i < size; i++)
		h = (h ^ ((const uint8_t *)raw)[i]) * 1099511628211ULL;
	return h;
}

/*
 * The samples' payloads of @fd, and with RAWS_TOO in @flags as many as
 * wult_pd_next_raws() takes, in runs of 1 to 37 (ends that fall anywhere),
 * the rest by wult_pd_next(): the same hash, count and SAMPLE count, and
 * the same end (0, or the error of wult_pd_next() in *@err).
 */
static uint64_t payloads_fd(int fd, const char *what, unsigned int flags, uint64_t *n,
			    uint64_t *counted, char *err, size_t errlen)
{
	uint64_t h = 1469598103934665603ULL;
	unsigned int k, i, calls = 0;
	struct wult_pd_event ev;
	const void *raw[37];
	uint32_t size[37];
	struct wult_pd *pd;
	int ret;

	*n = 0;
	*err = 0;
	ret = wult_pd_open_fd(fd, flags & ~RAWS_TOO, &pd, err, errlen);
	WT_CHECK(!ret, "open %s: %s", what, err);
	if (ret)
		return 0;
	for (;;) {
		k = flags & RAWS_TOO ? wult_pd_next_raws(pd, raw, size, 1 + calls++ % 37) : 0;
		for (i = 0; i < k; i++)
			h = hash_raw(h, raw[i], size[i]);
		*n += k;
		if (k)
			continue;
		ret = wult_pd_next(pd, &ev);
		if (ret <= 0)
			break;
		if (ev.type == PERF_RECORD_SAMPLE && ev.sample.raw) {
			h = hash_raw(h, ev.sample.raw, ev.sample.raw_size);
			(*n)++;
		}
	}
	*counted = wult_pd_count(pd, PERF_RECORD_SAMPLE);
	if (ret < 0)
		snprintf(err, errlen, "%s", wult_pd_error(pd));
	wult_pd_close(pd);
	return h ^ (uint64_t)(ret < 0);
}

/* payloads_fd() both ways on @file: the same, @want payloads (UINT64_MAX:
 * any number). */
static void raws_same(const char *file, unsigned int flags, uint64_t want, const char *what)
{
	uint64_t h0, h1, n0, n1, c0, c1;
	char e0[256], e1[256];
	int fd0 = open(file, O_RDONLY), fd1 = open(file, O_RDONLY);

	WT_CHECK(fd0 >= 0 && fd1 >= 0, "open %s", file);
	if (fd0 < 0 || fd1 < 0)
		return;
	h0 = payloads_fd(fd0, file, flags, &n0, &c0, e0, sizeof(e0));
	h1 = payloads_fd(fd1, file, flags | RAWS_TOO, &n1, &c1, e1, sizeof(e1));
	WT_CHECK(n1 == n0 && h1 == h0 && c1 == c0 && !strcmp(e1, e0),
		 "%s: by raws %llu payloads (%llu counted, \"%s\"), by records %llu (%llu, \"%s\")",
		 what, (unsigned long long)n1, (unsigned long long)c1, e1, (unsigned long long)n0,
		 (unsigned long long)c0, e0);
	WT_CHECK(want == UINT64_MAX || n0 == want, "%s: %llu payloads, want %llu", what,
		 (unsigned long long)n0, (unsigned long long)want);
}

static uint64_t digest(const char *file, unsigned int flags, uint64_t *n)
{
	int fd = open(file, O_RDONLY);

	WT_CHECK(fd >= 0, "open %s", file);
	*n = 0;
	return fd >= 0 ? digest_fd(fd, file, flags, n) : 0;
}

/* 100,000 synthetic datapoints on 2 CPUs into @file ("-": stdout, pipe mode). */
static void synth_100k(const char *file)
{
	struct wult_synth_opts o;
	char err[256];

	wult_synth_defaults(&o);
	o.count = 100000;
	o.ncpus = 2;
	WT_CHECK(!wult_synth_write(&o, file, err, sizeof(err)), "synth %s: %s", file, err);
}

/*
 * WULT_PD_PREFETCH: the data section mapped ahead by a helper thread, in
 * windows that chain with an overlap, gives every sample as the plain
 * reader does: 100,000 datapoints (21 MB, five windows, records across
 * each window's end at other offsets), and each real file.
 */
static void prefetch(void)
{
	char file[] = "/tmp/wult-test-pf-XXXXXX";
	uint64_t h0, h1, n0, n1, hp;
	int fd = mkstemp(file);
	size_t i;

	WT_CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	close(fd);
	synth_100k(file);
	h0 = hp = digest(file, 0, &n0);
	h1 = digest(file, WULT_PD_PREFETCH, &n1);
	WT_EQ(n0, 100000);
	WT_EQ(n1, n0);
	WT_CHECK(h1 == h0, "prefetching reader: digest %llx, plain %llx",
		 (unsigned long long)h1, (unsigned long long)h0);
	h0 = digest(file, WULT_PD_ORDERED, &n0);
	h1 = digest(file, WULT_PD_PREFETCH | WULT_PD_ORDERED, &n1);
	WT_CHECK(n1 == n0 && h1 == h0, "prefetching, ordered: %llu samples",
		 (unsigned long long)n1);
	/*
	 * Read instead of mapped, as where page faults cost more than copies:
	 * the helper's two buffers in turn (twenty 1 MiB windows, each
	 * record left unfinished at a window's end carried into the next
	 * one's headroom), and without the helper read() into one buffer.
	 */
	setenv("WULT_PD_INPUT", "read", 1);
	h1 = digest(file, WULT_PD_PREFETCH, &n1);
	WT_CHECK(n1 == n0 && h1 == hp, "read by the helper: %llu samples, digest %llx",
		 (unsigned long long)n1, (unsigned long long)h1);
	h1 = digest(file, 0, &n1);
	WT_CHECK(n1 == n0 && h1 == hp, "read: %llu samples", (unsigned long long)n1);
	h1 = digest(file, WULT_PD_PREFETCH | WULT_PD_ORDERED, &n1);
	WT_CHECK(n1 == n0 && h1 == h0, "read by the helper, ordered: %llu samples",
		 (unsigned long long)n1);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_file(&files[i], WULT_PD_PREFETCH);
	unsetenv("WULT_PD_INPUT");
	unlink(file);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_file(&files[i], WULT_PD_PREFETCH);
}

/*
 * wult_pd_next_raws() takes what wult_pd_next() would, in every input
 * mode, and stops where it must: 100,000 datapoints mapped, read, by the
 * helper thread, ordered (where it takes none) and in pipe mode; one
 * sample with a RAW size past its record (the same error, after the same
 * payloads); the real files, whose samples it takes only where they are
 * one attr's with RAW after the fixed fields.
 */
static void next_raws(void)
{
	char file[] = "/tmp/wult-test-raws-XXXXXX", bad[] = "/tmp/wult-test-rawsb-XXXXXX";
	uint64_t doff, off, nsamp = 0;
	int fd = mkstemp(file), bfd = mkstemp(bad);
	struct perf_event_header h;
	uint32_t big = 0xfff0;
	uint8_t *b;
	size_t len, i;

	WT_CHECK(fd >= 0 && bfd >= 0, "mkstemp");
	if (fd < 0 || bfd < 0)
		return;
	close(fd);
	synth_100k(file);
	raws_same(file, 0, 100000, "mapped");
	raws_same(file, WULT_PD_PREFETCH, 100000, "mapped by the helper");
	raws_same(file, WULT_PD_ORDERED, 100000, "ordered");
	setenv("WULT_PD_INPUT", "read", 1);
	raws_same(file, 0, 100000, "read");
	raws_same(file, WULT_PD_PREFETCH, 100000, "read by the helper");
	unsetenv("WULT_PD_INPUT");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		raws_same(path(files[i].file), 0, UINT64_MAX, files[i].file);
	/* the 50,001st sample's RAW size past its record: synth's samples
	 * have five u64s before it (IDENTIFIER, TID, TIME, CPU, PERIOD) */
	b = slurp_path(file, &len);
	WT_CHECK(b && len > 48, "read %s", file);
	if (b) {
		memcpy(&doff, b + 40, 8);
		for (off = doff; off + sizeof(h) <= len; off += h.size) {
			memcpy(&h, b + off, sizeof(h));
			if (h.size < sizeof(h))
				break;
			if (h.type == PERF_RECORD_SAMPLE && nsamp++ == 50000) {
				memcpy(b + off + 48, &big, 4);
				break;
			}
		}
		WT_CHECK(nsamp == 50001, "sample 50,001 found (%llu)", (unsigned long long)nsamp);
		WT_CHECK(write(bfd, b, len) == (ssize_t)len, "write %s", bad);
		raws_same(bad, 0, 50000, "a RAW size past its record");
		free(b);
	}
	close(bfd);
	unlink(bad);
	unlink(file);
}

/* Writes @len bytes of @b to @fd in pieces of @piece bytes (a thread). */
struct feeder {
	pthread_t tid;
	int fd;
	const uint8_t *b;
	size_t len, piece;
};

static void *feed(void *arg)
{
	struct feeder *f = arg;
	size_t off, k;

	for (off = 0; off < f->len; off += k) {
		k = f->len - off < f->piece ? f->len - off : f->piece;
		if (write(f->fd, f->b + off, k) != (ssize_t)k)
			break;
	}
	close(f->fd);
	return NULL;
}

/* @len bytes of @b through a real pipe, written by a thread: the digest. */
static uint64_t digest_piped(const uint8_t *b, size_t len, size_t piece, unsigned int flags,
			     uint64_t *n)
{
	struct feeder f = { .b = b, .len = len, .piece = piece };
	uint64_t h;
	int p[2];

	*n = 0;
	WT_CHECK(!pipe(p), "pipe");
	f.fd = p[1];
	if (pthread_create(&f.tid, NULL, feed, &f)) {
		WT_CHECK(0, "pthread_create");
		close(p[0]);
		close(p[1]);
		return 0;
	}
	h = digest_fd(p[0], "a pipe", flags, n);
	pthread_join(f.tid, NULL);
	return h;
}

/*
 * A pipe-mode stream of 100,000 datapoints (21 MB, twenty times the read
 * buffer) gives the samples of the file-mode recording of the same
 * datapoints, read from a file and from a real pipe written in pieces of a
 * prime size (reads that end anywhere in a record), in order or ordered.
 */
static void pipe_stream(void)
{
	char file[] = "/tmp/wult-test-ps-XXXXXX", pfile[] = "/tmp/wult-test-psp-XXXXXX";
	uint64_t h0, h1, n0, n1;
	int fd = mkstemp(file), pfd = mkstemp(pfile), out;
	uint8_t *b;
	size_t len;

	WT_CHECK(fd >= 0 && pfd >= 0, "mkstemp");
	if (fd < 0 || pfd < 0)
		return;
	close(fd);
	synth_100k(file);
	/* "-" writes pipe mode to stdout: point stdout at the file */
	fflush(stdout);
	out = dup(1);
	dup2(pfd, 1);
	close(pfd);
	synth_100k("-");
	dup2(out, 1);
	close(out);
	h0 = digest(file, 0, &n0);
	WT_EQ(n0, 100000);
	raws_same(pfile, 0, 100000, "pipe mode");
	h1 = digest(pfile, 0, &n1);
	WT_CHECK(n1 == n0 && h1 == h0, "pipe-mode file: %llu samples, digest %llx, file mode's "
		 "%llx", (unsigned long long)n1, (unsigned long long)h1, (unsigned long long)h0);
	b = slurp_path(pfile, &len);
	WT_CHECK(b && len > 20 * 1000000, "pipe-mode stream: %zu bytes", b ? len : 0);
	if (b) {
		h1 = digest_piped(b, len, 4093, 0, &n1);
		WT_CHECK(n1 == n0 && h1 == h0, "real pipe: %llu samples", (unsigned long long)n1);
		h0 = digest(file, WULT_PD_ORDERED, &n0);
		h1 = digest_piped(b, len, 65521, WULT_PD_ORDERED, &n1);
		WT_CHECK(n1 == n0 && h1 == h0, "real pipe, ordered: %llu samples",
			 (unsigned long long)n1);
	}
	free(b);
	unlink(file);
	unlink(pfile);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		check_file(&files[i], 0);
		check_file(&files[i], WULT_PD_ORDERED);
	}
	prefetch();
	next_raws();
	pipe_stream();
	bad_inputs();
	all_bits();
	ordered();
	meta_limits();
	sample_parse();
	return wt_done();
}
