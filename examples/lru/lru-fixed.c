// SPDX-License-Identifier: GPL-2.0
/*
 * lru-fixed [GETS]: lru.c with its eviction fixed. The slots are kept on a
 * doubly linked list in order of use: a hit moves its slot to the front, a
 * miss takes the slot at the back. Eviction is O(1) instead of a scan of
 * the table; the keys, the values and the output are the same as lru.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLOTS	2048
#define KEYS	(8 * SLOTS)

struct slot {
	unsigned long key;
	unsigned long value;
	struct slot *prev, *next;	/* in order of use, newest first */
	int cached;
};

static struct slot table[SLOTS];
static int index_of[KEYS];	/* slot + 1 of a cached key, 0 if none */
static struct slot head = { .prev = &head, .next = &head };

static void unlink_slot(struct slot *s)
{
	s->prev->next = s->next;
	s->next->prev = s->prev;
}

static void push_front(struct slot *s)
{
	s->next = head.next;
	s->prev = &head;
	head.next->prev = s;
	head.next = s;
}

/* The least recently used slot: the back of the list. */
static struct slot *lru_evict(void)
{
	struct slot *victim = head.prev;

	unlink_slot(victim);
	if (victim->cached)
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

	if (index_of[key]) {
		s = &table[index_of[key] - 1];
		unlink_slot(s);
		push_front(s);
		return s->value;
	}
	s = lru_evict();
	s->key = key;
	s->value = compute_value(key);
	s->cached = 1;
	push_front(s);
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

	for (i = 0; i < SLOTS; i++)
		push_front(&table[i]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < gets; i++)
		sum += lru_get(next_key(&seed));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("lru: %ld gets in %.2f s (checksum %lx)\n", gets,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9, sum);
	return 0;
}
