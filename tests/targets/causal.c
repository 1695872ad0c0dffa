// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads for the causal engine's tests: A works in the selected code
 * (the functions in section cp_hit), B elsewhere.
 *
 *	causal MODE [SECONDS]
 *
 * spin:  A and B spin.
 * sleep: A spins; B sleeps 5 ms in nanosleep(), then spins 2 ms, in a loop.
 * nap:   as sleep, but A spins 2 ms and sleeps 3 ms, in a loop: on one CPU
 *        B often wakes with its CPU free.
 * callee: A loops in hit_caller(), in the selected code, which calls
 *        callee_spin(), outside it: A is always in a callee of the
 *        selected code, which the return address of the call shows.
 * crowd: A and B spin, and CROWD more threads wait for SIGUSR1 to the
 *        process; then each spins 1 ms and sleeps 1 ms, in a loop.
 *
 * (Wake-up inheritance has its own target, handoff; the barrier of the
 * ground truth test, groundtruth.)
 *
 * stdout: "ready PID ATID BTID START END" (hex: START-END the selected
 * code), in callee mode followed by " RET", the return address of the
 * call in hit_caller(); after SECONDS (0: until killed) the program exits
 * with status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CROWD	96

#define HIT __attribute__((section("cp_hit"), noinline))

extern char __start_cp_hit[], __stop_cp_hit[];

static volatile unsigned long counter;
static volatile pid_t atid, btid;
static const char *mode;
static pthread_mutex_t crowd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t crowd_go = PTHREAD_COND_INITIALIZER;
static int crowd_started;

static HIT void hit_spin(void)
{
	for (;;)
		counter++;
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Spins ms milliseconds, the clock read outside the selected code. */
static HIT void hit_spin_ms(long ms, const struct timespec *t0)
{
	unsigned long i;

	do {
		for (i = 0; i < 10000; i++)
			counter++;
	} while (elapsed_ms(t0) < ms);
}

static __attribute__((noinline)) void other_spin_ms(long ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		counter++;
	} while (ms < 0 || elapsed_ms(&t0) < ms);
}

static volatile unsigned long callee_ret;

static __attribute__((noinline)) void callee_spin(void)
{
	unsigned long i;

	if (!callee_ret)
		callee_ret = (unsigned long)__builtin_return_address(0);
	for (i = 0; i < 1000000; i++)
		counter++;
}

static HIT void hit_caller(void)
{
	for (;;)
		callee_spin();
}

static void *thread_a(void *arg)
{
	struct timespec ts = { .tv_nsec = 3000000 }, t0;

	atid = gettid();
	if (!strcmp(mode, "callee"))
		hit_caller();
	if (!strcmp(mode, "nap"))
		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			hit_spin_ms(2, &t0);
			nanosleep(&ts, NULL);
		}
	hit_spin();
	return NULL;
}

static void *thread_b(void *arg)
{
	struct timespec ts = { .tv_nsec = 5000000 };

	btid = gettid();
	if (strcmp(mode, "sleep") && strcmp(mode, "nap"))
		other_spin_ms(-1);
	for (;;) {
		nanosleep(&ts, NULL);
		other_spin_ms(2);
	}
	return NULL;
}

static void *thread_crowd(void *arg)
{
	struct timespec ts = { .tv_nsec = 1000000 };

	pthread_mutex_lock(&crowd_lock);
	while (!crowd_started)
		pthread_cond_wait(&crowd_go, &crowd_lock);
	pthread_mutex_unlock(&crowd_lock);
	for (;;) {
		other_spin_ms(1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* The crowd waits for SIGUSR1, which only the main thread takes. */
static int crowd(void)
{
	pthread_t t;
	sigset_t set;
	int i;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -1;
	for (i = 0; i < CROWD; i++)
		if (pthread_create(&t, NULL, thread_crowd, NULL))
			return -1;
	return 0;
}

static void crowd_wait(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigwait(&set, &sig);
	pthread_mutex_lock(&crowd_lock);
	crowd_started = 1;
	pthread_cond_broadcast(&crowd_go);
	pthread_mutex_unlock(&crowd_lock);
}

int main(int argc, char *argv[])
{
	pthread_t a, b;
	int seconds;

	if (argc < 2 || (strcmp(argv[1], "spin") && strcmp(argv[1], "sleep") &&
			 strcmp(argv[1], "nap") && strcmp(argv[1], "callee") &&
			 strcmp(argv[1], "crowd"))) {
		fprintf(stderr, "usage: causal spin|sleep|nap|callee|crowd [SECONDS]\n");
		return 2;
	}
	mode = argv[1];
	seconds = argc > 2 ? atoi(argv[2]) : 0;
	if (!strcmp(mode, "crowd") && crowd())
		return 1;
	if (pthread_create(&a, NULL, thread_a, NULL) || pthread_create(&b, NULL, thread_b, NULL))
		return 1;
	while (!atid || !btid || (!strcmp(mode, "callee") && !callee_ret))
		usleep(1000);
	printf("ready %d %d %d %p %p", getpid(), atid, btid, (void *)__start_cp_hit,
	       (void *)__stop_cp_hit);
	if (!strcmp(mode, "callee"))
		printf(" %#lx", callee_ret);
	printf("\n");
	fflush(stdout);
	if (!strcmp(mode, "crowd"))
		crowd_wait();
	if (!seconds)
		for (;;)
			pause();
	sleep(seconds);
	exit(0);
}
