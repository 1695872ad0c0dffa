// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel aggregation of samples (CAUSALPROF_F_AGGREGATE): each CPU
 * counts its samples by (tid, event, stack) and the stream sends one
 * COUNT record per key at every drain, and each stack's frames once per
 * CPU, as a STACK record, instead of one SAMPLE record per sample. The
 * off-CPU waits a CPU sees end (offcpu.c) are counted the same way, by
 * (tid, reason, stack), as OFF_CPU_COUNT records, in the same tables.
 *
 * Every CPU online at the start has two count tables, preallocated, and an
 * active index. The producer of that CPU (the overflow handler, in NMI or
 * hard irq, or the scheduler hook that ends a wait; never two at once:
 * cp_stream_cpu_get() turns the second away) is the only one that writes
 * the active table; the drain (task context, any CPU) owns the other one,
 * sends its entries and clears it. A table is an array of ready COUNT and
 * OFF_CPU_COUNT records, filled in the order keys are first seen, and an
 * open-addressing index of twice as many slots over it (a bounded probe:
 * a key that finds no slot within PROBE_MAX falls back to a SAMPLE or
 * OFF_CPU record, as when the array is full).
 *
 * The handler brackets its use of a table with a per-CPU sequence: odd
 * while it runs. The drain swaps the tables once the one it owns is empty
 * and the active one is not:
 *
 *	handler				drain
 *	seq++ (odd)			active = !active (release)
 *	smp_mb()			smp_mb()
 *	t = tables[active]		s = seq
 *	... update t ...		while (s odd && seq == s) cpu_relax()
 *	seq++ (even, release)		smp_mb(), then read the old table
 *
 * Either the handler sees the new index, or the drain sees its odd
 * sequence and waits for it to end: after the wait, no handler uses the
 * old table, and its writes are visible. The handler is short and
 * bounded (it never waits for anything), so the wait is too. The clear
 * the drain made of a table is published by the release of the index that
 * makes it active again.
 *
 * A stack's STACK record goes into the CPU's sample ring, from the
 * producer, before the count of the sample (or wait) that first has it; the drain
 * reads the ring's head only after the swap, and sends the ring's records
 * before the old table's. So a STACK always precedes, or travels with,
 * the first COUNT that names it. The stacks a CPU has sent are kept in a
 * per-CPU set of ids (written by the handler only) for the whole session,
 * looked up only when a key enters a table (a key in the table has had its
 * stack sent); a stack that finds the set full is sent again each time it
 * enters a table (never lost, only dearer), flagged CAUSALPROF_STACK_F_AGAIN
 * so that a reader need not keep it.
 */

#include "agg.h"
#include "ring.h"
#include "stream.h"

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>

#define PROBE_MAX	16
#define STACKS_PER_ENTRY 8

/* A table's entry: a COUNT, or an OFF_CPU_COUNT (hdr.type says which). */
union agg_ent {
	struct causalprof_record_hdr hdr;
	struct causalprof_count count;
	struct causalprof_off_cpu_count wait;
};

struct agg_table {
	union agg_ent *ents;		/* nr used, in first-seen order */
	u32 *index;			/* 2 * entries slots: entry + 1, 0 free */
	u32 *slot;			/* of each entry in index: clearing one
					 * table costs its entries, not its size
					 */
	u32 nr;
	u32 sent;			/* drain: entries taken into sent messages */
};

struct agg_cpu {
	struct agg_table t[2];
	unsigned int active;	/* written by the drain, read by the handler */
	unsigned int seq;	/* written by the handler: odd while in a table */
	u64 *seen;		/* stack ids sent by this CPU; 0: free */
	u32 next;		/* drain: entries of this message, not yet sent */
};

static struct {
	struct agg_cpu __percpu *cpus;
	u32 entries;		/* per table, a power of two */
	u32 stacks;		/* per CPU, a power of two */
	siphash_key_t key;	/* of the stack ids, drawn at each start */
} tables;

/*
 * A stack's id: SipHash of its frames, shape and Go labels under a key drawn at each
 * session's start. The profiled processes choose their user frames (a
 * frame-pointer chain is data on their stack); with a hash they could
 * compute, one could forge a chain whose id is another stack's, and the
 * reader would charge its samples to that stack's frames. Without the key
 * the ids cannot be predicted, so a collision is left to chance (2^-64 a
 * pair). Some 1.5 cycles a byte, in the handler: a 128-frame stack costs
 * about a microsecond.
 */
u64 cp_agg_hash(const struct cp_agg_sample *s)
{
	u64 h = siphash(s->ips, (s->nk + s->nu) * sizeof(*s->ips), &tables.key);

	h = siphash_2u64(h, (u64)s->nk << 32 | (u64)s->nu << 16 | s->sflags, &tables.key);
	if (s->labels_size)
		h = siphash_2u64(h, siphash(s->labels, s->labels_size, &tables.key), &tables.key);
	return h ?: 1;
}

/* What a table entry is counted by: its stack, thread, and event or reason. */
struct agg_key {
	u64 stack;
	u32 tid;
	u16 type;	/* CAUSALPROF_REC_COUNT or _OFF_CPU_COUNT */
	u8 sub;		/* the event of a COUNT, the reason of an OFF_CPU_COUNT */
};

static u32 key_hash(const struct agg_key *k)
{
	u64 h = k->stack ^ ((u64)k->tid << 16 | (u64)k->type << 8 | k->sub) *
			   0x9e3779b97f4a7c15ULL;

	return (u32)(h ^ (h >> 32));
}

static bool key_eq(const union agg_ent *e, const struct agg_key *k)
{
	if (e->hdr.type != k->type)
		return false;
	if (k->type == CAUSALPROF_REC_COUNT)
		return e->count.stack == k->stack && e->count.tid == k->tid &&
		       e->count.event == k->sub;
	return e->wait.stack == k->stack && e->wait.tid == k->tid && e->wait.reason == k->sub;
}

/* Handler: whether this CPU has sent the stack; remembers it if there is room. */
static bool seen(struct agg_cpu *ac, u64 id, bool *room)
{
	u32 mask = tables.stacks - 1, i, slot;

	*room = false;
	for (i = 0; i < PROBE_MAX; i++) {
		slot = ((u32)id + i) & mask;
		if (ac->seen[slot] == id)
			return true;
		if (!ac->seen[slot]) {
			*room = true;
			ac->seen[slot] = id;
			return false;
		}
	}
	return false;
}

static void forget(struct agg_cpu *ac, u64 id)
{
	u32 mask = tables.stacks - 1, i, slot;

	for (i = 0; i < PROBE_MAX; i++) {
		slot = ((u32)id + i) & mask;
		if (ac->seen[slot] == id) {
			ac->seen[slot] = 0;
			return;
		}
	}
}

static struct causalprof_stack *put_stack(struct cp_ring *ring, const struct cp_agg_sample *s,
					  u64 id, bool remembered, unsigned long *next)
{
	struct causalprof_stack *rec;
	u32 size = struct_size(rec, ips, s->nk + s->nu) + s->labels_size;

	rec = cp_ring_reserve(ring, size, next);
	if (!rec)
		return NULL;
	rec->hdr.type = CAUSALPROF_REC_STACK;
	rec->hdr.flags = remembered ? 0 : CAUSALPROF_STACK_F_AGAIN;
	rec->hdr.size = size;
	rec->id = id;
	rec->cpu = s->cpu;
	rec->sflags = s->sflags;
	rec->pad = 0;
	rec->nr_kernel = s->nk;
	rec->nr_user = s->nu;
	memcpy(rec->ips, s->ips, (s->nk + s->nu) * sizeof(u64));
	memcpy(&rec->ips[s->nk + s->nu], s->labels, s->labels_size);
	return rec;
}

/*
 * The entry of key k in the CPU's active table, a new one (zeroed but for
 * its key, to be filled in by the caller: *fresh) if it has none, with
 * the stack's STACK written into ring first if this CPU has not sent it.
 * Between enter() and leave(): see the header.
 */
static union agg_ent *find_or_add(struct agg_cpu *ac, struct cp_ring *ring,
				  const struct cp_agg_sample *s, const struct agg_key *k,
				  bool *fresh, unsigned long *start, unsigned long *next,
				  enum cp_agg_result *ret)
{
	u32 mask = 2 * tables.entries - 1, h = key_hash(k), i, slot = 0, e;
	struct agg_table *t = &ac->t[READ_ONCE(ac->active)];
	union agg_ent *c = NULL;
	bool room;

	*fresh = false;
	*ret = CP_AGG_FULL;
	for (i = 0; i < PROBE_MAX; i++) {
		slot = (h + i) & mask;
		e = t->index[slot];
		if (!e)
			break;
		c = &t->ents[e - 1];
		if (key_eq(c, k))
			return c;
		c = NULL;
	}
	if (i == PROBE_MAX || t->nr == tables.entries)
		return NULL;

	/* A key already in the table: its CPU has sent its stack. */
	if (!seen(ac, k->stack, &room)) {
		*start = ring->head;
		if (!put_stack(ring, s, k->stack, room, next)) {
			if (room)
				forget(ac, k->stack);
			*ret = CP_AGG_LOST;
			return NULL;
		}
		cp_ring_commit(ring, *next);
	}

	c = &t->ents[t->nr];
	memset(c, 0, sizeof(*c));
	c->hdr.type = k->type;
	t->slot[t->nr] = slot;
	t->index[slot] = ++t->nr;
	/* Half full: drain soon rather than fall back to SAMPLEs. */
	if (t->nr == tables.entries / 2)
		cp_stream_kick();
	*fresh = true;
	return c;
}

/* The producer enters its CPU's active table; pairs with swap_tables(). */
static void enter(struct agg_cpu *ac)
{
	WRITE_ONCE(ac->seq, ac->seq + 1);
	/* Pairs with the drain's smp_mb() in swap_tables(): see the header. */
	smp_mb();
}

static void leave(struct agg_cpu *ac)
{
	/* Pairs with the drain's smp_mb() after its wait: our writes are seen. */
	smp_store_release(&ac->seq, ac->seq + 1);
}

static void count_sample(struct causalprof_count *c, const struct cp_agg_sample *s, u64 id,
			 bool fresh)
{
	if (fresh) {
		c->hdr.size = sizeof(*c);
		c->time_ns = s->time_ns;
		c->stack = id;
		c->pid = s->pid;
		c->tid = s->tid;
		c->cpu = s->cpu;
		c->event = s->event;
	}
	c->count++;
	c->weight += s->period;
}

static void count_wait(struct causalprof_off_cpu_count *c, const struct cp_agg_sample *s,
		       const struct cp_agg_wait *w, u64 id, bool fresh)
{
	if (fresh) {
		c->hdr.size = sizeof(*c);
		c->time_ns = s->time_ns;
		c->stack = id;
		c->pid = s->pid;
		c->tid = s->tid;
		c->cpu = s->cpu;
		c->reason = w->reason;
	}
	c->count++;
	c->wait_ns += w->wait_ns;
	c->delay_ns += w->delay_ns;
}

/*
 * Producer, on s->cpu, with cp_stream_cpu_get(): counts the sample, or
 * with w the off-CPU wait whose stacks s has (s->period unused). Writes
 * the stack's STACK into ring first if this CPU has not sent it.
 */
static enum cp_agg_result count(struct cp_ring *ring, const struct cp_agg_sample *s,
				const struct cp_agg_wait *w, unsigned long *start,
				unsigned long *next)
{
	struct agg_cpu *ac = this_cpu_ptr(tables.cpus);
	struct agg_key k = {
		.tid = s->tid,
		.type = w ? CAUSALPROF_REC_OFF_CPU_COUNT : CAUSALPROF_REC_COUNT,
		.sub = w ? w->reason : s->event,
	};
	enum cp_agg_result ret;
	union agg_ent *e;
	bool fresh;

	*next = 0;
	/* A CPU that came online after the start has no tables. */
	if (unlikely(!ac->seen))
		return CP_AGG_FULL;
	k.stack = cp_agg_hash(s);
	enter(ac);
	e = find_or_add(ac, ring, s, &k, &fresh, start, next, &ret);
	if (e && w)
		count_wait(&e->wait, s, w, k.stack, fresh);
	else if (e)
		count_sample(&e->count, s, k.stack, fresh);
	leave(ac);
	return e ? CP_AGG_COUNTED : ret;
}

enum cp_agg_result cp_agg_sample(struct cp_ring *ring, const struct cp_agg_sample *s,
				 unsigned long *start, unsigned long *next)
{
	return count(ring, s, NULL, start, next);
}

enum cp_agg_result cp_agg_wait(struct cp_ring *ring, const struct cp_agg_sample *s,
			       const struct cp_agg_wait *w, unsigned long *start,
			       unsigned long *next)
{
	return count(ring, s, w, start, next);
}

/* Drain: the handler's table becomes the drain's; see the header. */
static void swap_tables(struct agg_cpu *ac)
{
	unsigned int s;

	/* Publishes the clear of the table the handler gets (cp_agg_commit()). */
	smp_store_release(&ac->active, !ac->active);
	/* Orders the index's store before the sequence's load. */
	smp_mb();
	s = READ_ONCE(ac->seq);
	if (s & 1)
		while (READ_ONCE(ac->seq) == s)
			cpu_relax();
	/* The handler's writes to the table it left are visible from here. */
	smp_mb();
}

/*
 * Drain, under the drain lock, before it reads cpu's ring head: if the
 * table it owns is empty, takes the handler's counts so far.
 */
void cp_agg_prepare(int cpu)
{
	struct agg_cpu *ac = per_cpu_ptr(tables.cpus, cpu);

	if (!ac->t[!ac->active].nr && READ_ONCE(ac->t[ac->active].nr))
		swap_tables(ac);
}

/* Drain: the entries of cpu's table not yet sent, from the message's cursor. */
const struct causalprof_record_hdr *cp_agg_next(int cpu)
{
	struct agg_cpu *ac = per_cpu_ptr(tables.cpus, cpu);
	struct agg_table *mine = &ac->t[!ac->active];

	return ac->next < mine->nr ? &mine->ents[ac->next].hdr : NULL;
}

void cp_agg_advance(int cpu)
{
	per_cpu_ptr(tables.cpus, cpu)->next++;
}

/* Drain: a new message starts; the last one's unsent entries are taken again. */
void cp_agg_rewind(int cpu)
{
	struct agg_cpu *ac = per_cpu_ptr(tables.cpus, cpu);

	ac->next = ac->t[!ac->active].sent;
}

/* Drain: the message is delivered (or dropped); a table all sent is cleared. */
void cp_agg_commit(int cpu)
{
	struct agg_cpu *ac = per_cpu_ptr(tables.cpus, cpu);
	struct agg_table *mine = &ac->t[!ac->active];
	u32 i;

	mine->sent = ac->next;
	if (!mine->nr || mine->sent < mine->nr)
		return;
	for (i = 0; i < mine->nr; i++)
		mine->index[mine->slot[i]] = 0;
	mine->nr = 0;
	mine->sent = 0;
	ac->next = 0;
}

/*
 * Drain, once no handler runs: whether the handler's table is empty, so
 * that the drain's table, once sent, holds all of cpu's counts.
 */
bool cp_agg_drained(int cpu)
{
	struct agg_cpu *ac = per_cpu_ptr(tables.cpus, cpu);

	return !READ_ONCE(ac->t[ac->active].nr);
}

static void free_cpu(struct agg_cpu *ac)
{
	int i;

	for (i = 0; i < 2; i++) {
		kvfree(ac->t[i].ents);
		kvfree(ac->t[i].index);
		kvfree(ac->t[i].slot);
	}
	kvfree(ac->seen);
}

void cp_agg_free(void)
{
	int cpu;

	if (!tables.cpus)
		return;
	for_each_possible_cpu(cpu)
		free_cpu(per_cpu_ptr(tables.cpus, cpu));
	free_percpu(tables.cpus);
	tables.cpus = NULL;
}

static void *alloc_array(u32 n, size_t size, int node)
{
	/*
	 * Charged to the caller's memory cgroup, and failing there rather
	 * than calling its OOM killer or warning: the start fails, saying so.
	 */
	return kvzalloc_node(array_size(n, size),
			     GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL, node);
}

static int alloc_cpu(struct agg_cpu *ac, int node)
{
	int i;

	for (i = 0; i < 2; i++) {
		ac->t[i].ents = alloc_array(tables.entries, sizeof(*ac->t[i].ents), node);
		ac->t[i].index = alloc_array(2 * tables.entries, sizeof(*ac->t[i].index), node);
		ac->t[i].slot = alloc_array(tables.entries, sizeof(*ac->t[i].slot), node);
		if (!ac->t[i].ents || !ac->t[i].index || !ac->t[i].slot)
			return -ENOMEM;
	}
	ac->seen = alloc_array(tables.stacks, sizeof(*ac->seen), node);
	return ac->seen ? 0 : -ENOMEM;
}

/*
 * Process context, before any handler runs: entries per table (16 to
 * 65536), about 210 bytes an entry, for each CPU online now. Possible CPUs
 * may be many more than those that ever run (firmware lists hotplug
 * slots); a CPU that comes online during the session has no tables and
 * sends SAMPLE records, counted as fallback.
 */
int cp_agg_start(u32 entries)
{
	int cpu;

	tables.entries = roundup_pow_of_two(entries);
	tables.stacks = tables.entries * STACKS_PER_ENTRY;
	get_random_bytes(&tables.key, sizeof(tables.key));
	tables.cpus = alloc_percpu_gfp(struct agg_cpu, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!tables.cpus)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		if (alloc_cpu(per_cpu_ptr(tables.cpus, cpu), cpu_to_node(cpu))) {
			cp_agg_free();
			return -ENOMEM;
		}
	}
	return 0;
}
