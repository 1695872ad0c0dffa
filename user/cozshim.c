// SPDX-License-Identifier: GPL-2.0
/*
 * libcprof-coz.so: Coz's _coz_get_counter() for programs built with coz.h,
 * handing out the counters of the region cprof shares (user/cozshm.h).
 *
 * cprof preloads it into everything it runs in causal mode, /bin/sh and
 * programs that never heard of Coz included: it has no constructor, does
 * nothing until coz.h asks it for a counter, and then never aborts and never
 * writes more than one line to stderr. Without $CPROF_COZ_SHM, or when
 * anything fails, the answer is NULL, and coz.h counts nothing.
 *
 * The region is mapped once per process, by whichever thread asks first;
 * a forked child keeps the parent's mapping (MAP_SHARED), so its counts
 * and its parent's land in the same counters, as do those of any process
 * that finds the same file through the environment.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cozshm.h"

/*
 * How long a lookup waits for a slot another thread is filling, or for the
 * mapping another thread is making: both take microseconds, unless their
 * thread was preempted, or died (a process killed in the middle, a child
 * forked in the middle), which this bound turns into a refusal.
 */
#define WAIT_NS		(2 * 1000000000LL)

enum map_state { UNMAPPED, MAPPING, MAPPED, FAILED };

static uint32_t state;			/* enum map_state, atomic */
static struct cp_coz_region *region;	/* written before state = MAPPED */
static uint32_t capacity;		/* as checked against the file's size */
static int warned;			/* the one line of stderr is gone */

static void warn_once(const char *what, const char *detail)
{
	char line[CP_COZ_NAME_MAX + 128];
	int n;

	if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		return;
	n = snprintf(line, sizeof(line), CP_COZ_LIB ": %s: %s\n", what, detail);
	if (n > 0)
		n = write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line));
	(void)n;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Waits until *@p is not @v; false after WAIT_NS. */
static bool wait_change(const uint32_t *p, uint32_t v)
{
	long long deadline = 0;
	unsigned int spins = 0;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) == v) {
		if (++spins < 64)
			continue;
		if (!deadline)
			deadline = now_ns() + WAIT_NS;
		else if (now_ns() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

static int map_region(const char *path)
{
	struct stat st;
	void *p;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	if (cp_coz_region_check(p, st.st_size)) {
		munmap(p, st.st_size);
		return -EINVAL;
	}
	region = p;
	capacity = region->capacity;
	return 0;
}

/* The region, mapped by the first caller; NULL if there is none. */
static struct cp_coz_region *get_region(void)
{
	uint32_t s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	const char *path;
	int ret;

	if (s == UNMAPPED &&
	    __atomic_compare_exchange_n(&state, &s, MAPPING, false, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE)) {
		path = getenv(CP_COZ_ENV);
		ret = path ? map_region(path) : -ENOENT;
		if (ret && path)
			warn_once(path, ret == -EINVAL ? "not a counter region" : strerror(-ret));
		__atomic_store_n(&state, ret ? FAILED : MAPPED, __ATOMIC_RELEASE);
		return ret ? NULL : region;
	}
	if (s == MAPPING && !wait_change(&state, MAPPING))
		return NULL;
	return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == MAPPED ? region : NULL;
}

static struct cp_coz_counter *refuse(struct cp_coz_region *r, const char *why, const char *name)
{
	__atomic_add_fetch(&r->refused, 1, __ATOMIC_RELAXED);
	warn_once(why, name);
	return NULL;
}

/* The counter of (@type, @name), in the slot found or claimed (cozshm.h). */
static struct cp_coz_counter *lookup(struct cp_coz_region *r, int type, const char *name)
{
	size_t len = strnlen(name, CP_COZ_NAME_MAX);
	struct cp_coz_slot *s;
	uint32_t i = 0, n;

	if (len == CP_COZ_NAME_MAX)
		return refuse(r, "progress point name too long", name);
	n = __atomic_load_n(&r->nslots, __ATOMIC_ACQUIRE);
	for (;;) {
		if (n > capacity)
			n = capacity;
		for (; i < n; i++) {
			s = &r->slots[i];
			if (!wait_change(&s->ready, 0))
				return refuse(r, "a slot was never filled; not counted", name);
			if (s->type == type && !strncmp(s->name, name, len + 1))
				return &s->counter;
		}
		if (n == capacity)
			return refuse(r, "too many progress points; not counted", name);
		/* On failure n becomes the new count: look at the new slots. */
		if (__atomic_compare_exchange_n(&r->nslots, &n, n + 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
	}
	s = &r->slots[n];
	s->type = type;
	memcpy(s->name, name, len + 1);
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	return &s->counter;
}

/* coz.h: coz_counter_t *_coz_get_counter(int type, const char *name) */
__attribute__((visibility("default")))
struct cp_coz_counter *_coz_get_counter(int type, const char *name)
{
	struct cp_coz_region *r = get_region();

	if (!r || !name)
		return NULL;
	if (type != CP_COZ_THROUGHPUT && type != CP_COZ_BEGIN && type != CP_COZ_END)
		return refuse(r, "unknown progress point type", name);
	return lookup(r, type, name);
}
