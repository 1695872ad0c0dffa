// SPDX-License-Identifier: GPL-2.0
/*
 * Who may change whom. Sampling needs CAP_PERFMON, as perf does; what
 * changes a target (an experiment delays its threads, a progress point
 * puts breakpoints in its memory) follows perf's rule for events that
 * change their target: the right to ptrace-attach it.
 *
 * The caller is current, whose credentials are, on the /proc path, the
 * control file's opener's (proc.c overrides them for the write), and, on
 * the netlink path, the sender's; there the socket's opener must pass
 * too, as netlink_capable() has it. ptrace_may_access() is not exported:
 * cp_may_attach() does what it does for PTRACE_MODE_ATTACH_REALCREDS,
 * but for the LSM hook (security_ptrace_access_check(), not exported
 * either; see Documentation/security.rst).
 */

#include "access.h"
#include "shared.h"

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/net.h>
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
 * __ptrace_may_access() for PTRACE_MODE_ATTACH_REALCREDS, current's
 * credentials: the same real uid and gid as the target's every uid and
 * gid, or CAP_SYS_PTRACE in its user namespace; and a dumpable target, or
 * CAP_SYS_PTRACE in its mm's user namespace. Under task_lock(task), as
 * ptrace_may_access() has it (task->mm stays).
 */
static bool attach_ok(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	task_lock(task);
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid)) ||
	     ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (ok) {
		/* Dumpability after the credentials: pairs with commit_creds(). */
		smp_rmb();
		mm = task->mm;
		ok = !mm || get_dumpable(mm) == SUID_DUMP_USER ||
		     ns_capable(mm->user_ns, CAP_SYS_PTRACE);
	}
	task_unlock(task);
	return ok;
}

/* Process context. */
bool cp_may_attach(const struct cp_owner *who, struct task_struct *task)
{
	struct file *file = opener_file(who);
	const struct cred *old;
	bool ok;

	ok = attach_ok(task);
	if (ok && file && file->f_cred != current_cred()) {
		old = override_creds(file->f_cred);
		ok = attach_ok(task);
		revert_creds(old);
	}
	return ok;
}
