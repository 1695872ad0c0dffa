/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CAUSALPROF_PROC_H
#define _CAUSALPROF_PROC_H

int causalprof_proc_init(void);
void causalprof_proc_uninit(void);

#endif /* _CAUSALPROF_PROC_H */
