/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_INSN_H
#define CPROF_INSN_H

/*
 * x86-64 instruction lengths, enough to walk a function's body from its
 * entry and find where it leaves (probes.c, FUNC%return): legacy and REX
 * prefixes, the one-byte, 0F, 0F38 and 0F3A opcode maps, ModRM, SIB,
 * displacements and immediates, VEX (C4, C5) and EVEX (62). What it does
 * not know (XOP, 3DNow!, opcodes invalid in 64-bit mode, a branch whose
 * size the vendors disagree on) is an error, never a guess.
 */

#include <stddef.h>
#include <stdint.h>

#define CP_INSN_MAX	15	/* the architecture's limit, prefixes included */

enum cp_insn_kind {
	CP_INSN_OTHER,
	CP_INSN_RET,		/* ret, ret imm16, far ret (any prefix) */
	CP_INSN_JMP,		/* jmp rel8/rel32: target = next + rel */
	CP_INSN_JCC,		/* jcc rel8/rel32, jrcxz, loop*: the same */
	CP_INSN_JMP_MEM_RIP,	/* jmp *disp(%rip): through a pointer in memory (a GOT slot) */
	CP_INSN_JMP_INDIRECT,	/* any other jmp through a register or memory */
	CP_INSN_CALL,		/* call rel32 */
};

struct cp_insn {
	unsigned int len;	/* bytes */
	enum cp_insn_kind kind;
	int64_t rel;		/* CP_INSN_JMP, _JCC, _CALL: the displacement */
};

/*
 * Decodes the instruction at @p, of which @avail bytes may be read: 0, or
 * -EINVAL (not an instruction this decoder knows), -ENODATA (cut short by
 * @avail).
 */
int cp_insn_decode(const uint8_t *p, size_t avail, struct cp_insn *in);

#endif /* CPROF_INSN_H */
