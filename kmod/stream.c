// SPDX-License-Identifier: GPL-2.0
/*
 * The session's rings and their one consumer: a delayed work that drains
 * them every drain_ms, or at once when a producer (the overflow handler,
 * the scheduler hook that ends an off-CPU wait) finds a ring half full
 * (through an irq_work: the handler may be an NMI), into
 * CAUSALPROF_CMD_RECORDS messages queued on the session owner's socket
 * by the sink the netlink layer supplies (cp_owner.send).
 *
 * Records leave a ring only once the message that carries them is queued
 * on the owner's socket. When its queue is full, the records stay and the
 * next drain tries again; meanwhile the rings fill and the handler counts
 * what it cannot store, and LOST records tell the owner. Sessions without
 * an owner (started through /proc), or whose owner is gone, have their
 * records drained and counted as dropped. The owner is gone from the
 * moment its socket starts closing: the release notifier says so
 * (cp_stream_owner_gone()) before the close returns, and a socket
 * orphaned by its close is dead. Records never go to the owner's port id,
 * which the close frees for anyone to bind.
 *
 * Nothing is sent before the owner has its START reply (cp_stream_open()):
 * a reply or ack that finds the owner's queue full is dropped, so records
 * must not fill it first. Until then the rings only fill; the sideband ring
 * is large enough (sideband_kb) for the initial dump of a whole system.
 * Nor is anything sent from inside the owner's STOP request (see
 * session.c).
 *
 * The sideband ring keeps room for one experiment's result: the hooks'
 * records, which any process a system-wide session follows can make in
 * any number (mprotect(PROT_EXEC) in a loop, with long paths), may not use
 * it, only cp_stream_emit() may, and an experiment starts only while that
 * room is free (cp_stream_result_room()). So the EXPERIMENT record of an
 * experiment is never lost, however full the hooks keep the ring.
 *
 * A session may drain at a period of its own (CAUSALPROF_A_DRAIN_MS): an
 * owner that reads the records only at points in time it chooses (cprof
 * record --every) asks for a long one and flushes at those points
 * (cp_stream_flush(), CAUSALPROF_CMD_FLUSH), so that neither a worker nor
 * the owner wakes in between, as perf's reader sleeps until its buffer's
 * watermark. A flush sends from inside the owner's request, before its
 * ack: the records leave room for that (see the owner's send).
 *
 * A benchmark knob, discard_samples, makes the drains skip the sample
 * rings' records unread (counted as dropped): what writing the records
 * costs, without what sending them does. The sideband still flows.
 *
 * Order: every drain pass first notes each CPU ring's head, then the
 * sideband ring's, and sends the sideband records up to its head before
 * any sample. A sideband record written before a sample (an MMAP before
 * the code it maps runs) is therefore never sent after that sample.
 *
 * Aggregated sessions (agg.c): before it notes a CPU ring's head, the
 * pass takes that CPU's counts so far if the table it owns is empty, and
 * sends the table's COUNT records after the ring's records up to that
 * head, which hold the STACKs they name. A message that does not deliver
 * moves nothing, in the rings or the tables; a table leaves the drain's
 * hands only once all of it is delivered. The last drain sends every
 * table's counts before the END.
 */

#include "agg.h"
#include "causal.h"
#include "ring.h"
#include "shared.h"
#include "stats.h"
#include "stream.h"

#include <linux/causalprof.h>
#include <linux/irq_work.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include <linux/workqueue.h>
#include <net/sock.h>

static unsigned int ring_kb = 512;
module_param(ring_kb, uint, 0644);
MODULE_PARM_DESC(ring_kb, "Sample ring per CPU, KiB, rounded up to a power of two (4 to 65536, default 512)");

static unsigned int sideband_kb = 1024;
module_param(sideband_kb, uint, 0644);
MODULE_PARM_DESC(sideband_kb, "Ring of mmap/comm/fork/exit records, KiB, rounded up to a power of two (16 to 65536, default 1024)");

static unsigned int drain_ms = 100;
module_param(drain_ms, uint, 0644);
MODULE_PARM_DESC(drain_ms, "Drain the rings every N ms, 1 to 1000 (default 100); a half-full ring drains at once");

static bool discard_samples;
module_param(discard_samples, bool, 0644);
MODULE_PARM_DESC(discard_samples, "Benchmark: drains drop the sample rings' records unread, as records_dropped (default 0)");

#define RING_KB_MIN		4
#define SIDEBAND_KB_MIN		16
#define RING_KB_MAX		65536
/* Records per message: with its headers, a message fits in 32 KiB. */
#define BATCH_MAX		(32 * 1024 - 512)
/* Messages one drain sends before it lets other work run. */
#define DRAIN_ROUNDS		64
/* Kept free in the sideband ring for an EXPERIMENT record, padding included. */
#define RESULT_ROOM		(2 * CP_EXP_RECORD_MAX)

struct cpu_state {
	unsigned long end;	/* this pass: the ring's head */
	unsigned long next;	/* this pass: the tail once the batch is sent */
	u64 samples0;		/* counters when the session started */
	u64 lost0;
	u64 lost_seen;		/* lost as of the last LOST record */
	u64 lost_next;		/* ... once the batch is sent */
	u64 fallback0;
	u64 off0;		/* off-CPU waits recorded, */
	u64 off_lost0;		/* not recorded, */
	u64 off_capped0;	/* of those capped, when the session started */
	u64 off_lost_seen;	/* off_cpu_lost as of the last such LOST record */
	u64 off_lost_next;
};

static struct {
	struct cp_ring __percpu *rings;
	struct cp_ring sideband;
	u64 sb_lost;		/* under sb_lock */
	u64 sb_lost_seen;
	u64 sb_lost_next;
	unsigned long sb_next;
	struct cpu_state *cpus;	/* by CPU number */

	struct sock *sk;	/* the owner's socket, referenced; NULL: no owner */
	int (*send)(struct sock *sk, u64 id, const void *recs, size_t len);
	u64 id;
	bool gone;		/* the owner's socket is closing */
	bool dropping;		/* nobody to send to: drop */
	bool discard;		/* discard_samples when the session started */
	unsigned int drain_ms;	/* the session's period; 0: drain_ms's */
	bool agg;		/* CAUSALPROF_F_AGGREGATE */
	bool running;		/* producers may write; the work re-arms */
	bool held;		/* the owner has no START reply yet */
	bool end_next;		/* the batch carries the END record */
	bool ended;

	u8 *batch;
	size_t len;
	unsigned int nr;
} strm;

/*
 * Drains are serialized by drain_lock; sideband writers by sb_lock, which
 * tracepoint probes and the kprobe take with preemption off: a raw spinlock
 * (a spinlock_t sleeps on PREEMPT_RT). Under it, only copies into the ring
 * and irq_work_queue().
 */
static DEFINE_MUTEX(drain_lock);
static DEFINE_RAW_SPINLOCK(sb_lock);

DEFINE_PER_CPU(int, cp_stream_busy);

static unsigned long drain_interval(void)
{
	unsigned int ms = READ_ONCE(strm.drain_ms);

	return msecs_to_jiffies(ms ? ms : clamp(READ_ONCE(drain_ms), 1U, 1000U));
}

static void drain_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(drain_work, drain_work_fn);

static void kick_fn(struct irq_work *work)
{
	if (READ_ONCE(strm.running))
		mod_delayed_work(system_unbound_wq, &drain_work, 0);
}

static struct irq_work kick = IRQ_WORK_INIT(kick_fn);

struct cp_ring *cp_stream_cpu_ring(int cpu)
{
	return per_cpu_ptr(strm.rings, cpu);
}

/* From any context, NMI included: drain soon. */
void cp_stream_kick(void)
{
	irq_work_queue(&kick);
}

/*
 * From any context, NMI included, once the producer moved a ring's head
 * from start to next: drain soon if that filled the ring past half. Only
 * the record that crosses the mark asks, so an owner that does not read
 * does not make every sample queue a drain; the periodic drain retries.
 */
void cp_stream_filled(const struct cp_ring *ring, unsigned long start, unsigned long next)
{
	unsigned long half = cp_ring_size(ring) / 2;
	unsigned long tail = READ_ONCE(ring->tail);

	if (next - tail > half && start - tail <= half)
		irq_work_queue(&kick);
}

/*
 * A producer, on its CPU, moved that CPU's ring's head from start to
 * next: the ring's high-water mark, and drain soon if it is half full.
 */
void cp_stream_cpu_wrote(struct cp_ring *ring, unsigned long start, unsigned long next)
{
	struct cp_cpu_stats *st = this_cpu_ptr(&cp_cpu_stats);
	unsigned long used = cp_ring_used(ring, next);

	if (used > local64_read(&st->ring_hwm))
		local64_set(&st->ring_hwm, used);
	cp_stream_filled(ring, start, next);
}

/*
 * Sideband writers, never from NMI: cp_stream_sb_lock(), then
 * cp_stream_sb_reserve() and, if that found room, cp_stream_sb_commit(),
 * then cp_stream_sb_unlock().
 */
unsigned long cp_stream_sb_lock(void)
	__acquires(&sb_lock)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sb_lock, flags);
	return flags;
}

void cp_stream_sb_unlock(unsigned long flags)
	__releases(&sb_lock)
{
	raw_spin_unlock_irqrestore(&sb_lock, flags);
}

/*
 * Room for a record, or NULL (the record counted as lost) when the ring is
 * full: short of the room kept for an experiment's result.
 */
void *cp_stream_sb_reserve(u32 size, unsigned long *next)
{
	void *rec;

	lockdep_assert_held(&sb_lock);
	rec = cp_ring_reserve_keep(&strm.sideband, size, RESULT_ROOM, next);
	if (!rec) {
		strm.sb_lost++;
		cp_stat_add(CAUSALPROF_STAT_SIDEBAND_LOST, 1);
	}
	return rec;
}

/* A sideband record that could not be made, counted as lost. */
void cp_stream_sb_lose(void)
{
	unsigned long flags = cp_stream_sb_lock();

	strm.sb_lost++;
	cp_stat_add(CAUSALPROF_STAT_SIDEBAND_LOST, 1);
	cp_stream_sb_unlock(flags);
}

void cp_stream_sb_commit(unsigned long next)
{
	unsigned long start = strm.sideband.head;

	lockdep_assert_held(&sb_lock);
	cp_ring_commit(&strm.sideband, next);
	cp_stream_filled(&strm.sideband, start, next);
}

/*
 * An experiment's result (its header's size is size, at most
 * CP_EXP_RECORD_MAX), built by the caller, into the sideband ring: after
 * the sideband records written before it, before the session's END. It
 * may use the room kept for it, which is free when the experiment starts
 * (see cp_stream_result_room()): it is not lost. It does not drain to make
 * room: the caller may be serving a request of the owner, whose ack must
 * not queue up behind records.
 */
int cp_stream_emit(const void *rec, u32 size)
{
	unsigned long next, flags;
	void *p;

	flags = cp_stream_sb_lock();
	p = cp_ring_reserve(&strm.sideband, size, &next);
	if (WARN_ON_ONCE(!p)) {
		strm.sb_lost++;
		cp_stat_add(CAUSALPROF_STAT_SIDEBAND_LOST, 1);
	}
	if (p) {
		memcpy(p, rec, size);
		cp_stream_sb_commit(next);
	}
	cp_stream_sb_unlock(flags);
	return p ? 0 : -ENOSPC;
}

static bool put(const void *rec, u32 size)
{
	if (strm.len + size > BATCH_MAX)
		return false;
	memcpy(strm.batch + strm.len, rec, size);
	strm.len += size;
	strm.nr++;
	return true;
}

static bool put_lost(u32 cpu, u16 flags, u64 lost)
{
	struct causalprof_lost rec = {
		.hdr = {
			.type = CAUSALPROF_REC_LOST,
			.flags = flags,
			.size = sizeof(rec),
		},
		.time_ns = ktime_get_mono_fast_ns(),
		.lost = lost,
		.cpu = cpu,
	};

	return put(&rec, sizeof(rec));
}

/* A LOST record for every CPU (and the sideband) that lost records. */
static bool put_losses(void)
{
	struct cpu_state *cs;
	u64 lost;
	int cpu;

	for_each_possible_cpu(cpu) {
		strm.cpus[cpu].lost_next = strm.cpus[cpu].lost_seen;
		strm.cpus[cpu].off_lost_next = strm.cpus[cpu].off_lost_seen;
	}
	strm.sb_lost_next = strm.sb_lost_seen;

	for_each_possible_cpu(cpu) {
		cs = &strm.cpus[cpu];
		lost = local64_read(&per_cpu(cp_cpu_stats, cpu).lost);
		if (lost != cs->lost_seen) {
			if (!put_lost(cpu, 0, lost - cs->lost_seen))
				return false;
			cs->lost_next = lost;
		}
		lost = local64_read(&per_cpu(cp_cpu_stats, cpu).off_cpu_lost);
		if (lost != cs->off_lost_seen) {
			if (!put_lost(cpu, CAUSALPROF_LOST_F_OFF_CPU, lost - cs->off_lost_seen))
				return false;
			cs->off_lost_next = lost;
		}
	}
	lost = READ_ONCE(strm.sb_lost);
	if (lost == strm.sb_lost_seen)
		return true;
	if (!put_lost(CAUSALPROF_LOST_CPU_NONE, CAUSALPROF_LOST_F_SIDEBAND,
		      lost - strm.sb_lost_seen))
		return false;
	strm.sb_lost_next = lost;
	return true;
}

static bool put_end(void)
{
	struct causalprof_end rec = {
		.hdr = {
			.type = CAUSALPROF_REC_END,
			.size = sizeof(rec),
		},
		.time_ns = ktime_get_mono_fast_ns(),
	};
	struct cp_cpu_stats *st;
	int cpu;

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(&cp_cpu_stats, cpu);
		rec.samples += local64_read(&st->samples) - strm.cpus[cpu].samples0;
		rec.lost += local64_read(&st->lost) - strm.cpus[cpu].lost0;
		rec.fallback += local64_read(&st->fallback) - strm.cpus[cpu].fallback0;
		rec.off_cpu += local64_read(&st->off_cpu) - strm.cpus[cpu].off0;
		rec.off_cpu_lost += local64_read(&st->off_cpu_lost) - strm.cpus[cpu].off_lost0;
		rec.off_cpu_capped += local64_read(&st->off_cpu_capped) -
				      strm.cpus[cpu].off_capped0;
	}
	return put(&rec, sizeof(rec));
}

/* Moves records from *pos up to end into the batch while they fit. */
static bool take(const struct cp_ring *r, unsigned long *pos, unsigned long end)
{
	const struct causalprof_record_hdr *h;

	while ((h = cp_ring_read(r, pos, end))) {
		if (!put(h, h->size))
			return false;
		*pos += h->size;
	}
	return true;
}

/* Moves cpu's unsent COUNT (and OFF_CPU_COUNT) records into the batch while they fit. */
static bool take_counts(int cpu)
{
	const struct causalprof_record_hdr *h;

	while ((h = cp_agg_next(cpu))) {
		if (!put(h, h->size))
			return false;
		cp_agg_advance(cpu);
	}
	return true;
}

/* discard_samples: skips cpu's unsent COUNT records; returns how many. */
static unsigned int skip_counts(int cpu)
{
	unsigned int n = 0;

	while (cp_agg_next(cpu)) {
		cp_agg_advance(cpu);
		n++;
	}
	return n;
}

/*
 * discard_samples: moves *pos past the records up to end without reading
 * more than their headers; returns how many there were.
 */
static unsigned int skip(const struct cp_ring *r, unsigned long *pos, unsigned long end)
{
	const struct causalprof_record_hdr *h;
	unsigned int n = 0;

	while ((h = cp_ring_read(r, pos, end))) {
		*pos += h->size;
		n++;
	}
	return n;
}

/* 0 when the batch is delivered or dropped, else the error to retry on. */
static int deliver(void)
{
	int ret;

	if (!strm.dropping && (READ_ONCE(strm.gone) || sock_flag(strm.sk, SOCK_DEAD))) {
		pr_debug("session %llu: owner gone: dropping its records\n", strm.id);
		strm.dropping = true;
	}
	if (!strm.dropping) {
		ret = strm.send(strm.sk, strm.id, strm.batch, strm.len);
		if (!ret) {
			cp_stat_add(CAUSALPROF_STAT_RECORDS_SENT, strm.nr);
			return 0;
		}
		if (ret == -EAGAIN || ret == -ENOMEM)
			return ret;
		pr_debug("session %llu: owner unreachable (%d): dropping its records\n",
			 strm.id, ret);
		strm.dropping = true;
	}
	cp_stat_add(CAUSALPROF_STAT_RECORDS_DROPPED, strm.nr);
	return 0;
}

/*
 * One message. Returns 1 when there is more to send, 0 when the rings are
 * empty (and, when final, the END record is out), or the error that kept
 * the message from the owner, in which case nothing moved.
 */
static int drain_once(bool final)
{
	unsigned int skipped = 0;
	struct cpu_state *cs;
	bool fits, more = false;
	int cpu, ret;

	lockdep_assert_held(&drain_lock);
	strm.len = 0;
	strm.nr = 0;
	for_each_possible_cpu(cpu) {
		if (strm.agg) {
			/* Before the head: the STACKs its counts name are in. */
			cp_agg_prepare(cpu);
			cp_agg_rewind(cpu);
		}
		strm.cpus[cpu].end = cp_ring_head(per_cpu_ptr(strm.rings, cpu));
	}
	strm.sb_next = strm.sideband.tail;

	fits = put_losses() &&
	       take(&strm.sideband, &strm.sb_next, cp_ring_head(&strm.sideband));
	for_each_possible_cpu(cpu) {
		cs = &strm.cpus[cpu];
		cs->next = per_cpu_ptr(strm.rings, cpu)->tail;
		if (strm.discard) {
			skipped += skip(per_cpu_ptr(strm.rings, cpu), &cs->next, cs->end);
			if (strm.agg)
				skipped += skip_counts(cpu);
		} else if (fits) {
			fits = take(per_cpu_ptr(strm.rings, cpu), &cs->next, cs->end) &&
			       (!strm.agg || take_counts(cpu));
		}
	}
	/* The last drain: every count out before the END. */
	if (fits && final && strm.agg)
		for_each_possible_cpu(cpu)
			if (cp_agg_next(cpu) || !cp_agg_drained(cpu))
				more = true;
	strm.end_next = false;
	if (fits && !more && final && !strm.ended) {
		strm.end_next = put_end();
		fits = strm.end_next;
	}

	if (strm.nr) {
		ret = deliver();
		if (ret)
			return ret;
	}
	cp_ring_consume(&strm.sideband, strm.sb_next);
	strm.sb_lost_seen = strm.sb_lost_next;
	for_each_possible_cpu(cpu) {
		cs = &strm.cpus[cpu];
		cp_ring_consume(per_cpu_ptr(strm.rings, cpu), cs->next);
		cs->lost_seen = cs->lost_next;
		cs->off_lost_seen = cs->off_lost_next;
		if (strm.agg)
			cp_agg_commit(cpu);
	}
	if (skipped)
		cp_stat_add(CAUSALPROF_STAT_RECORDS_DROPPED, skipped);
	if (strm.end_next)
		strm.ended = true;
	return fits && !more ? 0 : 1;
}

static int drain(bool final)
{
	int ret, rounds = 0;

	if (strm.held)
		return 0;
	do
		ret = drain_once(final);
	while (ret > 0 && ++rounds < DRAIN_ROUNDS);
	return ret;
}

static void drain_work_fn(struct work_struct *work)
{
	int ret;

	mutex_lock(&drain_lock);
	ret = drain(false);
	mutex_unlock(&drain_lock);
	if (READ_ONCE(strm.running))
		queue_delayed_work(system_unbound_wq, &drain_work, ret > 0 ? 0 : drain_interval());
}

/*
 * The owner's CAUSALPROF_CMD_FLUSH, from inside its request: every record
 * in the rings now (and every count so far) queued on its socket before
 * the request's ack, which the sends leave room for. 0, or -ENOBUFS when
 * its queue could not take them all: the rest follows with the periodic
 * drains. The loop ends: what producers add meanwhile is bounded by the
 * owner's queue, which it does not read until the ack. The next periodic
 * drain is a whole period away.
 */
int cp_stream_flush(void)
{
	int ret;

	mutex_lock(&drain_lock);
	do {
		ret = drain(false);
		cond_resched();
	} while (ret > 0);
	mutex_unlock(&drain_lock);
	if (READ_ONCE(strm.running))
		mod_delayed_work(system_unbound_wq, &drain_work, drain_interval());
	return ret < 0 ? -ENOBUFS : 0;
}

/*
 * Under the session lock, before an experiment starts: the room kept for
 * its result is free (no earlier result waits in it for the owner).
 */
bool cp_stream_result_room(void)
{
	struct cp_ring *r = &strm.sideband;
	unsigned long flags;
	bool ok;

	flags = cp_stream_sb_lock();
	ok = r->head - READ_ONCE(r->tail) + RESULT_ROOM <= cp_ring_size(r);
	cp_stream_sb_unlock(flags);
	return ok;
}

/*
 * Process context, from the initial sideband dump: make room by draining,
 * once the stream is open.
 */
void cp_stream_sb_room(size_t bytes)
{
	struct cp_ring *r = &strm.sideband;

	if (cp_ring_size(r) - (READ_ONCE(r->head) - READ_ONCE(r->tail)) >= bytes + RESULT_ROOM)
		return;
	mutex_lock(&drain_lock);
	drain(false);
	mutex_unlock(&drain_lock);
}

static size_t ring_bytes(unsigned int kb, unsigned int min_kb)
{
	return roundup_pow_of_two((size_t)clamp(kb, min_kb, RING_KB_MAX) * 1024);
}

static void free_rings(void)
{
	int cpu;

	if (strm.rings) {
		for_each_possible_cpu(cpu)
			cp_ring_destroy(per_cpu_ptr(strm.rings, cpu));
		free_percpu(strm.rings);
		strm.rings = NULL;
	}
	cp_ring_destroy(&strm.sideband);
	cp_agg_free();
	kfree(strm.cpus);
	strm.cpus = NULL;
	kvfree(strm.batch);
	strm.batch = NULL;
}

/*
 * Allocates the rings (ring_kb per CPU, sideband_kb) and starts draining
 * them to cfg's owner, in messages that carry id.
 */
int cp_stream_start(const struct cp_config *cfg, u64 id, struct netlink_ext_ack *extack)
{
	size_t size = ring_bytes(READ_ONCE(ring_kb), RING_KB_MIN);
	struct cp_cpu_stats *st;
	struct cpu_state *cs;
	int cpu, ret;

	strm.cpus = kcalloc(nr_cpu_ids, sizeof(*strm.cpus), GFP_KERNEL);
	strm.batch = kvmalloc(BATCH_MAX, GFP_KERNEL);
	strm.rings = alloc_percpu(struct cp_ring);
	if (!strm.cpus || !strm.batch || !strm.rings)
		goto err_nomem;
	for_each_possible_cpu(cpu) {
		ret = cp_ring_init(per_cpu_ptr(strm.rings, cpu), size, cpu_to_node(cpu));
		if (ret)
			goto err_nomem;
	}
	ret = cp_ring_init(&strm.sideband, ring_bytes(READ_ONCE(sideband_kb), SIDEBAND_KB_MIN),
			   NUMA_NO_NODE);
	if (ret)
		goto err_nomem;
	strm.agg = cfg->flags & CAUSALPROF_F_AGGREGATE;
	if (strm.agg && cp_agg_start(cfg->agg_entries)) {
		free_rings();
		NL_SET_ERR_MSG(extack,
			       "out of memory for the count tables (see CAUSALPROF_A_AGG_ENTRIES)");
		return -ENOMEM;
	}

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(&cp_cpu_stats, cpu);
		cs = &strm.cpus[cpu];
		cs->fallback0 = local64_read(&st->fallback);
		cs->samples0 = local64_read(&st->samples);
		cs->lost0 = local64_read(&st->lost);
		cs->lost_seen = cs->lost0;
		cs->off0 = local64_read(&st->off_cpu);
		cs->off_lost0 = local64_read(&st->off_cpu_lost);
		cs->off_capped0 = local64_read(&st->off_cpu_capped);
		cs->off_lost_seen = cs->off_lost0;
		local64_set(&st->ring_hwm, 0);
	}
	strm.sb_lost = 0;
	strm.sb_lost_seen = 0;
	strm.id = id;
	strm.sk = cfg->owner.sk;
	strm.send = cfg->owner.send;
	if (strm.sk)
		sock_hold(strm.sk);
	WRITE_ONCE(strm.gone, false);
	strm.dropping = !strm.sk;
	strm.discard = READ_ONCE(discard_samples);
	WRITE_ONCE(strm.drain_ms, cfg->drain_ms);
	strm.held = true;
	strm.ended = false;
	WRITE_ONCE(strm.running, true);
	queue_delayed_work(system_unbound_wq, &drain_work, drain_interval());
	return 0;

err_nomem:
	free_rings();
	NL_SET_ERR_MSG(extack, "out of memory for the rings (see ring_kb)");
	return -ENOMEM;
}

/*
 * The owner has its START reply: records may flow, from the next periodic
 * drain on. Not at once: the request's ack is queued on the owner's socket
 * only once the request's handler has returned, and a socket with a small
 * receive buffer that our first message filled would drop it.
 */
void cp_stream_open(void)
{
	mutex_lock(&drain_lock);
	strm.held = false;
	mutex_unlock(&drain_lock);
	mod_delayed_work(system_unbound_wq, &drain_work, drain_interval());
}

/* No more periodic drains. Once nothing writes into the rings any more. */
void cp_stream_stop(void)
{
	if (!READ_ONCE(strm.running))
		return;
	WRITE_ONCE(strm.running, false);
	irq_work_sync(&kick);
	cancel_delayed_work_sync(&drain_work);
}

/*
 * The last drain, ending with the END record, once nothing writes into the
 * rings any more. Returns false when the owner's socket is full: call
 * again later, or with hurry to drop what cannot be delivered now.
 */
bool cp_stream_finish(bool hurry)
{
	int ret;

	cp_stream_stop();
	mutex_lock(&drain_lock);
	strm.held = false;
	do {
		ret = drain(true);
		if (ret < 0 && hurry) {
			pr_debug("session %llu: owner not reading (%d): dropping the rest\n",
				 strm.id, ret);
			strm.dropping = true;
		}
	} while (ret > 0 || (ret < 0 && hurry));
	mutex_unlock(&drain_lock);
	return strm.ended;
}

void cp_stream_free(void)
{
	cp_stream_stop();
	free_rings();
	if (strm.sk)
		sock_put(strm.sk);
	strm.sk = NULL;
}

/*
 * From the netlink release notifier, under the session's owner_lock, when
 * the owner's socket closes: nothing more is sent to it, from now on.
 * Every drain checks this before it sends.
 */
void cp_stream_owner_gone(void)
{
	WRITE_ONCE(strm.gone, true);
}
