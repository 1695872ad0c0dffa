/* SPDX-License-Identifier: MIT */
/*
 * cprof.h: named progress points for causal profiling with cprof, as USDT
 * probes; no library to link, and one nop each when nothing profiles.
 *
 *	#include <cprof.h>
 *
 *	CPROF_PROGRESS(request);	// one unit of work done: throughput
 *	CPROF_BEGIN(query);		// a transaction starts...
 *	CPROF_END(query);		// ...and ends: latency
 *
 * NAME is a C identifier. Each macro is a systemtap USDT probe (sys/sdt.h,
 * from Debian's systemtap-sdt-dev) of provider "cprof", named
 * "progress__NAME", "begin__NAME" or "end__NAME": that is how cprof finds
 * them in the program and its libraries (`cprof record --causal` takes
 * every one it finds; `--progress sdt:cprof:progress__NAME` names one).
 * A macro may expand to several sites (inlining, unrolling): cprof probes
 * them all. The probes have no semaphore and no arguments.
 *
 * Define CPROF_DISABLE to compile the macros to nothing, e.g. where
 * sys/sdt.h is missing.
 */
#ifndef CPROF_H
#define CPROF_H

#ifndef CPROF_DISABLE

#if defined(__has_include)
#if !__has_include(<sys/sdt.h>)
#error "cprof.h needs <sys/sdt.h> (Debian: systemtap-sdt-dev), or define CPROF_DISABLE"
#endif
#endif
#include <sys/sdt.h>

#define CPROF_PROGRESS(name)	STAP_PROBE(cprof, progress__##name)
#define CPROF_BEGIN(name)	STAP_PROBE(cprof, begin__##name)
#define CPROF_END(name)		STAP_PROBE(cprof, end__##name)

#else /* CPROF_DISABLE */

#define CPROF_PROGRESS(name)	do { } while (0)
#define CPROF_BEGIN(name)	do { } while (0)
#define CPROF_END(name)		do { } while (0)

#endif /* CPROF_DISABLE */

#endif /* CPROF_H */
