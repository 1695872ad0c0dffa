/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_COZSHM_H
#define CPROF_COZSHM_H

/*
 * The counter region shared by cprof and libcprof-coz.so: the counters of a
 * program built with Coz's coz.h, in a file cprof creates and the program opens.
 *
 * coz.h's macros ask _coz_get_counter(type, name) once per call site for a
 * counter and then add to its count inline (a relaxed atomic add), so the
 * counter must be laid out as coz.h's coz_counter_t: struct cp_coz_counter.
 * libcprof-coz.so (user/cozshim.c), preloaded into the command, maps the
 * file named by $CP_COZ_ENV and hands out the counters of its slots; every
 * process of the command maps the same file, so a point's count is the sum
 * over all of them, and cprof reads it at any time (user/cozcount.c).
 *
 * The region is append-only: a slot, once claimed, keeps its (type, name)
 * and address for the life of the region. Claiming is lock-free:
 *
 *	n = nslots (acquire)
 *	look through slots [0, n) for (type, name), waiting for each to be ready
 *	not there: CAS nslots n -> n + 1; if that fails, someone claimed slot n:
 *		look at the new slots (one of them may be ours) and try again
 *	won slot n: write type and name, then ready = 1 (release)
 *
 * Whoever wins the CAS for slot n has looked at every slot before it, so a
 * (type, name) has one slot however many threads and processes ask at once.
 * Readers skip slots that are not ready yet (their counts are 0 anyway). A
 * process killed between the CAS and its ready store leaves a slot that
 * never gets ready: lookups wait for it a bounded time, then fail.
 *
 * Both sides are built for the same ABI (size_t is coz.h's count).
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* The variable that names the region's file in the command's environment. */
#define CP_COZ_ENV		"CPROF_COZ_SHM"
#define CP_COZ_LIB		"libcprof-coz.so"

#define CP_COZ_MAGIC		0x7a6f632d666f7270ULL	/* "prof-coz", little-endian */
#define CP_COZ_VERSION		1

/* coz.h's COZ_COUNTER_TYPE_*: the values _coz_get_counter() is given. */
enum cp_coz_type {
	CP_COZ_THROUGHPUT = 1,		/* COZ_PROGRESS, COZ_PROGRESS_NAMED */
	CP_COZ_BEGIN = 2,		/* COZ_BEGIN: a latency point's arrivals */
	CP_COZ_END = 3,			/* COZ_END: its departures */
};

/* coz.h's coz_counter_t, member for member. */
struct cp_coz_counter {
	size_t count;			/* relaxed atomic adds from the program */
	size_t backoff;			/* unused by coz.h */
};

/*
 * COZ_PROGRESS names its point "FILE:LINE" with FILE as the compiler was
 * given it, which can be a long absolute path; longer names are refused.
 */
#define CP_COZ_NAME_MAX		496	/* with the NUL */

/*
 * The counter alone on the slot's first cache line: points the program
 * increments from different threads do not share lines.
 */
struct cp_coz_slot {
	struct cp_coz_counter counter;
	uint8_t pad[64 - sizeof(struct cp_coz_counter)];
	uint32_t ready;			/* 0 while the claimer fills the slot, then 1 */
	int32_t type;			/* enum cp_coz_type */
	uint64_t reserved;
	char name[CP_COZ_NAME_MAX];	/* NUL-terminated */
} __attribute__((aligned(64)));

struct cp_coz_region {
	uint64_t magic;			/* CP_COZ_MAGIC */
	uint32_t version;		/* CP_COZ_VERSION */
	uint32_t slot_size;		/* sizeof(struct cp_coz_slot) */
	uint32_t capacity;		/* slots in the file */
	uint32_t nslots;		/* claimed, <= capacity; atomic */
	uint32_t refused;		/* lookups that got no counter; atomic */
	uint32_t pad[9];
	struct cp_coz_slot slots[];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct cp_coz_slot) == 576, "a slot is 9 cache lines");
_Static_assert(sizeof(struct cp_coz_region) == 64, "the header is one cache line");

/* Bytes of a region of @capacity slots. */
static inline size_t cp_coz_region_size(uint32_t capacity)
{
	return sizeof(struct cp_coz_region) + (size_t)capacity * sizeof(struct cp_coz_slot);
}

/* Does the header of a file of @size bytes describe a region that fits in it? */
static inline int cp_coz_region_check(const struct cp_coz_region *r, size_t size)
{
	if (size < sizeof(*r) || r->magic != CP_COZ_MAGIC || r->version != CP_COZ_VERSION ||
	    r->slot_size != sizeof(struct cp_coz_slot) || cp_coz_region_size(r->capacity) > size)
		return -EINVAL;
	return 0;
}

#endif /* CPROF_COZSHM_H */
