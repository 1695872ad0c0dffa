/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session layer's interface, used by netlink.c and proc.c: start,
 * stop, status, experiments and progress points of the one session.
 */

#ifndef _CAUSALPROF_SESSION_H
#define _CAUSALPROF_SESSION_H

#include "shared.h"

#include <linux/causalprof.h>
#include <linux/types.h>

struct netlink_ext_ack;
struct pid_namespace;
struct seq_file;
struct cp_range;
struct cp_sites;
struct cp_go_site;

/* A copy of the session's state, pids in the caller's pid namespace. */
struct cp_status {
	enum causalprof_state state;
	u64 id;
	u32 flags;
	bool has_target;
	u32 target_pid;
	u32 owner;		/* enum causalprof_owner */
};

int __must_check cp_session_start(const struct cp_config *cfg,
				  struct netlink_ext_ack *extack, u64 *id);
void cp_session_started(u64 id);
int cp_session_stop(const struct cp_owner *who, bool admin, struct netlink_ext_ack *extack);
int cp_session_status(struct cp_status *st);
/* who: the caller's socket, NULL through /proc; see may_control() */
int cp_session_experiment_start(const struct cp_owner *who, u32 speedup,
				const struct cp_range *ranges, unsigned int nr,
				struct netlink_ext_ack *extack);
int cp_session_experiment_stop(const struct cp_owner *who, struct netlink_ext_ack *extack);
int cp_session_flush(const struct cp_owner *who, struct netlink_ext_ack *extack);
int cp_session_experiment_show(struct seq_file *m, bool privileged, struct pid_namespace *ns);
int cp_session_progress_add(const struct cp_owner *who, u32 id, u32 kind, const char *path,
			    const struct cp_sites *begin, const struct cp_sites *end,
			    u32 visit_ns, u32 end_visit_ns, struct netlink_ext_ack *extack);
int cp_session_go_hooks(const struct cp_owner *who, const char *path,
			const struct cp_go_site *sites, unsigned int nr,
			struct netlink_ext_ack *extack);
int cp_session_progress_del(const struct cp_owner *who, u32 id,
			    struct netlink_ext_ack *extack);
const char *cp_state_name(enum causalprof_state state);

int cp_session_init(void);
void cp_session_shutdown(void);
void cp_session_uninit(void);

#endif /* _CAUSALPROF_SESSION_H */
