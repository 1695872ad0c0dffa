/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stream's single-producer, single-consumer byte rings of
 * 8-byte aligned records (see ring.c).
 */

#ifndef _CAUSALPROF_RING_H
#define _CAUSALPROF_RING_H

#include <linux/causalprof.h>
#include <linux/compiler.h>
#include <linux/types.h>

/*
 * A single-producer, single-consumer byte ring of stream records. Records
 * are 8-byte aligned and never wrap: one that does not fit before the end
 * is preceded by a padding record that fills the end, which the consumer
 * skips. head and tail count bytes since the start and only grow; the ring
 * is empty when they are equal. The producer publishes records by
 * releasing head, the consumer frees space by releasing tail, so neither
 * needs a lock and the producer may be an NMI.
 */
struct cp_ring {
	u8 *buf;
	unsigned long mask;	/* size - 1; size is a power of two */
	unsigned long head;	/* written by the producer only */
	unsigned long tail;	/* written by the consumer only */
};

/* hdr.type of padding; stream record types start at 1 */
#define CP_RING_PAD		0

int cp_ring_init(struct cp_ring *r, size_t size, int node);
void cp_ring_destroy(struct cp_ring *r);

/* Producer */
void *cp_ring_reserve(struct cp_ring *r, u32 size, unsigned long *next);
void *cp_ring_reserve_keep(struct cp_ring *r, u32 size, unsigned long keep, unsigned long *next);
void cp_ring_commit(struct cp_ring *r, unsigned long next);

static inline unsigned long cp_ring_size(const struct cp_ring *r)
{
	return r->mask + 1;
}

/* Bytes in use, up to next (as returned by cp_ring_reserve()). */
static inline unsigned long cp_ring_used(const struct cp_ring *r, unsigned long next)
{
	return next - READ_ONCE(r->tail);
}

/* Consumer */
unsigned long cp_ring_head(const struct cp_ring *r);
const struct causalprof_record_hdr *cp_ring_read(const struct cp_ring *r, unsigned long *pos,
						 unsigned long end);
void cp_ring_consume(struct cp_ring *r, unsigned long pos);

#endif /* _CAUSALPROF_RING_H */
