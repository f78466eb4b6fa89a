// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the lines of wult record's idle-state (and governor) restore record
 * (wult_cpuidle_record_line(); the recovery writes nothing here). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wult/cpuidle.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128], *text, *line, *next;
	const char *path, *v;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!wult_cpuidle_record_line(line, &path, &v, err, sizeof(err))) {
			/* What passes is a disable file and 0 or 1, or the governor
			 * and a name, both inside the line. */
			size_t n = strlen(path);
			int dis = n >= 8 && !strcmp(path + n - 8, "/disable");

			if (path != line || strstr(path, "/..") || v <= path ||
			    v > text + size || strchr(v, ' ') ||
			    (dis && strcmp(v, "0") && strcmp(v, "1")) ||
			    (!dis && (!strstr(path, "/cpuidle/current_governor") ||
				      !*v || strlen(v) > 15)))
				abort();
		}
	}
	free(text);
	return 0;
}
