// SPDX-License-Identifier: GPL-2.0

#include "stats.h"

#include <linux/build_bug.h>
#include <linux/kernel.h>

atomic64_t causalprof_stats[__CAUSALPROF_STAT_LAST];

static const char *const names[] = {
	[CAUSALPROF_STAT_SESSIONS]		= "sessions",
	[CAUSALPROF_STAT_SAMPLES]		= "samples",
	[CAUSALPROF_STAT_LOST]			= "lost",
	[CAUSALPROF_STAT_OVERFLOWS]		= "overflows",
	[CAUSALPROF_STAT_RECORDS_SENT]		= "records_sent",
	[CAUSALPROF_STAT_SIDEBAND_LOST]		= "sideband_lost",
	[CAUSALPROF_STAT_TARGET_OVERFLOW]	= "target_overflow",
};

/* Counters are appended to the enum: a new one needs its name above. */
static_assert(ARRAY_SIZE(names) == __CAUSALPROF_STAT_LAST);

/* The counter's key in /proc/causalprof/status and its debugfs file name. */
const char *causalprof_stat_name(enum causalprof_stat stat)
{
	return names[stat];
}
