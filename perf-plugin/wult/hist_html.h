/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult hist --html: wult.ko's in-kernel histograms written as wult
 * report's HTML page (hist_html.c). One object per round:
 *
 *	hist_html_new(out, dir, metric, &h);
 *	for each CPU and metric read: hist_html_add(h, cpu, metric, khist);
 *	hist_html_write(h); hist_html_free(h);
 */
#ifndef WULT_HIST_HTML_H
#define WULT_HIST_HTML_H

#include <wult/khist.h>

struct hist_html;

/* @metric: 0 wake_latency, 1 intr_latency, 2 silent_time, -1 all three
 * (wult hist's order); @dir is named in the page's header. 0 or -ENOMEM. */
int hist_html_new(const char *out, const char *dir, int metric, struct hist_html **ret);
/* One CPU's file of @metric. 0 or -ENOMEM. */
int hist_html_add(struct hist_html *h, int cpu, int metric, const struct wult_khist *k);
/* Writes the page to @out. 0, or -errno (said on stderr). */
int hist_html_write(struct hist_html *h);
void hist_html_free(struct hist_html *h);

#endif
