/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_COZCOUNT_H
#define CPROF_COZCOUNT_H

/*
 * cprof's side of Coz compatibility: the counter region that programs built
 * with coz.h count into through libcprof-coz.so, and snapshots of it.
 *
 *	cp_coz_open()		before forking the command: creates the region
 *	cp_coz_env()		NAME=VALUE entries for the command's environment,
 *	 or cp_coz_putenv()	 or put there between fork() and exec()
 *	cp_coz_snapshot()	at any time, e.g. at each experiment's start and end
 *	cp_coz_close()		once the command is gone: unmaps, unlinks
 *
 * Counts only grow (a slot keeps its (type, name) and index for the life of
 * the region), so the counts of an interval are the differences of two
 * snapshots, slot by slot.
 */

#include <stddef.h>
#include <stdint.h>

#include "cozshm.h"

/* Slots of a region when cp_coz_open() is given 0 */
#define CP_COZ_SLOTS		1024

struct cp_coz {
	struct cp_coz_region *region;
	size_t size;
	uint32_t capacity;
	char path[64];			/* the region's file */
	char *env[3];			/* "LD_PRELOAD=...", CP_COZ_ENV "=...", NULL */
};

struct cp_coz_count {
	uint32_t slot;			/* index in the region: stable */
	int type;			/* enum cp_coz_type */
	uint64_t count;
	char name[CP_COZ_NAME_MAX];
};

/*
 * The absolute path of libcprof-coz.so: next to the running program, else
 * in CP_COZ_LIBDIR (the Makefile's LIBDIR). 0 or -errno.
 */
int cp_coz_find_lib(char *path, size_t size);

/*
 * Creates a region of @capacity slots (0: CP_COZ_SLOTS) in /dev/shm (or
 * $TMPDIR, /tmp), mode 0600, and the environment that preloads @lib (NULL:
 * cp_coz_find_lib()) ahead of this process's $LD_PRELOAD. 0 or -errno, with
 * a message in @err.
 */
int cp_coz_open(struct cp_coz *c, const char *lib, uint32_t capacity, char *err, size_t len);

/* The entries to add to the command's environment: NULL-terminated. */
char *const *cp_coz_env(const struct cp_coz *c);

/* Puts them into this process's environment (a child about to exec). 0 or -errno. */
int cp_coz_putenv(const struct cp_coz *c);

/* The slots filled so far, up to @max of them, in slot order. Returns how many. */
size_t cp_coz_snapshot(const struct cp_coz *c, struct cp_coz_count *out, size_t max);

/* Lookups that got no counter: the region was full, a name too long... */
uint32_t cp_coz_refused(const struct cp_coz *c);

/* Unmaps and unlinks the region; a cp_coz that is zeroed or closed is left alone. */
void cp_coz_close(struct cp_coz *c);

#endif /* CPROF_COZCOUNT_H */
