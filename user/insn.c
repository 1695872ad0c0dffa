// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 instruction lengths (insn.h). An instruction is prefixes, an
 * opcode of one to three bytes (or a VEX/EVEX prefix and one byte), ModRM
 * and SIB when the opcode has them, a displacement the ModRM asks for, and
 * an immediate the opcode asks for; the tables below say, per opcode, which
 * of these follow. Long mode only: the opcodes that are invalid there
 * (push es, aaa, bound...) are errors, as are the few whose length depends
 * on the vendor (a near branch with an operand-size prefix) and the
 * encodings nobody's compiler emits (XOP, 3DNow!).
 */

#include <errno.h>
#include <stdbool.h>

#include "insn.h"

/* What follows an opcode. */
enum {
	M	= 1 << 0,	/* ModRM (SIB, displacement) */
	I8	= 1 << 1,	/* imm8 (or rel8) */
	IZ	= 1 << 2,	/* imm16 with 0x66, else imm32 (REX.W: imm32) */
	I16	= 1 << 3,	/* imm16 */
	BAD	= 1 << 4,	/* invalid in 64-bit mode, or not decoded here */
	PFX	= 1 << 5,	/* a legacy prefix */
	SPEC	= 1 << 6,	/* handled by its own case */
};

static const uint8_t map1[256] = {
	[0x00 ... 0x03] = M, [0x04] = I8, [0x05] = IZ, [0x06 ... 0x07] = BAD,
	[0x08 ... 0x0b] = M, [0x0c] = I8, [0x0d] = IZ, [0x0e] = BAD, [0x0f] = SPEC,
	[0x10 ... 0x13] = M, [0x14] = I8, [0x15] = IZ, [0x16 ... 0x17] = BAD,
	[0x18 ... 0x1b] = M, [0x1c] = I8, [0x1d] = IZ, [0x1e ... 0x1f] = BAD,
	[0x20 ... 0x23] = M, [0x24] = I8, [0x25] = IZ, [0x26] = PFX, [0x27] = BAD,
	[0x28 ... 0x2b] = M, [0x2c] = I8, [0x2d] = IZ, [0x2e] = PFX, [0x2f] = BAD,
	[0x30 ... 0x33] = M, [0x34] = I8, [0x35] = IZ, [0x36] = PFX, [0x37] = BAD,
	[0x38 ... 0x3b] = M, [0x3c] = I8, [0x3d] = IZ, [0x3e] = PFX, [0x3f] = BAD,
	[0x40 ... 0x4f] = SPEC,				/* REX */
	[0x60 ... 0x61] = BAD, [0x62] = SPEC, [0x63] = M,
	[0x64 ... 0x67] = PFX, [0x68] = IZ, [0x69] = M | IZ, [0x6a] = I8, [0x6b] = M | I8,
	[0x70 ... 0x7f] = I8,
	[0x80] = M | I8, [0x81] = M | IZ, [0x82] = BAD, [0x83] = M | I8,
	[0x84 ... 0x8e] = M, [0x8f] = SPEC,
	[0x9a] = BAD,
	[0xa0 ... 0xa3] = SPEC, [0xa8] = I8, [0xa9] = IZ,
	[0xb0 ... 0xb7] = I8, [0xb8 ... 0xbf] = SPEC,
	[0xc0 ... 0xc1] = M | I8, [0xc2] = I16, [0xc4 ... 0xc5] = SPEC,
	[0xc6] = M | I8, [0xc7] = M | IZ, [0xc8] = SPEC, [0xca] = I16, [0xcd] = I8,
	[0xce] = BAD,
	[0xd0 ... 0xd3] = M, [0xd4 ... 0xd6] = BAD, [0xd8 ... 0xdf] = M,
	[0xe0 ... 0xe7] = I8, [0xe8 ... 0xe9] = SPEC, [0xea] = BAD, [0xeb] = I8,
	[0xf0] = PFX, [0xf2 ... 0xf3] = PFX, [0xf6 ... 0xf7] = SPEC, [0xfe ... 0xff] = M,
};

static const uint8_t map_0f[256] = {
	[0x00 ... 0x03] = M, [0x04] = BAD, [0x0a] = BAD, [0x0c] = BAD, [0x0d] = M,
	[0x0f] = BAD,					/* 3DNow! */
	[0x10 ... 0x23] = M, [0x24 ... 0x27] = BAD, [0x28 ... 0x2f] = M,
	[0x36] = BAD, [0x38] = SPEC, [0x39] = BAD, [0x3a] = SPEC, [0x3b ... 0x3f] = BAD,
	[0x40 ... 0x6f] = M,
	[0x70 ... 0x73] = M | I8, [0x74 ... 0x76] = M, [0x78] = SPEC, [0x79] = M,
	[0x7a ... 0x7b] = BAD, [0x7c ... 0x7f] = M,
	[0x80 ... 0x8f] = SPEC,				/* jcc rel32 */
	[0x90 ... 0x9f] = M,
	[0xa3] = M, [0xa4] = M | I8, [0xa5] = M, [0xa6 ... 0xa7] = BAD,
	[0xab] = M, [0xac] = M | I8, [0xad ... 0xaf] = M,
	[0xb0 ... 0xb9] = M, [0xba] = M | I8, [0xbb ... 0xc1] = M,
	[0xc2] = M | I8, [0xc3] = M, [0xc4 ... 0xc6] = M | I8, [0xc7] = M,
	[0xd0 ... 0xff] = M,
};

/* Whether a VEX/EVEX instruction of map 1 (0F) has an imm8. */
static bool vex_map1_imm(uint8_t op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6);
}

struct dec {
	const uint8_t *p;
	size_t avail, i;
	bool opsize, addrsize, rex, rex_w, legacy;	/* legacy: 66, F2, F3 or F0 seen */
};

static int byte(struct dec *d, uint8_t *b)
{
	if (d->i >= d->avail)
		return -ENODATA;
	if (d->i >= CP_INSN_MAX)
		return -EINVAL;
	*b = d->p[d->i++];
	return 0;
}

static int skip(struct dec *d, size_t n)
{
	if (d->i + n > CP_INSN_MAX)
		return -EINVAL;
	if (d->i + n > d->avail)
		return -ENODATA;
	d->i += n;
	return 0;
}

static int64_t signed_at(const struct dec *d, size_t n)
{
	const uint8_t *q = d->p + d->i - n;

	if (n == 1)
		return (int8_t)q[0];
	return (int32_t)((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
			 (uint32_t)q[3] << 24);
}

/* ModRM, then SIB and displacement as it says; its byte in @modrm. */
static int modrm(struct dec *d, uint8_t *modrm)
{
	uint8_t m, sib;
	size_t disp = 0;
	int ret;

	ret = byte(d, &m);
	if (ret)
		return ret;
	*modrm = m;
	if ((m >> 6) == 3)
		return 0;
	if ((m & 7) == 4) {
		ret = byte(d, &sib);
		if (ret)
			return ret;
		if ((m >> 6) == 0 && (sib & 7) == 5)
			disp = 4;
	}
	if ((m >> 6) == 0 && (m & 7) == 5)
		disp = 4;
	else if ((m >> 6) == 1)
		disp = 1;
	else if ((m >> 6) == 2)
		disp = 4;
	return skip(d, disp);
}

static size_t immz(const struct dec *d)
{
	return d->opsize && !d->rex_w ? 2 : 4;
}

/* What follows the opcode, by its flags. */
static int operands(struct dec *d, uint8_t flags)
{
	uint8_t m;
	int ret = 0;

	if (flags & BAD)
		return -EINVAL;
	if (flags & M)
		ret = modrm(d, &m);
	if (!ret && (flags & I8))
		ret = skip(d, 1);
	if (!ret && (flags & I16))
		ret = skip(d, 2);
	if (!ret && (flags & IZ))
		ret = skip(d, immz(d));
	return ret;
}

/* A relative branch with a displacement of @n bytes. */
static int branch(struct dec *d, struct cp_insn *in, enum cp_insn_kind kind, size_t n)
{
	int ret;

	/* rel16 on AMD, rel32 on Intel: neither is guessed. */
	if (n == 4 && d->opsize)
		return -EINVAL;
	ret = skip(d, n);
	if (ret)
		return ret;
	in->kind = kind;
	in->rel = signed_at(d, n);
	return 0;
}

/* VEX (C4, C5) and EVEX (62): their payload, then opcode, ModRM, imm8. */
static int vex(struct dec *d, uint8_t first)
{
	uint8_t b, op, map;
	size_t payload = first == 0xc5 ? 1 : first == 0xc4 ? 2 : 3;
	int ret;

	/* A legacy 66/F2/F3/F0 or a REX before VEX/EVEX is #UD. */
	if (d->legacy || d->rex)
		return -EINVAL;
	ret = byte(d, &b);
	if (ret)
		return ret;
	map = first == 0xc5 ? 1 : first == 0xc4 ? (b & 0x1f) : (b & 0x07);
	ret = skip(d, payload - 1);
	if (!ret)
		ret = byte(d, &op);
	if (ret)
		return ret;
	if (first == 0x62 && map != 1 && map != 2 && map != 3 && map != 5 && map != 6)
		return -EINVAL;
	if (first != 0x62 && (map < 1 || map > 3))
		return -EINVAL;
	/* vzeroupper, vzeroall: no ModRM */
	if (first != 0x62 && map == 1 && op == 0x77)
		return 0;
	return operands(d, M | ((map == 3 || (map == 1 && vex_map1_imm(op))) ? I8 : 0));
}

/* After 0F. */
static int two_byte(struct dec *d, struct cp_insn *in)
{
	uint8_t op, flags;
	int ret;

	ret = byte(d, &op);
	if (ret)
		return ret;
	flags = map_0f[op];
	if (!(flags & SPEC))
		return operands(d, flags);
	if (op >= 0x80 && op <= 0x8f)
		return branch(d, in, CP_INSN_JCC, 4);
	if (op == 0x38 || op == 0x3a) {
		ret = skip(d, 1);	/* the opcode in that map: all have ModRM */
		return ret ?: operands(d, op == 0x38 ? M : M | I8);
	}
	/* 0F 78: vmread; with 66 or F2, SSE4a's extrq/insertq with two imm8 */
	ret = operands(d, M);
	return ret || !d->legacy ? ret : skip(d, 2);
}

/* One-byte opcodes that need more than their flags. */
static int special(struct dec *d, uint8_t op, struct cp_insn *in)
{
	uint8_t m;
	int ret;

	switch (op) {
	case 0x0f:
		return two_byte(d, in);
	case 0x62:
	case 0xc4:
	case 0xc5:
		return vex(d, op);
	case 0x8f:				/* pop r/m; reg != 0: XOP */
		ret = modrm(d, &m);
		return ret ?: ((m >> 3) & 7) ? -EINVAL : 0;
	case 0xa0 ... 0xa3:			/* mov moffs */
		return skip(d, d->addrsize ? 4 : 8);
	case 0xb8 ... 0xbf:			/* mov imm to register */
		return skip(d, d->rex_w ? 8 : d->opsize ? 2 : 4);
	case 0xc8:				/* enter imm16, imm8 */
		return skip(d, 3);
	case 0xe8:
		return branch(d, in, CP_INSN_CALL, 4);
	case 0xe9:
		return branch(d, in, CP_INSN_JMP, 4);
	case 0xf6:
	case 0xf7:				/* /0 and /1 (test) take an immediate */
		ret = modrm(d, &m);
		if (ret || ((m >> 3) & 7) > 1)
			return ret;
		return skip(d, op == 0xf6 ? 1 : immz(d));
	}
	return -EINVAL;
}

/* What kind of instruction a one-byte opcode makes, its operands decoded. */
static void classify(const struct dec *d, uint8_t op, size_t op_at, struct cp_insn *in)
{
	uint8_t m, reg;

	switch (op) {
	case 0x70 ... 0x7f:
	case 0xe0 ... 0xe3:
		in->kind = CP_INSN_JCC;
		in->rel = signed_at(d, 1);
		break;
	case 0xeb:
		in->kind = CP_INSN_JMP;
		in->rel = signed_at(d, 1);
		break;
	case 0xc2:
	case 0xc3:
	case 0xca:
	case 0xcb:
		in->kind = CP_INSN_RET;
		break;
	case 0xff:
		m = d->p[op_at + 1];
		reg = (m >> 3) & 7;
		if (reg == 4 && (m & 0xc7) == 0x05)
			in->kind = CP_INSN_JMP_MEM_RIP;
		else if (reg == 4 || reg == 5)
			in->kind = CP_INSN_JMP_INDIRECT;
		break;
	}
}

int cp_insn_decode(const uint8_t *p, size_t avail, struct cp_insn *in)
{
	struct dec d = { .p = p, .avail = avail };
	uint8_t op, flags;
	size_t op_at;
	int ret;

	*in = (struct cp_insn){ .kind = CP_INSN_OTHER };
	for (;;) {
		ret = byte(&d, &op);
		if (ret)
			return ret;
		flags = map1[op];
		if (op >= 0x40 && op <= 0x4f) {
			/* REX: last before the opcode, else ignored */
			d.rex = true;
			d.rex_w = op & 0x08;
			continue;
		}
		if (!(flags & PFX))
			break;
		d.rex = d.rex_w = false;
		if (op == 0x66)
			d.opsize = true;
		if (op == 0x67)
			d.addrsize = true;
		if (op == 0x66 || op == 0xf0 || op == 0xf2 || op == 0xf3)
			d.legacy = true;
	}
	op_at = d.i - 1;
	ret = flags & SPEC ? special(&d, op, in) : operands(&d, flags);
	if (ret)
		return ret;
	if (!(flags & SPEC))
		classify(&d, op, op_at, in);
	in->len = d.i;
	return 0;
}
