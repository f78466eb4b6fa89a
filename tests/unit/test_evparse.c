// SPDX-License-Identifier: GPL-2.0
/* wult_ev_parse() against a fake sysfs PMU tree built here. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <wult/evparse.h>
#include "wt.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void mk(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdir(path, 0755);
}

static void build_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/wult-evparse-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	mk("fake");
	mk("fake/format");
	mk("fake/events");
	put("fake/type", "42");
	put("fake/format/event", "config:0-7");
	put("fake/format/umask", "config:8-15");
	put("fake/format/split", "config1:0-3,8-11");
	put("fake/format/flag", "config:63");
	put("fake/format/wide", "config2:0-63");
	put("fake/events/alias", "event=0x3c,umask=0x01");
	put("fake/events/needs", "event=0x1,umask=?");
	put("fake/events/loop", "loop");
	put("fake/events/sampled", "event=0x2,period=1");
	mk("broken");
	put("broken/type", "notanumber");
}

static int parse(const char *s, struct perf_event_attr *a, char *err)
{
	return wult_ev_parse(s, root, a, err, 256);
}

int main(void)
{
	struct perf_event_attr a;
	char err[256];

	build_tree();

	WT_EQ(parse("cycles", &a, err), 0);
	WT_EQ(a.type, PERF_TYPE_HARDWARE);
	WT_EQ(a.config, PERF_COUNT_HW_CPU_CYCLES);
	WT_EQ(a.size, sizeof(a));
	WT_EQ(parse("cpu-clock", &a, err), 0);
	WT_EQ(a.type, PERF_TYPE_SOFTWARE);
	WT_EQ(a.config, PERF_COUNT_SW_CPU_CLOCK);
	WT_EQ(parse("instructions:u", &a, err), 0);
	WT_EQ(a.exclude_kernel, 1);
	WT_EQ(a.exclude_user, 0);
	WT_EQ(parse("cycles:k", &a, err), 0);
	WT_EQ(a.exclude_user, 1);
	WT_EQ(parse("cycles:x", &a, err), -EINVAL);
	WT_EQ(parse("nosuchevent", &a, err), -ENOENT);
	WT_CHECK(strstr(err, "nosuchevent") != NULL, "%s", err);

	WT_EQ(parse("fake/alias/", &a, err), 0);
	WT_EQ(a.type, 42);
	WT_EQ(a.config, 0x13c);
	WT_EQ(parse("fake/event=0xff,umask=2/", &a, err), 0);
	WT_EQ(a.config, 0x2ff);
	WT_EQ(parse("fake/alias,umask=0x7/", &a, err), 0);
	WT_EQ(a.config, 0x73c);
	WT_EQ(parse("fake/split=0xab/", &a, err), 0);
	WT_EQ(a.config1, 0xa0b);
	WT_EQ(parse("fake/flag/", &a, err), 0);
	WT_EQ(a.config, 1ULL << 63);
	WT_EQ(parse("fake/wide=0xffffffffffffffff/", &a, err), 0);
	WT_CHECK(a.config2 == ~0ULL, "config2 %llx", (unsigned long long)a.config2);
	WT_EQ(parse("fake/config=0x1234,config1=5/", &a, err), 0);
	WT_EQ(a.config, 0x1234);
	WT_EQ(a.config1, 5);
	WT_EQ(parse("fake/sampled/", &a, err), 0);
	WT_EQ(a.sample_period, 1);
	WT_EQ(a.config, 2);

	/* Values that do not fit, malformed strings, missing things. */
	WT_EQ(parse("fake/event=0x100/", &a, err), -EINVAL);
	WT_CHECK(strstr(err, "does not fit") != NULL, "%s", err);
	WT_EQ(parse("fake/split=0x100/", &a, err), -EINVAL);
	WT_EQ(parse("fake/flag=2/", &a, err), -EINVAL);
	WT_EQ(parse("fake/needs/", &a, err), -EINVAL);
	WT_CHECK(strstr(err, "needs a value") != NULL, "%s", err);
	WT_EQ(parse("fake/loop/", &a, err), -EINVAL);
	WT_EQ(parse("fake/nosuch/", &a, err), -ENOENT);
	WT_CHECK(strstr(err, "nosuch") != NULL, "%s", err);
	WT_EQ(parse("nopmu/event=1/", &a, err), -ENOENT);
	WT_CHECK(strstr(err, "no PMU 'nopmu'") != NULL, "%s", err);
	WT_EQ(parse("broken/x/", &a, err), -EINVAL);
	WT_EQ(parse("fake/", &a, err), -EINVAL);
	WT_EQ(parse("fake//", &a, err), -EINVAL);
	WT_EQ(parse("fake/event=/", &a, err), -EINVAL);
	WT_EQ(parse("fake/event=-1/", &a, err), -EINVAL);
	WT_EQ(parse("fake/event=0x1,/", &a, err), -EINVAL);
	WT_EQ(parse("fake/,event=1/", &a, err), -EINVAL);
	WT_EQ(parse("fake/event=1", &a, err), -EINVAL);
	WT_EQ(parse("fake/event=1/x", &a, err), -EINVAL);
	WT_EQ(parse("../fake/event=1/", &a, err), -EINVAL);
	WT_EQ(parse("fake/../type/", &a, err), -EINVAL);
	WT_EQ(parse("/event=1/", &a, err), -EINVAL);
	WT_EQ(parse("", &a, err), -EINVAL);
	WT_EQ(wult_ev_parse(NULL, root, &a, err, sizeof(err)), -EINVAL);
	WT_EQ(wult_ev_parse("cycles", root, NULL, NULL, 0), -EINVAL);

	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		WT_EQ(system(cmd), 0);
	}
	return wt_done();
}
