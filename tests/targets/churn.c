// SPDX-License-Identifier: GPL-2.0
/*
 * Short-lived threads for the lifecycle tests: thread A spins in the
 * selected code (section cp_hit) all along, and after SIGUSR1 the main
 * thread creates THREADS threads, at most 8 alive at once, each of which
 * spins a little outside the selected code and exits.
 *
 *	churn THREADS
 *
 * stdout: "ready PID START END" (hex: START-END the selected code), then
 * "done N" once N threads were created, run and joined; then it exits with
 * status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define HIT __attribute__((section("cp_hit"), noinline))
#define ALIVE	8

extern char __start_cp_hit[], __stop_cp_hit[];

static volatile unsigned long counter;

HIT static void hit_spin(void)
{
	int i;

	for (i = 0; i < 1000; i++)
		counter++;
}

static void *a_main(void *arg)
{
	for (;;)
		hit_spin();
	return NULL;
}

static void *brief(void *arg)
{
	int i;

	for (i = 0; i < 20000; i++)
		counter++;
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 10000, made = 0, i;
	pthread_t a, live[ALIVE];
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&a, NULL, a_main, NULL))
		return 1;
	printf("ready %d %p %p\n", getpid(), (void *)__start_cp_hit, (void *)__stop_cp_hit);
	fflush(stdout);
	sigwait(&set, &sig);

	while (made < threads) {
		for (i = 0; i < ALIVE && made + i < threads; i++)
			if (pthread_create(&live[i], NULL, brief, NULL))
				return 1;
		for (i = 0; i < ALIVE && made < threads; i++, made++)
			pthread_join(live[i], NULL);
	}
	printf("done %ld\n", made);
	fflush(stdout);
	return 0;
}
