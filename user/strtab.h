/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_STRTAB_H
#define CPROF_STRTAB_H

/*
 * Interned strings: each distinct string once, numbered from 0 (the empty
 * string) in the order they were first seen: the pprof string table, and
 * the names report compares by number instead of by content.
 */

#include <stddef.h>
#include <stdint.h>

#include "htab.h"

struct cp_strtab {
	const char **str;	/* by number; they never move */
	uint32_t nr, cap;
	struct cp_htab index;
	char *block;		/* current block of the arena */
	size_t used, size;
	void *blocks;		/* every block, chained */
};

int cp_strtab_init(struct cp_strtab *t);
void cp_strtab_free(struct cp_strtab *t);
/* The number of @s (@len bytes, no NUL needed), or -ENOMEM. */
int64_t cp_strtab_add(struct cp_strtab *t, const char *s, size_t len);
int64_t cp_strtab_add_str(struct cp_strtab *t, const char *s);

static inline const char *cp_str(const struct cp_strtab *t, uint32_t i)
{
	return t->str[i];
}

#endif /* CPROF_STRTAB_H */
