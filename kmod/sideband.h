/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records that explain samples: mappings, thread names, forks and
 * exits (see sideband.c).
 */

#ifndef _CAUSALPROF_SIDEBAND_H
#define _CAUSALPROF_SIDEBAND_H

#include <linux/types.h>

struct netlink_ext_ack;
struct task_struct;
struct vm_area_struct;

int cp_sideband_start(struct netlink_ext_ack *extack);
void cp_sideband_stop(void);
int cp_sideband_dump(bool all, pid_t tgid, struct netlink_ext_ack *extack);

void cp_sideband_comm(const struct task_struct *t, const char *comm, u16 flags);
void cp_sideband_task(u16 type, const struct task_struct *t, const struct task_struct *parent);
void cp_sideband_mmap(struct vm_area_struct *vma);
void cp_sideband_denied(const struct task_struct *t, u32 point, u16 flags);

#endif /* _CAUSALPROF_SIDEBAND_H */
