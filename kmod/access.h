/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may change whom: capability and ptrace-attach checks on behalf of
 * a netlink socket or a /proc writer (see access.c).
 */

#ifndef _CAUSALPROF_ACCESS_H
#define _CAUSALPROF_ACCESS_H

#include <linux/types.h>

struct cp_owner;
struct task_struct;

bool cp_capable(const struct cp_owner *who, int cap);
bool cp_may_attach(const struct cp_owner *who, struct task_struct *task);

#endif /* _CAUSALPROF_ACCESS_H */
