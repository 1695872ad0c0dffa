/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The set of processes a session samples, one bit per pid, tested in
 * NMI without a lock (see targets.c).
 */

#ifndef _CAUSALPROF_TARGETS_H
#define _CAUSALPROF_TARGETS_H

#include <linux/types.h>

struct netlink_ext_ack;
struct task_struct;

int cp_targets_start(bool system_wide, pid_t tgid, struct netlink_ext_ack *extack);
void cp_targets_stop(void);

bool cp_target_match(const struct task_struct *t);
bool cp_targets_has(pid_t tgid);
bool cp_targets_add(pid_t tgid);
void cp_targets_del(pid_t tgid);
void cp_targets_recheck(pid_t tgid);

#endif /* _CAUSALPROF_TARGETS_H */
