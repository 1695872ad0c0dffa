// SPDX-License-Identifier: GPL-2.0
/*
 * Call stacks from the overflow handler, which may run in NMI, and from
 * the scheduler hook of a thread that blocks (offcpu.c), under the run
 * queue's lock: nothing here sleeps, takes a lock or faults.
 */

#include "stack.h"

#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sizes.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/stacktrace.h>
#include <linux/uaccess.h>
#include <asm/syscall.h>

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

/*
 * The current task's kernel stack from the frame that returns to @from on
 * (plus @skip frames more), innermost first, at most max entries: the
 * caller gives the return address of the scheduler hook that calls it, so
 * that the hook's frames, and this module's, are left out. If @from is not
 * on the stack (the unwind went wrong), the frames outside this module.
 */
unsigned int cp_stack_kernel_from(unsigned long from, unsigned int skip, unsigned long *scratch,
				  u64 *ips, unsigned int max, bool *truncated)
{
	unsigned int n, i, first;

	n = stack_trace_save(scratch, CP_KSTACK_SCRATCH, 0);
	for (first = 0; first < n && scratch[first] != from; first++)
		;
	if (first < n) {
		first += skip;
	} else {
		for (first = 0; first < n && within_module(scratch[first], THIS_MODULE); first++)
			;
	}
	if (n == CP_KSTACK_SCRATCH || (first < n && n - first > max))
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
 * The registers the task had when it last left user space, if it has any
 * (regs NULL: the task is in the kernel). Inside execve() they may belong
 * to an image already unmapped.
 */
static struct pt_regs *user_regs(struct pt_regs *regs)
{
	if (regs && user_mode(regs))
		return regs;
	if (!current->mm || current->in_execve ||
	    (current->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return NULL;
	return task_pt_regs(current);
}

/* Return addresses after frame pointers, from fp on, after the n in ips. */
static unsigned int fp_chain(u64 *ips, unsigned int n, unsigned int max, unsigned long sp,
			     unsigned long fp, bool *truncated)
{
	struct frame frame;

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

/*
 * The user stack by frame pointers, innermost first: the user IP, then
 * return addresses while the chain looks sane (non-zero, aligned, above
 * the stack pointer and going up), at most max entries. Code built without
 * frame pointers ends the chain early or adds a bogus frame; 32-bit tasks
 * get their IP only. regs NULL: from where the task entered the kernel.
 */
unsigned int cp_stack_user(struct pt_regs *regs, u64 *ips, unsigned int max, bool *truncated)
{
	struct pt_regs *uregs = user_regs(regs);

	if (!uregs || !max || !uregs->ip)
		return 0;
	ips[0] = uregs->ip;
	if (max == 1 || !user_64bit_mode(uregs))
		return 1;
	return fp_chain(ips, 1, max, uregs->sp, uregs->bp, truncated);
}

/* How far a caller's call may lie from the function it calls (CALLEE_MAX). */
#define CALLEE_MAX	SZ_16K
/* Callers found on the stack, at most, before the frame-pointer chain. */
#define LEAF_CALLERS	4

static bool read_user(void *dst, unsigned long src, size_t size)
{
	return !copy_from_user_nofault(dst, (const void __user *)src, size);
}

/*
 * What the call instruction before return address ret calls: a direct
 * call (e8 rel32) or one through the GOT (ff 15 rel32, -fno-plt), and
 * through a PLT stub (jmp *GOT, after endbr64 and bnd if any) to the
 * function it jumps to. 0 when ret follows no such call.
 */
static unsigned long call_target(unsigned long ret)
{
	unsigned long t, got;
	unsigned int i = 0;
	u8 b[11];
	s32 rel;

	if (!read_user(b, ret - 6, 6))
		return 0;
	memcpy(&rel, b + 2, sizeof(rel));
	if (b[1] == 0xe8) {
		t = ret + rel;
	} else if (b[0] == 0xff && b[1] == 0x15) {
		got = ret + rel;
		return read_user(&t, got, sizeof(t)) ? t : 0;
	} else {
		return 0;
	}
	if (!read_user(b, t, sizeof(b)))
		return t;
	if (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
		i = 4;
	if (b[i] == 0xf2)
		i++;
	if (b[i] != 0xff || b[i + 1] != 0x25)
		return t;
	memcpy(&rel, b + i + 2, sizeof(rel));
	got = t + i + 6 + rel;
	return read_user(&got, got, sizeof(got)) ? got : t;
}

/*
 * The user stack of current, which waits in the kernel, as cp_stack_user(),
 * with what frame pointers miss when it is in a system call: the C library
 * that makes it is usually built without them (Debian's is), and its
 * wrapper (read(), clock_nanosleep(), pthread_cond_wait()...) keeps its
 * caller's frame pointer, so the chain starts at the caller's caller. The
 * caller's return address, which the wrapper's call pushed, is on the stack
 * above sp: the first word of window (CP_STACK_WINDOW words from sp) that
 * returns after a call of the function the previous address is in (at
 * most CALLEE_MAX before it), and so on for that caller's caller, at most
 * LEAF_CALLERS of them, until the word found is the chain's first return
 * address, which then goes on. Words that point near sp (into the stack)
 * are not looked at. A stale return address left in the wrapper's frame
 * that happens to return from a call of the same function would be taken
 * for its caller; outside system calls (a fault), frame pointers alone.
 */
unsigned int cp_stack_user_blocked(u64 *ips, unsigned int max, u64 *window, bool *truncated)
{
	struct pt_regs *uregs = user_regs(NULL);
	unsigned long sp, fp, fn, t, w;
	unsigned int n = 1, i = 0, words = CP_STACK_WINDOW;
	struct frame frame = {};

	if (!uregs || !max || !uregs->ip)
		return 0;
	ips[0] = uregs->ip;
	if (max == 1 || !user_64bit_mode(uregs))
		return 1;
	sp = uregs->sp;
	fp = uregs->bp;
	if (syscall_get_nr(current, uregs) < 0)
		return fp_chain(ips, n, max, sp, fp, truncated);
	if (fp >= sp && IS_ALIGNED(fp, sizeof(long)))
		read_user(&frame, fp, sizeof(frame));
	/* Near the top of a stack, fewer words. */
	if (!read_user(window, sp, words * sizeof(*window)))
		words = read_user(window, sp, 16 * sizeof(*window)) ? 16 : 0;
	for (fn = uregs->ip; n < max && n <= LEAF_CALLERS && i < words; fn = w) {
		for (; i < words; i++) {
			w = window[i];
			if (w < PAGE_SIZE || w >= TASK_SIZE_MAX || w - (sp - SZ_8M) < SZ_16M)
				continue;
			t = call_target(w);
			if (t && t <= fn && fn - t < CALLEE_MAX)
				break;
		}
		if (i == words || w == frame.ret)
			break;
		ips[n++] = w;
		i++;
	}
	return fp_chain(ips, n, max, sp, fp, truncated);
}
