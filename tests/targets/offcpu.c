// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for off-CPU profiles: threads that wait, known times at
 * known call sites.
 *
 *	offcpu [SLEEP_MS SLEEPS ITEMS GAP_MS [THREADS]]
 *
 * The main thread sleeps SLEEPS times SLEEP_MS ms, with clock_nanosleep()
 * in sleep_wait() (default 40 times 15 ms); meanwhile a thread reads ITEMS
 * items (default 20) from a pipe in pipe_wait(), one read() each, and a
 * producer, a process of its own, sleeps GAP_MS ms (default 15, in
 * produce()) before writing each, so the reader waits on the pipe about
 * that long each time. Then the main thread joins the reader, which is
 * done by then (the sleeps last longer), and waits for the producer.
 * THREADS more threads (default 0) sleep in sleep_wait() as the main
 * thread does, all at once, so that many threads wait together.
 *
 * Each wait is timed around its call, in the program: the line it prints
 * at exit,
 *
 *	sleep_ns NS pipe_ns NS
 *
 * is the time the main thread spent in clock_nanosleep() and the reader in
 * read(), which an off-CPU profile should put on sleep_wait() and
 * pipe_wait() (within the system calls' own time on a CPU, a few
 * microseconds each).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long sleep_ms = 15, sleeps = 40, items = 20, gap_ms = 15, threads;
static int fds[2];
static uint64_t pipe_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void nap(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
		;
}

/* The time the calling thread spends in clock_nanosleep() here. */
static __attribute__((noinline)) uint64_t sleep_wait(void)
{
	struct timespec ts = { .tv_sec = sleep_ms / 1000, .tv_nsec = sleep_ms % 1000 * 1000000 };
	uint64_t t0, waited = 0;
	long i;

	for (i = 0; i < sleeps; i++) {
		t0 = now_ns();
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);	/* sleep line */
		waited += now_ns() - t0;
	}
	return waited;
}

/* One item from the pipe, the time spent in read() added to pipe_ns. */
static __attribute__((noinline)) int pipe_wait(void)
{
	uint64_t t0 = now_ns();
	char c;
	ssize_t n;

	n = read(fds[0], &c, 1);	/* pipe line */
	pipe_ns += now_ns() - t0;
	return n == 1;
}

static void *sleeper(void *arg)
{
	(void)arg;
	sleep_wait();
	return NULL;
}

static void *reader(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < items && pipe_wait(); i++)
		;
	return NULL;
}

static __attribute__((noinline)) void produce(void)
{
	long i;

	for (i = 0; i < items; i++) {
		nap(gap_ms);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

int main(int argc, char *argv[])
{
	pthread_t t, *more;
	uint64_t slept;
	pid_t pid;
	long i;

	if (argc == 5 || argc == 6) {
		sleep_ms = atol(argv[1]);
		sleeps = atol(argv[2]);
		items = atol(argv[3]);
		gap_ms = atol(argv[4]);
		threads = argc == 6 ? atol(argv[5]) : 0;
	} else if (argc != 1) {
		fprintf(stderr, "usage: offcpu [SLEEP_MS SLEEPS ITEMS GAP_MS [THREADS]]\n");
		return 2;
	}
	more = calloc(threads + 1, sizeof(*more));
	if (!more)
		return 1;
	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		close(fds[0]);
		produce();
	}
	close(fds[1]);
	if (pthread_create(&t, NULL, reader, NULL))
		return 1;
	for (i = 0; i < threads; i++)
		if (pthread_create(&more[i], NULL, sleeper, NULL))
			return 1;
	slept = sleep_wait();
	pthread_join(t, NULL);
	for (i = 0; i < threads; i++)
		pthread_join(more[i], NULL);
	waitpid(pid, NULL, 0);
	printf("sleep_ns %llu pipe_ns %llu\n", (unsigned long long)slept,
	       (unsigned long long)pipe_ns);
	free(more);
	return 0;
}
