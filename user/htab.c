// SPDX-License-Identifier: GPL-2.0
/*
 * Hash index of report's tables: linear probing, at most half full, the
 * 32-bit hash kept in the slot so that growing never asks the caller again
 * and most mismatches are rejected without looking at the element.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "htab.h"

#define MIN_SLOTS	64

void cp_htab_init(struct cp_htab *h)
{
	memset(h, 0, sizeof(*h));
}

void cp_htab_free(struct cp_htab *h)
{
	free(h->slots);
	cp_htab_init(h);
}

static uint32_t fold(uint64_t hash)
{
	return hash ^ (hash >> 32);
}

int64_t cp_htab_find(const struct cp_htab *h, uint64_t hash, cp_htab_eq eq, const void *ctx,
		     const void *key)
{
	uint32_t hv = fold(hash), i;
	const struct cp_hslot *s;

	if (!h->slots)
		return -1;
	for (i = hv & h->mask;; i = (i + 1) & h->mask) {
		s = &h->slots[i];
		if (!s->idx)
			return -1;
		if (s->hash == hv && eq(ctx, s->idx - 1, key))
			return s->idx - 1;
	}
}

static void place(struct cp_hslot *slots, uint32_t mask, uint32_t hv, uint32_t idx1)
{
	uint32_t i;

	for (i = hv & mask; slots[i].idx; i = (i + 1) & mask)
		;
	slots[i].hash = hv;
	slots[i].idx = idx1;
}

static int grow(struct cp_htab *h)
{
	uint32_t size = h->slots ? (h->mask + 1) * 2 : MIN_SLOTS, i;
	struct cp_hslot *slots;

	if (size > (1U << 31))
		return -ENOMEM;
	slots = calloc(size, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; h->slots && i <= h->mask; i++)
		if (h->slots[i].idx)
			place(slots, size - 1, h->slots[i].hash, h->slots[i].idx);
	free(h->slots);
	h->slots = slots;
	h->mask = size - 1;
	return 0;
}

int cp_htab_add(struct cp_htab *h, uint64_t hash, uint32_t idx)
{
	if (idx == UINT32_MAX)
		return -ENOMEM;
	if ((!h->slots || 2 * (h->nr + 1) > h->mask + 1) && grow(h))
		return -ENOMEM;
	place(h->slots, h->mask, fold(hash), idx + 1);
	h->nr++;
	return 0;
}

int64_t cp_htab_intern(struct cp_htab *h, uint64_t hash, cp_htab_eq eq, const void *ctx,
		       const void *key, void *arr, size_t *nr, size_t *cap, size_t size)
{
	int64_t i = cp_htab_find(h, hash, eq, ctx, key);

	if (i >= 0)
		return i;
	if (cp_array_reserve(arr, cap, *nr, 1, size) || cp_htab_add(h, hash, *nr))
		return -ENOMEM;
	memcpy((char *)*(void **)arr + *nr * size, key, size);
	return (*nr)++;
}

uint64_t cp_hash_mem(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t w;

	for (; len >= 8; b += 8, len -= 8) {
		memcpy(&w, b, 8);
		h = cp_hash_u64(h, w);
	}
	if (len) {
		w = 0;
		memcpy(&w, b, len);
		h = cp_hash_u64(h, w ^ ((uint64_t)len << 56));
	}
	return h;
}
