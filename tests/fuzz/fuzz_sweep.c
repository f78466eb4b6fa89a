// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a wult sweep's two parsers. The input as a manifest
 * (sweep.json, read through a memfd: the reader takes a path), and its
 * lines as AXIS=VALUES specs built into a product. What either accepts
 * must be whole: every point with a moniker, a file and a value per axis,
 * two record options per axis.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wult/sweep.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each point of @s looked at whole; aborts on a hole. */
static void check(const struct wult_sweep *s)
{
	const char *argv[2 * WULT_SWEEP_NR_AXES];
	unsigned int p, a, n = wult_sweep_naxes(s);

	if (!n || n > WULT_SWEEP_NR_AXES || !wult_sweep_npoints(s))
		abort();
	for (p = 0; p < wult_sweep_npoints(s); p++) {
		if (!*wult_sweep_moniker(s, p) || !*wult_sweep_file(s, p) ||
		    strchr(wult_sweep_file(s, p), '/'))
			abort();
		for (a = 0; a < n; a++)
			if (!wult_sweep_point_value(s, p, a))
				abort();
		if (wult_sweep_point_args(s, p, argv, 2 * WULT_SWEEP_NR_AXES) != 2 * n)
			abort();
		wult_sweep_status(s, p, NULL);
	}
}

static void as_manifest(const uint8_t *data, size_t size)
{
	struct wult_sweep *s;
	char path[64], err[256];
	int fd = memfd_create("fuzz_sweep", 0);

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!wult_sweep_read(path, &s, err, sizeof(err))) {
			check(s);
			wult_sweep_free(s);
		} else if (!memchr(err, '\0', sizeof(err))) {
			abort();
		}
	}
	close(fd);
}

static void as_axes(const uint8_t *data, size_t size)
{
	struct wult_sweep *s;
	char *text = malloc(size + 1), *line, *save = NULL, err[256];
	int ret = 0;

	if (!text || wult_sweep_new(&s)) {
		free(text);
		return;
	}
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = strtok_r(text, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save))
		ret = wult_sweep_add_axis(s, line, err, sizeof(err));
	if (!ret && wult_sweep_build(s, err, sizeof(err)) > 0)
		check(s);
	wult_sweep_free(s);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_manifest(data, size);
	as_axes(data, size);
	return 0;
}
