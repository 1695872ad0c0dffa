// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for causal profiles: a producer and a consumer over a pipe.
 *
 *	gt_pipe [-d SEC | -n EVENTS] [-u ITERS] [-p PCT] [-c PCT] [-P]
 *
 * The producer makes an item in produce() (2 units of work) and writes it
 * (8 bytes) to the pipe; the consumer reads it and spends 1.2 units in
 * consume(). The producer is the bottleneck: an item takes max(2, 1.2)
 * units, so making produce() PCT % faster (-p) makes the program
 * min(PCT, 40) % faster in time per item, and consume() faster (-c)
 * changes nothing. But slow the consumer down (as an experiment on
 * produce() does) and a backlog of up to 8192 items builds in the pipe,
 * which the consumer then works off at its own pace for a while.
 *
 * The producer runs on CPU 0, the consumer on CPU 1 (gt_pin()). Threads by
 * default; -P forks the producer as a process. The progress
 * point is progress(), called once an item is consumed, from the line
 * marked "progress line" (give it as --progress progress, or as
 * gt_pipe.c:LINE; gt_pipe_coz declares it with Coz's coz.h). gt.h has the rest of the options and the exit line.
 */
#define _GNU_SOURCE
#include "gt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* gt_pipe_coz: for Coz, the point declared with its coz.h */
#if defined(GT_COZ_H)
#include <coz.h>
#define ITEM() COZ_PROGRESS_NAMED("item")
#else
#define ITEM() do { } while (0)
#endif

static long produce_iters, consume_iters;
static uint64_t max_events, events;
static volatile int stop;
static int fds[2];

static __attribute__((noinline)) void produce(void)
{
	volatile long i;

	for (i = 0; i < produce_iters; i++);	/* produce line */
}

static __attribute__((noinline)) void consume(void)
{
	volatile long i;

	for (i = 0; i < consume_iters; i++);	/* consume line */
}

static __attribute__((noinline)) void progress(void)
{
	events++;
	ITEM();
}

/* Until the read end is gone (EPIPE) or stop. */
static void *producer(void *arg)
{
	uint64_t item = 0;

	(void)arg;
	gt_pin(0);
	while (!stop) {
		produce();
		item++;
		if (write(fds[1], &item, sizeof(item)) != sizeof(item))
			break;
	}
	close(fds[1]);
	return NULL;
}

static int consumer(void)
{
	uint64_t item;
	ssize_t n;

	gt_pin(1);
	while (!stop && (!max_events || events < max_events)) {
		n = read(fds[0], &item, sizeof(item));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(item))
			return n == 0 ? 0 : 1;
		consume();
		progress();	/* progress line */
	}
	return 0;
}

static void *timer(void *arg)
{
	uint64_t end = gt_now() + *(long *)arg * 1000000000ULL;

	while (!stop && gt_now() < end)
		usleep(10000);
	stop = 1;
	return NULL;
}

int main(int argc, char *argv[])
{
	long secs = 10, unit = 500000, p = 0, c = 0;
	int procs = 0, opt, ret;
	pthread_t prod, tim;
	uint64_t t0, t1;
	pid_t child = 0;

	while ((opt = getopt(argc, argv, "d:n:u:p:c:P")) != -1) {
		switch (opt) {
		case 'd': secs = gt_num("gt_pipe", opt, optarg, 1, 100000); break;
		case 'n': max_events = gt_num("gt_pipe", opt, optarg, 1, 1L << 40); secs = 100000; break;
		case 'u': unit = gt_num("gt_pipe", opt, optarg, 1, 1L << 30); break;
		case 'p': p = gt_num("gt_pipe", opt, optarg, 0, 100); break;
		case 'c': c = gt_num("gt_pipe", opt, optarg, 0, 100); break;
		case 'P': procs = 1; break;
		default:
			fprintf(stderr, "usage: gt_pipe [-d SEC | -n EVENTS] [-u ITERS] [-p PCT] [-c PCT] [-P]\n");
			return 2;
		}
	}
	produce_iters = gt_iters(unit, 20, p);
	consume_iters = gt_iters(unit, 12, c);
	signal(SIGPIPE, SIG_IGN);
	if (pipe(fds))
		return 1;

	t0 = gt_now();
	if (procs) {
		child = fork();
		if (child < 0)
			return 1;
		if (!child) {
			close(fds[0]);
			producer(NULL);
			_exit(0);
		}
		close(fds[1]);
	} else if (pthread_create(&prod, NULL, producer, NULL)) {
		return 1;
	}
	if (pthread_create(&tim, NULL, timer, &secs))
		return 1;
	ret = consumer();
	t1 = gt_now();
	stop = 1;
	/* A producer blocked in write() gets EPIPE. */
	close(fds[0]);
	if (procs)
		waitpid(child, NULL, 0);
	else
		pthread_join(prod, NULL);
	pthread_join(tim, NULL);
	gt_report(events, t0, t1);
	return ret;
}
