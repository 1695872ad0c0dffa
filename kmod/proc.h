/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/causalprof, the text interface (see
 * proc.c).
 */

#ifndef _CAUSALPROF_PROC_H
#define _CAUSALPROF_PROC_H

int cp_proc_init(void);
void cp_proc_uninit(void);

#endif /* _CAUSALPROF_PROC_H */
