/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's rings and their one consumer, which sends the records
 * to the owner through the sink the netlink layer supplies (see stream.c).
 */

#ifndef _CAUSALPROF_STREAM_H
#define _CAUSALPROF_STREAM_H

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

/* The overflow handler's side */
struct cp_ring *cp_stream_cpu_ring(int cpu);
void cp_stream_filled(const struct cp_ring *ring, unsigned long start, unsigned long next);
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
