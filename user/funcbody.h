/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_FUNCBODY_H
#define CPROF_FUNCBODY_H

/*
 * A function's machine code, walked with insn.c (x86-64): the places where
 * a call of it leaves (FUNC%return), and where a Go function's body starts
 * after its stack check (the entry of FUNC in a Go program).
 *
 * A function is one or more parts: its symbol's [vaddr, vaddr + size), and
 * the parts GCC moved out of it (FUNC.cold). A jump from one part to
 * another stays inside the function.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_FUNC_MAX_PARTS	8

struct cp_func_part {
	const uint8_t *code;	/* its bytes, as the file holds them */
	uint64_t vaddr, size;
};

/* Instructions followed from one jump out of a function, at most. */
#define CP_FUNC_EXPLORE_MAX	4096

/*
 * The file's code around the function, to follow a jump out of it to where
 * no function starts (a part without a symbol: GCC's FUNC.cold in a file
 * without .symtab).
 */
struct cp_func_env {
	/* The bytes from @vaddr to the end of its segment: how many (0: not code). */
	size_t (*code_at)(void *arg, uint64_t vaddr, const uint8_t **p);
	/* Whether a function's symbol starts at @vaddr. */
	bool (*is_func)(void *arg, uint64_t vaddr);
	void *arg;
};

struct cp_func_code {
	const char *name;	/* for messages */
	struct cp_func_part part[CP_FUNC_MAX_PARTS];
	size_t nr;		/* part[0] is the function's entry */
	const struct cp_func_env *env;	/* NULL: a jump out is a tail call */
};

/*
 * The exits of @f: every ret, and every jmp whose target is outside all its
 * parts (a tail call: jmp rel, or jmp *disp(%rip) through a GOT slot).
 * With @f->env, a jump to where no function starts is followed: code from
 * which a way leads back into the function is a part of it (its exits are
 * the function's), other code is another function (the jump is an exit).
 * Their addresses go to @out (room for @max): how many there are (more
 * than @max when they do not fit), or -errno with the reason in @err:
 * -EINVAL for bytes the decoder does not know (naming the function and the
 * offset) or a conditional jump out of the function (a conditional tail
 * call: a probe there would count the passes that do not leave too).
 * *@indirect counts the jumps through a register or computed memory, taken
 * for jumps inside the function (a switch's table): a tail call through a
 * function pointer leaves there uncounted.
 */
int cp_func_exits(const struct cp_func_code *f, uint64_t *out, size_t max,
		  unsigned int *indirect, char *err, size_t errlen);

/*
 * The calls (call rel32) in @f of the function at @callee: their addresses
 * into @out (room for @max), how many there are (more than @max when they
 * do not fit), or -EINVAL with the reason in @err (bytes the decoder does
 * not know).
 */
int cp_func_calls(const struct cp_func_code *f, uint64_t callee, uint64_t *out, size_t max,
		  char *err, size_t errlen);

/*
 * Where a Go function (Go >= 1.17, amd64: the register ABI, g in R14)
 * starts once its stack is large enough: after the check "cmp 16(R14), SP
 * or R12; jbe morestack" of its prologue, to which runtime.morestack
 * returns by jumping back to the entry. Functions without the check
 * (NOSPLIT, the leaves) start at their entry. Into *@at: 0, or -EINVAL
 * with the reason in @err: a jump back to the entry without a check found
 * (a prologue of another form: a probe at the entry would count a call
 * twice when its stack grows), a jump to the first instruction after the
 * check, or bytes the decoder does not know. Into *@check the address of
 * the check's jbe, where a probe is emulated by the kernel and sees the
 * check's flags (CF or ZF set: the stack grows, the function starts
 * again), or 0: no check, or a jump to the jbe from elsewhere.
 */
int cp_go_body_start(const struct cp_func_code *f, uint64_t *at, uint64_t *check, char *err,
		     size_t errlen);

#endif /* CPROF_FUNCBODY_H */
