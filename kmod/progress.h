/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress points: uprobes that count a target's passes through a
 * line (throughput) or a begin/end pair (latency) (see progress.c).
 */

#ifndef _CAUSALPROF_PROGRESS_H
#define _CAUSALPROF_PROGRESS_H

#include <linux/types.h>

struct cp_owner;
struct cp_point;
struct dentry;
struct netlink_ext_ack;
struct seq_file;

#define CP_MAX_PROGRESS		16

/*
 * Progress points: uprobes on (file, offset) that count the target's
 * passes exactly. A throughput point counts hits; a latency point is a
 * begin/end pair whose in-flight count is integrated over time. Points
 * belong to the recording session: all are removed when it stops.
 * Add, del and clear run in process context under the session lock, and
 * only while the session records (the handlers read the target set).
 * Open, which looks the file up and reads its headers (as long as its file
 * system likes), runs before, without a lock; add then takes the point.
 *
 * who asked (NULL through /proc: current); the point keeps its credentials,
 * by which every process it reaches is judged (see progress.c). path is
 * absolute; begin holds the sites of the (begin) probe, end those of a
 * latency point's end probe (none for a throughput point), each 1 to
 * CAUSALPROF_MAX_SITES offsets, no offset twice. Errors: -EACCES (or what inode_permission()
 * says) for a file the caller may not read, -EINVAL for bad arguments
 * (kind, relative path, a symbolic link in it, not a regular ELF file,
 * offset past the end or outside the executable segments, no instruction
 * uprobes can step there, end given or missing, too many sites or the same
 * twice), -ENOENT for a missing
 * file, -EEXIST for an id in use, -ENOSPC beyond CP_MAX_PROGRESS points;
 * del: -ENOENT.
 */
struct cp_sites {
	const u64 *off;
	unsigned int nr;
	u64 checks;		/* bit i: off[i] is a Go stack check's jbe */
};

struct cp_point *cp_progress_open(const struct cp_owner *who, u32 id, u32 kind,
				  const char *path, const struct cp_sites *begin,
				  const struct cp_sites *end, struct netlink_ext_ack *extack);
void cp_progress_put(struct cp_point *pt);
/* Before cp_progress_add(): what a hit of each probe costs its thread. */
void cp_progress_set_visit(struct cp_point *pt, u32 visit_ns, u32 end_visit_ns);
int cp_progress_add(struct cp_point *pt, struct netlink_ext_ack *extack);
int cp_progress_del(u32 id, struct netlink_ext_ack *extack);
void cp_progress_clear(void);

/* A point's counters at one instant; area integrated up to that instant. */
struct cp_progress_snap {
	u32 id;
	u32 kind;		/* enum causalprof_pp_kind */
	u64 count;		/* throughput: hits; latency: begins */
	u64 ends;
	u64 area_ns;
	u64 inflight;
	/* Throughput: the hits of experiment span_xp, timed (causalprof_exp_span) */
	u32 span_xp;
	u64 span_hits;
	u64 span_first, span_last;
	u64 first_inserted, last_inserted;
};

/*
 * Fills up to max snapshots, one per registered point; returns how many.
 * Any context but NMI.
 */
unsigned int cp_progress_snapshot(struct cp_progress_snap *snap, unsigned int max);

void cp_progress_show(struct seq_file *m, bool privileged);
void cp_progress_debugfs(struct dentry *parent);

#endif /* _CAUSALPROF_PROGRESS_H */
