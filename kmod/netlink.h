/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CAUSALPROF_NETLINK_H
#define _CAUSALPROF_NETLINK_H

int causalprof_netlink_init(void);
void causalprof_netlink_uninit(void);

#endif /* _CAUSALPROF_NETLINK_H */
