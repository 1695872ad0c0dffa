// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth in miniature: two threads meet at a barrier each iteration;
 * thread 1 runs a() before it, thread 2 runs b(), a() twice as long as b().
 *
 *	groundtruth [A_MS [B_MS]]
 *
 * a() and b() spin A_MS (default 20) and B_MS (default 10) milliseconds of
 * their thread's CPU time: fixed work in the time the VM measures, however
 * much of the host its vCPUs get (a payment, a sleep, does not count;
 * a vCPU its host did not run does, as for everything else in the VM).
 * a() is alone in section cp_a, b() in cp_b; samples in the functions they
 * call are theirs through the return address.
 *
 * stdout: "ready PID TID1 TID2 ASTART AEND BSTART BEND PROGRESS" (hex:
 * PROGRESS is the address of three uint64_t: a sequence count, odd while
 * the others change; the iterations thread 1 finished; CLOCK_MONOTONIC in
 * ns when the last one did). The program runs until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define A_CODE __attribute__((section("cp_a"), noinline))
#define B_CODE __attribute__((section("cp_b"), noinline))
#define CHUNK_US 200

extern char __start_cp_a[], __stop_cp_a[], __start_cp_b[], __stop_cp_b[];

/*
 * Thread 1's iterations, and CLOCK_MONOTONIC when the last one ended,
 * under a sequence count (odd while they change).
 */
static volatile struct {
	uint64_t seq;
	uint64_t iterations;
	uint64_t last_ns;
} progress;
static volatile uint64_t counter;
static long a_ms = 20, b_ms = 10;
static uint64_t chunk;
static volatile pid_t tid1, tid2;
static pthread_barrier_t barrier;

/*
 * This thread's CPU time, through syscall(), which leaves the frame pointer
 * alone: a sample in the system call finds this function's frame, and its
 * return address in a() or b(). (clock_gettime() goes through code that
 * does not keep one, and its samples would be no one's.)
 */
static __attribute__((noinline)) uint64_t cpu_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

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

/* Spins for ms of this thread's CPU time, reading it every CHUNK_US or so. */
static __attribute__((noinline)) void spin_cpu(long ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ULL;

	do
		spin(chunk);
	while (cpu_ns() < end);
}

/* Rounds of spin() in CHUNK_US: the fastest of a few trials. */
static uint64_t chunk_rounds(void)
{
	uint64_t t, best = UINT64_MAX;
	int trial;

	for (trial = 0; trial < 7; trial++) {
		t = mono_ns();
		spin(100000);
		t = mono_ns() - t;
		if (t < best)
			best = t;
	}
	return 100000ULL * CHUNK_US * 1000 / (best ?: 1) + 1;
}

static A_CODE void a(void)
{
	spin_cpu(a_ms);
}

static B_CODE void b(void)
{
	spin_cpu(b_ms);
}

static void *thread1(void *arg)
{
	tid1 = gettid();
	for (;;) {
		a();
		pthread_barrier_wait(&barrier);
		progress.seq++;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		progress.last_ns = mono_ns();
		progress.iterations++;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		progress.seq++;
	}
	return NULL;
}

static void *thread2(void *arg)
{
	tid2 = gettid();
	for (;;) {
		b();
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	pthread_t t1, t2;

	if (argc > 1)
		a_ms = atol(argv[1]);
	if (argc > 2)
		b_ms = atol(argv[2]);
	if (a_ms <= 0 || b_ms <= 0) {
		fprintf(stderr, "usage: groundtruth [A_MS [B_MS]]\n");
		return 2;
	}
	chunk = chunk_rounds();
	if (pthread_barrier_init(&barrier, NULL, 2) ||
	    pthread_create(&t1, NULL, thread1, NULL) || pthread_create(&t2, NULL, thread2, NULL))
		return 1;
	while (!tid1 || !tid2)
		usleep(1000);
	printf("ready %d %d %d %p %p %p %p %p\n", getpid(), tid1, tid2, (void *)__start_cp_a,
	       (void *)__stop_cp_a, (void *)__start_cp_b, (void *)__stop_cp_b,
	       (void *)&progress);
	fflush(stdout);
	for (;;)
		pause();
}
