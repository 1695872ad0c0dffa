/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_REPLAY_H
#define CPROF_REPLAY_H

/*
 * The state of the recorded processes at any moment of the recording: each
 * process's executable mappings and each thread's name, as the MMAP, COMM,
 * FORK and EXIT records (the sideband), replayed in time order, make it
 * (Documentation/recording-format.rst, "Order and time").
 *
 * The sideband is small, so it is copied, sorted and replayed once, before
 * any sample: every mapping and name keeps the interval of the recording in
 * which it held, and a sample asks for the state at its own time. Samples
 * can then be read in file order (they are only roughly in time order)
 * without being held in memory or sorted.
 *
 * A moment is a record's key: its time, then its offset in the file.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/causalprof.h>

#include "htab.h"
#include "strtab.h"

/* A process has at most this many mappings, past and present; more means damage. */
#define CP_MAX_MAPS	(1U << 20)

struct cp_key {
	uint64_t time;
	uint64_t off;
};

struct cp_map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	struct cp_key from, to;	/* it held from, up to (not at) */
	uint32_t path;		/* in the string table */
	uint32_t mapping;	/* the profile's mapping for it, once known (+1) */
};

struct cp_name {
	struct cp_key at;
	uint32_t comm;		/* in the string table */
};

struct cp_proc {
	uint32_t pid;
	uint32_t exe;		/* path of its latest executable, 0 if unknown */
	bool exec_pending;	/* the next mapping is the new executable's */
	struct cp_map *maps;	/* every mapping it ever had, in the order made */
	size_t nr, cap;
	uint32_t *live;		/* those it has now, by address */
	size_t nr_live, cap_live;
	struct cp_key *changes;	/* when its mappings changed, in order */
	size_t nr_changes, cap_changes;
};

struct cp_thread {
	uint32_t tid;
	struct cp_name *names;	/* in order */
	size_t nr, cap;
};

/* A sideband record, copied. */
struct cp_side {
	struct cp_key key;
	size_t copy;		/* its offset in cp_replay.copies */
};

/*
 * An exec whose process has mappings of the new executable's name just
 * before it: those are the new image's (a recorder that reports the exec
 * late), unless a sample of the process ran user code in between.
 */
struct cp_exec_check {
	uint32_t pid;
	struct cp_key from, to;	/* the first of those mappings, the exec */
	bool failed;
};

struct cp_replay {
	struct cp_strtab *strs;
	struct cp_side *side;
	size_t nr_side, cap_side;
	char *copies;		/* the sideband records, copied */
	size_t copies_len, copies_cap;
	struct cp_exec_check *checks;
	size_t nr_checks;
	struct cp_proc *procs;
	size_t nr_procs, cap_procs;
	struct cp_htab proc_index;
	struct cp_thread *threads;
	size_t nr_threads, cap_threads;
	struct cp_htab thread_index;
	uint64_t bad_off;	/* of the record that failed cp_replay_build() */
};

void cp_replay_init(struct cp_replay *r, struct cp_strtab *strs);
void cp_replay_free(struct cp_replay *r);
/* Keeps a copy of the MMAP, COMM, FORK or EXIT record @h at file offset @off. */
int cp_replay_add(struct cp_replay *r, const struct causalprof_record_hdr *h, uint64_t off);
/*
 * Once every sideband record is in: sorts them and finds the execs whose
 * own mappings may precede them. Returns how many need the samples checked
 * with cp_replay_check_sample() (usually none), or -ENOMEM.
 */
long cp_replay_prepare(struct cp_replay *r);
void cp_replay_check_sample(struct cp_replay *r, const struct causalprof_sample *s,
			    struct cp_key key);
/*
 * Replays the sideband. Returns 0, -ENOMEM, or -E2BIG when a process has
 * more than CP_MAX_MAPS mappings (r->bad_off is the record's offset).
 */
int cp_replay_build(struct cp_replay *r);

/* The process @pid, or NULL if the recording has nothing of it. */
struct cp_proc *cp_replay_find_proc(const struct cp_replay *r, uint32_t pid);
/* A number that is the same at two moments iff @p's mappings are. */
uint32_t cp_replay_epoch(const struct cp_proc *p, struct cp_key at);
/* The mapping of @p that had @addr at @at, or NULL. */
struct cp_map *cp_replay_find_map(struct cp_proc *p, uint64_t addr, struct cp_key at);
/* The name of thread @tid at @at (its first one if none yet), 0 if unknown. */
uint32_t cp_replay_comm(const struct cp_replay *r, uint32_t tid, struct cp_key at);

static inline int cp_key_cmp(struct cp_key a, struct cp_key b)
{
	if (a.time != b.time)
		return a.time < b.time ? -1 : 1;
	return a.off < b.off ? -1 : a.off > b.off;
}

#endif /* CPROF_REPLAY_H */
