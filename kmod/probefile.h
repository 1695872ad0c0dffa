/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file a session's uprobes go on (progress points, Go hooks): looked
 * up, checked, and the processes that may get its breakpoints (see
 * probefile.c).
 */

#ifndef _CAUSALPROF_PROBEFILE_H
#define _CAUSALPROF_PROBEFILE_H

#include <linux/path.h>
#include <linux/types.h>

struct cp_caller;
struct inode;
struct mm_struct;
struct netlink_ext_ack;

struct cp_probefile {
	struct path path;	/* held from open to put */
	struct inode *inode;	/* the real inode (below an overlay); NULL: not open */
};

int cp_probefile_open(struct cp_probefile *f, const char *name, const struct cp_caller *c,
		      struct netlink_ext_ack *extack);
void cp_probefile_put(struct cp_probefile *f);
int cp_probefile_check(const struct cp_probefile *f, u64 offset, struct netlink_ext_ack *extack);
bool cp_probefile_mm_wanted(const struct cp_caller *c, struct mm_struct *mm);
bool cp_probefile_mm_own(void);

#endif /* _CAUSALPROF_PROBEFILE_H */
