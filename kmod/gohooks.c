// SPDX-License-Identifier: GPL-2.0
/*
 * Go runtime hooks: uprobes on the scheduler of a Go program (Go 1.17 or
 * later, amd64), so that causal inheritance follows goroutines where the
 * kernel sees no wake-up (causal.c, "Goroutines"). cprof finds the
 * runtime's functions in the executable and sends their offsets; at each,
 * RAX (RBX with CAUSALPROF_GOHOOK_F_ARG2) holds the goroutine (its g) the
 * hook is about:
 *
 *   READY    runtime.ready: current made it runnable (a channel send, an
 *            unlock, a timer)
 *   EXECUTE  runtime.execute: current starts running it
 *   PARK     runtime.park_m: current stops running it, to wait
 *   YIELD    runtime.goschedImpl, goyield_m, exitsyscall0: current stops
 *            running it, and it stays runnable
 *   SPAWN    runtime.newproc's call of runqput(pp, g) (g in RBX), or
 *            newproc1's exits: current created it
 *   MONITOR  runtime.sysmon, at its start: current is the runtime's
 *            monitor thread (no goroutine; optional)
 *
 * A goroutine is known by its g pointer in its process: the runtime never
 * frees a g (a dead one is reused by a later newproc1, whose SPAWN tags
 * it afresh), and goids move between versions. Each goroutine's token
 * (struct cp_gtoken) lives in a table the hooks' registration allocates,
 * go_slots entries (a power of two), open addressing over GO_SPAN slots
 * from its hash; a goroutine that finds none free is not followed (its
 * threads keep their own state), and counted (table_full). Lookups take
 * no lock: a slot's tgid is written before its g, which is published with
 * release; inserts take the table's lock. Slots are never freed while the
 * hooks exist: the table is per session.
 *
 * The hooks are one set per session, of one file, placed and judged as a
 * progress point's probes are (progress.c): the breakpoints go into the
 * targets' memory only, whose processes the adder may ptrace-attach; a
 * process that fails that is no longer followed, has the breakpoints taken
 * out of its memory where only its threads use it, and the session is
 * told (CAUSALPROF_DENIED_F_GO). Handlers run in task context, from
 * uprobe_notify_resume(); outside experiments they only count. Once the
 * consumers are unregistered and cp_uprobe_unregister_sync() returned, no
 * handler runs: the table and the hooks may go. cp_gohooks_clear() does
 * that before the session's target set goes, which the handlers read.
 */

#include "access.h"
#include "causal.h"
#include "compat.h"
#include "gohooks.h"
#include "probefile.h"
#include "sideband.h"
#include "targets.h"

#include <linux/atomic.h>
#include <linux/causalprof.h>
#include <linux/debugfs.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uprobes.h>

#define GO_SLOTS_MIN	1024U
#define GO_SLOTS_MAX	(1U << 20)
/* Slots a goroutine's may be in, from its hash on. */
#define GO_SPAN		32

static unsigned int go_slots = 65536;
module_param(go_slots, uint, 0644);
MODULE_PARM_DESC(go_slots, "Goroutines a session's Go hooks follow (default 65536; 1024 to 1048576, rounded up to a power of two)");

struct go_slot {
	unsigned long g;		/* the goroutine, in process tgid; 0: free */
	pid_t tgid;
	struct cp_gtoken tok;
};

struct go_hook {
	struct uprobe_consumer uc;
	struct cp_uprobe up;
	struct cp_gohooks *gh;
	u32 kind;			/* enum causalprof_go_hook */
	u32 visit_ns;			/* what its trap costs the thread */
	u32 flags;			/* CAUSALPROF_GOHOOK_F_* */
	u64 offset;
	bool registered;
};

struct cp_gohooks {
	struct cp_probefile file;
	struct cp_caller adder;		/* who placed them, judging the targets */
	atomic_t denied;		/* the last process told it is denied */
	unsigned int nr;
	struct go_hook hooks[CAUSALPROF_MAX_GO_HOOKS];
	raw_spinlock_t lock;		/* inserts into the table */
	unsigned int bits;		/* of its size */
	struct go_slot *slots;
};

static DEFINE_MUTEX(go_mutex);
static struct cp_gohooks *installed;	/* the session's, under go_mutex */

static const char *const kind_names[] = {
	[CAUSALPROF_GO_READY]	= "ready",
	[CAUSALPROF_GO_EXECUTE]	= "execute",
	[CAUSALPROF_GO_PARK]	= "park",
	[CAUSALPROF_GO_YIELD]	= "yield",
	[CAUSALPROF_GO_SPAWN]	= "spawn",
	[CAUSALPROF_GO_MONITOR]	= "monitor",
};

/*
 * The monitor threads (runtime.sysmon, one per process) the session's hooks
 * saw start, for cp_go_monitor(), from any context: a slot holds a tid
 * (0: free), claimed by cmpxchg; live counts the slots held, so that
 * sessions without Go hooks look no further. An exited thread's slot is
 * freed (its tid may name another thread later), every slot when the
 * hooks go.
 */
#define GO_MONITORS	64

static struct {
	atomic_t live;
	atomic_t tid[GO_MONITORS];
} monitors;

static struct {
	atomic64_t events[ARRAY_SIZE(kind_names)];	/* hits of the hooks, since load */
	atomic64_t applied;	/* events handled during experiments */
	atomic64_t table_full;	/* events of goroutines that found no slot */
	atomic64_t ignored;	/* hits of processes not followed, or denied */
	atomic64_t restarts;	/* stack check hits that grow the stack: not events */
	atomic64_t denied;
	atomic64_t added;	/* hook sets */
	atomic64_t monitors_full;	/* monitors that found no slot: they pay */
} stats;

/* Current is its process's monitor thread. */
static void monitor_add(void)
{
	unsigned int i;

	for (i = 0; i < GO_MONITORS; i++) {
		if (!atomic_cmpxchg(&monitors.tid[i], 0, current->pid)) {
			atomic_inc(&monitors.live);
			return;
		}
	}
	atomic64_inc(&stats.monitors_full);
}

/* Frees tid's slot; any tid (0: every slot). */
static void monitor_del(pid_t tid)
{
	unsigned int i;
	int cur;

	for (i = 0; i < GO_MONITORS; i++) {
		cur = atomic_read(&monitors.tid[i]);
		if (cur && (!tid || cur == tid) && atomic_cmpxchg(&monitors.tid[i], cur, 0) == cur)
			atomic_dec(&monitors.live);
	}
}

bool cp_go_monitor(pid_t tid)
{
	unsigned int i;

	if (!atomic_read(&monitors.live))
		return false;
	for (i = 0; i < GO_MONITORS; i++)
		if (atomic_read(&monitors.tid[i]) == tid)
			return true;
	return false;
}

void cp_go_monitor_exit(pid_t tid)
{
	if (atomic_read(&monitors.live))
		monitor_del(tid);
}

/* The token of goroutine g of current's process; NULL when the table is full. */
static struct cp_gtoken *token(struct cp_gohooks *gh, unsigned long g)
{
	u32 h = hash_64((u64)g ^ ((u64)current->tgid << 48), gh->bits);
	u32 mask = (1U << gh->bits) - 1;
	pid_t tgid = current->tgid;
	struct go_slot *s;
	unsigned int i;

	for (i = 0; i < GO_SPAN; i++) {
		s = &gh->slots[(h + i) & mask];
		/* Pairs with the release below: its tgid and token are set. */
		if (!smp_load_acquire(&s->g))
			break;
		if (s->g == g && READ_ONCE(s->tgid) == tgid)
			return &s->tok;
	}
	raw_spin_lock(&gh->lock);
	for (i = 0; i < GO_SPAN; i++) {
		s = &gh->slots[(h + i) & mask];
		if (!s->g) {
			WRITE_ONCE(s->tgid, tgid);
			memset(&s->tok, 0, sizeof(s->tok));
			/* Its tgid and token before it is found. */
			smp_store_release(&s->g, g);
			break;
		}
		if (s->g == g && s->tgid == tgid)
			break;
	}
	raw_spin_unlock(&gh->lock);
	if (i == GO_SPAN) {
		atomic64_inc(&stats.table_full);
		return NULL;
	}
	return &s->tok;
}

/*
 * Whether gh may follow current, a target: its adder may still
 * ptrace-attach it. If not, the session is told, unless it was told of
 * this process last.
 */
static bool may_follow_current(struct cp_gohooks *gh)
{
	if (cp_caller_may_attach(&gh->adder, current))
		return true;
	if (atomic_xchg(&gh->denied, current->tgid) != current->tgid)
		cp_sideband_denied(current, 0, CAUSALPROF_DENIED_F_GO);
	return false;
}

/* Not followed: its breakpoints may go where only its threads see them. */
static int leave(void)
{
	atomic64_inc(&stats.ignored);
	return cp_probefile_mm_own() ? UPROBE_HANDLER_REMOVE : 0;
}

static bool go_filter(CP_UPROBE_FILTER_ARGS(uc, mm))
{
	struct cp_gohooks *gh = container_of(uc, struct go_hook, uc)->gh;

	if (mm == current->mm)
		return cp_target_match(current) && may_follow_current(gh);
	return cp_probefile_mm_wanted(&gh->adder, mm);
}

/*
 * The goroutine at a hook: the register ABI's first argument or result,
 * or its second with CAUSALPROF_GOHOOK_F_ARG2.
 */
static unsigned long go_arg(const struct go_hook *h, const struct pt_regs *regs)
{
#ifdef CONFIG_X86_64
	return h->flags & CAUSALPROF_GOHOOK_F_ARG2 ? regs->bx : regs->ax;
#else
	return 0;
#endif
}

/* A hit at a stack check (CAUSALPROF_GOHOOK_F_STACK_CHECK) that grows the stack. */
static bool go_restarts(const struct go_hook *h, const struct pt_regs *regs)
{
	return (h->flags & CAUSALPROF_GOHOOK_F_STACK_CHECK) && cp_go_stack_grows(regs);
}

/*
 * The accounting runs in an RCU read-side section: an experiment's stop
 * waits for a grace period before it seals its counters and the next one
 * resets the threads' table, as it does for the scheduler's hooks. The
 * trap, taken whatever the hook did, counts as a pause of the thread
 * after it (cp_causal_visit()): a runtime's scheduler that runs on the
 * program's critical path (a channel's hand-off) is that much slower,
 * which the program would not be.
 */
static int go_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct go_hook *h = container_of(uc, struct go_hook, uc);
	unsigned long arg = go_arg(h, regs);
	struct cp_gtoken *g;

	if (!cp_target_match(current))
		return leave();
	if (!may_follow_current(h->gh)) {
		atomic64_inc(&stats.denied);
		return leave();
	}
	rcu_read_lock();
	if (go_restarts(h, regs)) {
		atomic64_inc(&stats.restarts);
		goto out;
	}
	atomic64_inc(&stats.events[h->kind]);
	if (h->kind == CAUSALPROF_GO_MONITOR) {
		monitor_add();
		goto out;
	}
	if (!cp_causal_running() || !arg)
		goto out;
	g = token(h->gh, arg);
	if (!g)
		goto out;
	atomic64_inc(&stats.applied);
	switch (h->kind) {
	case CAUSALPROF_GO_READY:
		cp_causal_go_ready(g);
		break;
	case CAUSALPROF_GO_EXECUTE:
		cp_causal_go_run(g);
		break;
	case CAUSALPROF_GO_PARK:
		cp_causal_go_stop(g, true);
		break;
	case CAUSALPROF_GO_YIELD:
		cp_causal_go_stop(g, false);
		break;
	case CAUSALPROF_GO_SPAWN:
		cp_causal_go_spawn(g);
		break;
	}
out:
	cp_causal_visit(h->visit_ns);
	rcu_read_unlock();
	return 0;
}

/* NL_SET_ERR_MSG() takes a literal: one per kind. */
static int missing(u32 kind, struct netlink_ext_ack *extack)
{
	switch (kind) {
	case CAUSALPROF_GO_READY:
		NL_SET_ERR_MSG(extack, "no CAUSALPROF_GO_READY hook");
		break;
	case CAUSALPROF_GO_EXECUTE:
		NL_SET_ERR_MSG(extack, "no CAUSALPROF_GO_EXECUTE hook");
		break;
	case CAUSALPROF_GO_PARK:
		NL_SET_ERR_MSG(extack, "no CAUSALPROF_GO_PARK hook");
		break;
	case CAUSALPROF_GO_YIELD:
		NL_SET_ERR_MSG(extack, "no CAUSALPROF_GO_YIELD hook");
		break;
	default:
		NL_SET_ERR_MSG(extack, "no CAUSALPROF_GO_SPAWN hook");
		break;
	}
	return -EINVAL;
}

/* Every kind but MONITOR at least once, none unknown, no offset twice. */
static int sites_check(const struct cp_go_site *sites, unsigned int nr,
		       struct netlink_ext_ack *extack)
{
	unsigned int i, j, seen = 0;

	BUILD_BUG_ON(ARRAY_SIZE(kind_names) != __CAUSALPROF_GO_HOOK_MAX);
	if (!nr || nr > CAUSALPROF_MAX_GO_HOOKS) {
		NL_SET_ERR_MSG(extack, "1 to 32 Go hooks (CAUSALPROF_MAX_GO_HOOKS)");
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		if (sites[i].kind > CAUSALPROF_GO_HOOK_MAX) {
			NL_SET_ERR_MSG(extack, "unknown Go hook kind");
			return -EINVAL;
		}
		seen |= BIT(sites[i].kind);
		for (j = i + 1; j < nr; j++) {
			if (sites[i].offset == sites[j].offset) {
				NL_SET_ERR_MSG(extack, "two Go hooks at the same offset");
				return -EINVAL;
			}
		}
	}
	for (i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (i != CAUSALPROF_GO_MONITOR && !(seen & BIT(i)))
			return missing(i, extack);
	return 0;
}

/* Once no handler of gh runs any more (or none was registered). */
static void hooks_free(struct cp_gohooks *gh)
{
	cp_probefile_put(&gh->file);
	cp_caller_put(&gh->adder);
	kvfree(gh->slots);
	kfree(gh);
}

struct cp_gohooks *cp_gohooks_open(const struct cp_owner *who, const char *path,
				   const struct cp_go_site *sites, unsigned int nr,
				   struct netlink_ext_ack *extack)
{
	unsigned int slots = clamp(READ_ONCE(go_slots), GO_SLOTS_MIN, GO_SLOTS_MAX);
	struct cp_gohooks *gh;
	unsigned int i;
	int ret;

	if (!IS_ENABLED(CONFIG_X86_64)) {
		NL_SET_ERR_MSG(extack, "Go hooks know the amd64 register ABI only");
		return ERR_PTR(-EOPNOTSUPP);
	}
	ret = sites_check(sites, nr, extack);
	if (ret)
		return ERR_PTR(ret);
	gh = kzalloc(sizeof(*gh), GFP_KERNEL);
	if (!gh)
		return ERR_PTR(-ENOMEM);
	cp_caller_get(&gh->adder, who);
	raw_spin_lock_init(&gh->lock);
	gh->bits = order_base_2(slots);
	gh->slots = kvcalloc(1U << gh->bits, sizeof(*gh->slots), GFP_KERNEL);
	if (!gh->slots) {
		NL_SET_ERR_MSG(extack, "out of memory for the goroutine table (go_slots)");
		ret = -ENOMEM;
		goto err_free;
	}
	gh->nr = nr;
	for (i = 0; i < nr; i++) {
		gh->hooks[i].gh = gh;
		gh->hooks[i].kind = sites[i].kind;
		gh->hooks[i].offset = sites[i].offset;
		gh->hooks[i].visit_ns = sites[i].visit_ns;
		gh->hooks[i].flags = sites[i].flags;
	}
	ret = cp_probefile_open(&gh->file, path, &gh->adder, extack);
	if (ret)
		goto err_free;
	for (i = 0; i < nr; i++) {
		ret = cp_probefile_check(&gh->file, sites[i].offset, extack);
		if (ret)
			goto err_free;
	}
	return gh;

err_free:
	hooks_free(gh);
	return ERR_PTR(ret);
}

void cp_gohooks_put(struct cp_gohooks *gh)
{
	hooks_free(gh);
}

/* Its handlers may still run until cp_uprobe_unregister_sync(). */
static void hooks_unregister(struct cp_gohooks *gh)
{
	unsigned int i = gh->nr;

	while (i--) {
		if (!gh->hooks[i].registered)
			continue;
		cp_uprobe_unregister_nosync(&gh->hooks[i].up, &gh->hooks[i].uc);
		gh->hooks[i].registered = false;
	}
}

static int hooks_register(struct cp_gohooks *gh, struct netlink_ext_ack *extack)
{
	struct go_hook *h;
	unsigned int i;
	int ret;

	for (i = 0; i < gh->nr; i++) {
		h = &gh->hooks[i];
		h->uc.handler = go_handler;
		h->uc.filter = go_filter;
		ret = cp_uprobe_register(&h->up, gh->file.inode, h->offset, &h->uc);
		if (ret) {
			NL_SET_ERR_MSG(extack, "no instruction uprobes can probe starts at a Go hook's offset");
			hooks_unregister(gh);
			cp_uprobe_unregister_sync();
			return ret == -ENOTSUPP || ret == -ENOEXEC || ret == -EINVAL ? -EINVAL : ret;
		}
		h->registered = true;
	}
	return 0;
}

/* gh, from cp_gohooks_open(), is the session's then, or freed when this fails. */
int cp_gohooks_add(struct cp_gohooks *gh, struct netlink_ext_ack *extack)
{
	int ret;

	mutex_lock(&go_mutex);
	if (installed) {
		NL_SET_ERR_MSG(extack, "the session has its Go hooks already");
		ret = -EEXIST;
		goto err_unlock;
	}
	ret = hooks_register(gh, extack);
	if (ret)
		goto err_unlock;
	installed = gh;
	atomic64_inc(&stats.added);
	pr_debug("go hooks created\n");
	mutex_unlock(&go_mutex);
	return 0;

err_unlock:
	mutex_unlock(&go_mutex);
	hooks_free(gh);
	return ret;
}

void cp_gohooks_clear(void)
{
	struct cp_gohooks *gh;

	mutex_lock(&go_mutex);
	gh = installed;
	installed = NULL;
	if (gh) {
		hooks_unregister(gh);
		cp_uprobe_unregister_sync();
		monitor_del(0);
		hooks_free(gh);
		pr_debug("go hooks destroyed\n");
	}
	mutex_unlock(&go_mutex);
}

static int atomic64_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(atomic64_fops, atomic64_get, NULL, "%llu\n");

/* go/: counters since load, every session's hooks together. */
void __init cp_gohooks_debugfs(struct dentry *parent)
{
	struct dentry *dir = debugfs_create_dir("go", parent);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kind_names); i++)
		debugfs_create_file_unsafe(kind_names[i], 0444, dir, &stats.events[i],
					   &atomic64_fops);
	debugfs_create_file_unsafe("applied", 0444, dir, &stats.applied, &atomic64_fops);
	debugfs_create_file_unsafe("table_full", 0444, dir, &stats.table_full, &atomic64_fops);
	debugfs_create_file_unsafe("ignored", 0444, dir, &stats.ignored, &atomic64_fops);
	debugfs_create_file_unsafe("restarts", 0444, dir, &stats.restarts, &atomic64_fops);
	debugfs_create_file_unsafe("denied", 0444, dir, &stats.denied, &atomic64_fops);
	debugfs_create_file_unsafe("added", 0444, dir, &stats.added, &atomic64_fops);
	debugfs_create_file_unsafe("monitors_full", 0444, dir, &stats.monitors_full,
				   &atomic64_fops);
}
