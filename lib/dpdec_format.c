// SPDX-License-Identifier: GPL-2.0
/*
 * The wult:datapoint format built into libwult: what wult.ko's tracefs
 * format file says for payload version WULT_DP_VERSION. Readers fall back
 * to it when neither the file nor tracefs carries one, and the synthetic
 * data generator writes it into its files.
 */
#include <linux/wult.h>
#include <wult/dpdec.h>

static const char builtin_format[] =
	"name: datapoint\n"
	"ID: 1500\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u64 ltime;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 tbi;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 tai;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 tintr;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 ldist;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 ai_ts1;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 ai_ts2;\toffset:56;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 intr_ts1;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 intr_ts2;\toffset:72;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 tsc_delta;\toffset:80;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 mperf_delta;\toffset:88;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 cpu;\toffset:96;\tsize:4;\tsigned:0;\n"
	"\tfield:s32 req_cstate;\toffset:100;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 intr_off;\toffset:104;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 flags;\toffset:108;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 smi_cnt;\toffset:112;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 nmi_cnt;\toffset:116;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 tsc_khz;\toffset:120;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 seq;\toffset:124;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 wake_latency;\toffset:128;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 intr_latency;\toffset:136;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 source;\toffset:144;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 ltime_err;\toffset:148;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 ttask;\toffset:152;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"cpu=%u req_cstate=%d intr_off=%u ltime=%llu tbi=%llu tai=%llu "
	"tintr=%llu ldist=%llu seq=%u\", REC->cpu, REC->req_cstate, REC->intr_off, "
	"REC->ltime, REC->tbi, REC->tai, REC->tintr, REC->ldist, REC->seq\n";

_Static_assert(sizeof(struct wult_dp) + WULT_DP_HDR_SIZE == 160,
	       "the built-in format describes a 160-byte payload");

const char *wult_dpdec_builtin_format(void)
{
	return builtin_format;
}
