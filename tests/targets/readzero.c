// SPDX-License-Identifier: GPL-2.0
/*
 * A target that spends its time in the kernel: read() of /dev/zero in
 * 1 MiB chunks for SECONDS seconds.
 *
 *	readzero SECONDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	(1 << 20)

static char buf[CHUNK];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char *argv[])
{
	double end;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: readzero SECONDS\n");
		return 2;
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("readzero: /dev/zero");
		return 1;
	}
	end = now() + atoi(argv[1]);
	while (now() < end) {
		if (read(fd, buf, CHUNK) != CHUNK) {
			perror("readzero: read");
			return 1;
		}
	}
	return 0;
}
