// SPDX-License-Identifier: GPL-2.0
/*
 * The stream's byte rings: one producer (the overflow handler or the
 * sideband) and one consumer (the stream's drain work) each.
 */

#include "ring.h"

#include <linux/align.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

/* size: a power of two, at least one page. Process context. */
int cp_ring_init(struct cp_ring *r, size_t size, int node)
{
	if (!is_power_of_2(size) || size < PAGE_SIZE)
		return -EINVAL;
	/* Zeroed: nothing stale can reach user space through padding. */
	r->buf = kvzalloc_node(size, GFP_KERNEL, node);
	if (!r->buf)
		return -ENOMEM;
	r->mask = size - 1;
	r->head = 0;
	r->tail = 0;
	return 0;
}

void cp_ring_destroy(struct cp_ring *r)
{
	kvfree(r->buf);
	r->buf = NULL;
}

/*
 * Space for a record of size bytes (a multiple of 8) that leaves at least
 * keep bytes free, or NULL. The caller fills it and publishes it with
 * cp_ring_commit(next).
 */
void *cp_ring_reserve_keep(struct cp_ring *r, u32 size, unsigned long keep, unsigned long *next)
{
	unsigned long head = r->head;
	/* Pairs with the release in cp_ring_consume(): the bytes are read. */
	unsigned long tail = smp_load_acquire(&r->tail);
	unsigned long off = head & r->mask;
	unsigned long room = cp_ring_size(r) - off;
	unsigned long pad = room < size ? room : 0;
	struct causalprof_record_hdr *h;

	if (WARN_ON_ONCE(!IS_ALIGNED(size, 8) || size < sizeof(*h)))
		return NULL;
	if (head + pad + size + keep - tail > cp_ring_size(r))
		return NULL;
	if (pad) {
		h = (void *)(r->buf + off);
		h->type = CP_RING_PAD;
		h->flags = 0;
		h->size = pad;
		off = 0;
	}
	*next = head + pad + size;
	return r->buf + off;
}

/* Space for a record of size bytes, or NULL when the ring is full. */
void *cp_ring_reserve(struct cp_ring *r, u32 size, unsigned long *next)
{
	return cp_ring_reserve_keep(r, size, 0, next);
}

void cp_ring_commit(struct cp_ring *r, unsigned long next)
{
	/* Pairs with the acquire in cp_ring_head(): the record is written. */
	smp_store_release(&r->head, next);
}

unsigned long cp_ring_head(const struct cp_ring *r)
{
	/* Pairs with the release in cp_ring_commit(): records up to head are written. */
	return smp_load_acquire(&r->head);
}

/*
 * The record at *pos, padding skipped, or NULL when there is none before
 * end (a value of cp_ring_head()). The caller advances *pos by the
 * record's size once it has taken it.
 */
const struct causalprof_record_hdr *cp_ring_read(const struct cp_ring *r, unsigned long *pos,
						 unsigned long end)
{
	const struct causalprof_record_hdr *h;

	while (*pos != end) {
		h = (const void *)(r->buf + (*pos & r->mask));
		if (h->type != CP_RING_PAD)
			return h;
		*pos += h->size;
	}
	return NULL;
}

/* Everything before pos is read: the producer may reuse it. */
void cp_ring_consume(struct cp_ring *r, unsigned long pos)
{
	/* Pairs with the acquire in cp_ring_reserve(): our reads are done. */
	smp_store_release(&r->tail, pos);
}
