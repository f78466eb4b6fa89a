/* SPDX-License-Identifier: GPL-2.0 */
/* libwult internal: what the CSV reader (csv.c) and writer (csv_write.c) share. */
#ifndef WULT_INTERNAL_CSV_H
#define WULT_INTERNAL_CSV_H

/* Worker threads the CSV reader (0 or more: one) and writer (that many
 * formatters) use: see wult_csv_set_threads() in wult/csv.h. */
int wult_csv_threads(void);

#endif
