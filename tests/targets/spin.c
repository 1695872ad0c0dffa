// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound target: THREADS threads spin in hot_spin() while the main
 * thread sleeps, for SECONDS seconds (0: until killed); then each thread
 * reports the CPU time it used and the program exits with status EXIT.
 *
 *	spin [-t THREADS] [-s SECONDS] [-x EXIT]
 *
 * stdout: "ready PID" once every thread exists, and at the end one line
 * "thread TID CPU_NS LOOPS" per thread, the main thread first: its CPU time
 * and how many times it went round hot_spin()'s loop (0 for main).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS	64

struct worker {
	pthread_t thread;
	pid_t tid;
	long long cpu_ns;
	unsigned long loops;
};

static volatile int stop;

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The function every profile of this program must find on top. */
static unsigned long __attribute__((noinline)) hot_spin(void)
{
	unsigned long n = 0;

	while (!stop)
		n++;
	return n;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	w->loops = hot_spin();
	w->cpu_ns = thread_cpu_ns();
	return NULL;
}

int main(int argc, char *argv[])
{
	static struct worker workers[MAX_THREADS];
	int threads = 1, seconds = 2, status = 0, opt, i;
	struct timespec ts = {};

	while ((opt = getopt(argc, argv, "t:s:x:")) != -1) {
		switch (opt) {
		case 't':
			threads = atoi(optarg);
			break;
		case 's':
			seconds = atoi(optarg);
			break;
		case 'x':
			status = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: spin [-t THREADS] [-s SECONDS] [-x EXIT]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > MAX_THREADS || seconds < 0) {
		fprintf(stderr, "spin: bad arguments\n");
		return 2;
	}

	for (i = 0; i < threads; i++) {
		if (pthread_create(&workers[i].thread, NULL, work, &workers[i])) {
			perror("spin: pthread_create");
			return 1;
		}
	}
	printf("ready %d\n", getpid());
	fflush(stdout);

	if (!seconds) {
		for (;;)
			pause();
	}
	ts.tv_sec = seconds;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
		;
	stop = 1;
	for (i = 0; i < threads; i++)
		pthread_join(workers[i].thread, NULL);

	printf("thread %d %lld 0\n", getpid(), thread_cpu_ns());
	for (i = 0; i < threads; i++)
		printf("thread %d %lld %lu\n", workers[i].tid, workers[i].cpu_ns,
		       workers[i].loops);
	return status;
}
