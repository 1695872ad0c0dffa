/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs/causalprof, the developers' read-only views (see
 * debugfs.c).
 */

#ifndef _CAUSALPROF_DEBUGFS_H
#define _CAUSALPROF_DEBUGFS_H

void cp_debugfs_init(void);
void cp_debugfs_uninit(void);

#endif /* _CAUSALPROF_DEBUGFS_H */
