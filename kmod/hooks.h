/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracepoints and kprobe that tell a running session of forks,
 * exits, renames, wake-ups and mappings (see hooks.c).
 */

#ifndef _CAUSALPROF_HOOKS_H
#define _CAUSALPROF_HOOKS_H

struct cp_config;
struct netlink_ext_ack;

int cp_hooks_start(const struct cp_config *cfg, struct netlink_ext_ack *extack);
void cp_hooks_stop(void);

#endif /* _CAUSALPROF_HOOKS_H */
