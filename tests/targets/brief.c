// SPDX-License-Identifier: GPL-2.0
/*
 * A short-lived process: spins in user space for MS milliseconds of wall
 * time, then exits 0.
 *
 *	brief MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void __attribute__((noinline)) brief_spin(long long end)
{
	volatile unsigned long n;

	do {
		for (n = 0; n < 10000; n++)
			;
	} while (now_ns() < end);
}

int main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: brief MS\n");
		return 2;
	}
	brief_spin(now_ns() + atoll(argv[1]) * 1000000LL);
	return 0;
}
