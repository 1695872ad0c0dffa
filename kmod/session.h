/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session layer's interface, used by netlink.c and proc.c: start,
 * stop, status, experiments and progress points of the one session.
 */

#ifndef _CAUSALPROF_SESSION_H
#define _CAUSALPROF_SESSION_H

#include <linux/causalprof.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

struct net;
struct netlink_ext_ack;
struct pid;
struct pid_namespace;
struct seq_file;
struct sock;
struct cp_range;

#define CP_EVENT_NAME_LEN	64

/* One event to sample, as requested; see causalprof_event_validate(). */
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
 * anyone at once. net and portid only match that notification. The stream
 * holds a reference on sk for as long as the session names it, so no other
 * socket can take its address meanwhile. net NULL means no owner (started
 * through /proc).
 */
struct cp_owner {
	struct net *net;
	u32 portid;
	struct sock *sk;
};

struct cp_config {
	u32 flags;		/* CAUSALPROF_F_* */
	u32 target_pid;		/* in the starter's pid namespace; 0: none */
	struct cp_owner owner;
	unsigned int nr_events;
	struct cp_event events[CAUSALPROF_MAX_EVENTS];
};

/*
 * The module runs one session at a time; this is it. A session goes
 * idle -> recording -> stopping -> idle. Everything here is stable under
 * lock.
 */
struct cp_session {
	struct mutex lock;	/* held by start and stop throughout */
	enum causalprof_state state;
	bool closing;		/* the module is unloading: no new session */
	u64 id;			/* current or last session; 0: none yet */
	struct cp_config cfg;	/* of the current or last session */
	struct pid *target;	/* held while recording; NULL if system-wide */
	kuid_t uid;		/* the starter's euid: a /proc session's owner */

	/*
	 * The netlink release notifier runs inside every netlink socket's
	 * close, so it must neither wait for lock nor do the stop (which will
	 * tear down samplers and flush the stream) itself. It reads cfg.owner
	 * and id under owner_lock, which their writers take inside lock, and
	 * names the session in release_id for release_work to stop.
	 */
	spinlock_t owner_lock;
	u64 release_id;
	struct work_struct release_work;

	/*
	 * A stopping session whose owner's socket was too full for the last
	 * records: finish_work tries again until stop_deadline.
	 */
	struct delayed_work finish_work;
	unsigned long stop_deadline;

	/* Stops experiment exp_id once it has run max_experiment_s. */
	struct delayed_work exp_timeout;
	u32 exp_id;
};

/* A copy of the session's state, pids in the caller's pid namespace. */
struct cp_status {
	enum causalprof_state state;
	u64 id;
	u32 flags;
	bool has_target;
	u32 target_pid;
	u32 owner;		/* enum causalprof_owner */
};

int __must_check causalprof_session_start(const struct cp_config *cfg,
					  struct netlink_ext_ack *extack, u64 *id);
void causalprof_session_started(u64 id);
int causalprof_session_stop(const struct cp_owner *who, bool admin,
			    struct netlink_ext_ack *extack);
int causalprof_session_status(struct cp_status *st);
/* who: the caller's socket, NULL through /proc; see may_control() */
int causalprof_experiment_start(const struct cp_owner *who, u32 speedup,
				const struct cp_range *ranges, unsigned int nr,
				struct netlink_ext_ack *extack);
int causalprof_experiment_stop(const struct cp_owner *who, struct netlink_ext_ack *extack);
int causalprof_experiment_show(struct seq_file *m, bool privileged, struct pid_namespace *ns);
int causalprof_progress_add(const struct cp_owner *who, u32 id, u32 kind, const char *path,
			    u64 offset, u64 end_offset, struct netlink_ext_ack *extack);
int causalprof_progress_del(const struct cp_owner *who, u32 id,
			    struct netlink_ext_ack *extack);
const char *causalprof_state_name(enum causalprof_state state);

int causalprof_session_init(void);
void causalprof_session_shutdown(void);
void causalprof_session_uninit(void);

#endif /* _CAUSALPROF_SESSION_H */
