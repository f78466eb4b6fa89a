// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the perf.data reader (file mode, pipe mode, ordered). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wult/dpdec.h>
#include <wult/perfdata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RAWS	(1U << 30)	/* run()'s own flag: wult_pd_next_raws() too */

static void run(int fd, unsigned int flags)
{
	struct wult_pd *pd;
	struct wult_pd_event ev;
	struct wult_dpdec *dp = NULL;
	struct wult_point pt;
	const void *raw[16];
	uint32_t rsize[16];
	double out[WULT_M_NR];	/* stride 0: each payload's row over the last */
	const char *state[16];
	unsigned int k;
	char err[256];
	int n = 0;

	if (wult_pd_open_fd(fd, flags & ~RAWS, &pd, err, sizeof(err)))
		return;
	if (!wult_dpdec_new(&dp))
		wult_dpdec_load_format(dp, wult_dpdec_builtin_format(), strlen(wult_dpdec_builtin_format()),
				       err, sizeof(err));
	for (;;) {
		/* payloads in runs (wult report's reader), where it takes them */
		k = flags & RAWS ? wult_pd_next_raws(pd, raw, rsize, 1 + n % 16) : 0;
		if (k) {
			if (dp)
				wult_dpdec_decode_raws(dp, raw, rsize, k, WULT_METRICS_ALL, 0, out,
						       state);
			n += k;
			if (n >= 100000)
				break;
			continue;
		}
		if (wult_pd_next(pd, &ev) <= 0 || n++ >= 100000)
			break;
		if (ev.type == PERF_RECORD_SAMPLE && dp && wult_dpdec_is_wult(dp, &ev.sample))
			wult_dpdec_decode(dp, &ev.sample, &pt);
	}
	wult_dpdec_free(dp);
	wult_pd_close(pd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd, p[2];

	/* As a file: the header, sections and features by offset. */
	fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		lseek(fd, 0, SEEK_SET);
		/* the data read (the helper's buffers, or read()) or mapped */
		setenv("WULT_PD_INPUT", size & 8 ? "read" : "map", 1);
		run(fd, (size & 1 ? WULT_PD_ORDERED : 0) | (size & 4 ? WULT_PD_PREFETCH : 0) |
		    (size & 16 ? RAWS : 0) | WULT_PD_SMALL_META);
	} else {
		close(fd);
	}
	/* As a pipe, when it fits the pipe buffer (no writer thread needed). */
	if (size <= 60000 && !pipe(p)) {
		if (write(p[1], data, size) == (ssize_t)size) {
			close(p[1]);
			run(p[0], (size & 2 ? WULT_PD_SMALL_META : 0) | (size & 32 ? RAWS : 0));
		} else {
			close(p[0]);
			close(p[1]);
		}
	}
	return 0;
}
