/* SPDX-License-Identifier: GPL-2.0 */
/* libwult internal: what the CSV reader (csv.c) and writer (csv_write.c) share. */
#ifndef WULT_LIB_CSV_INT_H
#define WULT_LIB_CSV_INT_H

/* 1 when the CSV reader and writer may use a worker thread: see
 * wult_csv_set_threads() in wult/csv.h. */
int wult_csv_threads(void);

#endif
