// SPDX-License-Identifier: GPL-2.0
/*
 * replay: a main for a fuzz target without libFuzzer. It feeds the target
 * every file named, and every regular file of every directory named, once,
 * and says how many. Linked with a target under ASan/UBSan (gcc, the unit
 * tests' build), it is make check's run of the committed corpora; the
 * libFuzzer builds (clang, make fuzzers) explore for new inputs in make
 * fuzz.
 *
 *   build/san/fuzz/fuzz_<target> FILE|DIR...
 *
 * A finding aborts (the sanitizers' or the target's own abort); a file or
 * directory that cannot be read is an error (exit status 2).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Runs the target on @path's bytes, in a buffer of exactly their size (so
 * that ASan sees a read past the input); 0, or -1 if it cannot be read.
 */
static int run_file(const char *path, off_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	FILE *f = fopen(path, "rb");
	int ret = -1;

	if (!buf || !f)
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
	else if (fread(buf, 1, size, f) != (size_t)size)
		fprintf(stderr, "replay: %s: short read\n", path);
	else
		ret = 0;
	if (f)
		fclose(f);
	if (!ret)
		LLVMFuzzerTestOneInput(buf, size);
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	long inputs = 0;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct dirent *de;
		struct stat st;
		char path[4096];
		DIR *d;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i], st.st_size))
				return 2;
			inputs++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		while ((de = readdir(d))) {
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			if (run_file(path, st.st_size)) {
				closedir(d);
				return 2;
			}
			inputs++;
		}
		closedir(d);
	}
	printf("replay: %ld inputs\n", inputs);
	return 0;
}
