// SPDX-License-Identifier: GPL-2.0
/*
 * Interned strings in an arena of blocks that are never moved or freed
 * before the table, so that a string's address is as stable as its number.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

#define BLOCK_SIZE	(64 * 1024)

struct block {
	struct block *next;
	char data[];
};

struct key {
	const char *s;
	size_t len;
};

static bool eq(const void *ctx, uint32_t idx, const void *k)
{
	const struct cp_strtab *t = ctx;
	const struct key *key = k;
	const char *s = t->str[idx];

	return !strncmp(s, key->s, key->len) && !s[key->len];
}

static char *store(struct cp_strtab *t, const char *s, size_t len)
{
	struct block *b;
	size_t size;
	char *p;

	if (t->used + len + 1 > t->size) {
		size = len + 1 > BLOCK_SIZE / 4 ? len + 1 : BLOCK_SIZE;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->next = t->blocks;
		t->blocks = b;
		/* A big string gets a block of its own; the current one goes on. */
		if (size != BLOCK_SIZE) {
			memcpy(b->data, s, len);
			b->data[len] = '\0';
			return b->data;
		}
		t->block = b->data;
		t->used = 0;
		t->size = size;
	}
	p = t->block + t->used;
	memcpy(p, s, len);
	p[len] = '\0';
	t->used += len + 1;
	return p;
}

int64_t cp_strtab_add(struct cp_strtab *t, const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len), **str;
	struct key key = { .s = s, .len = nul ? (size_t)(nul - s) : len };
	uint64_t hash = cp_hash_mem(CP_HASH_SEED, s, key.len);
	int64_t i = cp_htab_find(&t->index, hash, eq, t, &key);
	char *copy;

	if (i >= 0)
		return i;
	len = key.len;
	if (t->nr == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;

		str = realloc(t->str, cap * sizeof(*str));
		if (!str)
			return -ENOMEM;
		t->str = str;
		t->cap = cap;
	}
	copy = store(t, s, len);
	if (!copy || cp_htab_add(&t->index, hash, t->nr))
		return -ENOMEM;
	t->str[t->nr] = copy;
	return t->nr++;
}

int64_t cp_strtab_add_str(struct cp_strtab *t, const char *s)
{
	return cp_strtab_add(t, s, strlen(s));
}

int cp_strtab_init(struct cp_strtab *t)
{
	memset(t, 0, sizeof(*t));
	cp_htab_init(&t->index);
	return cp_strtab_add(t, "", 0) == 0 ? 0 : -ENOMEM;
}

void cp_strtab_free(struct cp_strtab *t)
{
	struct block *b, *next;

	for (b = t->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	cp_htab_free(&t->index);
	free(t->str);
	memset(t, 0, sizeof(*t));
}
