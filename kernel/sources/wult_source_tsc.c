// SPDX-License-Identifier: GPL-2.0
/*
 * wult: what every TSC-clocked source checks before it measures
 * (wult_source_tsc_usable(), wult_source.h): below the sources and their
 * registry, which lists them.
 */
#include <linux/types.h>
#include <asm/tsc.h>

#include "../core/wult_rules.h"
#include "../trace/wult_refusal.h"
#include "wult_source.h"

int wult_source_tsc_usable(const char *name, bool cross_cpu)
{
	if (!wult_rule_tsc_rate_known(tsc_khz))
		return wult_refuse(-EOPNOTSUPP,
				   "%s: the kernel does not know the TSC rate (tsc_khz is 0): TSC times cannot be converted",
				   name);
	if (wult_rule_tsc_times_ok(true, check_tsc_unstable()))
		return 0;
	if (cross_cpu)
		return wult_refuse(-EOPNOTSUPP,
				   "%s: the kernel marked the TSC unstable (or unsynchronised between CPUs): LTime on the launcher and TAI on the measured CPU cannot be compared",
				   name);
	return wult_refuse(-EOPNOTSUPP,
			   "%s: the kernel marked the TSC unstable: TSC times cannot be trusted",
			   name);
}
