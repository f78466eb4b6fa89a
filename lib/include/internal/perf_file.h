/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwult internal: perf.data's file layout constants, defined once for
 * libwult's reader (perfdata*.c) and writer (pdwrite*.c), from
 * tools/perf/Documentation/perf.data-file-format.txt.
 */
#ifndef WULT_INTERNAL_PERF_FILE_H
#define WULT_INTERNAL_PERF_FILE_H

#include <wult/pdwrite.h>

#define PERF_FILE_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_FILE_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define PERF_FILE_MAGIC1	0x454c494646524550ULL	/* "PERFFILE", version 1 */
#define PERF_FILE_HDR_SIZE	104	/* file mode: magic, size, attr_size, 3 sections, features */
#define PERF_PIPE_HDR_SIZE	16	/* pipe mode: magic, size */
#define PERF_FEAT_BITS		256

/* Feature bits (perf's HEADER_*), and wult's own. */
enum perf_feat {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_VERSION = 5,
	PERF_FEAT_ARCH = 6,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CPUDESC = 8,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_PMU_MAPPINGS = 16,
	PERF_FEAT_GROUP_DESC = 17,
	PERF_FEAT_STAT = 19,
	PERF_FEAT_WULT_SYSDESC = WULT_PDW_FEAT_SYSDESC,
	PERF_FEAT_WULT_CSTATES = WULT_PDW_FEAT_CSTATES,
};

#endif
