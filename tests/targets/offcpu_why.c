// SPDX-License-Identifier: GPL-2.0
/*
 * Ground truth for the reasons of off-CPU waits: one thread for each
 * reason the module tells, each waiting only that way.
 *
 *	offcpu_why DEVICE ROUNDS MS
 *
 * The main thread sleeps ROUNDS times MS ms in clock_nanosleep() (sleep)
 * and, after each sleep, bumps a word that the waiter thread waits on
 * with FUTEX_WAIT (futex). The reader thread reads the first 4 KiB of
 * DEVICE with O_DIRECT, ROUNDS times (io: a block device whose requests
 * take a while, null_blk with irqmode=2, makes it wait in io_schedule()).
 * DEVICE "-": no reader. At exit it prints the threads' ids and how many
 * times each waited at least:
 *
 *	sleep TID ROUNDS futex TID WAITS io TID ROUNDS
 *
 * (io 0 0 without a reader; WAITS counts the FUTEX_WAIT calls that slept,
 * those not refused with EAGAIN).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long rounds, ms;
static const char *device;
static _Atomic unsigned int word;
static pid_t futex_tid, io_tid;
static long futex_waits, io_reads;

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

static __attribute__((noinline)) void futex_wait(unsigned int seen)
{
	if (!syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0))
		futex_waits++;
}

static void *waiter(void *arg)
{
	unsigned int seen = 0;

	(void)arg;
	futex_tid = gettid_();
	while (seen < rounds) {
		if (atomic_load(&word) == seen)
			futex_wait(seen);
		seen = atomic_load(&word);
	}
	return NULL;
}

static __attribute__((noinline)) int io_wait(int fd, void *buf)
{
	return pread(fd, buf, 4096, 0) == 4096;
}

static void *reader(void *arg)
{
	void *buf;
	int fd;

	(void)arg;
	io_tid = gettid_();
	if (posix_memalign(&buf, 4096, 4096))
		exit(1);
	fd = open(device, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "offcpu_why: %s: %s\n", device, strerror(errno));
		exit(1);
	}
	for (io_reads = 0; io_reads < rounds; io_reads++)
		if (!io_wait(fd, buf))
			exit(1);
	close(fd);
	free(buf);
	return NULL;
}

static __attribute__((noinline)) void sleep_wait(void)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
		;
}

int main(int argc, char *argv[])
{
	pthread_t w, r;
	long i;

	if (argc != 4) {
		fprintf(stderr, "usage: offcpu_why DEVICE ROUNDS MS\n");
		return 2;
	}
	device = argv[1];
	rounds = atol(argv[2]);
	ms = atol(argv[3]);
	if (rounds <= 0 || rounds > INT_MAX || ms <= 0)
		return 2;
	if (pthread_create(&w, NULL, waiter, NULL))
		return 1;
	if (strcmp(device, "-") && pthread_create(&r, NULL, reader, NULL))
		return 1;
	for (i = 0; i < rounds; i++) {
		sleep_wait();
		atomic_fetch_add(&word, 1);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	pthread_join(w, NULL);
	if (strcmp(device, "-"))
		pthread_join(r, NULL);
	printf("sleep %d %ld futex %d %ld io %d %ld\n", gettid_(), rounds, futex_tid, futex_waits,
	       io_tid, io_reads);
	return 0;
}
