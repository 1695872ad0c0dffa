/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CAUSALPROF_STATS_H
#define _CAUSALPROF_STATS_H

#include <linux/atomic.h>
#include <linux/causalprof.h>

/*
 * Module-wide counters since load, indexed by enum causalprof_stat so that
 * /proc, debugfs and netlink walk the same table. Safe from any context,
 * including NMI.
 */
extern atomic64_t causalprof_stats[__CAUSALPROF_STAT_LAST];

const char *causalprof_stat_name(enum causalprof_stat stat);

#define for_each_causalprof_stat(i) \
	for ((i) = CAUSALPROF_STAT_SESSIONS; (i) <= CAUSALPROF_STAT_MAX; (i)++)

static inline void causalprof_stat_add(enum causalprof_stat stat, u64 n)
{
	atomic64_add(n, &causalprof_stats[stat]);
}

static inline u64 causalprof_stat_read(enum causalprof_stat stat)
{
	return atomic64_read(&causalprof_stats[stat]);
}

#endif /* _CAUSALPROF_STATS_H */
