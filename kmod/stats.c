// SPDX-License-Identifier: GPL-2.0
/*
 * Module-wide counters since load, and their names as /proc, debugfs
 * and netlink show them.
 */

#include "stats.h"

#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>

#include <causalprof/tables.h>

atomic64_t cp_stats[__CAUSALPROF_STAT_LAST];
DEFINE_PER_CPU(struct cp_cpu_stats, cp_cpu_stats);

static const struct {
	enum causalprof_stat stat;
	const char *key;
} names[] = {
#define KEY(name, key, label)	{ CAUSALPROF_STAT_##name, key },
	CAUSALPROF_STATS(KEY)
#undef KEY
};

/* Counters are appended to the enum: a new one needs its line in tables.h. */
static_assert(ARRAY_SIZE(names) == __CAUSALPROF_STAT_LAST - CAUSALPROF_STAT_SESSIONS);

/* The counter's key in /proc/causalprof/status and its debugfs file name. */
const char *cp_stat_name(enum causalprof_stat stat)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].stat == stat)
			return names[i].key;
	return "unknown";
}

static u64 cpu_sum(size_t field)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += local64_read((local64_t *)((char *)per_cpu_ptr(&cp_cpu_stats, cpu) +
						  field));
	return sum;
}

u64 cp_stat_read(enum causalprof_stat stat)
{
	switch (stat) {
	case CAUSALPROF_STAT_SAMPLES:
		return cpu_sum(offsetof(struct cp_cpu_stats, samples));
	case CAUSALPROF_STAT_LOST:
		return cpu_sum(offsetof(struct cp_cpu_stats, lost));
	case CAUSALPROF_STAT_OVERFLOWS:
		return cpu_sum(offsetof(struct cp_cpu_stats, overflows));
	case CAUSALPROF_STAT_AGG_FALLBACK:
		return cpu_sum(offsetof(struct cp_cpu_stats, fallback));
	case CAUSALPROF_STAT_OFF_CPU:
		return cpu_sum(offsetof(struct cp_cpu_stats, off_cpu));
	case CAUSALPROF_STAT_OFF_CPU_LOST:
		return cpu_sum(offsetof(struct cp_cpu_stats, off_cpu_lost));
	case CAUSALPROF_STAT_OFF_CPU_CAPPED:
		return cpu_sum(offsetof(struct cp_cpu_stats, off_cpu_capped));
	case CAUSALPROF_STAT_OFF_CPU_UNTRACKED:
		return cpu_sum(offsetof(struct cp_cpu_stats, off_cpu_untracked));
	default:
		return atomic64_read(&cp_stats[stat]);
	}
}
