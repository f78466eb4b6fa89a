// SPDX-License-Identifier: GPL-2.0
/*
 * dp_fields: the datapoint's fields as the C side lays them out, one line
 * each: "name offset size signed version", offset counted from the record's
 * start (the 8-byte common header included, as the format file counts).
 * Made from the uapi list (WULT_DP_FIELDS) and struct wult_dp, so that the
 * python helpers' hand-written layout is checked against them
 * (tests/host/test_dp_fields.sh) and shell tests need not type offsets.
 */
#include <stddef.h>
#include <stdio.h>

#include <linux/wult.h>

#define MEMBER_SIGNED(m) ((__typeof__(((struct wult_dp *)0)->m))-1 <	\
			  (__typeof__(((struct wult_dp *)0)->m))1)

int main(void)
{
#define LINE(type, name, version)						\
	printf("%s %zu %zu %d %d\n", #name,					\
	       WULT_DP_HDR_SIZE + offsetof(struct wult_dp, name),		\
	       sizeof(((struct wult_dp *)0)->name), MEMBER_SIGNED(name), version);
	WULT_DP_FIELDS(LINE)
#undef LINE
	return 0;
}
