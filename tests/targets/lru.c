// SPDX-License-Identifier: GPL-2.0
/*
 * lru [SECONDS]: the classic bad LRU cache, for the report tests. Lookups
 * are O(1) through an index, but every miss evicts the least recently used
 * entry by scanning the whole table (lru_evict()), so that is where the time
 * goes; computing a missing value (compute_value()) costs a little too.
 * Runs for SECONDS (default 2), then prints its hit rate.
 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLOTS		2048
#define KEYS		(8 * SLOTS)

struct slot {
	unsigned long key;
	unsigned long value;
	unsigned long used;	/* tick of the last use; 0: free */
};

static struct slot table[SLOTS];
static int where[KEYS];		/* slot + 1 of a key, 0 if not cached */
static unsigned long tick;

static __attribute__((noinline)) struct slot *lru_evict(void)
{
	struct slot *victim = &table[0];
	int i;

	for (i = 1; i < SLOTS; i++)
		if (table[i].used < victim->used)
			victim = &table[i];
	if (victim->used)
		where[victim->key] = 0;
	return victim;
}

static __attribute__((noinline)) unsigned long compute_value(unsigned long key)
{
	unsigned long v = key;
	int i;

	for (i = 0; i < SLOTS / 16; i++)
		v = v * 6364136223846793005UL + 1442695040888963407UL;
	return v;
}

static __attribute__((noinline)) unsigned long lru_get(unsigned long key, unsigned long *misses)
{
	struct slot *s;

	tick++;
	if (where[key]) {
		s = &table[where[key] - 1];
		s->used = tick;
		return s->value;
	}
	(*misses)++;
	s = lru_evict();
	s->key = key;
	s->value = compute_value(key);
	s->used = tick;
	where[key] = s - table + 1;
	return s->value;
}

/* Skewed keys: a hot set that mostly hits, a long tail that misses. */
static unsigned long next_key(unsigned long *seed)
{
	*seed = *seed * 6364136223846793005UL + 1;
	if ((*seed >> 33) % 4)
		return (*seed >> 40) % (SLOTS / 2);
	return (*seed >> 20) % KEYS;
}

int main(int argc, char *argv[])
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	unsigned long seed = 42, gets = 0, misses = 0, sum = 0;
	struct timespec t0, t;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (i = 0; i < 1000; i++, gets++)
			sum += lru_get(next_key(&seed), &misses);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("lru: %lu gets, %.1f%% hits (%lx)\n", gets, 100.0 * (gets - misses) / gets, sum);
	return 0;
}
