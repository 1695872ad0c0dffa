/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's perf counters and their overflow handler (see
 * sampler.c).
 */

#ifndef _CAUSALPROF_SAMPLER_H
#define _CAUSALPROF_SAMPLER_H

struct cp_config;
struct netlink_ext_ack;

int cp_sampler_start(const struct cp_config *cfg, struct netlink_ext_ack *extack);
void cp_sampler_stop(void);

#endif /* _CAUSALPROF_SAMPLER_H */
