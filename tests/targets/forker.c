// SPDX-License-Identifier: GPL-2.0
/*
 * A target with children: COUNT times, spin for MS milliseconds (default
 * 0), then fork and exec PROGRAM ARGS... and wait for the child.
 *
 *	forker [-s MS] COUNT PROGRAM [ARGS...]
 *
 * stdout: "child PID STATUS" per child, STATUS as waitpid() gave it.
 * Exits 0 when every child exited 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void __attribute__((noinline)) forker_spin(long long end)
{
	volatile unsigned long n;

	while (now_ns() < end)
		for (n = 0; n < 10000; n++)
			;
}

int main(int argc, char *argv[])
{
	int count, ms = 0, opt, i, status, ret = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+s:")) != -1) {
		if (opt != 's')
			goto usage;
		ms = atoi(optarg);
	}
	if (argc - optind < 2)
		goto usage;
	count = atoi(argv[optind]);
	for (i = 0; i < count; i++) {
		forker_spin(now_ns() + ms * 1000000LL);
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("forker: fork");
			return 1;
		}
		if (!pid) {
			execv(argv[optind + 1], argv + optind + 1);
			perror("forker: exec");
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid) {
			perror("forker: waitpid");
			return 1;
		}
		printf("child %d %d\n", pid, status);
		if (status)
			ret = 1;
	}
	return ret;

usage:
	fprintf(stderr, "usage: forker [-s MS] COUNT PROGRAM [ARGS...]\n");
	return 2;
}
