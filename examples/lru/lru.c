// SPDX-License-Identifier: GPL-2.0
/*
 * lru [GETS]: a cache of 2048 slots in front of a slow computation, with
 * least-recently-used eviction done the naive way: every miss scans the
 * whole table for the oldest slot. Lookups go through an index and are
 * cheap; the scan is not. Makes GETS lookups (default 1000000) of skewed
 * keys (a hot set that mostly hits, a long tail that misses) and prints
 * how long they took. lru-fixed.c is the same cache with O(1) eviction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLOTS	2048
#define KEYS	(8 * SLOTS)

struct slot {
	unsigned long key;
	unsigned long value;
	unsigned long used;	/* tick of the last use; 0: never used */
};

static struct slot table[SLOTS];
static int index_of[KEYS];	/* slot + 1 of a cached key, 0 if none */
static unsigned long tick;

/* The least recently used slot: a scan of the whole table, every time. */
static struct slot *lru_evict(void)
{
	struct slot *victim = &table[0];
	int i;

	for (i = 1; i < SLOTS; i++)
		if (table[i].used < victim->used)
			victim = &table[i];
	if (victim->used)
		index_of[victim->key] = 0;
	return victim;
}

/* What the cache saves: a value that takes some work to compute. */
static unsigned long compute_value(unsigned long key)
{
	unsigned long v = key;
	int i;

	for (i = 0; i < 128; i++)
		v = v * 6364136223846793005UL + 1442695040888963407UL;
	return v;
}

static unsigned long lru_get(unsigned long key)
{
	struct slot *s;

	tick++;
	if (index_of[key]) {
		s = &table[index_of[key] - 1];
		s->used = tick;
		return s->value;
	}
	s = lru_evict();
	s->key = key;
	s->value = compute_value(key);
	s->used = tick;
	index_of[key] = s - table + 1;
	return s->value;
}

/* Three keys in four from a hot set of half the cache, the rest anywhere. */
static unsigned long next_key(unsigned long *seed)
{
	*seed = *seed * 6364136223846793005UL + 1;
	if ((*seed >> 33) % 4)
		return (*seed >> 40) % (SLOTS / 2);
	return (*seed >> 20) % KEYS;
}

int main(int argc, char *argv[])
{
	long gets = argc > 1 ? atol(argv[1]) : 1000000, i;
	unsigned long seed = 42, sum = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < gets; i++)
		sum += lru_get(next_key(&seed));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("lru: %ld gets in %.2f s (checksum %lx)\n", gets,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9, sum);
	return 0;
}
