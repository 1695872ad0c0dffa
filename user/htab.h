/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_HTAB_H
#define CPROF_HTAB_H

/*
 * An open-addressing hash index over an array the caller owns: it maps a
 * key's hash to the index of the element that has that key. The caller
 * hashes its keys and compares them (@eq), so one table type serves every
 * array of report: strings, mappings, locations, samples, processes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cp_hslot {
	uint32_t hash;
	uint32_t idx;		/* element + 1; 0: empty */
};

struct cp_htab {
	struct cp_hslot *slots;
	uint32_t mask;
	uint32_t nr;
};

/* Is element @idx the one with @key? */
typedef bool (*cp_htab_eq)(const void *ctx, uint32_t idx, const void *key);

void cp_htab_init(struct cp_htab *h);
void cp_htab_free(struct cp_htab *h);
/* Element with @key, or -1. */
int64_t cp_htab_find(const struct cp_htab *h, uint64_t hash, cp_htab_eq eq, const void *ctx,
		     const void *key);
/* Records element @idx under @hash (not there yet). 0 or -ENOMEM. */
int cp_htab_add(struct cp_htab *h, uint64_t hash, uint32_t idx);
/*
 * Find or append, for an array whose elements are their own keys: the
 * element of *@arr (*@nr of @size bytes, room for *@cap) that @eq finds
 * equal to @key, else a copy of @key appended and indexed under @hash.
 * Its index, or -ENOMEM.
 */
int64_t cp_htab_intern(struct cp_htab *h, uint64_t hash, cp_htab_eq eq, const void *ctx,
		       const void *key, void *arr, size_t *nr, size_t *cap, size_t size);

/* Hashing: start with CP_HASH_SEED, mix in words or bytes. */
#define CP_HASH_SEED	0x243f6a8885a308d3ULL

static inline uint64_t cp_hash_u64(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

uint64_t cp_hash_mem(uint64_t h, const void *p, size_t len);

#endif /* CPROF_HTAB_H */
