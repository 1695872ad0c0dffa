/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU count tables of aggregated sessions: the overflow handler
 * counts, the stream's drain sends (see agg.c).
 */

#ifndef _CAUSALPROF_AGG_H
#define _CAUSALPROF_AGG_H

#include <linux/causalprof.h>
#include <linux/types.h>

struct cp_ring;

#define CP_AGG_ENTRIES_MIN	16
#define CP_AGG_ENTRIES_MAX	65536
#define CP_AGG_ENTRIES_DEFAULT	1024

/* One sample, as the handler took it (or the stacks of an off-CPU wait). */
struct cp_agg_sample {
	const u64 *ips;
	unsigned int nk, nu;
	const void *labels;	/* Go labels after ips[] (golabels.c) */
	unsigned int labels_size;	/* bytes, a multiple of 8; 0: none */
	u64 time_ns;
	u64 period;
	u32 pid, tid;
	u16 cpu;
	u8 event;
	u8 sflags;
};

/* An off-CPU wait, as the hook that ends it sees it (offcpu.c). */
struct cp_agg_wait {
	u64 wait_ns;
	u64 delay_ns;
	u8 reason;		/* enum causalprof_off_cpu_reason */
};

enum cp_agg_result {
	CP_AGG_COUNTED,		/* in the table (its STACK in the ring if new) */
	CP_AGG_FULL,		/* no room in the table: send it as a SAMPLE (OFF_CPU) */
	CP_AGG_LOST,		/* its new STACK found the ring full */
};

int cp_agg_start(u32 entries);
void cp_agg_free(void);
u64 cp_agg_hash(const struct cp_agg_sample *s);

/* The producers' side: *next is 0 unless a STACK went into ring. */
enum cp_agg_result cp_agg_sample(struct cp_ring *ring, const struct cp_agg_sample *s,
				 unsigned long *start, unsigned long *next);
enum cp_agg_result cp_agg_wait(struct cp_ring *ring, const struct cp_agg_sample *s,
			       const struct cp_agg_wait *w, unsigned long *start,
			       unsigned long *next);

/* The drain's side, under its lock: COUNT and OFF_CPU_COUNT records */
void cp_agg_prepare(int cpu);
const struct causalprof_record_hdr *cp_agg_next(int cpu);
void cp_agg_advance(int cpu);
void cp_agg_rewind(int cpu);
void cp_agg_commit(int cpu);
bool cp_agg_drained(int cpu);

#endif /* _CAUSALPROF_AGG_H */
