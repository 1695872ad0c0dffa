// SPDX-License-Identifier: GPL-2.0
/*
 * The stacks of an aggregated recording, by id (see stacks.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stacks.h"

void cp_stacks_init(struct cp_stacks *t)
{
	memset(t, 0, sizeof(*t));
	cp_htab_init(&t->index);
}

void cp_stacks_free(struct cp_stacks *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->s[i]);
	free(t->s);
	free(t->out);
	cp_htab_free(&t->index);
	memset(t, 0, sizeof(*t));
}

static bool id_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_stacks *t = ctx;
	const uint64_t *id = key;

	return t->s[idx]->time_ns == *id;
}

static int64_t find(const struct cp_stacks *t, uint64_t id)
{
	return cp_htab_find(&t->index, cp_hash_u64(CP_HASH_SEED, id), id_eq, t, &id);
}

int cp_stacks_add(struct cp_stacks *t, const struct causalprof_stack *st)
{
	size_t n = (size_t)st->nr_kernel + st->nr_user;
	/* What follows the frames (Go labels) follows them in the sample too. */
	size_t tail = st->hdr.size - sizeof(*st) - n * sizeof(st->ips[0]);
	struct causalprof_sample *s;

	if (find(t, st->id) >= 0)
		return 0;
	if (CP_RESERVE(t->s, t->cap, t->nr, 1))
		return -ENOMEM;
	s = calloc(1, sizeof(*s) + n * sizeof(s->ips[0]) + tail);
	if (!s)
		return -ENOMEM;
	s->hdr.type = CAUSALPROF_REC_SAMPLE;
	s->hdr.size = sizeof(*s) + n * sizeof(s->ips[0]) + tail;
	/* The id, until a COUNT fills in its own time. */
	s->time_ns = st->id;
	s->sflags = st->sflags;
	s->nr_kernel = st->nr_kernel;
	s->nr_user = st->nr_user;
	memcpy(s->ips, st->ips, n * sizeof(s->ips[0]) + tail);
	if (cp_htab_add(&t->index, cp_hash_u64(CP_HASH_SEED, st->id), t->nr)) {
		free(s);
		return -ENOMEM;
	}
	t->s[t->nr++] = s;
	return 0;
}

/* A copy of the frames of stack @id, in t->out, or NULL. */
static struct causalprof_sample *copy_out(struct cp_stacks *t, uint64_t id)
{
	int64_t i = find(t, id);
	struct causalprof_sample *s;

	if (i < 0)
		return NULL;
	s = t->s[i];
	if (s->hdr.size > t->out_size) {
		free(t->out);
		t->out = malloc(s->hdr.size);
		t->out_size = t->out ? s->hdr.size : 0;
		if (!t->out)
			return NULL;
	}
	memcpy(t->out, s, s->hdr.size);
	return t->out;
}

const struct causalprof_sample *cp_stacks_sample(struct cp_stacks *t,
						const struct causalprof_count *c)
{
	struct causalprof_sample *out = copy_out(t, c->stack);

	if (!out)
		return NULL;
	out->time_ns = c->time_ns;
	out->period = c->weight;
	out->pid = c->pid;
	out->tid = c->tid;
	out->cpu = c->cpu;
	out->event = c->event;
	return out;
}

const struct causalprof_sample *cp_stacks_off_cpu(struct cp_stacks *t,
						 const struct causalprof_off_cpu_count *c)
{
	struct causalprof_sample *out = copy_out(t, c->stack);

	if (!out)
		return NULL;
	out->time_ns = c->time_ns;
	out->period = c->wait_ns + c->delay_ns;
	out->pid = c->pid;
	out->tid = c->tid;
	out->cpu = c->cpu;
	out->event = 0;
	return out;
}
