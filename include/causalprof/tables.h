/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module and cprof must agree on beyond the protocol
 * (include/uapi/linux/causalprof.h): the version, the sampling frequency's
 * default and ceiling, the names of the module's counters and of the events
 * that may be sampled. Defined once, here; kmod/ and user/ both include it,
 * so it is plain C that needs nothing but <linux/types.h> and, for the
 * event table, <linux/perf_event.h>.
 */
#ifndef _CAUSALPROF_TABLES_H
#define _CAUSALPROF_TABLES_H

#include <linux/types.h>

/* The module's and cprof's version: modinfo, status, recordings. */
#define CAUSALPROF_VERSION	"0.1.0"

/* Samples per second per CPU when a session asks for none. */
#define CAUSALPROF_DEFAULT_FREQ	1000
/* The module's max_freq parameter's default: higher rates are lowered. */
#define CAUSALPROF_MAX_FREQ	100000

/*
 * X(STAT, KEY, LABEL) for each enum causalprof_stat counter, in enum order:
 * KEY in /proc/causalprof/status and debugfs, LABEL in `cprof status`. A
 * counter added to the enum needs its line here (both sides check).
 */
#define CAUSALPROF_STATS(X)						\
	X(SESSIONS,		"sessions",		"sessions")		\
	X(SAMPLES,		"samples",		"samples")		\
	X(LOST,			"lost",			"lost")			\
	X(OVERFLOWS,		"overflows",		"overflows")		\
	X(RECORDS_SENT,		"records_sent",		"records sent")		\
	X(SIDEBAND_LOST,	"sideband_lost",	"sideband lost")	\
	X(TARGET_OVERFLOW,	"target_overflow",	"not followed")		\
	X(RECORDS_DROPPED,	"records_dropped",	"records dropped")	\
	X(AGG_FALLBACK,		"agg_fallback",		"aggregation fallback")	\
	X(GO_LABELS,		"go_labels",		"Go labels")		\
	X(GO_LABELS_CUT,	"go_labels_cut",	"Go labels cut")	\
	X(GO_LABELS_FAULT,	"go_labels_fault",	"Go labels unread")	\
	X(OFF_CPU,		"off_cpu",		"off-CPU waits")	\
	X(OFF_CPU_LOST,		"off_cpu_lost",		"off-CPU waits lost")	\
	X(OFF_CPU_CAPPED,	"off_cpu_capped",	"off-CPU waits capped")	\
	X(OFF_CPU_UNTRACKED,	"off_cpu_untracked",	"off-CPU waits untracked")

/*
 * X(NAME, TYPE, CONFIG) for each event name cprof -e and the /proc control
 * file accept (besides raw rNNNN): perf's spellings of the generic hardware
 * events, cpu-clock, and pprof++'s camelCase names. The first name of a
 * (TYPE, CONFIG) pair is the one messages use.
 */
#define CAUSALPROF_EVENTS(X)							\
	X("cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)		\
	X("instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS)		\
	X("cache-references",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES)	\
	X("cache-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES)		\
	X("branches",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS)	\
	X("branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS)	\
	X("branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES)	\
	X("cpu-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK)		\
	X("cacheReferences",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES)	\
	X("cacheMisses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES)		\
	X("branchMisses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES)

/* The names as a table: CAUSALPROF_EVENTS(CAUSALPROF_NAMED_EVENT). */
struct causalprof_named_event {
	const char *name;
	__u32 type;
	__u64 config;
};

#define CAUSALPROF_NAMED_EVENT(name, type, config)	{ name, type, config },

#endif /* _CAUSALPROF_TABLES_H */
