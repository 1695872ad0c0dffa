// SPDX-License-Identifier: GPL-2.0
/*
 * frames [SECONDS]: renders frames with two threads, each drawing one half
 * of every frame; a frame is done when both halves are (a barrier), and
 * each finished frame is a progress point declared with cprof.h
 * (CPROF_PROGRESS(frame)). The sky takes twice the work of the ground, so
 * the ground's thread waits at the barrier half the time. Runs for SECONDS
 * (default 10) and prints the frames per second.
 *
 * A sampling profile shows both halves busy, the sky with two thirds of the
 * samples. The causal profile says what each is worth: making draw_sky()
 * x % faster makes frames up to x % faster, until it is as fast as the
 * ground (50 %); making draw_ground() faster gains nothing.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cprof.h>

#define UNIT	400000		/* iterations of one unit of drawing */

static pthread_barrier_t frame_done;
static volatile int stop;
static volatile int last[2];	/* frame N is the last: last[N & 1] */
static unsigned long frames;

/* Each half's loop is on one line, so that a profile names one line. */
static __attribute__((noinline)) void draw_sky(void)
{
	volatile long i;

	for (i = 0; i < 2 * UNIT; i++);	/* the sky: two units */
}

static __attribute__((noinline)) void draw_ground(void)
{
	volatile long i;

	for (i = 0; i < UNIT; i++);	/* the ground: one unit */
}

static void *sky_thread(void *arg)
{
	unsigned int n = 0;
	int done;

	(void)arg;
	do {
		draw_sky();
		last[n++ & 1] = done = stop;
		pthread_barrier_wait(&frame_done);
		frames++;
		CPROF_PROGRESS(frame);
	} while (!done);
	return NULL;
}

static void *ground_thread(void *arg)
{
	unsigned int n = 0;

	(void)arg;
	do {
		draw_ground();
		pthread_barrier_wait(&frame_done);
	} while (!last[n++ & 1]);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char *argv[])
{
	double secs = argc > 1 ? atof(argv[1]) : 10, t0;
	pthread_t sky, ground;

	if (secs <= 0) {
		fprintf(stderr, "usage: frames [SECONDS]\n");
		return 2;
	}
	if (pthread_barrier_init(&frame_done, NULL, 2))
		return 1;
	t0 = now();
	if (pthread_create(&sky, NULL, sky_thread, NULL) ||
	    pthread_create(&ground, NULL, ground_thread, NULL))
		return 1;
	while (now() - t0 < secs)
		usleep(10000);
	stop = 1;
	pthread_join(sky, NULL);
	pthread_join(ground, NULL);
	printf("frames: %lu in %.1f s, %.1f frames/s\n", frames, now() - t0,
	       frames / (now() - t0));
	return 0;
}
