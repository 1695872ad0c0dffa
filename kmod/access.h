/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may change whom: capability and ptrace-attach checks on behalf of
 * a netlink socket or a /proc writer, at the request and later (see
 * access.c).
 */

#ifndef _CAUSALPROF_ACCESS_H
#define _CAUSALPROF_ACCESS_H

#include <linux/types.h>

struct cp_owner;
struct cred;
struct path;
struct task_struct;

bool cp_capable(const struct cp_owner *who, int cap);
bool cp_may_attach(const struct cp_owner *who, struct task_struct *task);

/*
 * The credentials a request was judged by, held to judge its change again
 * for every process it reaches: the sender's (through /proc, the control
 * file's opener's), and the socket's opener's when they differ (or NULL).
 */
struct cp_caller {
	const struct cred *cred[2];
};

void cp_caller_get(struct cp_caller *c, const struct cp_owner *who);
void cp_caller_put(struct cp_caller *c);
bool cp_caller_may_attach(const struct cp_caller *c, struct task_struct *task);
int cp_caller_may_read(const struct cp_caller *c, const struct path *path);

#endif /* _CAUSALPROF_ACCESS_H */
