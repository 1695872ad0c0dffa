// SPDX-License-Identifier: GPL-2.0
/*
 * The records a reader needs to make sense of samples: which files a
 * process maps where (MMAP), what its threads are called (COMM), and when
 * they start and end (FORK, EXIT); and which targets it may no longer
 * change (DENIED). A session starts with those of every
 * target as it is, then hooks.c reports the changes as they happen. None of
 * this runs in NMI; the records share one ring, under a lock.
 */

#include "sideband.h"
#include "stream.h"

#include <linux/causalprof.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

struct path_buf {
	char buf[PATH_MAX];
};

/* For mappings reported from the kprobe, which runs with preemption off. */
static struct path_buf __percpu *path_bufs;

/*
 * Room for a record of @size bytes in the sideband ring, its header filled
 * in, or NULL if there is none (the stream counts it). Under
 * cp_stream_sb_lock(); cp_stream_sb_commit(*@next) publishes it.
 */
static void *sb_record(u16 type, u16 flags, u32 size, unsigned long *next)
{
	struct causalprof_record_hdr *hdr = cp_stream_sb_reserve(size, next);

	if (hdr) {
		hdr->type = type;
		hdr->flags = flags;
		hdr->size = size;
	}
	return hdr;
}

void cp_sideband_comm(const struct task_struct *t, const char *comm, u16 flags)
{
	struct causalprof_comm *rec;
	unsigned long next, irq;

	irq = cp_stream_sb_lock();
	rec = sb_record(CAUSALPROF_REC_COMM, flags, sizeof(*rec), &next);
	if (rec) {
		rec->time_ns = ktime_get_mono_fast_ns();
		rec->pid = t->tgid;
		rec->tid = t->pid;
		strscpy_pad(rec->comm, comm, sizeof(rec->comm));
		cp_stream_sb_commit(next);
	}
	cp_stream_sb_unlock(irq);
}

/* FORK (with the parent) or EXIT of a thread. */
void cp_sideband_task(u16 type, const struct task_struct *t, const struct task_struct *parent)
{
	struct causalprof_task *rec;
	unsigned long next, irq;

	irq = cp_stream_sb_lock();
	rec = sb_record(type, 0, sizeof(*rec), &next);
	if (rec) {
		rec->time_ns = ktime_get_mono_fast_ns();
		rec->pid = t->tgid;
		rec->tid = t->pid;
		rec->ppid = parent ? parent->tgid : 0;
		rec->ptid = parent ? parent->pid : 0;
		cp_stream_sb_commit(next);
	}
	cp_stream_sb_unlock(irq);
}

/*
 * A target the session may no longer change (struct causalprof_denied):
 * point (CAUSALPROF_DENIED_F_POINT) or delays (CAUSALPROF_DENIED_F_DELAYS)
 * stop at thread t. Task context; the caller makes sure the session's
 * stream is there (a point's handler or filter, a payer of the running
 * experiment).
 */
void cp_sideband_denied(const struct task_struct *t, u32 point, u16 flags)
{
	struct causalprof_denied *rec;
	unsigned long next, irq;

	irq = cp_stream_sb_lock();
	rec = sb_record(CAUSALPROF_REC_DENIED, flags, sizeof(*rec), &next);
	if (rec) {
		rec->time_ns = ktime_get_mono_fast_ns();
		rec->pid = t->tgid;
		rec->tid = t->pid;
		rec->point = point;
		rec->pad = 0;
		cp_stream_sb_commit(next);
	}
	cp_stream_sb_unlock(irq);
}

/*
 * The name of an executable mapping: its file's path, the name of a
 * special mapping such as "[vdso]", or, for anonymous code (a JIT's), perf's
 * "//anon": user space names that from the JIT's /tmp/perf-PID.map.
 */
static const char *vma_name(struct vm_area_struct *vma, char *buf)
{
	const char *name;

	if (vma->vm_file) {
		name = d_path(&vma->vm_file->f_path, buf, PATH_MAX);
		return IS_ERR(name) ? NULL : name;
	}
	if (vma->vm_ops && vma->vm_ops->name)
		return vma->vm_ops->name(vma);
	return CAUSALPROF_MMAP_ANON;
}

static u32 mmap_size(const char *name)
{
	return ALIGN(sizeof(struct causalprof_mmap) + strlen(name) + 1, 8);
}

static void emit_mmap(pid_t tgid, const struct vm_area_struct *vma, const char *name)
{
	size_t len = strlen(name) + 1;
	u32 size = mmap_size(name);
	struct causalprof_mmap *rec;
	unsigned long next, irq;

	irq = cp_stream_sb_lock();
	rec = sb_record(CAUSALPROF_REC_MMAP, 0, size, &next);
	if (rec) {
		rec->time_ns = ktime_get_mono_fast_ns();
		rec->pid = tgid;
		rec->pad = 0;
		rec->start = vma->vm_start;
		rec->len = vma->vm_end - vma->vm_start;
		rec->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
		memcpy(rec->path, name, len);
		memset(rec->path + len, 0, size - sizeof(*rec) - len);
		cp_stream_sb_commit(next);
	}
	cp_stream_sb_unlock(irq);
}

/* A new executable mapping of current's, from the kprobe on perf_event_mmap. */
void cp_sideband_mmap(struct vm_area_struct *vma)
{
	const char *name = vma_name(vma, this_cpu_ptr(path_bufs)->buf);

	if (name)
		emit_mmap(current->tgid, vma, name);
}

int cp_sideband_start(struct netlink_ext_ack *extack)
{
	path_bufs = alloc_percpu(struct path_buf);
	if (!path_bufs) {
		NL_SET_ERR_MSG(extack, "out of memory for the sideband");
		return -ENOMEM;
	}
	return 0;
}

/* Once the hooks are gone. */
void cp_sideband_stop(void)
{
	free_percpu(path_bufs);
	path_bufs = NULL;
}

static void dump_threads(struct task_struct *leader)
{
	char comm[TASK_COMM_LEN];
	struct task_struct *t;

	cp_stream_sb_room(2 * (get_nr_threads(leader) + 1) * sizeof(struct causalprof_comm));
	rcu_read_lock();
	for_each_thread(leader, t) {
		__get_task_comm(comm, sizeof(comm), t);
		cp_sideband_comm(t, comm, 0);
	}
	rcu_read_unlock();
}

static void dump_vmas(pid_t tgid, struct mm_struct *mm, char *buf)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	const char *name;

	for_each_vma(vmi, vma) {
		if (!(vma->vm_flags & VM_EXEC))
			continue;
		name = vma_name(vma, buf);
		if (!name)
			continue;
		/* Draining sends to the owner; it does not touch this mm. */
		cp_stream_sb_room(2 * mmap_size(name));
		emit_mmap(tgid, vma, name);
	}
}

/*
 * The dump runs under the session's lock, which a stop, the experiment's
 * timeout and rmmod wait for, and a process's mmap_lock may be held as long
 * as a user likes (a fault on a FUSE file that never answers holds it, and
 * so does a writer queued behind that). So the dump waits for a process's
 * lock at most LOCK_WAIT, and LOCK_WAIT_ALL for all of them together; past
 * that it leaves the process's mappings out, counted as sideband records
 * lost.
 */
#define LOCK_WAIT	(HZ / 10)
#define LOCK_WAIT_ALL	HZ

static bool mmap_lock_bounded(struct mm_struct *mm, unsigned long *budget)
{
	unsigned long start = jiffies, wait = min_t(unsigned long, *budget, LOCK_WAIT);
	bool locked;

	while (!(locked = mmap_read_trylock(mm)) && time_before(jiffies, start + wait) &&
	       !fatal_signal_pending(current))
		schedule_timeout_killable(1);
	*budget -= min(*budget, jiffies - start);
	return locked;
}

static void dump_maps(struct task_struct *leader, char *buf, unsigned long *budget)
{
	struct mm_struct *mm = get_task_mm(leader);

	if (!mm)
		return;
	if (mmap_lock_bounded(mm, budget)) {
		dump_vmas(leader->tgid, mm, buf);
		mmap_read_unlock(mm);
	} else {
		cp_stream_sb_lose();
	}
	mmput(mm);
}

/* The process tgid (in the initial pid namespace), or the next one after it. */
static struct task_struct *get_process(pid_t *tgid, bool or_next)
{
	struct task_struct *t = NULL;
	struct pid *pid;

	rcu_read_lock();
	while ((pid = or_next ? find_ge_pid(*tgid, &init_pid_ns) :
			       find_pid_ns(*tgid, &init_pid_ns))) {
		*tgid = pid_nr(pid) + 1;
		t = pid_task(pid, PIDTYPE_TGID);
		if (t || !or_next)
			break;
	}
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	return t;
}

/*
 * COMM of every thread and MMAP of every executable mapping of the process
 * tgid, or of every process when all. Runs with the hooks in place, so a
 * change made meanwhile is reported too, possibly twice.
 */
int cp_sideband_dump(bool all, pid_t tgid, struct netlink_ext_ack *extack)
{
	unsigned long budget = LOCK_WAIT_ALL;
	struct task_struct *t;
	char *buf;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf) {
		NL_SET_ERR_MSG(extack, "out of memory for the initial mappings");
		return -ENOMEM;
	}
	if (all)
		tgid = 1;
	while ((t = get_process(&tgid, all))) {
		dump_threads(t);
		dump_maps(t, buf, &budget);
		put_task_struct(t);
		if (!all || fatal_signal_pending(current))
			break;
		cond_resched();
	}
	kfree(buf);
	return 0;
}
