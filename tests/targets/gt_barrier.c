// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for causal profiles: two threads meet at a barrier every
 * round; thread 1 runs a() (two units of work), thread 2 runs b() (one).
 *
 *	gt_barrier [-d SEC] [-a PCT] [-b PCT] [-u ITERS] [-w USEC]
 *
 * -a and -b really shorten a() and b() by PCT % (fewer iterations of their
 * loops), -u sets a unit (default 500000 iterations), -d how long it runs
 * (default 10 s). A round takes max(a, b), so the truth is: a() PCT % faster
 * makes the program min(PCT, 50) % faster in time per round (past 50 %, b()
 * is the longer one); b() faster changes nothing. progress() is called once
 * a round (the throughput point: --progress progress), from the line marked
 * "progress line". Each loop is one source line, so that a profiler selects
 * it as one line. At exit it prints "rounds N elapsed_ns T rate R" (rounds
 * per second). Thread 1 runs on CPU 0, thread 2 on CPU 1 (gt_pin()): the
 * truth is that of two threads in parallel.
 *
 * -w USEC: thread 2 waits USEC us in a timed sleep (clock_nanosleep())
 * instead of running b(), as a thread waiting for I/O does. Then the truth
 * saturates on one CPU too: a() runs while thread 2 sleeps, a round takes
 * max(a, USEC), and with USEC half of a() the program stops improving past
 * a() 50 % faster. (With b() on one CPU, the threads share it: a round is
 * a + b.)
 */
#define _GNU_SOURCE
#include "gt.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/*
 * Built three ways (tests/Makefile): progress() is the point (--progress
 * progress, or the "progress line" as FILE:LINE); gt_barrier_sdt declares it
 * with cprof.h (CPROF_PROGRESS(round)); gt_barrier_coz with Coz's coz.h
 * (COZ_PROGRESS_NAMED("round")).
 */
#if defined(GT_CPROF_H)
#include "cprof.h"
#define ROUND() CPROF_PROGRESS(round)
#elif defined(GT_COZ_H)
#include <coz.h>
#define ROUND() COZ_PROGRESS_NAMED("round")
#else
#define ROUND() do { } while (0)
#endif

static volatile int stop;
/*
 * Whether round N is the last: thread 1 decides before the barrier, thread
 * 2 reads it after; by parity, since thread 1 may decide round N + 1 before
 * thread 2 has read round N's.
 */
static volatile int last[2];
static long a_iters, b_iters, wait_us = -1;
static uint64_t rounds;
static pthread_barrier_t barrier;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Each thread's loop writes its own stack: no cache line is shared. */
static __attribute__((noinline)) void a(void)
{
	volatile long i;

	for (i = 0; i < a_iters; i++);	/* a line */
}

static __attribute__((noinline)) void b(void)
{
	volatile long i;

	for (i = 0; i < b_iters; i++);	/* b line */
}

static __attribute__((noinline)) void progress(void)
{
	rounds++;
	ROUND();
}

static void *thread1(void *arg)
{
	unsigned int n = 0;
	int done;

	(void)arg;
	gt_pin(0);
	do {
		a();
		last[n++ & 1] = done = stop;
		pthread_barrier_wait(&barrier);
		progress();	/* progress line */
	} while (!done);
	return NULL;
}

static void *thread2(void *arg)
{
	unsigned int n = 0;

	(void)arg;
	gt_pin(1);
	do {
		if (wait_us >= 0) {
			struct timespec ts = {
				.tv_sec = wait_us / 1000000,
				.tv_nsec = wait_us % 1000000 * 1000,
			};

			while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
				;
		} else {
			b();
		}
		pthread_barrier_wait(&barrier);
	} while (!last[n++ & 1]);
	return NULL;
}

static long percent(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > 100) {
		fprintf(stderr, "gt_barrier: %s is not a percentage\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char *argv[])
{
	long a_pct = 0, b_pct = 0, unit = 500000, secs = 10;
	uint64_t t0, t1;
	pthread_t t[2];
	int c;

	while ((c = getopt(argc, argv, "d:a:b:u:w:")) != -1) {
		switch (c) {
		case 'd': secs = atol(optarg); break;
		case 'a': a_pct = percent(optarg); break;
		case 'b': b_pct = percent(optarg); break;
		case 'u': unit = atol(optarg); break;
		case 'w': wait_us = atol(optarg); break;
		default:
			fprintf(stderr, "usage: gt_barrier [-d SEC] [-a PCT] [-b PCT] [-u ITERS] [-w USEC]\n");
			return 2;
		}
	}
	if (secs <= 0 || unit <= 0 || (wait_us < 0 && wait_us != -1))
		return 2;
	a_iters = 2 * unit * (100 - a_pct) / 100;
	b_iters = unit * (100 - b_pct) / 100;
	if (pthread_barrier_init(&barrier, NULL, 2))
		return 1;
	t0 = mono_ns();
	if (pthread_create(&t[0], NULL, thread1, NULL) ||
	    pthread_create(&t[1], NULL, thread2, NULL))
		return 1;
	while (mono_ns() - t0 < secs * 1000000000ULL)
		usleep(10000);
	stop = 1;
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	t1 = mono_ns();
	printf("rounds %llu elapsed_ns %llu rate %.3f\n", (unsigned long long)rounds,
	       (unsigned long long)(t1 - t0), rounds * 1e9 / (t1 - t0));
	return 0;
}
