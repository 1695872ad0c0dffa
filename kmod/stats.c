// SPDX-License-Identifier: GPL-2.0

#include "stats.h"

#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>

atomic64_t causalprof_stats[__CAUSALPROF_STAT_LAST];
DEFINE_PER_CPU(struct cp_cpu_stats, causalprof_cpu_stats);

static const char *const names[] = {
	[CAUSALPROF_STAT_SESSIONS]		= "sessions",
	[CAUSALPROF_STAT_SAMPLES]		= "samples",
	[CAUSALPROF_STAT_LOST]			= "lost",
	[CAUSALPROF_STAT_OVERFLOWS]		= "overflows",
	[CAUSALPROF_STAT_RECORDS_SENT]		= "records_sent",
	[CAUSALPROF_STAT_SIDEBAND_LOST]		= "sideband_lost",
	[CAUSALPROF_STAT_TARGET_OVERFLOW]	= "target_overflow",
	[CAUSALPROF_STAT_RECORDS_DROPPED]	= "records_dropped",
};

/* Counters are appended to the enum: a new one needs its name above. */
static_assert(ARRAY_SIZE(names) == __CAUSALPROF_STAT_LAST);

/* The counter's key in /proc/causalprof/status and its debugfs file name. */
const char *causalprof_stat_name(enum causalprof_stat stat)
{
	return names[stat];
}

static u64 cpu_sum(size_t field)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += local64_read((local64_t *)((char *)per_cpu_ptr(&causalprof_cpu_stats, cpu) +
						  field));
	return sum;
}

u64 causalprof_stat_read(enum causalprof_stat stat)
{
	switch (stat) {
	case CAUSALPROF_STAT_SAMPLES:
		return cpu_sum(offsetof(struct cp_cpu_stats, samples));
	case CAUSALPROF_STAT_LOST:
		return cpu_sum(offsetof(struct cp_cpu_stats, lost));
	case CAUSALPROF_STAT_OVERFLOWS:
		return cpu_sum(offsetof(struct cp_cpu_stats, overflows));
	default:
		return atomic64_read(&causalprof_stats[stat]);
	}
}
