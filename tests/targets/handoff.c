// SPDX-License-Identifier: GPL-2.0
/*
 * Wake-up inheritance, isolated: thread A works in the selected code (hit(),
 * alone in section cp_hit), then hands over to thread B, which is asleep
 * waiting for it; B does a little work of its own and hands back.
 *
 *	handoff pipe|mutex|cond [HIT_MS [B_MS]]
 *
 * Each iteration A waits until B is asleep (state S in /proc), spins about
 * HIT_MS (default 20) in hit(), and wakes B through
 * pipe:  a byte written to a pipe B blocks reading; B answers on another;
 * mutex: a mutex A holds while it works and B blocks on (glibc's unlock
 *        wakes a waiter through the futex); B then tells A it is done
 *        through a counter A watches;
 * cond:  a token passed under a mutex with a condition variable, and back.
 * B spins about B_MS (default 2) per iteration outside the selected code.
 * (The spins are rounds of a loop, calibrated at start.) So B never runs
 * while A is in hit(), and A always finds B asleep when it hands over:
 * each iteration is one wake-up of B by A, and whatever B owes after it
 * comes from A's work before that wake-up.
 *
 * stdout: "ready PID ATID BTID START END ITERATIONS" (hex: START-END the
 * selected code, ITERATIONS the address of B's iteration counter, a
 * uint64_t). The program runs until killed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HIT __attribute__((section("cp_hit"), noinline))

extern char __start_cp_hit[], __stop_cp_hit[];

static volatile uint64_t iterations;	/* B's, done */
static volatile uint64_t counter;
static long hit_ms = 20, b_ms = 2;
static uint64_t hit_rounds, b_rounds;
static volatile pid_t atid, btid;
static int stat_fd = -1;
static int fds[2], back[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int token;			/* under lock: 1 while it is B's turn */
static volatile uint64_t a_locked;	/* mutex: A holds the lock for this round */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static __attribute__((noinline)) void spin(uint64_t rounds)
{
	uint64_t i;

	for (i = 0; i < rounds; i++)
		counter++;
}

/*
 * Rounds of spin() per millisecond: the fastest of a few trials, as the
 * VM's vCPU may stall in any of them.
 */
static uint64_t rounds_per_ms(void)
{
	uint64_t t, best = UINT64_MAX;
	int trial;

	for (trial = 0; trial < 7; trial++) {
		t = mono_ns();
		spin(1000000);
		t = mono_ns() - t;
		if (t < best)
			best = t;
	}
	return 1000000ULL * 1000000 / (best ?: 1) + 1;
}

/* The selected code; samples in spin() are its through the return address. */
static HIT void hit(void)
{
	spin(hit_rounds);
}

static __attribute__((noinline)) void work(void)
{
	spin(b_rounds);
}

/* B's state from /proc/self/task/BTID/stat: 'S' once it sleeps in a wait. */
static char b_state(void)
{
	char buf[512], *p;
	ssize_t n = pread(stat_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		exit(4);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

static void wait_b_asleep(void)
{
	while (b_state() != 'S')
		sched_yield();
}

static void *thread_a(void *arg)
{
	const char *mode = arg;
	uint64_t round;
	char c;

	atid = gettid();
	for (round = 1;; round++) {
		if (!strcmp(mode, "pipe")) {
			wait_b_asleep();
			hit();
			if (write(fds[1], "x", 1) != 1 || read(back[0], &c, 1) != 1)
				exit(3);
		} else if (!strcmp(mode, "mutex")) {
			pthread_mutex_lock(&lock);
			a_locked = round;
			wait_b_asleep();	/* in pthread_mutex_lock() */
			hit();
			pthread_mutex_unlock(&lock);
			while (iterations < round)
				sched_yield();
		} else {
			wait_b_asleep();	/* in pthread_cond_wait() */
			hit();
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
	const char *mode = arg;
	uint64_t round;
	char c;

	btid = gettid();
	for (round = 1;; round++) {
		if (!strcmp(mode, "pipe")) {
			if (read(fds[0], &c, 1) != 1)
				exit(3);
			work();
			iterations = round;
			if (write(back[1], &c, 1) != 1)
				exit(3);
		} else if (!strcmp(mode, "mutex")) {
			while (a_locked < round)
				sched_yield();
			pthread_mutex_lock(&lock);
			work();
			pthread_mutex_unlock(&lock);
			iterations = round;
		} else {
			pthread_mutex_lock(&lock);
			while (!token)
				pthread_cond_wait(&cond, &lock);
			work();
			iterations = round;
			token = 0;
			pthread_cond_signal(&cond);
			pthread_mutex_unlock(&lock);
		}
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	char path[64];
	pthread_t a, b;
	uint64_t rate;
	char *mode;

	if (argc < 2 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "mutex") &&
			 strcmp(argv[1], "cond"))) {
		fprintf(stderr, "usage: handoff pipe|mutex|cond [HIT_MS [B_MS]]\n");
		return 2;
	}
	mode = argv[1];
	if (argc > 2)
		hit_ms = atol(argv[2]);
	if (argc > 3)
		b_ms = atol(argv[3]);
	rate = rounds_per_ms();
	hit_rounds = hit_ms * rate;
	b_rounds = b_ms * rate;
	if (pipe(fds) || pipe(back) || pthread_create(&b, NULL, thread_b, mode))
		return 1;
	while (!btid)
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", btid);
	stat_fd = open(path, O_RDONLY);
	if (stat_fd < 0 || pthread_create(&a, NULL, thread_a, mode))
		return 1;
	while (!atid)
		usleep(1000);
	printf("ready %d %d %d %p %p %p\n", getpid(), atid, btid, (void *)__start_cp_hit,
	       (void *)__stop_cp_hit, (void *)&iterations);
	fflush(stdout);
	for (;;)
		pause();
}
