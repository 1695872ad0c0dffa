/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CAUSALPROF_DEBUGFS_H
#define _CAUSALPROF_DEBUGFS_H

void causalprof_debugfs_init(void);
void causalprof_debugfs_uninit(void);

#endif /* _CAUSALPROF_DEBUGFS_H */
