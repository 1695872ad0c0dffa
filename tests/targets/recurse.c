// SPDX-License-Identifier: GPL-2.0
/*
 * A deep user stack: recurse() calls itself DEPTH times and the innermost
 * call spins until SECONDS have passed. recurse() is alone in its own
 * section, so the linker's __start_/__stop_ symbols bound its code.
 *
 *	recurse DEPTH SECONDS
 *
 * stdout: "range START END", recurse()'s code in hex, [START, END).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern const char __start_cp_recurse[], __stop_cp_recurse[];

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	stop = 1;
}

/* Not a tail call: the addition runs after the inner call returns. */
static unsigned long __attribute__((noinline, section("cp_recurse"))) recurse(int depth)
{
	unsigned long n = 0;

	if (depth)
		return recurse(depth - 1) + 1;
	while (!stop)
		n++;
	return n;
}

int main(int argc, char *argv[])
{
	int depth, seconds;

	if (argc != 3) {
		fprintf(stderr, "usage: recurse DEPTH SECONDS\n");
		return 2;
	}
	depth = atoi(argv[1]);
	seconds = atoi(argv[2]);
	printf("range %p %p\n", (const void *)__start_cp_recurse, (const void *)__stop_cp_recurse);
	fflush(stdout);
	signal(SIGALRM, on_alarm);
	alarm(seconds);
	recurse(depth);
	return 0;
}
