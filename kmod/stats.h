/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module-wide counters, safe from any context, indexed by enum
 * causalprof_stat (see stats.c).
 */

#ifndef _CAUSALPROF_STATS_H
#define _CAUSALPROF_STATS_H

#include <linux/atomic.h>
#include <linux/causalprof.h>
#include <linux/percpu.h>
#include <asm/local64.h>

/*
 * Module-wide counters since load, indexed by enum causalprof_stat so that
 * /proc, debugfs and netlink walk the same table. Safe from any context,
 * including NMI. samples, lost, overflows, agg_fallback and the off-CPU
 * counters are sums of the per-CPU counters below; the others live in
 * cp_stats[].
 */
extern atomic64_t cp_stats[__CAUSALPROF_STAT_LAST];

/*
 * Per-CPU counters of the overflow handler and of the scheduler hooks that
 * record off-CPU waits, since load (ring_hwm: of the current or last
 * session). Only that CPU writes them, with local64 operations so that an
 * NMI landing inside the hrtimer's handler or a hook cannot tear an
 * update; anyone may read them.
 */
struct cp_cpu_stats {
	local64_t samples;	/* stored in the ring */
	local64_t lost;		/* could not be stored */
	local64_t overflows;	/* handler calls for a target task */
	local64_t ring_hwm;	/* highest ring fill, bytes */
	local64_t handler_ns;	/* time spent in the handler */
	local64_t fallback;	/* of samples: a SAMPLE record, table full */
	local64_t off_cpu;	/* waits recorded (where they ended) */
	local64_t off_cpu_lost;	/* waits not recorded, whatever the reason */
	local64_t off_cpu_capped;	/* of those, over max_off_cpu_rate */
	local64_t off_cpu_untracked;	/* of those, no room in the thread table */
	local64_t off_cpu_ns;	/* time spent in the off-CPU hooks */
};

DECLARE_PER_CPU(struct cp_cpu_stats, cp_cpu_stats);

const char *cp_stat_name(enum causalprof_stat stat);
u64 cp_stat_read(enum causalprof_stat stat);

#define for_each_cp_stat(i) \
	for ((i) = CAUSALPROF_STAT_SESSIONS; (i) <= CAUSALPROF_STAT_MAX; (i)++)

static inline void cp_stat_add(enum causalprof_stat stat, u64 n)
{
	atomic64_add(n, &cp_stats[stat]);
}

#endif /* _CAUSALPROF_STATS_H */
