/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_STACKS_H
#define CPROF_STACKS_H

/*
 * The STACK records of an aggregated recording, by id, so that each COUNT
 * (and OFF_CPU_COUNT) record reads as its samples: one struct
 * causalprof_sample with the stack's frames, the count's thread and event,
 * and the count's weight.
 */

#include <stdint.h>
#include <linux/causalprof.h>

#include "htab.h"

struct cp_stacks {
	struct cp_htab index;
	struct causalprof_sample **s;	/* one per id, the frames of its STACK */
	size_t nr, cap;
	struct causalprof_sample *out;	/* what cp_stacks_sample() returns */
	size_t out_size;
};

void cp_stacks_init(struct cp_stacks *t);
void cp_stacks_free(struct cp_stacks *t);
/* Keeps a STACK's frames, once per id. 0 or -ENOMEM. */
int cp_stacks_add(struct cp_stacks *t, const struct causalprof_stack *st);
/*
 * The samples of a COUNT: count->count of them, of total weight
 * s->period, as one sample (valid until the next call), or NULL when no
 * STACK had the count's id.
 */
const struct causalprof_sample *cp_stacks_sample(struct cp_stacks *t,
						const struct causalprof_count *c);
/*
 * The waits of an OFF_CPU_COUNT the same way: one sample of the stack's
 * frames, of weight (s->period) their time off-CPU, wait and run-queue
 * delay; event 0. NULL when no STACK had the id.
 */
const struct causalprof_sample *cp_stacks_off_cpu(struct cp_stacks *t,
						 const struct causalprof_off_cpu_count *c);

#endif /* CPROF_STACKS_H */
