/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family, the module's top layer: only its init
 * and uninit are called from outside (see netlink.c).
 */

#ifndef _CAUSALPROF_NETLINK_H
#define _CAUSALPROF_NETLINK_H

int cp_netlink_init(void);
void cp_netlink_uninit(void);

#endif /* _CAUSALPROF_NETLINK_H */
