// SPDX-License-Identifier: GPL-2.0
/*
 * A function's exits and a Go function's body start (funcbody.h), by a
 * linear walk of its parts with the length decoder: compilers put no data
 * among the instructions of a function on x86-64, so every byte of its
 * symbol's range is an instruction or padding that decodes as one (int3,
 * nop). A byte the decoder does not know stops the walk with an error.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "funcbody.h"
#include "insn.h"

/* Go's stack check: cmp 0x10(%r14), %rsp or %r12 (REX.W|R?|B, 3B, ModRM 66, disp8 10). */
#define GO_CHECK_AT_MOST	4	/* instructions before it: lea/mov/sub to r12 */

typedef int (*insn_fn)(uint64_t addr, const uint8_t *p, const struct cp_insn *in, void *arg);

static bool inside(const struct cp_func_code *f, uint64_t addr)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (addr >= f->part[i].vaddr && addr - f->part[i].vaddr < f->part[i].size)
			return true;
	return false;
}

static void undecodable(const struct cp_func_code *f, uint64_t addr, const uint8_t *p,
			size_t avail, char *err, size_t errlen)
{
	size_t i, n = avail < 8 ? avail : 8;
	int len;

	len = snprintf(err, errlen, "%s: cannot decode the instruction at %s+0x%" PRIx64 " (",
		       f->name, f->name, addr - f->part[0].vaddr);
	for (i = 0; i < n && len > 0 && (size_t)len < errlen; i++)
		len += snprintf(err + len, errlen - len, "%s%02x", i ? " " : "", p[i]);
	if (len > 0 && (size_t)len < errlen)
		snprintf(err + len, errlen - len, "): refused rather than guessed");
}

/* Calls @fn for every instruction of every part: 0, what @fn returned, or -EINVAL. */
static int walk(const struct cp_func_code *f, insn_fn fn, void *arg, char *err, size_t errlen)
{
	const struct cp_func_part *pt;
	struct cp_insn in;
	uint64_t off;
	size_t i;
	int ret;

	for (i = 0; i < f->nr; i++) {
		pt = &f->part[i];
		for (off = 0; off < pt->size; off += in.len) {
			ret = cp_insn_decode(pt->code + off, pt->size - off, &in);
			if (ret) {
				undecodable(f, pt->vaddr + off, pt->code + off, pt->size - off,
					    err, errlen);
				return -EINVAL;
			}
			ret = fn(pt->vaddr + off, pt->code + off, &in, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static uint64_t target(uint64_t addr, const struct cp_insn *in)
{
	return addr + in->len + (uint64_t)in->rel;
}

struct exits {
	const struct cp_func_code *f;
	uint64_t *out;
	size_t max, nr;
	unsigned int indirect;
	char *err;
	size_t errlen;
};

static int exit_of(uint64_t addr, const uint8_t *p, const struct cp_insn *in, void *arg)
{
	struct exits *x = arg;
	bool leaves;

	(void)p;
	switch (in->kind) {
	case CP_INSN_RET:
	case CP_INSN_JMP_MEM_RIP:
		leaves = true;
		break;
	case CP_INSN_JMP:
		leaves = !inside(x->f, target(addr, in));
		break;
	case CP_INSN_JCC:
		if (inside(x->f, target(addr, in)))
			return 0;
		snprintf(x->err, x->errlen,
			 "%s: a conditional jump out of the function at %s+0x%" PRIx64
			 " (a conditional tail call): %%return cannot count it", x->f->name,
			 x->f->name, addr - x->f->part[0].vaddr);
		return -EINVAL;
	case CP_INSN_JMP_INDIRECT:
		x->indirect++;
		return 0;
	default:
		return 0;
	}
	if (leaves) {
		if (x->nr < x->max)
			x->out[x->nr] = addr;
		x->nr++;
	}
	return 0;
}

int cp_func_exits(const struct cp_func_code *f, uint64_t *out, size_t max,
		  unsigned int *indirect, char *err, size_t errlen)
{
	struct exits x = { .f = f, .out = out, .max = max, .err = err, .errlen = errlen };
	int ret;

	ret = walk(f, exit_of, &x, err, errlen);
	if (ret)
		return ret;
	*indirect = x.indirect;
	return x.nr > INT32_MAX ? INT32_MAX : (int)x.nr;
}

/* What cp_go_body_start() looks for. */
struct go_start {
	uint64_t entry;
	unsigned int seen;	/* instructions so far */
	bool cmp;		/* the last one was the check's cmp */
	uint64_t body;		/* after the check's jbe; 0: none found */
	uint64_t to_entry, to_body;	/* a jump there (its address), or 0 */
};

static bool is_go_check(const uint8_t *p, const struct cp_insn *in)
{
	/* REX.W + B (r14), maybe R (r12), 3B /r, ModRM mod 01 rm 110, disp8 0x10 */
	return in->len == 4 && (p[0] == 0x49 || p[0] == 0x4d) && p[1] == 0x3b &&
	       (p[2] & 0xc7) == 0x46 && p[3] == 0x10 &&
	       (((p[2] >> 3) & 7) == 4);		/* %rsp, or %r12 with REX.R */
}

static int go_insn(uint64_t addr, const uint8_t *p, const struct cp_insn *in, void *arg)
{
	struct go_start *g = arg;
	bool jbe = in->kind == CP_INSN_JCC && (p[0] == 0x76 || (p[0] == 0x0f && p[1] == 0x86));

	if (!g->body && g->seen <= GO_CHECK_AT_MOST) {
		if (g->cmp && jbe)
			g->body = addr + in->len;
		g->cmp = is_go_check(p, in);
	}
	g->seen++;
	if (in->kind == CP_INSN_JMP || in->kind == CP_INSN_JCC) {
		if (target(addr, in) == g->entry)
			g->to_entry = addr;
		else if (g->body && target(addr, in) == g->body)
			g->to_body = addr;
	}
	return 0;
}

int cp_go_body_start(const struct cp_func_code *f, uint64_t *at, char *err, size_t errlen)
{
	struct go_start g = { .entry = f->part[0].vaddr };
	int ret;

	ret = walk(f, go_insn, &g, err, errlen);
	if (ret)
		return ret;
	if (!g.body && g.to_entry) {
		snprintf(err, errlen,
			 "%s: a jump back to its entry at %s+0x%" PRIx64 " but no Go stack check"
			 " (cmp 16(R14); jbe) in its first instructions: a probe at the entry"
			 " would count a call twice when the stack grows", f->name, f->name,
			 g.to_entry - g.entry);
		return -EINVAL;
	}
	if (g.to_body) {
		snprintf(err, errlen,
			 "%s: a jump at %s+0x%" PRIx64 " to the first instruction after its"
			 " stack check: a probe there would count more than the calls",
			 f->name, f->name, g.to_body - g.entry);
		return -EINVAL;
	}
	*at = g.body ? g.body : g.entry;
	return 0;
}
