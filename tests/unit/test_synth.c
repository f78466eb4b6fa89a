// SPDX-License-Identifier: GPL-2.0
/* The generator: deterministic, its built-in format matches the uapi. */
#include <stdlib.h>
#include <unistd.h>

#include <wult/perfdata.h>
#include <wult/dpdec.h>
#include <wult/synth.h>
#include "wt.h"
#include "wt_data.h"


int main(void)
{
	struct wult_synth_opts o;
	struct wult_synth *a, *b;
	struct wult_dp x, y;
	struct wult_pd *pd;
	struct wult_pd_event ev;
	char buf[8192], err[256], path[] = "/tmp/wult-test-synth-XXXXXX";
	const char *sys, *text;
	size_t len;
	FILE *f;
	int i, same = 1, inrange = 1, n = 0, rounds = 0, ret, fd;

	/* The checked-in format file and the built-in one are the same. */
	snprintf(buf, sizeof(buf), "%s/wult_datapoint.format", wt_data_dir());
	f = fopen(buf, "r");
	WT_CHECK(f, "format file");
	if (f) {
		len = fread(buf, 1, sizeof(buf) - 1, f);
		buf[len] = '\0';
		fclose(f);
		WT_CHECK(!strcmp(buf, wult_dpdec_builtin_format()), "formats differ");
	}
	wult_synth_defaults(&o);
	wult_synth_new(&o, &a);
	wult_synth_new(&o, &b);
	for (i = 0; i < 100000; i++) {
		wult_synth_next(a, &x);
		wult_synth_next(b, &y);
		same &= !memcmp(&x, &y, sizeof(x));
		inrange &= x.ldist >= o.ldist_min && x.ldist <= o.ldist_max &&
			   x.tai - x.ltime >= o.wake_min && x.tai - x.ltime <= o.tail_max &&
			   x.tbi <= x.ltime && (uint32_t)x.req_cstate < o.ncstates;
	}
	WT_CHECK(same, "deterministic");
	WT_CHECK(inrange, "values in their ranges");
	wult_synth_free(a);
	wult_synth_free(b);
	o.ldist_min = 10;
	o.ldist_max = 5;
	WT_CHECK(wult_synth_new(&o, &a) < 0, "bad range rejected");

	fd = mkstemp(path);
	close(fd);
	wult_synth_defaults(&o);
	o.count = 2500;
	WT_CHECK(!wult_synth_write(&o, path, err, sizeof(err)), "%s", err);
	WT_CHECK(!wult_pd_open(path, WULT_PD_ORDERED, &pd, err, sizeof(err)), "%s", err);
	while ((ret = wult_pd_next(pd, &ev)) > 0) {
		n += ev.type == PERF_RECORD_SAMPLE;
		rounds += ev.type == 68;	/* FINISHED_ROUND */
	}
	WT_EQ(ret, 0);
	WT_EQ(n, 2500);
	/* synth's 2, and the table of the sync at open (lib/perfdata/pdwrite.c). */
	WT_EQ(rounds, 3);
	WT_CHECK(!strcmp(wult_pd_attr(pd, 0)->name, "wult:datapoint"), "name");
	WT_CHECK(!wult_pd_format(pd, 0, &sys, &text, &len) && !strcmp(sys, "wult"), "fmt");
	wult_pd_close(pd);
	unlink(path);
	return wt_done();
}
