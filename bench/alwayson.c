// SPDX-License-Identifier: GPL-2.0
/*
 * The always-on benchmark's program: THREADS threads each run ROUNDS
 * rounds of work spread over the program and three libraries (zlib's
 * deflate, libm's exp and sin, libc's qsort and memcpy), so that a
 * profile of it names functions of four files besides the kernel; then it
 * prints the wall time the work took (start-up costs of what launched it
 * stay out).
 *
 *	alwayson THREADS ROUNDS
 *
 * stdout: "elapsed_ns N"
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define BUF	4096
#define SORTED	512
#define POINTS	2000

static unsigned long rounds;
static volatile double sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static unsigned long __attribute__((noinline)) mix(unsigned long x, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdUL;
		x ^= x >> 29;
	}
	return x;
}

static void __attribute__((noinline)) deflate_round(unsigned char *in, unsigned char *out,
						    unsigned long seed)
{
	uLongf len = compressBound(BUF);
	size_t i;

	for (i = 0; i < BUF; i++)
		in[i] = (seed + i * (i % 7)) & 0x3f;
	compress2(out, &len, in, BUF, 6);
}

static double __attribute__((noinline)) math_round(unsigned long seed)
{
	double s = 0;
	int i;

	for (i = 0; i < POINTS; i++)
		s += exp((i + seed % 17) * 1e-3) * sin(i * 1e-2);
	return s;
}

static void __attribute__((noinline)) sort_round(int *v, unsigned long seed)
{
	int i;

	for (i = 0; i < SORTED; i++)
		v[i] = (int)mix(seed + i, 1);
	qsort(v, SORTED, sizeof(*v), cmp_int);
}

static void *work(void *arg)
{
	unsigned long i, x = (unsigned long)arg;
	unsigned char *in = malloc(BUF), *out = malloc(compressBound(BUF)), *copy = malloc(BUF);
	int *v = malloc(SORTED * sizeof(*v));
	double s = 0;

	if (!in || !out || !copy || !v)
		exit(1);
	for (i = 0; i < rounds; i++) {
		deflate_round(in, out, x + i);
		s += math_round(x + i);
		sort_round(v, x + i);
		memcpy(copy, in, BUF);
		x = mix(x + copy[i % BUF], 20000);
	}
	sink = s + x;
	free(in);
	free(out);
	free(copy);
	free(v);
	return NULL;
}

int main(int argc, char *argv[])
{
	unsigned long long t0;
	pthread_t *t;
	long n, i;

	if (argc != 3) {
		fprintf(stderr, "usage: alwayson THREADS ROUNDS\n");
		return 2;
	}
	n = atol(argv[1]);
	rounds = strtoul(argv[2], NULL, 10);
	if (n < 1 || n > 1024 || !rounds) {
		fprintf(stderr, "alwayson: THREADS from 1 to 1024, ROUNDS positive\n");
		return 2;
	}
	t = calloc(n, sizeof(*t));
	if (!t)
		return 1;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(i + 1)))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("elapsed_ns %llu\n", now_ns() - t0);
	free(t);
	return 0;
}
