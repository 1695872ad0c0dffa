/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Go runtime hooks: uprobes on a Go program's scheduler that carry the
 * causal state from goroutine to thread (see gohooks.c).
 */

#ifndef _CAUSALPROF_GOHOOKS_H
#define _CAUSALPROF_GOHOOKS_H

#include <linux/ptrace.h>
#include <linux/types.h>

#ifdef CONFIG_X86_64
#include <asm/processor-flags.h>
#endif

/*
 * Whether a probe at the jbe of a Go function's stack check (cmp 16(R14),
 * SP; jbe morestack) will take the branch: the stack must grow, morestack
 * runs, and the function starts again, to pass the probe a second time.
 * The flags are those of the check's cmp: the kernel emulates the jbe
 * after the handlers.
 */
static inline bool cp_go_stack_grows(const struct pt_regs *regs)
{
#ifdef CONFIG_X86_64
	return regs->flags & (X86_EFLAGS_CF | X86_EFLAGS_ZF);
#else
	return false;
#endif
}

struct cp_gohooks;
struct cp_owner;
struct dentry;
struct netlink_ext_ack;

/* One uprobe: enum causalprof_go_hook, and the file offset. */
struct cp_go_site {
	u32 kind;
	u32 visit_ns;			/* what its trap costs (0: not counted) */
	u32 flags;			/* CAUSALPROF_GOHOOK_F_* */
	u64 offset;
};

/*
 * Like a progress point's: open looks the file up and checks the sites
 * (no lock held: it may wait on the file system), add registers the hooks
 * as the session's (under the session lock; -EEXIST when it has them),
 * put drops hooks add did not take, clear removes the session's (before
 * its target set goes). Errors of open as cp_progress_open()'s, and
 * -EINVAL for a kind missing, unknown, or an offset twice.
 */
struct cp_gohooks *cp_gohooks_open(const struct cp_owner *who, const char *path,
				   const struct cp_go_site *sites, unsigned int nr,
				   struct netlink_ext_ack *extack);
int cp_gohooks_add(struct cp_gohooks *gh, struct netlink_ext_ack *extack);
void cp_gohooks_put(struct cp_gohooks *gh);
void cp_gohooks_clear(void);
void cp_gohooks_debugfs(struct dentry *parent);

/*
 * Whether tid is a Go runtime's monitor thread the session's hooks saw
 * start (CAUSALPROF_GO_MONITOR), from any context; its exit, to free
 * its slot.
 */
bool cp_go_monitor(pid_t tid);
void cp_go_monitor_exit(pid_t tid);

#endif /* _CAUSALPROF_GOHOOKS_H */
