// SPDX-License-Identifier: GPL-2.0
/*
 * libtraceevent plugin for wult:datapoint: prints each datapoint as
 * latencies in microseconds with nanosecond precision, the requested idle
 * state by name and the flags decoded, instead of the raw nanosecond
 * timestamps of the kernel's own print format; and for wult:wake_branches,
 * each branch context's entries symbolized.
 *
 * perf (which carries its own libtraceevent and exports its symbols) and
 * trace-cmd (which links libtraceevent.so) both load it, so it is built
 * without linking libtraceevent: the tep_* symbols come from the host
 * program. Fields are read by name through the event's format, so records
 * of later payload versions with appended fields still print.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <linux/wult.h>
#include <wult/comp.h>

int TEP_PLUGIN_LOADER(struct tep_handle *tep);
void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

/*
 * The requested state's name: cpuidle sysfs of the machine printing the
 * record, else wult's fallback (wult/comp.h).
 */
static void state_name(unsigned int cpu, int idx, char *buf, size_t len)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%u/cpuidle/state%d/name", cpu, idx);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, (int)len, f)) {
			buf[strcspn(buf, "\n")] = '\0';
			fclose(f);
			return;
		}
		fclose(f);
	}
	wult_comp_state_fallback(idx, buf, len);
}

/* Reads one field; 0 when the field is missing (older payloads). */
static unsigned long long field(struct tep_event *event,
				struct tep_record *record, const char *name)
{
	unsigned long long val = 0;
	struct tep_format_field *f = tep_find_field(event, name);

	if (!f || tep_read_number_field(f, record->data, &val))
		return 0;
	return val;
}

/* Prints a signed nanosecond interval as microseconds with 3 decimals. */
static void print_us(struct trace_seq *s, const char *name, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	trace_seq_printf(s, " %s=%s%llu.%03llu", name, sign,
			 (unsigned long long)(a / 1000),
			 (unsigned long long)(a % 1000));
}

static int wult_datapoint_handler(struct trace_seq *s, struct tep_record *record,
				  struct tep_event *event, void *context)
{
	unsigned int cpu = field(event, record, "cpu");
	int req = (int32_t)field(event, record, "req_cstate");
	unsigned int intr_off = field(event, record, "intr_off");
	unsigned int flags = field(event, record, "flags");
	uint64_t khz = field(event, record, "tsc_khz");
	struct wult_comp_lat l;
	char name[32];

	(void)context;
	/*
	 * The derivation every decoder shares. A flag wake's IntrLatency
	 * (l.no_intr) is printed as measured, TIntr - LTime, as it always was.
	 */
	wult_comp_derive(field(event, record, "ltime"), field(event, record, "tbi"),
			 field(event, record, "tai"), field(event, record, "tintr"), intr_off,
			 flags, wult_comp_overhead(intr_off, field(event, record, "ai_ts1"),
						   field(event, record, "ai_ts2"),
						   field(event, record, "intr_ts1"),
						   field(event, record, "intr_ts2"), khz), &l);

	state_name(cpu, req, name, sizeof(name));
	trace_seq_printf(s, "cpu=%u seq=%llu ReqCState=%s", cpu,
			 field(event, record, "seq"), name);
	print_us(s, "WakeLatency", l.wake);
	print_us(s, "IntrLatency", l.intr);
	print_us(s, "SilentTime", l.silent);
	print_us(s, "LDist", (int64_t)field(event, record, "ldist"));
	trace_seq_printf(s, " IntrOff=%u", intr_off);
	print_us(s, "WakeLatencyRaw", l.wake_raw);
	print_us(s, "IntrLatencyRaw", l.intr_raw);
	if (flags & WULT_DPF_SMI)
		trace_seq_printf(s, " SMICnt=%llu", field(event, record, "smi_cnt"));
	if (flags & WULT_DPF_NMI)
		trace_seq_printf(s, " NMICnt=%llu", field(event, record, "nmi_cnt"));
	if (flags & WULT_DPF_MPERF) {
		uint64_t tsc = field(event, record, "tsc_delta");
		uint64_t mperf = field(event, record, "mperf_delta");

		/* MPERF counts in C0 only: its share of TSC is CC0%. */
		if (tsc)
			trace_seq_printf(s, " CC0%%=%.2f", 100.0 * mperf / tsc);
	}
	return 0;
}

/* symbol+0xoff when the reader knows the kernel's functions, else hex. */
static void print_addr(struct trace_seq *s, struct tep_handle *tep, uint64_t addr)
{
	const char *fn = tep_find_function(tep, addr);

	if (fn)
		trace_seq_printf(s, "%s+0x%llx", fn,
				 (unsigned long long)(addr - tep_find_function_address(tep, addr)));
	else
		trace_seq_printf(s, "0x%llx", (unsigned long long)addr);
}

/* wult:wake_branches: the context's entries, youngest first, symbolized. */
static int wult_branches_handler(struct trace_seq *s, struct tep_record *record,
				 struct tep_event *event, void *context)
{
	struct tep_format_field *from = tep_find_field(event, "from");
	struct tep_format_field *to = tep_find_field(event, "to");
	unsigned int nr = field(event, record, "nr");
	unsigned int flags = field(event, record, "flags");
	const uint8_t *data = record->data;
	unsigned int i;
	uint64_t f, t;

	(void)context;
	trace_seq_printf(s, "cpu=%llu seq=%llu nr=%u in=%s%s%s%s",
			 field(event, record, "cpu"), field(event, record, "seq"), nr,
			 flags & WULT_BRF_INTR ? "intr" : "exit",
			 flags & WULT_BRF_ARCH ? " arch" : "",
			 flags & WULT_BRF_FAKE ? " fake" : "",
			 flags & WULT_BRF_OFF ? " lbr-off" : "");
	/* Entries past what the record holds are not printed. */
	if (!from || !to || from->offset + from->size > record->size ||
	    to->offset + to->size > record->size)
		return 0;
	for (i = 0; i < nr && 8 * (i + 1) <= (unsigned int)from->size &&
	     8 * (i + 1) <= (unsigned int)to->size; i++) {
		memcpy(&f, data + from->offset + 8 * i, 8);
		memcpy(&t, data + to->offset + 8 * i, 8);
		trace_seq_puts(s, " ");
		print_addr(s, event->tep, f);
		trace_seq_puts(s, "->");
		print_addr(s, event->tep, t);
	}
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	if (tep_register_event_handler(tep, -1, "wult", "datapoint",
				       wult_datapoint_handler, NULL) < 0)
		return -1;
	return tep_register_event_handler(tep, -1, "wult", "wake_branches",
					  wult_branches_handler, NULL) < 0 ? -1 : 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_event_handler(tep, -1, "wult", "datapoint",
				     wult_datapoint_handler, NULL);
	tep_unregister_event_handler(tep, -1, "wult", "wake_branches",
				     wult_branches_handler, NULL);
}
