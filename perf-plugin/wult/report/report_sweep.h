/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult report, a wult sweep's directory as wult report's input (report_sweep.c).
 */
#ifndef WULT_REPORT_SWEEP_H
#define WULT_REPORT_SWEEP_H

#include "report.h"

/* ---- report_sweep.c: a wult sweep's directory (wult report DIR) ---- */
/* Whether one of @inputs is a directory holding a sweep manifest (sweep.json). */
int rpt_sweep_any(const char *const *inputs, unsigned int n);
/* Every point of the sweep in @inputs[0] compared: the text table, --json,
 * --html (a sweep is reported alone). An exit status (the causes said). */
int rpt_sweep_run(struct rpt_opts *o, const char *const *inputs, unsigned int n);

#endif
