// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks from the overflow handler, which may run in NMI: nothing here
 * sleeps, takes a lock or faults.
 */

#include "stack.h"

#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>

/*
 * The interrupted kernel stack, innermost first, at most max entries.
 * stack_trace_save() unwinds from here, through the interrupt (or NMI)
 * entry, into the interrupted code; the frames before regs->ip are the
 * handler's own and are dropped. If regs->ip is not among them, the unwind
 * went wrong and the sample keeps regs->ip alone.
 */
unsigned int cp_stack_kernel(struct pt_regs *regs, unsigned long *scratch, u64 *ips,
			     unsigned int max, bool *truncated)
{
	unsigned long ip = instruction_pointer(regs);
	unsigned int n = 0, i, first;

	if (max > 1)
		n = stack_trace_save(scratch, CP_KSTACK_SCRATCH, 0);
	for (first = 0; first < n && scratch[first] != ip; first++)
		;
	if (first == n) {
		ips[0] = ip;
		if (n == CP_KSTACK_SCRATCH)
			*truncated = true;
		return 1;
	}
	if (n - first > max || n == CP_KSTACK_SCRATCH)
		*truncated = true;
	for (i = 0; first < n && i < max; i++, first++)
		ips[i] = scratch[first];
	return i;
}

struct frame {
	unsigned long next;	/* the caller's frame pointer */
	unsigned long ret;	/* return address into the caller */
};

/*
 * The registers the task had when it last left user space, if it has any.
 * Inside execve() they may belong to an image already unmapped.
 */
static struct pt_regs *user_regs(struct pt_regs *regs)
{
	if (user_mode(regs))
		return regs;
	if (!current->mm || current->in_execve ||
	    (current->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return NULL;
	return task_pt_regs(current);
}

/*
 * The user stack by frame pointers, innermost first: the user IP, then
 * return addresses while the chain looks sane (non-zero, aligned, above
 * the stack pointer and going up), at most max entries. Code built without
 * frame pointers ends the chain early or adds a bogus frame; 32-bit tasks
 * get their IP only.
 */
unsigned int cp_stack_user(struct pt_regs *regs, u64 *ips, unsigned int max, bool *truncated)
{
	struct pt_regs *uregs = user_regs(regs);
	unsigned long fp, sp;
	struct frame frame;
	unsigned int n = 0;

	if (!uregs || !max || !uregs->ip)
		return 0;
	ips[n++] = uregs->ip;
	if (max == 1 || !user_64bit_mode(uregs))
		return n;

	sp = uregs->sp;
	fp = uregs->bp;
	while (fp && IS_ALIGNED(fp, sizeof(long)) && fp >= sp) {
		if (copy_from_user_nofault(&frame, (const void __user *)fp, sizeof(frame)) ||
		    !frame.ret)
			break;
		if (n == max) {
			*truncated = true;
			break;
		}
		ips[n++] = frame.ret;
		if (frame.next <= fp)
			break;
		fp = frame.next;
	}
	return n;
}
