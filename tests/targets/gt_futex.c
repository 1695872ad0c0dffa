// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for causal profiles: threads contending for a lock built
 * on a raw futex (no pthread mutex: a profiler that interposes on pthread
 * does not see who wakes whom).
 *
 *	gt_futex [-d SEC | -n EVENTS] [-u ITERS] [-t THREADS] [-s PCT] [-o PCT]
 *		 [-C TENTHS] [-O TENTHS]
 *
 * THREADS threads (default 4) loop: take the lock, run crit() (2 units of
 * work, or -C TENTHS tenths of a unit), release it, count one event with
 * progress(), run other() (0.5 units, or -O TENTHS). The critical section dominates: the lock is the bottleneck, so
 * crit() PCT % faster (-s) makes the program nearly PCT % faster in time
 * per event, until the other work of the waiting threads is what limits
 * it; other() faster (-o) changes about nothing. The progress point is
 * progress() (--progress progress); gt_futex_sdt declares it with cprof.h
 * (CPROF_PROGRESS(op)), gt_futex_coz with Coz's coz.h. gt.h has the rest of the options and the exit
 * line.
 */
#define _GNU_SOURCE
#include "gt.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(GT_CPROF_H)
#include "cprof.h"
#define OP() CPROF_PROGRESS(op)
#elif defined(GT_COZ_H)
#include <coz.h>
#define OP() COZ_PROGRESS_NAMED("op")
#else
#define OP() do { } while (0)
#endif

#define MAX_THREADS 64

static long crit_iters, other_iters;
static uint64_t max_events;
static atomic_ulong events;
static volatile int stop;
/* 0 free, 1 taken, 2 taken and someone may wait (Drepper, "Futexes Are Tricky") */
static atomic_int lock;

static void futex(atomic_int *uaddr, int op, int val)
{
	syscall(SYS_futex, uaddr, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void lock_take(void)
{
	int c = 0;

	if (atomic_compare_exchange_strong(&lock, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&lock, 2);
	while (c) {
		futex(&lock, FUTEX_WAIT, 2);
		c = atomic_exchange(&lock, 2);
	}
}

static void lock_release(void)
{
	if (atomic_fetch_sub(&lock, 1) != 1) {
		atomic_store(&lock, 0);
		futex(&lock, FUTEX_WAKE, 1);
	}
}

static __attribute__((noinline)) void crit(void)
{
	volatile long i;

	for (i = 0; i < crit_iters; i++);	/* crit line */
}

static __attribute__((noinline)) void other(void)
{
	volatile long i;

	for (i = 0; i < other_iters; i++);	/* other line */
}

static __attribute__((noinline)) void progress(void)
{
	if (atomic_fetch_add(&events, 1) + 1 == max_events)
		stop = 1;
	OP();
}

static void *worker(void *arg)
{
	(void)arg;
	while (!stop) {
		lock_take();
		crit();
		lock_release();
		progress();	/* progress line */
		other();
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	long secs = 10, unit = 500000, s = 0, o = 0, nthreads = 4, ct = 20, ot = 5, i;
	pthread_t t[MAX_THREADS];
	uint64_t t0, t1, end;
	int opt;

	while ((opt = getopt(argc, argv, "d:n:u:t:s:o:C:O:")) != -1) {
		switch (opt) {
		case 'd': secs = gt_num("gt_futex", opt, optarg, 1, 100000); break;
		case 'n': max_events = gt_num("gt_futex", opt, optarg, 1, 1L << 40); secs = 100000; break;
		case 'u': unit = gt_num("gt_futex", opt, optarg, 1, 1L << 30); break;
		case 't': nthreads = gt_num("gt_futex", opt, optarg, 1, MAX_THREADS); break;
		case 's': s = gt_num("gt_futex", opt, optarg, 0, 100); break;
		case 'o': o = gt_num("gt_futex", opt, optarg, 0, 100); break;
		case 'C': ct = gt_num("gt_futex", opt, optarg, 1, 1000); break;
		case 'O': ot = gt_num("gt_futex", opt, optarg, 0, 1000); break;
		default:
			fprintf(stderr, "usage: gt_futex [-d SEC | -n EVENTS] [-u ITERS] [-t THREADS] [-s PCT] [-o PCT] [-C TENTHS] [-O TENTHS]\n");
			return 2;
		}
	}
	crit_iters = gt_iters(unit, ct, s);
	other_iters = gt_iters(unit, ot, o);

	t0 = gt_now();
	end = t0 + secs * 1000000000ULL;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	while (!stop && gt_now() < end)
		usleep(10000);
	stop = 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	t1 = gt_now();
	gt_report(atomic_load(&events), t0, t1);
	return 0;
}
