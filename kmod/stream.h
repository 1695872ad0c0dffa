/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's rings and their one consumer, which sends the records
 * to the owner through the sink the netlink layer supplies (see stream.c).
 */

#ifndef _CAUSALPROF_STREAM_H
#define _CAUSALPROF_STREAM_H

#include <linux/percpu.h>
#include <linux/types.h>

struct cp_config;
struct cp_ring;
struct netlink_ext_ack;

int cp_stream_start(const struct cp_config *cfg, u64 id, struct netlink_ext_ack *extack);
void cp_stream_open(void);
void cp_stream_stop(void);
bool cp_stream_finish(bool hurry);
void cp_stream_free(void);
void cp_stream_owner_gone(void);
int cp_stream_flush(void);

/*
 * The producer's side of a CPU's sample ring and count table belongs to one
 * context of that CPU at a time: the overflow handler, or the scheduler
 * hook that ends an off-CPU wait. One that finds it taken (an NMI that
 * interrupted the hrtimer's handler or the hook) gets false and drops its
 * record, counted; either way it calls cp_stream_cpu_put() after.
 */
DECLARE_PER_CPU(int, cp_stream_busy);

static inline bool cp_stream_cpu_get(void)
{
	return this_cpu_inc_return(cp_stream_busy) == 1;
}

static inline void cp_stream_cpu_put(void)
{
	this_cpu_dec(cp_stream_busy);
}

/* The producers' side, on their CPU, with cp_stream_cpu_get() */
struct cp_ring *cp_stream_cpu_ring(int cpu);
void cp_stream_filled(const struct cp_ring *ring, unsigned long start, unsigned long next);
void cp_stream_cpu_wrote(struct cp_ring *ring, unsigned long start, unsigned long next);
void cp_stream_kick(void);

/* The sideband's side */
unsigned long cp_stream_sb_lock(void);
void cp_stream_sb_unlock(unsigned long flags);
void *cp_stream_sb_reserve(u32 size, unsigned long *next);
void cp_stream_sb_commit(unsigned long next);
void cp_stream_sb_lose(void);
void cp_stream_sb_room(size_t bytes);
int cp_stream_emit(const void *rec, u32 size);
bool cp_stream_result_room(void);

#endif /* _CAUSALPROF_STREAM_H */
