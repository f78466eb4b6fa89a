/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _WULT_DEBUGFS_H
#define _WULT_DEBUGFS_H

void wult_debugfs_init(void);
void wult_debugfs_exit(void);

#endif /* _WULT_DEBUGFS_H */
