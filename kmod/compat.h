/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels causalprof supports, Linux 6.1 to 6.12
 * (tested: the two LTS kernels Debian 12 ships, see README.md). Each shim
 * names the release and the commit that changed the API; the rest of the
 * module calls the shims and never tests the kernel version itself. A
 * kernel in between takes, shim by shim, the side of the release that made
 * the change.
 */
#ifndef _CAUSALPROF_COMPAT_H
#define _CAUSALPROF_COMPAT_H

#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/task_work.h>
#include <linux/uprobes.h>
#include <linux/version.h>

/* Kbuild refuses older kernels before compiling; this catches other builds. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "causalprof needs Linux 6.1 or later (README.md, Supported kernels)"
#endif

/*
 * Task work queued by the overflow handler for current. The return from
 * an NMI to user mode does not look at TIF_NOTIFY_RESUME, so before 6.11
 * work queued from NMI with TWA_RESUME runs at the task's next return from
 * an interrupt or a system call (a tick later, at most, for a task running
 * user code). 6.11's TWA_NMI_CURRENT (466e4d801cd4 "task_work: Add
 * TWA_NMI_CURRENT as an additional notify mode.") raises a self-interrupt
 * whose return runs it at once, and is NMI-safe where TWA_RESUME is not
 * (KASAN records the caller's stack). From a hard interrupt TWA_RESUME
 * runs the work on the way back from that very interrupt everywhere.
 */
static inline enum task_work_notify_mode cp_twa_current(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	if (in_nmi())
		return TWA_NMI_CURRENT;
#endif
	return TWA_RESUME;
}

/*
 * Whether task work for current cannot be queued from here: in NMI before
 * 6.11 (see above); causal.c then goes through an irq_work.
 */
static inline bool cp_nmi_defers_task_work(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	return false;
#else
	return in_nmi();
#endif
}

/*
 * Tasks that never return to user mode, so never run task work queued with
 * TWA_RESUME: kernel threads, io_uring's workers and, since 6.4, the user
 * workers vhost starts (PF_USER_WORKER, 54e6842d0775 "fork/vm: Move common
 * PF_IO_WORKER behavior to new flag"), which 6.1 does not have.
 */
#ifdef PF_USER_WORKER
#define CP_PF_NO_USER		(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define CP_PF_NO_USER		(PF_KTHREAD | PF_IO_WORKER)
#endif

/*
 * What a generic netlink family's pre_doit is given: the command's split
 * ops since 6.2 (Jakub Kicinski's series "genetlink: split ops", which
 * made pre_doit and post_doit take struct genl_split_ops), before that the
 * command's struct genl_ops. Both carry cmd and internal_flags.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define cp_genl_pre_ops		genl_split_ops
#else
#define cp_genl_pre_ops		genl_ops
#endif

/*
 * A uprobe registration. Since 6.12 uprobe_register() returns the uprobe
 * (3c83a9ad0295 "uprobes: make uprobe_register() return struct uprobe *"),
 * handlers run under RCU Tasks Trace rather than the uprobe's
 * register_rwsem, and unregistering takes two steps (04b01625da13
 * "perf/uprobe: split uprobe_unregister()"): _nosync() unlinks a consumer,
 * _sync() waits for the handlers still running, once for any number of
 * consumers. Before, uprobe_unregister() does both.
 */
struct cp_uprobe {
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	struct uprobe *uprobe;
#else
	struct inode *inode;
	loff_t offset;
#endif
};

static inline int cp_uprobe_register(struct cp_uprobe *up, struct inode *inode, loff_t offset,
				     struct uprobe_consumer *uc)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	up->uprobe = uprobe_register(inode, offset, 0, uc);
	return PTR_ERR_OR_ZERO(up->uprobe);
#else
	up->inode = inode;
	up->offset = offset;
	return uprobe_register(inode, offset, uc);
#endif
}

/* No new call of uc's handlers; those running may go on until _sync(). */
static inline void cp_uprobe_unregister_nosync(struct cp_uprobe *up, struct uprobe_consumer *uc)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_nosync(up->uprobe, uc);
#else
	uprobe_unregister(up->inode, up->offset, uc);
#endif
}

/* No handler of a consumer unregistered before runs any more. */
static inline void cp_uprobe_unregister_sync(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_sync();
#endif
}

/*
 * The parameters of a uprobe consumer's filter, which says whether the
 * consumer wants its breakpoint in mm. 6.12 dropped the filter's context
 * argument (59da880afed2 "uprobes: get rid of enum uprobe_filter_ctx in
 * uprobe filter callbacks"), and since then a handler's
 * UPROBE_HANDLER_REMOVE takes the breakpoint out of current's mm only if
 * every consumer's filter, asked again, says no (cc01bd044e6a "uprobes:
 * travers uprobe's consumer list locklessly under SRCU protection");
 * before, the handlers' word was enough.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define CP_UPROBE_FILTER_ARGS(uc, mm) \
	struct uprobe_consumer *uc, struct mm_struct *mm
#else
#define CP_UPROBE_FILTER_ARGS(uc, mm) \
	struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx, struct mm_struct *mm
#endif

#endif /* _CAUSALPROF_COMPAT_H */
