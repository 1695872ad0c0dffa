/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pprof labels of a Go target's running goroutine, read by the
 * overflow handler (see golabels.c).
 */

#ifndef _CAUSALPROF_GOLABELS_H
#define _CAUSALPROF_GOLABELS_H

#include "shared.h"

#include <linux/align.h>

/* The most a block of labels takes after a sample's ips[], padding included. */
#define CP_GO_LABELS_SIZE \
	ALIGN(sizeof(struct causalprof_go_labels) + 2 * CAUSALPROF_GO_LABELS_MAX * sizeof(__u16) + \
	      CAUSALPROF_GO_LABELS_BYTES, 8)

struct cp_go_string {
	u64 ptr, len;
};

/* A bucket of a map[string]string: Go 1.9 to 1.23's runtime.bmap, on amd64. */
#define CP_GO_BUCKET_CNT	8
struct cp_go_bucket {
	u8 tophash[CP_GO_BUCKET_CNT];
	struct cp_go_string keys[CP_GO_BUCKET_CNT];
	struct cp_go_string values[CP_GO_BUCKET_CNT];
	u64 overflow;
};

/* The handler's room, one per CPU: the block, and a map bucket being read. */
struct cp_go_scratch {
	u64 block[CP_GO_LABELS_SIZE / 8];
	u8 bytes[CAUSALPROF_GO_LABELS_BYTES];
	struct cp_go_bucket bucket;
};

void cp_golabels_start(const struct cp_go_layout *layout, pid_t tgid);
void cp_golabels_stop(void);
/* Handler: the size of the block written into s->block, 0 for none. */
unsigned int cp_golabels_read(struct cp_go_scratch *s);

#endif /* _CAUSALPROF_GOLABELS_H */
