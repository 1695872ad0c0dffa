// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed amount of CPU-bound work for the sampling benchmark: THREADS
 * threads each run ITERS rounds of an integer mix, then the program prints
 * the wall time the work took, so start-up costs of whatever launched it
 * (perf record needs seconds) stay out of the measurement. Thread i is
 * pinned to CPU i modulo the CPUs it may use: left to the scheduler, two
 * threads on 2 vCPUs sometimes share one for a while, which alone moves
 * the wall time by 50 % under TCG.
 *
 *	workload THREADS ITERS
 *
 * stdout: "elapsed_ns N"
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long iters;
static volatile unsigned long sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long __attribute__((noinline)) mix(unsigned long x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdUL;
	x ^= x >> 29;
	return x;
}

static cpu_set_t allowed;

/* The n-th CPU of the allowed set, cycling. */
static int nth_cpu(long n)
{
	int cpu, count = CPU_COUNT(&allowed);

	n %= count;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed) && n-- == 0)
			return cpu;
	return 0;
}

static void *work(void *arg)
{
	unsigned long i, x = (unsigned long)arg;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(nth_cpu((long)arg), &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
		fprintf(stderr, "workload: cannot pin thread %ld\n", (long)arg);

	for (i = 0; i < iters; i++)
		x = mix(x + i);
	sink = x;
	return NULL;
}

int main(int argc, char *argv[])
{
	pthread_t th[64];
	unsigned long long t0;
	long i, n;

	if (argc != 3 || (n = atol(argv[1])) < 1 || n > 64 ||
	    !(iters = strtoul(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: workload THREADS ITERS\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) || !CPU_COUNT(&allowed)) {
		perror("sched_getaffinity");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, work, (void *)i)) {
			perror("pthread_create");
			return 1;
		}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("elapsed_ns %llu\n", now_ns() - t0);
	return 0;
}
