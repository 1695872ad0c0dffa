/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ground-truth programs of causal profiling share (gt_pipe.c,
 * gt_futex.c): the clock, option parsing, the run's length and the line
 * each prints at exit,
 *
 *	events E elapsed_ns NS rate R
 *
 * E progress events in NS nanoseconds, R per second. A run lasts -d SEC
 * seconds (default 10) or -n EVENTS events. The work a role does is a loop
 * of -u ITERS iterations per unit (default 500000) on one source line, so
 * that a profiler selects it as one line; the knobs really shorten it.
 */
#ifndef GT_H
#define GT_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t gt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The calling thread onto CPU cpu (modulo the CPUs online), where there are
 * two or more. Roles that must run in parallel for the truth to hold are
 * pinned apart: left to the scheduler, two roles on a two-CPU VM sometimes
 * share one CPU for a whole run, and the program's speed and its truth
 * change with it (the pipe's time per item: 2 units apart, 3.2 together).
 * Best effort.
 */
static inline void gt_pin(int cpu)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (n < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % n, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* A number in [lo, hi] or exit 2 naming the option. */
static inline long gt_num(const char *prog, int opt, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: -%c %s: not a number from %ld to %ld\n", prog, opt, s, lo, hi);
		exit(2);
	}
	return v;
}

/* Iterations of a unit of UNITS_X10 tenths, shortened by PCT %. */
static inline long gt_iters(long unit, long units_x10, long pct)
{
	return unit * units_x10 / 10 * (100 - pct) / 100;
}

static inline void gt_report(uint64_t events, uint64_t t0, uint64_t t1)
{
	printf("events %llu elapsed_ns %llu rate %.3f\n", (unsigned long long)events,
	       (unsigned long long)(t1 - t0), events * 1e9 / (double)(t1 - t0));
}

#endif /* GT_H */
