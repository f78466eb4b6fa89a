// SPDX-License-Identifier: GPL-2.0
/*
 * wult_pdw_*: a file written here reads back through libwult's reader with
 * the same attrs, ids, names, features and samples, and stock perf reads it
 * (checked when perf is installed).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <wult/pdwrite.h>
#include <wult/perfdata.h>
#include <wult/synth.h>
#include "wt.h"

#define LEADER_TYPE	77
#define NSAMPLES	10

struct sample {
	struct perf_event_header h;
	uint64_t id;		/* IDENTIFIER */
	uint64_t ip;		/* stock perf script's default fields need it */
	uint64_t time;
	uint32_t cpu, res;
	struct {		/* READ: GROUP | ID */
		uint64_t nr;
		uint64_t v0, id0, v1, id1;
	} read;
};

static void make_attrs(struct perf_event_attr *lead, struct perf_event_attr *mem)
{
	memset(lead, 0, sizeof(*lead));
	lead->size = sizeof(*lead);
	lead->type = LEADER_TYPE;
	lead->sample_period = 1;
	lead->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_READ;
	lead->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	lead->sample_id_all = 1;
	*mem = *lead;
	mem->type = PERF_TYPE_SOFTWARE;
	mem->config = PERF_COUNT_SW_CPU_CLOCK;
	mem->sample_period = 0;
}

static int write_file(const char *path)
{
	struct perf_event_attr lead, mem;
	char *argv[] = { "wult", "record", "-C", "1" };
	struct wult_pdw *w;
	char err[256];
	int i, li, mi;

	WT_EQ(wult_pdw_open(path, &w, err, sizeof(err)), 0);
	make_attrs(&lead, &mem);
	li = wult_pdw_add_attr(w, &lead, "wult/datapoints/");
	mi = wult_pdw_add_attr(w, &mem, "cpu-clock");
	WT_EQ(li, 0);
	WT_EQ(mi, 1);
	WT_EQ(wult_pdw_add_id(w, li, 100), 0);
	WT_EQ(wult_pdw_add_id(w, li, 100), 0);	/* duplicates are ignored */
	WT_EQ(wult_pdw_add_id(w, li, 200), 0);
	WT_EQ(wult_pdw_add_id(w, mi, 101), 0);
	WT_EQ(wult_pdw_add_id(w, 5, 1), -EINVAL);
	WT_EQ(wult_pdw_set_group(w, li, 2), 0);
	WT_EQ(wult_pdw_set_group(w, li, 3), -EINVAL);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_HOSTNAME, "testhost"), 0);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_OSRELEASE, "6.1.0-test"), 0);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_VERSION, "wult 0.1"), 0);
	WT_EQ(wult_pdw_set_str(w, WULT_PDW_ARCH, "x86_64"), 0);
	WT_EQ(wult_pdw_set_cmdline(w, 4, argv), 0);
	WT_EQ(wult_pdw_set_nrcpus(w, 2, 4), 0);
	WT_EQ(wult_pdw_add_pmu(w, LEADER_TYPE, "wult"), 0);
	WT_EQ(wult_pdw_add_pmu(w, LEADER_TYPE, "wult"), 0);	/* mapped once */
	WT_EQ(wult_pdw_set_tracing(w, "wult", wult_synth_format()), 0);
	WT_EQ(wult_pdw_add_cstate(w, 1, 0, "POLL"), 0);
	WT_EQ(wult_pdw_add_cstate(w, 1, 1, "C1E"), 0);
	for (i = 0; i < NSAMPLES; i++) {
		struct sample s = {
			.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(s) },
			.id = 100, .ip = 0xffffffff81000000ULL, .time = 1000 + i, .cpu = 1,
			.read = { 2, i + 1, 100, 10 * i, 101 },
		};

		WT_EQ(wult_pdw_write(w, &s, sizeof(s)), 0);
	}
	{
		struct perf_event_header bad = { PERF_RECORD_SAMPLE, 0, 99 };

		WT_EQ(wult_pdw_write(w, &bad, sizeof(bad)), -EINVAL);
	}
	WT_EQ(wult_pdw_data_size(w), NSAMPLES * sizeof(struct sample));
	return wult_pdw_close(w, err, sizeof(err));
}

static void read_back(const char *path)
{
	const struct wult_pd_attr *a;
	struct wult_pd_event ev;
	struct wult_pd *pd;
	const char *sys, *text;
	char err[256];
	size_t len;
	int ret, n = 0;

	ret = wult_pd_open(path, 0, &pd, err, sizeof(err));
	WT_CHECK(ret == 0, "open: %s", err);
	if (ret)
		return;
	WT_EQ(wult_pd_nr_attrs(pd), 2);
	a = wult_pd_attr(pd, 0);
	WT_EQ(a->attr.type, LEADER_TYPE);
	WT_EQ(a->nr_ids, 2);
	WT_CHECK(a->name && !strcmp(a->name, "wult/datapoints/"), "name %s", a->name);
	a = wult_pd_attr(pd, 1);
	WT_EQ(a->ids[0], 101);
	WT_CHECK(!strcmp(wult_pd_hostname(pd), "testhost"), "hostname");
	WT_CHECK(!strcmp(wult_pd_osrelease(pd), "6.1.0-test"), "osrelease");
	WT_CHECK(!strcmp(wult_pd_cmdline(pd), "wult record -C 1"), "cmdline '%s'",
		 wult_pd_cmdline(pd));
	WT_EQ(wult_pd_nr_cpus_online(pd), 2);
	WT_EQ(wult_pd_nr_cpus_avail(pd), 4);
	WT_CHECK(wult_pd_pmu_name(pd, LEADER_TYPE) &&
		 !strcmp(wult_pd_pmu_name(pd, LEADER_TYPE), "wult"), "pmu name");
	{
		uint32_t cpu, idx;
		const char *name;

		WT_EQ(wult_pd_nr_cstates(pd), 2);
		WT_EQ(wult_pd_cstate(pd, 1, &cpu, &idx, &name), 0);
		WT_CHECK(cpu == 1 && idx == 1 && !strcmp(name, "C1E"), "cstate %u %u %s",
			 cpu, idx, name);
		WT_EQ(wult_pd_cstate(pd, 2, &cpu, &idx, &name), -ENOENT);
	}
	WT_EQ(wult_pd_nr_formats(pd), 1);
	WT_EQ(wult_pd_format(pd, 0, &sys, &text, &len), 0);
	WT_CHECK(!strcmp(sys, "wult") && len == strlen(wult_synth_format()), "format");
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		if (ev.type != PERF_RECORD_SAMPLE)
			continue;
		WT_EQ(ev.sample.time, 1000 + n);
		WT_EQ(ev.sample.cpu, 1);
		WT_EQ(ev.sample.read.nr, 2);
		WT_EQ(ev.sample.read.values[1].value, 10 * n);
		WT_EQ(ev.sample.read.values[1].id, 101);
		WT_CHECK(ev.sample.attr == wult_pd_attr(pd, 0), "sample matched to leader");
		n++;
	}
	WT_CHECK(ret == 0, "read: %s", wult_pd_error(pd));
	WT_EQ(n, NSAMPLES);
	wult_pd_close(pd);
}

int main(void)
{
	char path[] = "/tmp/wult-pdw-XXXXXX";
	struct wult_pdw *w;
	char err[256];
	int fd = mkstemp(path);

	WT_CHECK(fd >= 0, "mkstemp");
	close(fd);
	WT_EQ(write_file(path), 0);
	read_back(path);
	if (access("/usr/bin/perf", X_OK) == 0) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "perf report -i %s --header-only 2>&1 | "
			 "grep -q 'hostname : testhost'", path);
		WT_EQ(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "perf report -i %s --header-only 2>&1 | "
			 "grep 'pmu mappings' | grep -o 'wult = ' | wc -l | grep -qx 1", path);
		WT_EQ(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "perf script -i %s 2>/dev/null | "
			 "grep -c ' wult/datapoints/:' | grep -qx %d", path, NSAMPLES);
		WT_EQ(system(cmd), 0);
	} else {
		WT_SKIP("perf not installed: stock perf not checked");
	}
	if (!getenv("WULT_KEEP"))
		unlink(path);

	WT_EQ(wult_pdw_open("/nonexistent/dir/x.data", &w, err, sizeof(err)), -ENOENT);
	WT_CHECK(strstr(err, "/nonexistent/dir/x.data") != NULL, "%s", err);
	WT_EQ(wult_pdw_open(NULL, &w, err, sizeof(err)), -EINVAL);
	WT_EQ(wult_pdw_close(NULL, err, sizeof(err)), -EINVAL);
	return wt_done();
}
