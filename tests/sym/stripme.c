// SPDX-License-Identifier: GPL-2.0
/*
 * Two hot static functions for the symbols test, built -O2 -g and then
 * stripped (strip --strip-unneeded): the stripped copy has no symbol for
 * either, only their unwind entries. spin_a() does twice spin_b()'s work.
 * spin_c(), exported (.dynsym, as a library's API), keeps its name, and
 * does a tenth of spin_a()'s. Runs for argv[1] seconds (default 2).
 */

#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

/*
 * Each keeps a word on its stack, so that it has a frame: its unwind rules
 * change after its prologue, which must not split it in two.
 */
static __attribute__((noinline, noclone)) void spin_a(unsigned long n)
{
	volatile unsigned long x = 1;
	unsigned long i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + (i ^ (x >> 7));
	sink = x;
}

static __attribute__((noinline, noclone)) void spin_b(unsigned long n)
{
	volatile unsigned long x = 3;
	unsigned long i;

	for (i = 0; i < n; i++)
		x = (x ^ (x << 13)) + (i * 2862933555777941757UL ^ (x >> 11));
	sink = x;
}

void spin_c(unsigned long n);

__attribute__((noinline)) void spin_c(unsigned long n)
{
	unsigned long i, x = 5;

	for (i = 0; i < n; i++)
		x = (x >> 3) * 0x9e3779b97f4a7c15UL + i;
	sink = x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2);

	while (now() < end) {
		spin_a(200000);
		spin_b(100000);
		spin_c(20000);
	}
	return 0;
}
