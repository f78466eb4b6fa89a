# SPDX-License-Identifier: GPL-2.0
#
# insns_decode.py: the raw stamps of wult datapoints, for vm_insns.sh.
#
#   perf script -i perf.data -s tests/bench/insns_decode.py
#
# One line per datapoint of the wult PMU (recorded with -R):
#   D source intr_off tsc_khz ai_ts1 intr_ts1 tintr tai
# (source 0 hrt, 1 tdt; ai_ts1 and intr_ts1 are TSC values, tintr and tai
# ns of the source's clock, see kernel/uapi/linux/wult.h).

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])),
                                "../../scripts/perf"))
import wult_perf  # noqa: E402


def process_event(param_dict):
    if wult_perf.branches_from_raw(param_dict) is not None:
        return
    dp = wult_perf.from_raw(param_dict.get("raw_buf"))
    if dp is None or not param_dict.get("ev_name", "").startswith("wult"):
        return
    print("D %d %d %d %d %d %d %d" %
          (dp["source"], dp["intr_off"], dp["tsc_khz"], dp["ai_ts1"],
           dp["intr_ts1"], dp["tintr"], dp["tai"]))
