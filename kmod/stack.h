/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User and kernel call stacks taken in the overflow handler and the
 * scheduler hooks, NMI-safe (see stack.c).
 */

#ifndef _CAUSALPROF_STACK_H
#define _CAUSALPROF_STACK_H

#include <linux/causalprof.h>
#include <linux/types.h>

struct pt_regs;

/* Room stack_trace_save() gets: the handler's own frames come first. */
#define CP_KSTACK_SCRATCH	(CAUSALPROF_MAX_STACK + 64)
/* Words of a waiting thread's user stack searched for its callers. */
#define CP_STACK_WINDOW		64

unsigned int cp_stack_kernel(struct pt_regs *regs, unsigned long *scratch, u64 *ips,
			     unsigned int max, bool *truncated);
unsigned int cp_stack_kernel_from(unsigned long from, unsigned int skip, unsigned long *scratch,
				  u64 *ips, unsigned int max, bool *truncated);
unsigned int cp_stack_user(struct pt_regs *regs, u64 *ips, unsigned int max, bool *truncated);
unsigned int cp_stack_user_blocked(u64 *ips, unsigned int max, u64 *window, bool *truncated);

#endif /* _CAUSALPROF_STACK_H */
