// SPDX-License-Identifier: GPL-2.0

#include "session.h"
#include "stats.h"

#include <linux/init.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/threads.h>

static struct cp_session sess = {
	.lock = __MUTEX_INITIALIZER(sess.lock),
	.owner_lock = __SPIN_LOCK_UNLOCKED(sess.owner_lock),
	.state = CAUSALPROF_STATE_IDLE,
};

static const char *const state_names[] = {
	[CAUSALPROF_STATE_IDLE]		= "idle",
	[CAUSALPROF_STATE_RECORDING]	= "recording",
	[CAUSALPROF_STATE_STOPPING]	= "stopping",
};

const char *causalprof_state_name(enum causalprof_state state)
{
	if (state >= ARRAY_SIZE(state_names))
		return "unknown";
	return state_names[state];
}

int causalprof_event_validate(const struct cp_event *ev, struct netlink_ext_ack *extack)
{
	switch (ev->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		break;
	default:
		NL_SET_ERR_MSG(extack, "event type must be hardware, software, hw-cache or raw");
		return -EINVAL;
	}
	if (!ev->period == !ev->freq) {
		NL_SET_ERR_MSG(extack, "an event needs exactly one of period and freq");
		return -EINVAL;
	}
	if (ev->freq > CP_MAX_FREQ) {
		NL_SET_ERR_MSG(extack, "event freq is above 100000");
		return -EINVAL;
	}
	return 0;
}

static int config_validate(const struct cp_config *cfg, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	if (cfg->flags & ~__CAUSALPROF_F_ALL) {
		NL_SET_ERR_MSG(extack, "unknown session flags");
		return -EINVAL;
	}
	if ((cfg->flags & CAUSALPROF_F_SYSTEM_WIDE) && cfg->target_pid) {
		NL_SET_ERR_MSG(extack, "a system-wide session takes no target pid");
		return -EINVAL;
	}
	if (!(cfg->flags & CAUSALPROF_F_SYSTEM_WIDE) && !cfg->target_pid) {
		NL_SET_ERR_MSG(extack, "a session needs a target pid or system-wide");
		return -EINVAL;
	}
	if (cfg->nr_events > CAUSALPROF_MAX_EVENTS) {
		NL_SET_ERR_MSG(extack, "too many events");
		return -EINVAL;
	}
	for (i = 0; i < cfg->nr_events; i++) {
		ret = causalprof_event_validate(&cfg->events[i], extack);
		if (ret)
			return ret;
	}
	return 0;
}

/* A reference to a live task's pid, looked up in the caller's namespace. */
static struct pid *get_target(u32 nr)
{
	struct pid *pid;

	if (nr > PID_MAX_LIMIT)
		return NULL;

	rcu_read_lock();
	pid = find_vpid(nr);
	if (pid && pid_task(pid, PIDTYPE_PID))
		get_pid(pid);
	else
		pid = NULL;
	rcu_read_unlock();
	return pid;
}

int causalprof_session_start(const struct cp_config *cfg, struct netlink_ext_ack *extack,
			     u64 *id)
{
	struct pid *target = NULL;
	int ret;

	ret = config_validate(cfg, extack);
	if (ret)
		return ret;

	mutex_lock(&sess.lock);
	if (sess.state != CAUSALPROF_STATE_IDLE) {
		NL_SET_ERR_MSG(extack, "a session is already running");
		ret = -EBUSY;
		goto out_unlock;
	}
	if (!(cfg->flags & CAUSALPROF_F_SYSTEM_WIDE)) {
		target = get_target(cfg->target_pid);
		if (!target) {
			NL_SET_ERR_MSG(extack, "target process not found");
			ret = -ESRCH;
			goto out_unlock;
		}
	}

	sess.target = target;
	sess.state = CAUSALPROF_STATE_RECORDING;
	/* From here on, the owner's socket closing stops the session. */
	spin_lock(&sess.owner_lock);
	sess.cfg = *cfg;
	sess.id++;
	spin_unlock(&sess.owner_lock);

	causalprof_stat_add(CAUSALPROF_STAT_SESSIONS, 1);
	pr_debug("session %llu created\n", sess.id);
	*id = sess.id;
out_unlock:
	mutex_unlock(&sess.lock);
	return ret;
}

static void stop_locked(void)
{
	lockdep_assert_held(&sess.lock);

	sess.state = CAUSALPROF_STATE_STOPPING;
	spin_lock(&sess.owner_lock);
	sess.cfg.owner = (struct cp_owner){};
	spin_unlock(&sess.owner_lock);
	put_pid(sess.target);
	sess.target = NULL;
	sess.state = CAUSALPROF_STATE_IDLE;
	pr_debug("session %llu destroyed\n", sess.id);
}

static bool owner_eq(const struct cp_owner *a, const struct cp_owner *b)
{
	return a->net == b->net && a->portid == b->portid;
}

/*
 * A session with an owner may be stopped by that owner or by an admin; one
 * without (started through /proc) by anyone allowed to control the module,
 * which the caller has checked. who is NULL for callers that are not a
 * netlink socket.
 */
int causalprof_session_stop(const struct cp_owner *who, bool admin,
			    struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&sess.lock);
	if (sess.state != CAUSALPROF_STATE_RECORDING) {
		NL_SET_ERR_MSG(extack, "no session is running");
		ret = -ENOENT;
		goto out_unlock;
	}
	if (sess.cfg.owner.net && !admin && !(who && owner_eq(who, &sess.cfg.owner))) {
		NL_SET_ERR_MSG(extack, "only the session's owner or CAP_SYS_ADMIN may stop it");
		ret = -EPERM;
		goto out_unlock;
	}
	stop_locked();
out_unlock:
	mutex_unlock(&sess.lock);
	return ret;
}

void causalprof_session_status(struct cp_status *st)
{
	memset(st, 0, sizeof(*st));

	mutex_lock(&sess.lock);
	st->state = sess.state;
	st->id = sess.id;
	if (sess.state != CAUSALPROF_STATE_IDLE) {
		st->flags = sess.cfg.flags;
		if (sess.target) {
			st->has_target = true;
			st->target_pid = pid_vnr(sess.target);
		}
		if (sess.cfg.owner.net) {
			st->has_owner = true;
			st->owner_portid = sess.cfg.owner.portid;
		}
	}
	mutex_unlock(&sess.lock);
}

static void release_work_fn(struct work_struct *work)
{
	u64 id;

	mutex_lock(&sess.lock);
	spin_lock(&sess.owner_lock);
	id = sess.release_id;
	sess.release_id = 0;
	spin_unlock(&sess.owner_lock);

	/* The session may have been stopped, and another started, meanwhile. */
	if (id && id == sess.id && sess.state == CAUSALPROF_STATE_RECORDING) {
		pr_debug("session %llu: owner socket closed\n", id);
		stop_locked();
	}
	mutex_unlock(&sess.lock);
}

static int release_notify(struct notifier_block *nb, unsigned long event, void *ptr)
{
	const struct netlink_notify *n = ptr;
	const struct cp_owner closed = { .net = n->net, .portid = n->portid };

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;

	spin_lock(&sess.owner_lock);
	if (sess.cfg.owner.net && owner_eq(&closed, &sess.cfg.owner)) {
		sess.release_id = sess.id;
		schedule_work(&sess.release_work);
	}
	spin_unlock(&sess.owner_lock);
	return NOTIFY_DONE;
}

static struct notifier_block release_nb = {
	.notifier_call = release_notify,
};

int __init causalprof_session_init(void)
{
	INIT_WORK(&sess.release_work, release_work_fn);
	return netlink_register_notifier(&release_nb);
}

/* Callers have made sure that nothing can start a new session. */
void causalprof_session_uninit(void)
{
	netlink_unregister_notifier(&release_nb);
	cancel_work_sync(&sess.release_work);

	mutex_lock(&sess.lock);
	if (sess.state == CAUSALPROF_STATE_RECORDING)
		stop_locked();
	mutex_unlock(&sess.lock);
}
