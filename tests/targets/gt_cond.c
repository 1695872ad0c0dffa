// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for causal profiles: a producer and a consumer thread over a
 * bounded queue guarded by a pthread mutex and two condition variables.
 *
 *	gt_cond [-d SEC | -n EVENTS] [-u ITERS] [-p PCT] [-c PCT] [-q ITEMS]
 *
 * The producer makes an item in produce() (2 units of work) and queues it;
 * the consumer takes it and spends 1.2 units in consume(). The producer is
 * the bottleneck: an item takes max(2, 1.2) units, so making produce() PCT
 * % faster (-p) makes the program min(PCT, 40) % faster in time per item,
 * and consume() faster (-c) changes nothing. A full queue (-q items,
 * default 4) blocks the producer, an empty one the consumer, each in
 * pthread_cond_wait(): the hand-offs are the C library's futex wake-ups,
 * where gt_pipe's are the pipe's, and the backlog an experiment builds is
 * at most -q items.
 *
 * The producer runs on CPU 0, the consumer on CPU 1 (gt_pin()). The
 * progress point is progress(), called once an item is consumed, from the
 * line marked "progress line" (give it as --progress progress, or as
 * gt_cond.c:LINE; gt_cond_coz declares it with Coz's coz.h). gt.h has the
 * rest of the options and the exit line.
 */
#define _GNU_SOURCE
#include "gt.h"

#include <pthread.h>

/* gt_cond_coz: for Coz, the point declared with its coz.h */
#if defined(GT_COZ_H)
#include <coz.h>
#define ITEM() COZ_PROGRESS_NAMED("item")
#else
#define ITEM() do { } while (0)
#endif

#define MAX_QUEUE	1024

static long produce_iters, consume_iters, queue_max = 4;
static uint64_t max_events, events;
static volatile int stop;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static long queued;	/* under lock */

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

/* Until stop; the consumer wakes it up to see it. */
static void *producer(void *arg)
{
	(void)arg;
	gt_pin(0);
	while (!stop) {
		produce();
		pthread_mutex_lock(&lock);
		while (queued == queue_max && !stop)
			pthread_cond_wait(&not_full, &lock);
		queued++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static void consumer(void)
{
	gt_pin(1);
	while (!stop && (!max_events || events < max_events)) {
		pthread_mutex_lock(&lock);
		while (!queued && !stop)
			pthread_cond_wait(&not_empty, &lock);
		if (!queued) {
			pthread_mutex_unlock(&lock);
			break;
		}
		queued--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		consume();
		progress();	/* progress line */
	}
}

static void *timer(void *arg)
{
	uint64_t end = gt_now() + *(long *)arg * 1000000000ULL;

	while (!stop && gt_now() < end)
		usleep(10000);
	pthread_mutex_lock(&lock);
	stop = 1;
	pthread_cond_broadcast(&not_full);
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char *argv[])
{
	long secs = 10, unit = 500000, p = 0, c = 0;
	pthread_t prod, tim;
	uint64_t t0, t1;
	int opt;

	while ((opt = getopt(argc, argv, "d:n:u:p:c:q:")) != -1) {
		switch (opt) {
		case 'd': secs = gt_num("gt_cond", opt, optarg, 1, 100000); break;
		case 'n': max_events = gt_num("gt_cond", opt, optarg, 1, 1L << 40); secs = 100000; break;
		case 'u': unit = gt_num("gt_cond", opt, optarg, 1, 1L << 30); break;
		case 'p': p = gt_num("gt_cond", opt, optarg, 0, 100); break;
		case 'c': c = gt_num("gt_cond", opt, optarg, 0, 100); break;
		case 'q': queue_max = gt_num("gt_cond", opt, optarg, 1, MAX_QUEUE); break;
		default:
			fprintf(stderr, "usage: gt_cond [-d SEC | -n EVENTS] [-u ITERS] [-p PCT] [-c PCT] [-q ITEMS]\n");
			return 2;
		}
	}
	produce_iters = gt_iters(unit, 20, p);
	consume_iters = gt_iters(unit, 12, c);

	t0 = gt_now();
	if (pthread_create(&prod, NULL, producer, NULL) ||
	    pthread_create(&tim, NULL, timer, &secs))
		return 1;
	consumer();
	t1 = gt_now();
	pthread_mutex_lock(&lock);
	stop = 1;
	pthread_cond_broadcast(&not_full);
	pthread_mutex_unlock(&lock);
	pthread_join(prod, NULL);
	pthread_join(tim, NULL);
	gt_report(events, t0, t1);
	return 0;
}
