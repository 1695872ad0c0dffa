// SPDX-License-Identifier: GPL-2.0
/*
 * A program built with Coz's own coz.h, for cozshim_test: THREADS threads
 * each pass COZ_PROGRESS_NAMED("items") N times and COZ_BEGIN/COZ_END
 * ("req") N times, then a forked child passes COZ_PROGRESS_NAMED("child")
 * N times.
 *
 *	cozcount THREADS N
 */
#include <coz.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long n;

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < n; i++) {
		COZ_BEGIN("req");
		COZ_PROGRESS_NAMED("items");
		COZ_END("req");
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	pthread_t t[64];
	long threads, i;
	int status;
	pid_t child;

	if (argc != 3)
		return 2;
	threads = atol(argv[1]);
	n = atol(argv[2]);
	if (threads < 1 || threads > 64 || n < 0)
		return 2;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		for (i = 0; i < n; i++)
			COZ_PROGRESS_NAMED("child");
		_exit(0);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
