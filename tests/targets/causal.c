// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads for the causal engine's tests: A works in the selected code
 * (the functions in section cp_hit), B elsewhere.
 *
 *	causal MODE [SECONDS]
 *
 * spin:  A and B spin.
 * pipe:  A works a little, then writes a byte to a pipe and waits for B's
 *        answer on another; B blocks reading the first and answers.
 * mutex: A works (ten times longer) holding a mutex, B takes and drops it
 *        in a loop.
 * cond:  A works a little, then hands a token to B through a condition
 *        variable and waits for it back; B hands it back.
 * sleep: A spins; B sleeps 5 ms in nanosleep(), then spins 2 ms, in a loop.
 * barrier: each iteration A runs a() (4 ms) and B runs b() (2 ms), then
 *        both meet at a barrier; iterations counts them.
 *
 * stdout: "ready PID ATID BTID START END BSTART BEND ITERATIONS" (hex:
 * START-END the selected code (a() among it), BSTART-BEND b(), ITERATIONS
 * the address of the iteration counter); after SECONDS (0: until killed)
 * the program exits with status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HIT __attribute__((section("cp_hit"), noinline))
#define B_CODE __attribute__((section("cp_b"), noinline))

extern char __start_cp_hit[], __stop_cp_hit[], __start_cp_b[], __stop_cp_b[];

static volatile unsigned long iterations;
static pthread_barrier_t barrier;

static void spin_ms(long ms);

static HIT void a(void)
{
	spin_ms(4);
}

static B_CODE void b(void)
{
	spin_ms(2);
}

static volatile unsigned long counter;
static volatile pid_t atid, btid;
static int fds[2], back[2];
static const char *mode;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int token;	/* 1: B's turn */

static HIT void hit_spin(void)
{
	for (;;)
		counter++;
}

static HIT void hit_chunk(void)
{
	unsigned long i;

	for (i = 0; i < 200000; i++)
		counter++;
}

static __attribute__((noinline)) void spin_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		counter++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < ms * 1000000L);
}

static __attribute__((noinline)) void other_spin_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		counter++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (ms < 0 || (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *thread_a(void *arg)
{
	char c;
	int i;

	atid = gettid();
	if (!strcmp(mode, "spin") || !strcmp(mode, "sleep"))
		hit_spin();
	if (!strcmp(mode, "barrier")) {
		for (;;) {
			a();
			pthread_barrier_wait(&barrier);
			iterations++;
		}
	}
	for (;;) {
		if (!strcmp(mode, "pipe")) {
			hit_chunk();
			if (write(fds[1], "x", 1) != 1 || read(back[0], &c, 1) != 1)
				exit(3);
		} else if (!strcmp(mode, "mutex")) {
			pthread_mutex_lock(&lock);
			for (i = 0; i < 10; i++)
				hit_chunk();
			pthread_mutex_unlock(&lock);
		} else {
			hit_chunk();
			pthread_mutex_lock(&lock);
			token = 1;
			pthread_cond_signal(&cond);
			while (token)
				pthread_cond_wait(&cond, &lock);
			pthread_mutex_unlock(&lock);
		}
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	struct timespec ts = { .tv_nsec = 5000000 };
	char c;

	btid = gettid();
	if (!strcmp(mode, "spin"))
		other_spin_ms(-1);
	if (!strcmp(mode, "barrier")) {
		for (;;) {
			b();
			pthread_barrier_wait(&barrier);
		}
	}
	for (;;) {
		if (!strcmp(mode, "pipe")) {
			if (read(fds[0], &c, 1) != 1 || write(back[1], &c, 1) != 1)
				exit(3);
		} else if (!strcmp(mode, "mutex")) {
			pthread_mutex_lock(&lock);
			counter++;
			pthread_mutex_unlock(&lock);
		} else if (!strcmp(mode, "cond")) {
			pthread_mutex_lock(&lock);
			while (!token)
				pthread_cond_wait(&cond, &lock);
			token = 0;
			pthread_cond_signal(&cond);
			pthread_mutex_unlock(&lock);
		} else {
			nanosleep(&ts, NULL);
			other_spin_ms(2);
		}
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	pthread_t a, b;
	int seconds;

	if (argc < 2 || (strcmp(argv[1], "spin") && strcmp(argv[1], "pipe") &&
			 strcmp(argv[1], "mutex") && strcmp(argv[1], "cond") &&
			 strcmp(argv[1], "sleep") && strcmp(argv[1], "barrier"))) {
		fprintf(stderr, "usage: causal spin|pipe|mutex|cond|sleep|barrier [SECONDS]\n");
		return 2;
	}
	mode = argv[1];
	seconds = argc > 2 ? atoi(argv[2]) : 0;
	if (pthread_barrier_init(&barrier, NULL, 2) || pipe(fds) || pipe(back) || pthread_create(&a, NULL, thread_a, NULL) ||
	    pthread_create(&b, NULL, thread_b, NULL))
		return 1;
	while (!atid || !btid)
		usleep(1000);
	printf("ready %d %d %d %p %p %p %p %p\n", getpid(), atid, btid, (void *)__start_cp_hit,
	       (void *)__stop_cp_hit, (void *)__start_cp_b, (void *)__stop_cp_b,
	       (void *)&iterations);
	fflush(stdout);
	if (!seconds)
		for (;;)
			pause();
	sleep(seconds);
	exit(0);
}
