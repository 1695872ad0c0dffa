// SPDX-License-Identifier: GPL-2.0
/*
 * Who may change whom. Sampling needs CAP_PERFMON, as perf does; what
 * changes a target (an experiment delays its threads, a progress point
 * puts breakpoints in its memory) follows perf's rule for events that
 * change their target: the right to ptrace-attach it.
 *
 * A request is judged by current, whose credentials are, on the /proc
 * path, the control file's opener's (proc.c overrides them for the write),
 * and, on the netlink path, the sender's; there the socket's opener must
 * pass too, as netlink_capable() has it. A change is judged again later,
 * for every process it reaches, by the same credentials, held since
 * (struct cp_caller): a payer in its own context before it sleeps off a
 * delay, a process that maps a probed file or hits its breakpoint. That
 * catches targets that changed credentials since (exec of a setuid or
 * setcap file, set*id()).
 *
 * ptrace_may_access() is exported neither by 6.1 nor by 6.12 (their
 * Module.symvers), nor is security_ptrace_access_check(); and the later
 * judgements run in the target's own context, where ptrace_may_access()
 * would let anything through (same_thread_group()) and judge current's
 * credentials, not the caller's. So attach_ok() copies, for
 * PTRACE_MODE_ATTACH_REALCREDS on behalf of any credentials:
 * ptrace_attach()'s refusals (kernel threads, tasks that exit), its
 * __ptrace_may_access() (uids and gids, dumpability) and the capability
 * module's part of the LSM hook, cap_ptrace_access_check(). The other LSMs
 * (Yama's ptrace_scope, SELinux, AppArmor) are not consulted: see
 * Documentation/security.rst.
 */

#include "access.h"
#include "shared.h"

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/user_namespace.h>
#include <net/sock.h>

/* The file of the requesting socket: its opener's credentials count too. */
static struct file *opener_file(const struct cp_owner *who)
{
	struct socket *sock = who && who->sk ? who->sk->sk_socket : NULL;

	return sock ? sock->file : NULL;
}

/* cap in the initial user namespace, for the caller and the socket's opener. */
bool cp_capable(const struct cp_owner *who, int cap)
{
	struct file *file = opener_file(who);

	if (file && !file_ns_capable(file, &init_user_ns, cap))
		return false;
	return ns_capable_noaudit(&init_user_ns, cap);
}

/*
 * CAP_SYS_PTRACE in ns, for cred: security_capable() is not exported, so
 * cred stands in for current's own credentials a moment. A request's own
 * judgement is audited, as ptrace's is; a later one, made in the target's
 * context, is not (the audit record would name the target), and leaves
 * the target's PF_SUPERPRIV as it was: the target used no privilege.
 */
static bool ptrace_capable(const struct cred *cred, struct user_namespace *ns, bool audit)
{
	unsigned int superpriv = current->flags & PF_SUPERPRIV;
	const struct cred *old = NULL;
	bool ok;

	if (cred != current_cred())
		old = override_creds(cred);
	ok = audit ? ns_capable(ns, CAP_SYS_PTRACE) : ns_capable_noaudit(ns, CAP_SYS_PTRACE);
	if (old)
		revert_creds(old);
	if (!audit)
		current->flags = (current->flags & ~PF_SUPERPRIV) | superpriv;
	return ok;
}

/*
 * Whether cred may ptrace-attach task (PTRACE_MODE_ATTACH_REALCREDS), as
 * ptrace_attach() judges it but for the LSMs other than commoncap:
 *
 * - ptrace_attach(): no kernel thread, no task that exits (exit_state; a
 *   zombie thread-group leader has no mm left to tell whether its process
 *   is dumpable) and, as the same holds for a task past exit_mm(), none
 *   without an mm;
 * - __ptrace_may_access(): cred's real uid and gid equal to every uid and
 *   gid of the task, or CAP_SYS_PTRACE in its user namespace; and a
 *   dumpable task, or CAP_SYS_PTRACE in its mm's user namespace;
 * - cap_ptrace_access_check(): the same user namespace and the task's
 *   permitted capabilities within cred's, or CAP_SYS_PTRACE in the task's
 *   user namespace.
 *
 * Under task_lock(task), as ptrace_may_access() has it (task->mm stays).
 * Process context; task may be current.
 */
static bool attach_ok(const struct cred *cred, struct task_struct *task, bool audit)
{
	const struct cred *tcred;
	struct mm_struct *mm;
	bool ok;

	if (task->flags & PF_KTHREAD)
		return false;
	task_lock(task);
	mm = task->mm;
	if (task->exit_state || !mm) {
		ok = false;
		goto out;
	}
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid)) ||
	     ptrace_capable(cred, tcred->user_ns, audit);
	rcu_read_unlock();
	if (!ok)
		goto out;
	/* Dumpability after the credentials: pairs with commit_creds(). */
	smp_rmb();
	ok = get_dumpable(mm) == SUID_DUMP_USER || ptrace_capable(cred, mm->user_ns, audit);
	if (!ok)
		goto out;
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (cred->user_ns == tcred->user_ns &&
	      cap_issubset(tcred->cap_permitted, cred->cap_permitted)) ||
	     ptrace_capable(cred, tcred->user_ns, audit);
	rcu_read_unlock();
out:
	task_unlock(task);
	return ok;
}

/* Process context: a request's own judgement. */
bool cp_may_attach(const struct cp_owner *who, struct task_struct *task)
{
	struct file *file = opener_file(who);

	if (!attach_ok(current_cred(), task, true))
		return false;
	return !file || file->f_cred == current_cred() || attach_ok(file->f_cred, task, true);
}

/* The credentials that judged a request, held for judging again. */
void cp_caller_get(struct cp_caller *c, const struct cp_owner *who)
{
	struct file *file = opener_file(who);

	c->cred[0] = get_current_cred();
	c->cred[1] = file && file->f_cred != current_cred() ? get_cred(file->f_cred) : NULL;
}

void cp_caller_put(struct cp_caller *c)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->cred); i++) {
		if (c->cred[i])
			put_cred(c->cred[i]);
		c->cred[i] = NULL;
	}
}

/*
 * Whether the caller c holds may still ptrace-attach task, which may be
 * current (a payer, a process that maps a probed file or hits its
 * breakpoint). Process context, maybe inside an RCU read-side section,
 * never under task_lock(task), which it takes.
 */
bool cp_caller_may_attach(const struct cp_caller *c, struct task_struct *task)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->cred); i++)
		if (c->cred[i] && !attach_ok(c->cred[i], task, false))
			return false;
	return c->cred[0];
}

/*
 * Whether the caller may read the file at path, as open(2) would judge it
 * (its mode, ACLs, the LSMs' inode_permission hooks): 0 or -EACCES (or
 * what inode_permission() says). Process context.
 */
int cp_caller_may_read(const struct cp_caller *c, const struct path *path)
{
	const struct cred *old;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(c->cred) && !ret; i++) {
		if (!c->cred[i])
			continue;
		old = override_creds(c->cred[i]);
		ret = path_permission(path, MAY_READ);
		revert_creds(old);
	}
	return ret;
}
