// SPDX-License-Identifier: GPL-2.0
/*
 * The one session: start and stop, who may control it, its experiments
 * and progress points, and its end when the owner's socket closes.
 */

#include "access.h"
#include "causal.h"
#include "events.h"
#include "gohooks.h"
#include "golabels.h"
#include "hooks.h"
#include "offcpu.h"
#include "progress.h"
#include "sampler.h"
#include "session.h"
#include "sideband.h"
#include "stats.h"
#include "stream.h"
#include "targets.h"

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/threads.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>

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
	/* Its starter's credentials: payers are judged by them until it stops. */
	struct cp_caller exp_caller;
};

/*
 * An experiment that runs this long stops by itself: a controlling script
 * that died (a /proc session has no owner whose death stops it) cannot
 * slow its targets down forever.
 */
static unsigned int max_experiment_s = 60;
module_param(max_experiment_s, uint, 0644);
MODULE_PARM_DESC(max_experiment_s, "Experiments stop by themselves after this many seconds, 1 to 3600 (default 60)");

/* How long a stop waits for an owner that does not read its records. */
#define STOP_TIMEOUT		(10 * HZ)
#define FINISH_RETRY		msecs_to_jiffies(10)

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

const char *cp_state_name(enum causalprof_state state)
{
	if (state >= ARRAY_SIZE(state_names))
		return "unknown";
	return state_names[state];
}

static int config_validate(const struct cp_config *cfg, struct netlink_ext_ack *extack)
{
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
	return cp_events_validate(cfg->events, cfg->nr_events, extack);
}

/*
 * A reference to a live task's pid, looked up in the caller's namespace,
 * and its thread group id in the initial one.
 */
static struct pid *get_target(u32 nr, pid_t *tgid)
{
	struct task_struct *task;
	struct pid *pid;

	if (nr > PID_MAX_LIMIT)
		return NULL;

	rcu_read_lock();
	pid = find_vpid(nr);
	task = pid ? pid_task(pid, PIDTYPE_PID) : NULL;
	if (task) {
		get_pid(pid);
		*tgid = task->tgid;
	} else {
		pid = NULL;
	}
	rcu_read_unlock();
	return pid;
}

/*
 * Sets the session up in the order its parts depend on each other: the
 * rings before anything writes into them, the target set and the off-CPU
 * threads' table before the hooks that use them, the hooks before the
 * initial dump so that no change made during the dump goes unreported,
 * and the counters last, once every mapping they may hit has been
 * reported.
 */
int cp_session_start(const struct cp_config *cfg, struct netlink_ext_ack *extack, u64 *id)
{
	bool all = cfg->flags & CAUSALPROF_F_SYSTEM_WIDE;
	struct pid *target = NULL;
	pid_t tgid = 0;
	int ret;

	ret = config_validate(cfg, extack);
	if (ret)
		return ret;
	/*
	 * Records carry pids of the initial pid namespace (as the overflow
	 * handler finds them, in NMI): a profiler in a child namespace would
	 * learn the host's. Translating every record for the owner is not
	 * worth it for a module that is not for containers: refused.
	 */
	if (task_active_pid_ns(current) != &init_pid_ns) {
		NL_SET_ERR_MSG(extack, "sessions start from the initial pid namespace only");
		return -EPERM;
	}

	mutex_lock(&sess.lock);
	if (sess.closing) {
		NL_SET_ERR_MSG(extack, "the module is being unloaded");
		ret = -ENODEV;
		goto out_unlock;
	}
	if (sess.state != CAUSALPROF_STATE_IDLE) {
		NL_SET_ERR_MSG(extack, "a session is already running");
		ret = -EBUSY;
		goto out_unlock;
	}
	if (!all) {
		target = get_target(cfg->target_pid, &tgid);
		if (!target) {
			NL_SET_ERR_MSG(extack, "target process not found");
			ret = -ESRCH;
			goto out_unlock;
		}
	}
	ret = cp_events_probe(cfg, extack);
	if (ret)
		goto err_put_target;

	ret = cp_stream_start(cfg, sess.id + 1, extack);
	if (ret)
		goto err_put_target;
	/* Records may carry the new id from here on: it is used up. */
	spin_lock(&sess.owner_lock);
	sess.id++;
	spin_unlock(&sess.owner_lock);

	ret = cp_targets_start(all, tgid, extack);
	if (ret)
		goto err_free_stream;
	ret = cp_sideband_start(extack);
	if (ret)
		goto err_stop_targets;
	ret = cp_offcpu_start(cfg, extack);
	if (ret)
		goto err_stop_sideband;
	ret = cp_hooks_start(cfg, extack);
	if (ret)
		goto err_stop_offcpu;
	if (!all)
		cp_targets_recheck(tgid);
	ret = cp_sideband_dump(all, tgid, extack);
	if (ret)
		goto err_stop_hooks;
	cp_golabels_start(&cfg->go, tgid);
	ret = cp_sampler_start(cfg, extack);
	if (ret)
		goto err_stop_golabels;

	sess.target = target;
	sess.uid = current_euid();
	sess.state = CAUSALPROF_STATE_RECORDING;
	/* From here on, the owner's socket closing stops the session. */
	spin_lock(&sess.owner_lock);
	sess.cfg = *cfg;
	spin_unlock(&sess.owner_lock);

	cp_stat_add(CAUSALPROF_STAT_SESSIONS, 1);
	pr_debug("session %llu created\n", sess.id);
	*id = sess.id;
	mutex_unlock(&sess.lock);
	return 0;

err_stop_golabels:
	cp_golabels_stop();
err_stop_hooks:
	cp_hooks_stop();
err_stop_offcpu:
	cp_offcpu_stop();
err_stop_sideband:
	cp_sideband_stop();
err_stop_targets:
	cp_targets_stop();
err_free_stream:
	cp_stream_free();
err_put_target:
	put_pid(target);
out_unlock:
	mutex_unlock(&sess.lock);
	return ret;
}

/*
 * The starter has its reply (or needs none): the session's records may go
 * out. Until then they wait in the rings. A no-op if session id is over.
 */
void cp_session_started(u64 id)
{
	mutex_lock(&sess.lock);
	if (sess.id == id && sess.state == CAUSALPROF_STATE_RECORDING)
		cp_stream_open();
	mutex_unlock(&sess.lock);
}

/*
 * The last records out (or dropped, when hurry), then the rings go and the
 * module is idle again. If the owner's socket is full, finish_work tries
 * again a little later, up to STOP_TIMEOUT after the stop.
 */
static void finish_locked(bool hurry)
{
	lockdep_assert_held(&sess.lock);

	if (!cp_stream_finish(hurry)) {
		schedule_delayed_work(&sess.finish_work, FINISH_RETRY);
		return;
	}
	cp_stream_free();
	sess.state = CAUSALPROF_STATE_IDLE;
	pr_debug("session %llu destroyed\n", sess.id);
}

/*
 * Stops the running experiment and streams its result, in the sideband
 * ring so that it goes out before the session's END, in the room kept for
 * it (see cp_stream_result_room()).
 */
static int experiment_stop_locked(u16 flags)
{
	const struct causalprof_experiment *rec;
	int ret;

	lockdep_assert_held(&sess.lock);

	ret = cp_causal_stop(flags, &rec);
	if (ret)
		return ret;
	cp_stream_emit(rec, rec->hdr.size);
	/* No payer reads them after the stop's grace period. */
	cp_caller_put(&sess.exp_caller);
	return 0;
}

/*
 * Everything that produces records stops before the stream's last drain.
 * With an owner to send them to, the last records and the END go out from
 * finish_work: not from inside the owner's own STOP request, whose ack
 * would queue up behind them on its socket.
 */
static void stop_locked(void)
{
	bool owned = sess.cfg.owner.sk;

	lockdep_assert_held(&sess.lock);

	/* Its record counts the progress points: before they go. */
	experiment_stop_locked(CAUSALPROF_EXP_F_SESSION_END);
	/* Before the target set goes: the uprobe handlers read it. */
	cp_progress_clear();
	cp_gohooks_clear();
	sess.state = CAUSALPROF_STATE_STOPPING;
	spin_lock(&sess.owner_lock);
	sess.cfg.owner = (struct cp_owner){};
	spin_unlock(&sess.owner_lock);

	cp_sampler_stop();
	cp_golabels_stop();
	cp_hooks_stop();
	cp_offcpu_stop();
	cp_sideband_stop();
	cp_targets_stop();
	put_pid(sess.target);
	sess.target = NULL;

	sess.stop_deadline = jiffies + STOP_TIMEOUT;
	if (owned && !sess.closing)
		schedule_delayed_work(&sess.finish_work, 0);
	else
		finish_locked(sess.closing);
}

static void finish_work_fn(struct work_struct *work)
{
	mutex_lock(&sess.lock);
	if (sess.state == CAUSALPROF_STATE_STOPPING)
		finish_locked(sess.closing || time_after(jiffies, sess.stop_deadline));
	mutex_unlock(&sess.lock);
}

/* The same socket: a port id may have changed hands since the start. */
static bool owner_eq(const struct cp_owner *a, const struct cp_owner *b)
{
	return a->sk == b->sk;
}

/*
 * A session without an owner socket (started through /proc) belongs to the
 * user who started it (the control file's opener's euid): current, whose
 * credentials are that opener's on the /proc path.
 */
static bool starter(void)
{
	return uid_eq(current_euid(), sess.uid);
}

/*
 * A session with an owner may be stopped by that owner or by an admin; one
 * without (started through /proc) by the user who started it or an admin.
 * who is NULL for callers that are not a netlink socket.
 */
int cp_session_stop(const struct cp_owner *who, bool admin, struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&sess.lock);
	if (sess.state != CAUSALPROF_STATE_RECORDING) {
		NL_SET_ERR_MSG(extack, "no session is running");
		ret = -ENOENT;
		goto out_unlock;
	}
	if (sess.cfg.owner.sk && !admin && !(who && owner_eq(who, &sess.cfg.owner))) {
		NL_SET_ERR_MSG(extack, "only the session's owner or CAP_SYS_ADMIN may stop it");
		ret = -EPERM;
		goto out_unlock;
	}
	if (!sess.cfg.owner.sk && !admin && !starter()) {
		NL_SET_ERR_MSG(extack, "only its starter or CAP_SYS_ADMIN may stop the session");
		ret = -EPERM;
		goto out_unlock;
	}
	stop_locked();
out_unlock:
	mutex_unlock(&sess.lock);
	return ret;
}

/*
 * Whether the caller may ptrace-attach task, whose reference it drops:
 * -ESRCH without a task, -EPERM without the right.
 */
static int attach_task(const struct cp_owner *who, struct task_struct *task)
{
	bool ok, gone;

	if (!task)
		return -ESRCH;
	ok = cp_may_attach(who, task);
	/*
	 * ptrace_attach() refuses a task that exits too: when its whole
	 * process is going, that is not a matter of rights. A leader that
	 * exited alone (a zombie whose threads run on) is still refused as
	 * one, as hostile2_test's zombie_leader checks.
	 */
	gone = (READ_ONCE(task->signal->flags) & SIGNAL_GROUP_EXIT) ||
	       !atomic_read(&task->signal->live);
	put_task_struct(task);
	return ok ? 0 : gone ? -ESRCH : -EPERM;
}

/*
 * Experiments and progress points are controlled through the surface that
 * started the session: a session with an owner only by its owner's socket
 * (who), one started through /proc only through /proc (who == NULL), by
 * the user who started it or an admin. Under sess.lock.
 */
static int may_control(const struct cp_owner *who, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&sess.lock);

	if (sess.state != CAUSALPROF_STATE_RECORDING) {
		NL_SET_ERR_MSG(extack, "no session is running");
		return -ENOENT;
	}
	if (!sess.cfg.owner.sk != !who || (who && !owner_eq(who, &sess.cfg.owner))) {
		if (sess.cfg.owner.sk)
			NL_SET_ERR_MSG(extack, "only the session's owner may do this");
		else
			NL_SET_ERR_MSG(extack, "the session is controlled through /proc");
		return -EPERM;
	}
	if (!who && !starter() && !cp_capable(NULL, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(extack, "the session belongs to another user");
		return -EPERM;
	}
	return 0;
}

/*
 * Starting an experiment, which delays the session's targets, and adding a
 * progress point, which puts breakpoints in their memory, change them: as
 * for perf's events that change their target, the caller needs the right
 * to ptrace-attach the session's target. A system-wide session's targets
 * are every task: CAP_SYS_ADMIN or CAP_SYS_PTRACE. And who must control
 * the session. Under sess.lock.
 */
static int may_change(const struct cp_owner *who, struct netlink_ext_ack *extack)
{
	int ret = may_control(who, extack);

	if (ret)
		return ret;
	if (!sess.target) {
		if (cp_capable(who, CAP_SYS_ADMIN) || cp_capable(who, CAP_SYS_PTRACE))
			return 0;
		NL_SET_ERR_MSG(extack,
			       "changing a system-wide session's targets needs CAP_SYS_ADMIN or CAP_SYS_PTRACE");
		return -EPERM;
	}
	ret = attach_task(who, get_pid_task(sess.target, PIDTYPE_PID));
	if (ret == -ESRCH)
		NL_SET_ERR_MSG(extack, "the session's target has exited");
	else if (ret)
		NL_SET_ERR_MSG(extack, "no right to ptrace-attach the session's target");
	return ret;
}

/*
 * The processes whose code an experiment selects: their layout is theirs
 * to tell, so the caller needs the right to ptrace-attach them too.
 * Ranges name them by thread group id in the initial pid namespace.
 */
static int may_select(const struct cp_owner *who, const struct cp_range *ranges,
		      unsigned int nr, struct netlink_ext_ack *extack)
{
	struct task_struct *task;
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		rcu_read_lock();
		task = pid_task(find_pid_ns(ranges[i].tgid, &init_pid_ns), PIDTYPE_TGID);
		if (task)
			get_task_struct(task);
		rcu_read_unlock();
		ret = attach_task(who, task);
		if (ret == -ESRCH)
			NL_SET_ERR_MSG(extack, "a range's process has exited");
		else if (ret)
			NL_SET_ERR_MSG(extack, "no right to ptrace-attach a range's process");
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * An experiment runs inside a recording session, controlled like progress
 * points (who: see may_control()). Ranges name processes by thread group
 * id in the initial pid namespace.
 */
int cp_session_experiment_start(const struct cp_owner *who, u32 speedup,
				const struct cp_range *ranges, unsigned int nr,
				struct netlink_ext_ack *extack)
{
	struct cp_starter starter;
	int ret;

	mutex_lock(&sess.lock);
	ret = may_change(who, extack);
	if (!ret)
		ret = may_select(who, ranges, nr, extack);
	if (ret)
		goto out_unlock;
	/* Its result will have room in the stream: the last one's is gone. */
	if (!cp_causal_running() && !cp_stream_result_room()) {
		NL_SET_ERR_MSG(extack, "the last experiment's result is not delivered yet");
		ret = -EBUSY;
		goto out_unlock;
	}
	starter = (struct cp_starter){
		.any = cp_capable(who, CAP_SYS_PTRACE) ||
		       (!sess.target && cp_capable(who, CAP_SYS_ADMIN)),
	};
	cp_caller_get(&starter.caller, who);
	ret = cp_causal_start(speedup, ranges, nr, &starter, &sess.exp_id);
	if (!ret) {
		sess.exp_caller = starter.caller;
		mod_delayed_work(system_wq, &sess.exp_timeout,
				 clamp(READ_ONCE(max_experiment_s), 1U, 3600U) * HZ);
	} else {
		cp_caller_put(&starter.caller);
	}
	if (ret == -EBUSY)
		NL_SET_ERR_MSG(extack, "an experiment is already running");
	else if (ret)
		NL_SET_ERR_MSG(extack, "cannot start the experiment");
out_unlock:
	mutex_unlock(&sess.lock);
	return ret;
}

/* The experiment's result goes out as a CAUSALPROF_REC_EXPERIMENT record. */
int cp_session_experiment_stop(const struct cp_owner *who, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&sess.lock);
	ret = may_control(who, extack);
	if (ret)
		goto out_unlock;
	ret = experiment_stop_locked(0);
	if (ret)
		NL_SET_ERR_MSG(extack, "no experiment is running");
out_unlock:
	mutex_unlock(&sess.lock);
	return ret;
}

/* CAUSALPROF_CMD_FLUSH: its records before its ack (see cp_stream_flush()). */
int cp_session_flush(const struct cp_owner *who, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&sess.lock);
	ret = may_control(who, extack);
	if (!ret) {
		ret = cp_stream_flush();
		if (ret)
			NL_SET_ERR_MSG(extack, "the owner's receive queue is full: the rest follows");
	}
	mutex_unlock(&sess.lock);
	return ret;
}

/* A reader waiting for the session may give up: nobody stalls in D state. */
int cp_session_experiment_show(struct seq_file *m, bool privileged, struct pid_namespace *ns)
{
	if (mutex_lock_interruptible(&sess.lock))
		return -EINTR;
	cp_causal_show(m, privileged, ns);
	mutex_unlock(&sess.lock);
	return 0;
}

/*
 * Looking the file up and reading its headers may wait as long as its file
 * system likes (a FUSE daemon that never answers): that part runs between
 * two holds of the lock, which a stop, the experiment's timeout, the
 * owner's release work and rmmod wait for. The caller's right is judged
 * before it (no file is read for a caller without it) and again after, in
 * the same session. The module stays loaded meanwhile: rmmod is refused
 * while an add is under way.
 *
 * change_begin() is the first hold: whether who may change the targets,
 * the session's id in *session, and a module reference, dropped by
 * change_end() (after change_again(), the second hold, which it releases)
 * or by a module_put() where the file could not be opened.
 */
static int change_begin(const struct cp_owner *who, u64 *session, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&sess.lock);
	ret = may_change(who, extack);
	*session = sess.id;
	mutex_unlock(&sess.lock);
	if (ret)
		return ret;
	if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(extack, "the module is being unloaded");
		return -ENODEV;
	}
	return 0;
}

/* The second hold, kept: whether who may still, in the same session. */
static int change_again(const struct cp_owner *who, u64 session, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&sess.lock);
	ret = may_change(who, extack);
	if (!ret && sess.id != session) {
		NL_SET_ERR_MSG(extack, "the session ended meanwhile");
		ret = -ENOENT;
	}
	return ret;
}

/*
 * rmmod may go on now, but its unregistering of the netlink family and of
 * the /proc files waits for this request to return.
 */
static void change_end(void)
{
	mutex_unlock(&sess.lock);
	module_put(THIS_MODULE);
}

int cp_session_progress_add(const struct cp_owner *who, u32 id, u32 kind, const char *path,
			    const struct cp_sites *begin, const struct cp_sites *end,
			    u32 visit_ns, u32 end_visit_ns, struct netlink_ext_ack *extack)
{
	struct cp_point *pt;
	u64 session;
	int ret;

	ret = change_begin(who, &session, extack);
	if (ret)
		return ret;
	pt = cp_progress_open(who, id, kind, path, begin, end, extack);
	if (IS_ERR(pt)) {
		module_put(THIS_MODULE);
		return PTR_ERR(pt);
	}
	cp_progress_set_visit(pt, visit_ns, end_visit_ns);
	ret = change_again(who, session, extack);
	if (!ret)
		ret = cp_progress_add(pt, extack);
	else
		cp_progress_put(pt);
	change_end();
	return ret;
}

/* As a progress point's add: the file is read between two holds of the lock. */
int cp_session_go_hooks(const struct cp_owner *who, const char *path,
			const struct cp_go_site *sites, unsigned int nr,
			struct netlink_ext_ack *extack)
{
	struct cp_gohooks *gh;
	u64 session;
	int ret;

	ret = change_begin(who, &session, extack);
	if (ret)
		return ret;
	gh = cp_gohooks_open(who, path, sites, nr, extack);
	if (IS_ERR(gh)) {
		module_put(THIS_MODULE);
		return PTR_ERR(gh);
	}
	ret = change_again(who, session, extack);
	if (!ret)
		ret = cp_gohooks_add(gh, extack);
	else
		cp_gohooks_put(gh);
	change_end();
	return ret;
}

int cp_session_progress_del(const struct cp_owner *who, u32 id, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&sess.lock);
	ret = may_control(who, extack);
	if (!ret)
		ret = cp_progress_del(id, extack);
	if (!ret)
		cp_causal_point_gone(id);
	mutex_unlock(&sess.lock);
	return ret;
}

int cp_session_status(struct cp_status *st)
{
	memset(st, 0, sizeof(*st));

	if (mutex_lock_interruptible(&sess.lock))
		return -EINTR;
	st->state = sess.state;
	st->id = sess.id;
	if (sess.state != CAUSALPROF_STATE_IDLE) {
		st->flags = sess.cfg.flags;
		if (sess.target) {
			st->has_target = true;
			st->target_pid = pid_vnr(sess.target);
		}
		st->owner = sess.cfg.owner.sk ? CAUSALPROF_OWNER_NETLINK :
			    CAUSALPROF_OWNER_PROC;
	}
	mutex_unlock(&sess.lock);
	return 0;
}

/*
 * The experiment started last ran max_experiment_s: stop it, unless it was
 * stopped (and maybe another started) meanwhile.
 */
static void exp_timeout_fn(struct work_struct *work)
{
	mutex_lock(&sess.lock);
	if (sess.state == CAUSALPROF_STATE_RECORDING && sess.exp_id &&
	    cp_causal_live_id() == sess.exp_id) {
		pr_debug("session %llu: experiment %u timed out\n", sess.id, sess.exp_id);
		experiment_stop_locked(CAUSALPROF_EXP_F_TIMEOUT);
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

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;

	/*
	 * The port id is free already (netlink_release() unhashes the socket
	 * first): a socket bound to it since would match too, which only
	 * stops a session whose owner is gone anyway. The stream stops
	 * sending here, before this socket's close returns.
	 */
	spin_lock(&sess.owner_lock);
	if (sess.cfg.owner.sk && net_eq(sock_net(sess.cfg.owner.sk), n->net) &&
	    sess.cfg.owner.portid == n->portid) {
		cp_stream_owner_gone();
		sess.release_id = sess.id;
		schedule_work(&sess.release_work);
	}
	spin_unlock(&sess.owner_lock);
	return NOTIFY_DONE;
}

static struct notifier_block release_nb = {
	.notifier_call = release_notify,
};

/* The session layer brings up, and tears down, the causal engine below it. */
int __init cp_session_init(void)
{
	cp_causal_init();
	INIT_WORK(&sess.release_work, release_work_fn);
	INIT_DELAYED_WORK(&sess.finish_work, finish_work_fn);
	INIT_DELAYED_WORK(&sess.exp_timeout, exp_timeout_fn);
	return netlink_register_notifier(&release_nb);
}

/*
 * First thing at unload, while the netlink family can still carry the
 * session's last records: no new session, and the running one stops now,
 * dropping what its owner cannot take at once.
 */
void cp_session_shutdown(void)
{
	mutex_lock(&sess.lock);
	sess.closing = true;
	if (sess.state == CAUSALPROF_STATE_RECORDING)
		stop_locked();
	else if (sess.state == CAUSALPROF_STATE_STOPPING)
		finish_locked(true);
	mutex_unlock(&sess.lock);
	cancel_delayed_work_sync(&sess.finish_work);
	cancel_delayed_work_sync(&sess.exp_timeout);
}

/*
 * Last thing at unload, once debugfs is gone: nothing can reach the
 * session, nor the causal engine, any more.
 */
void cp_session_uninit(void)
{
	netlink_unregister_notifier(&release_nb);
	cancel_work_sync(&sess.release_work);
	cp_session_shutdown();
	cp_causal_uninit();
}
