// SPDX-License-Identifier: GPL-2.0
/*
 * A process whose mmap_lock stays taken: it maps FILE, on a file system
 * that never answers a read, and one thread reads that mapping through
 * /proc/self/mem, which faults with the lock held for reading and waits
 * for the page; 200 ms later the main thread asks for the lock for
 * writing (mmap), and waits behind it. From then on every reader of the
 * lock waits too, until the file system dies.
 *
 *	mmaplock FILE
 *
 * stdout: "ready PID" once the thread has started its read.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static void *mapping;

static void *reader(void *arg)
{
	char c;
	int fd = open("/proc/self/mem", O_RDONLY);

	if (fd < 0 || pread(fd, &c, 1, (off_t)(uintptr_t)mapping) != 1)
		return NULL;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thread;
	int fd;

	if (argc != 2)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	mapping = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (mapping == MAP_FAILED || pthread_create(&thread, NULL, reader, NULL))
		return 1;
	usleep(200000);
	printf("ready %d\n", getpid());
	fflush(stdout);
	mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_join(thread, NULL);
	return 0;
}
