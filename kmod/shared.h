/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types every layer shares: what a session samples and who owns it.
 * Types only: no functions, so that any layer may include it.
 */

#ifndef _CAUSALPROF_SHARED_H
#define _CAUSALPROF_SHARED_H

#include <linux/causalprof.h>
#include <linux/types.h>

struct sock;

#define CP_EVENT_NAME_LEN	64

/* One event to sample, as requested; see cp_event_validate(). */
struct cp_event {
	u32 type;		/* perf_event_attr.type */
	u64 config;		/* perf_event_attr.config */
	u64 period;		/* exactly one of period and freq is set */
	u32 freq;
	char name[CP_EVENT_NAME_LEN];	/* the user's spelling, may be empty */
};

/*
 * The netlink socket that started a session. It may stop the session, its
 * closing stops it, and it receives the session's records. The socket
 * itself is the owner, compared by sk: its port id is freed when it
 * closes, before the release notifier runs, and may be bound again by
 * anyone at once. portid (with sk's net) only matches that notification.
 * The stream holds a reference on sk for as long as the session names it,
 * so no other socket can take its address meanwhile. sk NULL means no
 * owner (started through /proc). The family is not netnsok: every owner
 * is in the initial network namespace.
 *
 * send is the sink the netlink layer supplies, so that the stream below
 * it need not call up: it queues one message of records on sk, never
 * blocks, and returns -EAGAIN or -ENOMEM for a retry, another error when
 * the owner cannot be reached.
 */
struct cp_owner {
	u32 portid;
	struct sock *sk;
	int (*send)(struct sock *sk, u64 id, const void *recs, size_t len);
};

/* Where a Go target keeps its labels (CAUSALPROF_A_GO_LABELS); format 0: none. */
struct cp_go_layout {
	u32 format;		/* enum causalprof_go_format */
	s32 tls_g;
	u32 g_m, m_curg, g_labels;
};

/* CAUSALPROF_A_DRAIN_MS at most */
#define CP_DRAIN_MS_MAX		60000

struct cp_config {
	u32 flags;		/* CAUSALPROF_F_* */
	u32 target_pid;		/* in the starter's pid namespace; 0: none */
	u32 agg_entries;	/* CAUSALPROF_F_AGGREGATE: entries per count table */
	u32 drain_ms;		/* CAUSALPROF_A_DRAIN_MS; 0: the drain_ms parameter */
	struct cp_go_layout go;
	struct cp_owner owner;
	unsigned int nr_events;
	struct cp_event events[CAUSALPROF_MAX_EVENTS];
};

#endif /* _CAUSALPROF_SHARED_H */
