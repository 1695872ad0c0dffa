// SPDX-License-Identifier: GPL-2.0
/*
 * Progress points: uprobes on (file, offset) that count the passes of the
 * session's target processes exactly. A throughput point counts hits. A
 * latency point is a begin/end pair: each event first integrates the
 * in-flight count over the time since the last one (area += inflight * dt),
 * then moves it, so that area / ends is the mean latency (Little's law) up
 * to the instant of any snapshot.
 *
 * A probe (a throughput point's, a latency point's begin or end) may sit at
 * several sites of the file, up to CAUSALPROF_MAX_SITES: one uprobe each,
 * any of which is a hit of the probe. That is how a function's return is
 * counted without a uretprobe (which rewrites the return address on the
 * stack, and Go's stack copying does not survive that): cprof probes every
 * instruction by which the function leaves. The point's sites are one
 * array, the begin probe's first.
 *
 * Handlers run in task context, from uprobe_notify_resume() on the way
 * back to user mode after the breakpoint. Once a point's consumers are
 * unregistered and cp_uprobe_unregister_sync() has returned, no handler of
 * the point runs or will run (compat.h: on 6.1 uprobe_unregister() waits
 * on the uprobe's register_rwsem, which the handlers hold for reading; on
 * 6.12 a grace period of the RCU Tasks Trace the handlers run under): the
 * point may be freed, and the module's text go. Points exist only while the
 * session records (cp_progress_clear() comes before the target set goes),
 * which is what makes cp_target_match() safe to call from the handlers and
 * the filter.
 *
 * The breakpoint goes only into the address spaces of targets: the filter
 * tells, for the process mapping the file (current) and, at registration,
 * for any other address space (one of the processes using it is a
 * target). A process that is not a target never traps. One that has it
 * and stops being a target (a child beyond max_targets, which inherited
 * its parent's memory), sharing its memory only with its own threads, asks
 * at its first hit for the breakpoint to be taken out of its address space
 * (UPROBE_HANDLER_REMOVE, which the filter confirms).
 *
 * A point changes the processes it is in, so each is judged as it was
 * when the point was added: whoever added it must still be allowed to
 * ptrace-attach it (access.c, by the adder's credentials, held by the
 * point). A target may stop qualifying: it execs a setuid or setcap file,
 * or changes its credentials with set*id(). No hook tells a module of a
 * change of credentials (commit_creds() has no tracepoint, and a kprobe on
 * it would see the credentials before they are installed), so the
 * judgement is made where the point acts: in the filter, for the process
 * that maps the probed file (exec maps the new image after it installs
 * the new credentials and dumpability: a setuid image never gets the
 * breakpoint), and for the address spaces found at registration; and in
 * the handler, for the process that hits the breakpoint (after set*id()).
 * A process that fails is not counted, has the breakpoint taken out of
 * its memory where only its threads use it, and the session gets a
 * CAUSALPROF_REC_DENIED record, once per point and process in a row.
 *
 * What may be probed: a regular file, named without a symbolic link, at an
 * offset inside a segment that the ELF file's program headers mark
 * executable (probefile.c); uprobes then refuses an instruction it cannot
 * step (when a target maps the file). Whether the offset starts an
 * instruction the kernel cannot tell without the file's symbols: cprof
 * takes offsets from symbols and line tables, which are instruction
 * starts, and a wrong one can only harm the targets, which the caller may
 * ptrace anyway.
 *
 * Add, del and clear are serialized by points_mutex (and run under the
 * session lock besides); the table's readers take points_lock, so a
 * snapshot may be taken from any context but NMI. What may wait on the
 * file system (the lookup, reading the ELF headers) is done before, by
 * cp_progress_open() without a lock: a FUSE file that never answers keeps
 * its adder waiting, nobody else. uprobe_register() reads the instruction
 * only where a target maps the file already, from the page cache then.
 */

#include "access.h"
#include "causal.h"
#include "compat.h"
#include "gohooks.h"
#include "probefile.h"
#include "progress.h"
#include "sideband.h"
#include "targets.h"

#include <linux/atomic.h>
#include <linux/causalprof.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uprobes.h>

struct cp_point;

struct cp_probe {
	struct uprobe_consumer uc;
	struct cp_uprobe up;
	struct cp_point *pt;
	u64 offset;
	u32 visit_ns;			/* what a hit costs its thread (the trap) */
	bool end;			/* a site of a latency point's end */
	bool stack_check;		/* a Go stack check's jbe (cp_go_stack_grows()) */
	bool registered;
};

struct cp_point {
	u32 id;
	u32 kind;			/* enum causalprof_pp_kind */
	char *name;			/* the path as given */
	struct cp_probefile file;	/* held while the probes are registered */
	struct cp_probe *sites;		/* nr_begin of the begin probe, then the end's */
	unsigned int nr_begin, nr_sites;
	struct cp_caller adder;		/* who added it, judging its targets */
	atomic_t denied;		/* the last process told it is denied */

	atomic64_t hits;		/* throughput points */

	raw_spinlock_t lock;
	/* Throughput points, under lock: the running experiment's hits, timed */
	u32 span_xp;
	u64 span_hits;
	u64 span_first, span_last;
	u64 first_inserted, last_inserted;

	/* Latency points, under lock */
	u64 begins, ends, inflight;
	u64 stray_ends;			/* ends with nothing in flight */
	u64 area_ns, last_ns;
};

static DEFINE_MUTEX(points_mutex);
static DEFINE_SPINLOCK(points_lock);
static struct cp_point *points[CP_MAX_PROGRESS];

static struct {
	atomic64_t hits;	/* counted, every point */
	atomic64_t ignored;	/* hits not counted: not a target, or denied */
	atomic64_t removed;	/* of those, breakpoints taken out of their mm */
	atomic64_t denied;	/* of those, targets the adder may not change */
	atomic64_t stray_ends;
	atomic64_t restarts;	/* hits at a Go stack check growing the stack: none */
	atomic64_t added;	/* points, since load */
	atomic64_t deleted;
} stats;

static const char *const kind_names[] = {
	[CAUSALPROF_PP_THROUGHPUT]	= "throughput",
	[CAUSALPROF_PP_LATENCY]		= "latency",
};

/*
 * A hit by a task that is not followed, or denied (deny()): not counted.
 * Its breakpoints may go if nothing but its own threads uses its memory
 * (mm_users only ever exceeds the thread count, by transient references
 * or another process).
 */
static int ignore(void)
{
	atomic64_inc(&stats.ignored);
	if (cp_probefile_mm_own()) {
		atomic64_inc(&stats.removed);
		return UPROBE_HANDLER_REMOVE;
	}
	return 0;
}

/*
 * Whether pt may count current, a target: its adder may still
 * ptrace-attach it. If not, the session is told, unless it was told of
 * this process last.
 */
static bool may_count_current(struct cp_point *pt)
{
	if (cp_caller_may_attach(&pt->adder, current))
		return true;
	if (atomic_xchg(&pt->denied, current->tgid) != current->tgid)
		cp_sideband_denied(current, pt->id, CAUSALPROF_DENIED_F_POINT);
	return false;
}

/*
 * Whether the probe's breakpoint belongs in mm: in a target's only, one
 * the point's adder may change. mm is current's when a process maps the
 * file (and, on 6.12, when a handler's removal is confirmed); another's at
 * registration.
 */
static bool probe_filter(CP_UPROBE_FILTER_ARGS(uc, mm))
{
	struct cp_point *pt = container_of(uc, struct cp_probe, uc)->pt;

	if (mm == current->mm)
		return cp_target_match(current) && may_count_current(pt);
	return cp_probefile_mm_wanted(&pt->adder, mm);
}

/* A hit by a target the point's adder may no longer change: not counted. */
static int deny(void)
{
	atomic64_inc(&stats.denied);
	return ignore();
}

/*
 * A throughput hit during an experiment: its time and the delay inserted
 * so far, the first of the experiment's and the last. Task context (the
 * uprobe's trap); the snapshots read them under the lock, so a span is
 * always whole.
 */
static void span_hit(struct cp_point *pt)
{
	unsigned long flags;
	u64 inserted, now;
	u32 xp;

	xp = cp_causal_clock(&inserted);
	if (!xp)
		return;
	now = ktime_get_ns();
	raw_spin_lock_irqsave(&pt->lock, flags);
	if (pt->span_xp != xp) {
		pt->span_xp = xp;
		pt->span_hits = 0;
		pt->span_first = now;
		pt->first_inserted = inserted;
	}
	pt->span_hits++;
	pt->span_last = now;
	pt->last_inserted = inserted;
	raw_spin_unlock_irqrestore(&pt->lock, flags);
}

/*
 * A hit at a Go stack check's jbe that grows the stack: the function
 * starts again and passes the probe once more, that time a visit. Its
 * trap was paid all the same.
 */
static bool restarts(const struct cp_probe *p, const struct pt_regs *regs)
{
	if (!p->stack_check || !cp_go_stack_grows(regs))
		return false;
	atomic64_inc(&stats.restarts);
	cp_causal_visit(p->visit_ns);
	return true;
}

static int throughput_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct cp_probe *p = container_of(uc, struct cp_probe, uc);

	if (!cp_target_match(current))
		return ignore();
	if (!may_count_current(p->pt))
		return deny();
	if (restarts(p, regs))
		return 0;
	atomic64_inc(&p->pt->hits);
	atomic64_inc(&stats.hits);
	span_hit(p->pt);
	cp_causal_visit(p->visit_ns);
	return 0;
}

/* Under pt->lock: the in-flight count integrated up to now. */
static void integrate(struct cp_point *pt, u64 now)
{
	if (now > pt->last_ns) {
		pt->area_ns += pt->inflight * (now - pt->last_ns);
		pt->last_ns = now;
	}
}

static int latency_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct cp_probe *p = container_of(uc, struct cp_probe, uc);
	struct cp_point *pt = p->pt;
	unsigned long flags;
	bool stray = false;

	if (!cp_target_match(current))
		return ignore();
	if (!may_count_current(pt))
		return deny();
	if (restarts(p, regs))
		return 0;

	raw_spin_lock_irqsave(&pt->lock, flags);
	integrate(pt, ktime_get_ns());
	if (!p->end) {
		pt->inflight++;
		pt->begins++;
	} else if (pt->inflight) {
		pt->inflight--;
		pt->ends++;
	} else {
		pt->stray_ends++;
		stray = true;
	}
	raw_spin_unlock_irqrestore(&pt->lock, flags);

	atomic64_inc(stray ? &stats.stray_ends : &stats.hits);
	cp_causal_visit(p->visit_ns);
	return 0;
}

static int probe_register(struct cp_point *pt, struct cp_probe *p,
			  struct netlink_ext_ack *extack)
{
	int ret;

	p->pt = pt;
	p->uc.handler = pt->kind == CAUSALPROF_PP_LATENCY ? latency_handler : throughput_handler;
	p->uc.filter = probe_filter;
	ret = cp_uprobe_register(&p->up, pt->file.inode, p->offset, &p->uc);
	if (ret) {
		/*
		 * uprobes' analysis of the instruction there: none decoded
		 * (ENOEXEC), or none it can step (ENOTSUPP, internal).
		 */
		NL_SET_ERR_MSG(extack, "no instruction uprobes can probe starts at that offset");
		return ret == -ENOTSUPP || ret == -ENOEXEC || ret == -EINVAL ? -EINVAL : ret;
	}
	p->registered = true;
	return 0;
}

/* Its handlers may still run until cp_uprobe_unregister_sync(). */
static void probe_unregister(struct cp_probe *p)
{
	if (!p->registered)
		return;
	cp_uprobe_unregister_nosync(&p->up, &p->uc);
	p->registered = false;
}

/* The probes first, then a sync, then point_free(). */
static void point_unregister(struct cp_point *pt)
{
	unsigned int i = pt->nr_sites;

	while (i--)
		probe_unregister(&pt->sites[i]);
}

/* Once no handler of pt runs any more. */
static void point_free(struct cp_point *pt)
{
	cp_probefile_put(&pt->file);
	cp_caller_put(&pt->adder);
	kfree(pt->sites);
	kfree(pt->name);
	kfree(pt);
}

/* Whether a probe's sites are 1 to CAUSALPROF_MAX_SITES offsets, none twice. */
static int sites_check(const struct cp_sites *s, const struct cp_sites *other,
		       struct netlink_ext_ack *extack)
{
	unsigned int i, j;

	BUILD_BUG_ON(CAUSALPROF_MAX_SITES != 64);
	if (s->nr > CAUSALPROF_MAX_SITES) {
		NL_SET_ERR_MSG(extack, "more than 64 sites for a probe (CAUSALPROF_MAX_SITES)");
		return -EINVAL;
	}
	for (i = 0; i < s->nr; i++) {
		for (j = i + 1; j < s->nr; j++) {
			if (s->off[i] == s->off[j]) {
				NL_SET_ERR_MSG(extack, "two sites of a probe at the same offset");
				return -EINVAL;
			}
		}
		for (j = 0; j < other->nr; j++) {
			if (s->off[i] == other->off[j]) {
				NL_SET_ERR_MSG(extack, "a latency point's begin and end must differ");
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int args_check(u32 kind, const struct cp_sites *begin,
		      const struct cp_sites *end, struct netlink_ext_ack *extack)
{
	static const struct cp_sites none;
	int ret;

	if (kind >= ARRAY_SIZE(kind_names)) {
		NL_SET_ERR_MSG(extack, "unknown progress point kind");
		return -EINVAL;
	}
	if (!begin->nr) {
		NL_SET_ERR_MSG(extack, "a progress point needs an offset");
		return -EINVAL;
	}
	if (kind == CAUSALPROF_PP_THROUGHPUT && end->nr) {
		NL_SET_ERR_MSG(extack, "a throughput point has no end");
		return -EINVAL;
	}
	if (kind == CAUSALPROF_PP_LATENCY && !end->nr) {
		NL_SET_ERR_MSG(extack, "a latency point needs an end offset");
		return -EINVAL;
	}
	ret = sites_check(begin, end, extack);
	return ret ?: sites_check(end, &none, extack);
}

/*
 * A point, its file looked up and its offsets checked, not registered:
 * the part of adding a point that may wait on the file system (a lookup,
 * reads of the ELF headers), done before the caller takes any lock that
 * others wait for. cp_progress_add() registers it, cp_progress_put()
 * drops it.
 */
struct cp_point *cp_progress_open(const struct cp_owner *who, u32 id, u32 kind,
				  const char *name, const struct cp_sites *begin,
				  const struct cp_sites *end, struct netlink_ext_ack *extack)
{
	struct cp_point *pt;
	unsigned int i;
	int ret;

	ret = args_check(kind, begin, end, extack);
	if (ret)
		return ERR_PTR(ret);
	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return ERR_PTR(-ENOMEM);
	pt->id = id;
	pt->kind = kind;
	cp_caller_get(&pt->adder, who);
	raw_spin_lock_init(&pt->lock);
	pt->name = kstrdup(name, GFP_KERNEL);
	pt->nr_begin = begin->nr;
	pt->nr_sites = begin->nr + end->nr;
	pt->sites = kcalloc(pt->nr_sites, sizeof(*pt->sites), GFP_KERNEL);
	if (!pt->name || !pt->sites) {
		ret = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < pt->nr_sites; i++) {
		pt->sites[i].end = i >= begin->nr;
		pt->sites[i].offset = i < begin->nr ? begin->off[i] : end->off[i - begin->nr];
		pt->sites[i].stack_check = i < begin->nr ? (begin->checks >> i) & 1 :
				(end->checks >> (i - begin->nr)) & 1;
	}

	ret = cp_probefile_open(&pt->file, name, &pt->adder, extack);
	if (ret)
		goto err_free;
	for (i = 0; i < pt->nr_sites; i++) {
		ret = cp_probefile_check(&pt->file, pt->sites[i].offset, extack);
		if (ret)
			goto err_free;
	}
	return pt;

err_free:
	point_free(pt);
	return ERR_PTR(ret);
}

void cp_progress_set_visit(struct cp_point *pt, u32 visit_ns, u32 end_visit_ns)
{
	unsigned int i;

	for (i = 0; i < pt->nr_sites; i++)
		pt->sites[i].visit_ns = pt->sites[i].end ? end_visit_ns : visit_ns;
}

/* A point cp_progress_add() did not take. */
void cp_progress_put(struct cp_point *pt)
{
	point_free(pt);
}

/* Registers pt's probes; their handlers may run from here on. */
static int point_register(struct cp_point *pt, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < pt->nr_sites && !ret; i++)
		ret = probe_register(pt, &pt->sites[i], extack);
	if (ret) {
		point_unregister(pt);
		cp_uprobe_unregister_sync();
	}
	return ret;
}

static int find_slot(u32 id)
{
	int i;

	for (i = 0; i < CP_MAX_PROGRESS; i++)
		if (points[i] && points[i]->id == id)
			return i;
	return -1;
}

/*
 * Registers pt, from cp_progress_open(), and puts it in the table; it is
 * the table's then, or freed when this fails.
 */
int cp_progress_add(struct cp_point *pt, struct netlink_ext_ack *extack)
{
	int slot, ret;

	mutex_lock(&points_mutex);
	if (find_slot(pt->id) >= 0) {
		NL_SET_ERR_MSG(extack, "a progress point with that id exists");
		ret = -EEXIST;
		goto err_unlock;
	}
	for (slot = 0; slot < CP_MAX_PROGRESS && points[slot]; slot++)
		;
	if (slot == CP_MAX_PROGRESS) {
		NL_SET_ERR_MSG(extack, "too many progress points");
		ret = -ENOSPC;
		goto err_unlock;
	}
	pt->last_ns = ktime_get_ns();
	ret = point_register(pt, extack);
	if (ret)
		goto err_unlock;
	spin_lock_irq(&points_lock);
	points[slot] = pt;
	spin_unlock_irq(&points_lock);
	atomic64_inc(&stats.added);
	pr_debug("progress point %u added\n", pt->id);
	mutex_unlock(&points_mutex);
	return 0;

err_unlock:
	mutex_unlock(&points_mutex);
	point_free(pt);
	return ret;
}

/* Out of the table, its probes unregistered: release it after a sync. */
static struct cp_point *slot_take(int slot)
{
	struct cp_point *pt = points[slot];

	lockdep_assert_held(&points_mutex);

	spin_lock_irq(&points_lock);
	points[slot] = NULL;
	spin_unlock_irq(&points_lock);
	point_unregister(pt);
	return pt;
}

/* After cp_uprobe_unregister_sync(). */
static void point_release(struct cp_point *pt)
{
	atomic64_inc(&stats.deleted);
	pr_debug("progress point %u removed\n", pt->id);
	point_free(pt);
}

int cp_progress_del(u32 id, struct netlink_ext_ack *extack)
{
	struct cp_point *pt;
	int slot, ret = 0;

	mutex_lock(&points_mutex);
	slot = find_slot(id);
	if (slot < 0) {
		NL_SET_ERR_MSG(extack, "no progress point with that id");
		ret = -ENOENT;
	} else {
		pt = slot_take(slot);
		cp_uprobe_unregister_sync();
		point_release(pt);
	}
	mutex_unlock(&points_mutex);
	return ret;
}

/* Every point, with one wait for the handlers of all. */
void cp_progress_clear(void)
{
	struct cp_point *gone[CP_MAX_PROGRESS];
	unsigned int i, n = 0;

	mutex_lock(&points_mutex);
	for (i = 0; i < CP_MAX_PROGRESS; i++)
		if (points[i])
			gone[n++] = slot_take(i);
	if (n)
		cp_uprobe_unregister_sync();
	while (n--)
		point_release(gone[n]);
	mutex_unlock(&points_mutex);
}

/* Under points_lock. */
static void point_snap(struct cp_point *pt, struct cp_progress_snap *s, u64 *stray)
{
	unsigned long flags;

	*s = (struct cp_progress_snap){ .id = pt->id, .kind = pt->kind };
	*stray = 0;
	if (pt->kind != CAUSALPROF_PP_LATENCY) {
		s->count = atomic64_read(&pt->hits);
		raw_spin_lock_irqsave(&pt->lock, flags);
		s->span_xp = pt->span_xp;
		s->span_hits = pt->span_hits;
		s->span_first = pt->span_first;
		s->span_last = pt->span_last;
		s->first_inserted = pt->first_inserted;
		s->last_inserted = pt->last_inserted;
		raw_spin_unlock_irqrestore(&pt->lock, flags);
		return;
	}
	raw_spin_lock_irqsave(&pt->lock, flags);
	integrate(pt, ktime_get_ns());
	s->count = pt->begins;
	s->ends = pt->ends;
	s->area_ns = pt->area_ns;
	s->inflight = pt->inflight;
	*stray = pt->stray_ends;
	raw_spin_unlock_irqrestore(&pt->lock, flags);
}

unsigned int cp_progress_snapshot(struct cp_progress_snap *snap, unsigned int max)
{
	unsigned int i, n = 0;
	unsigned long flags;
	u64 stray;

	spin_lock_irqsave(&points_lock, flags);
	for (i = 0; i < CP_MAX_PROGRESS && n < max; i++)
		if (points[i])
			point_snap(points[i], &snap[n++], &stray);
	spin_unlock_irqrestore(&points_lock, flags);
	return n;
}

/*
 * /proc/causalprof/progress: one line per point, the path last. Offsets
 * and paths only for a privileged reader: they tell what is probed where.
 */
void cp_progress_show(struct seq_file *m, bool privileged)
{
	struct cp_progress_snap s;
	struct cp_point *pt;
	unsigned int i;
	u64 stray;

	spin_lock_irq(&points_lock);
	for (i = 0; i < CP_MAX_PROGRESS; i++) {
		pt = points[i];
		if (!pt)
			continue;
		point_snap(pt, &s, &stray);
		seq_printf(m, "id=%u kind=%s", s.id, kind_names[s.kind]);
		if (privileged)
			seq_printf(m, " offset=0x%llx", pt->sites[0].offset);
		if (privileged && pt->nr_begin > 1)
			seq_printf(m, " sites=%u", pt->nr_begin);
		if (s.kind == CAUSALPROF_PP_LATENCY) {
			if (privileged)
				seq_printf(m, " end=0x%llx", pt->sites[pt->nr_begin].offset);
			if (privileged && pt->nr_sites - pt->nr_begin > 1)
				seq_printf(m, " end_sites=%u", pt->nr_sites - pt->nr_begin);
			seq_printf(m, " begins=%llu ends=%llu", s.count, s.ends);
			seq_printf(m, " inflight=%llu area_ns=%llu stray_ends=%llu", s.inflight,
				   s.area_ns, stray);
		} else {
			seq_printf(m, " count=%llu", s.count);
		}
		if (privileged)
			seq_printf(m, " path=%s", pt->name);
		seq_putc(m, '\n');
	}
	spin_unlock_irq(&points_lock);
}

static int atomic64_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(atomic64_fops, atomic64_get, NULL, "%llu\n");

/* progress/: counters since load, all points together. */
void __init cp_progress_debugfs(struct dentry *parent)
{
	const struct {
		const char *name;
		atomic64_t *val;
	} files[] = {
		{ "hits",	&stats.hits },
		{ "ignored",	&stats.ignored },
		{ "removed",	&stats.removed },
		{ "denied",	&stats.denied },
		{ "stray_ends",	&stats.stray_ends },
		{ "restarts",	&stats.restarts },
		{ "added",	&stats.added },
		{ "deleted",	&stats.deleted },
	};
	struct dentry *dir = debugfs_create_dir("progress", parent);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		debugfs_create_file_unsafe(files[i].name, 0444, dir, files[i].val, &atomic64_fops);
}
