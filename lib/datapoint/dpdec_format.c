// SPDX-License-Identifier: GPL-2.0
/*
 * The wult:datapoint format built into libwult: what wult.ko's tracefs
 * format file says for payload version WULT_DP_VERSION. Readers fall back
 * to it when neither the file nor tracefs carries one, and the synthetic
 * data generator writes it into its files.
 *
 * Its field lines are made from the payload's field list (WULT_DP_FIELDS,
 * linux/wult.h) and struct wult_dp's layout, as the kernel makes its own:
 * the type as the list names it, offsets after the 8-byte common header.
 * The print fmt is the one of version 1 (files written with it carry it).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include <linux/wult.h>
#include <wult/dpdec.h>

static const char head[] =
	"name: datapoint\n"
	"ID: 1500\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n";

static const char tail[] =
	"\n"
	"print fmt: \"cpu=%u req_cstate=%d intr_off=%u ltime=%llu tbi=%llu tai=%llu "
	"tintr=%llu ldist=%llu seq=%u\", REC->cpu, REC->req_cstate, REC->intr_off, "
	"REC->ltime, REC->tbi, REC->tai, REC->tintr, REC->ldist, REC->seq\n";

#define FIELD_LINE_MAX	80
#define NR_FIELDS	(0 WULT_DP_FIELDS(COUNT))
#define COUNT(type, name, version)	+ 1

static char builtin_format[sizeof(head) + sizeof(tail) + NR_FIELDS * FIELD_LINE_MAX];
static pthread_once_t built = PTHREAD_ONCE_INIT;

#define MEMBER_SIGNED(m) ((__typeof__(((struct wult_dp *)0)->m))-1 <	\
			  (__typeof__(((struct wult_dp *)0)->m))1)

static void build(void)
{
	size_t n = snprintf(builtin_format, sizeof(builtin_format), "%s", head);

#define LINE(type, name, version)						\
	n += snprintf(builtin_format + n, sizeof(builtin_format) - n,			\
		      "\tfield:%s %s;\toffset:%zu;\tsize:%zu;\tsigned:%d;\n", #type, #name,	\
		      WULT_DP_HDR_SIZE + offsetof(struct wult_dp, name),		\
		      sizeof(((struct wult_dp *)0)->name), MEMBER_SIGNED(name));
	WULT_DP_FIELDS(LINE)
#undef LINE
	snprintf(builtin_format + n, sizeof(builtin_format) - n, "%s", tail);
}

const char *wult_dpdec_builtin_format(void)
{
	pthread_once(&built, build);
	return builtin_format;
}
