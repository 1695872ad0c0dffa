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
#include <stdlib.h>

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

/* "FUNC+0x12", or "0x4567 (FUNC's code elsewhere)": a part, or one without a symbol. */
static void where(const struct cp_func_code *f, uint64_t addr, char *buf, size_t size)
{
	if (addr >= f->part[0].vaddr && addr - f->part[0].vaddr < f->part[0].size)
		snprintf(buf, size, "%s+0x%" PRIx64, f->name, addr - f->part[0].vaddr);
	else
		snprintf(buf, size, "0x%" PRIx64 " (%s's code elsewhere)", addr, f->name);
}

static void undecodable(const struct cp_func_code *f, uint64_t addr, const uint8_t *p,
			size_t avail, char *err, size_t errlen)
{
	size_t i, n = avail < 8 ? avail : 8;
	char at[128];
	int len;

	where(f, addr, at, sizeof(at));
	len = snprintf(err, errlen, "%s: cannot decode the instruction at %s (", f->name, at);
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

/* An instruction of a part of the function no symbol names. */
struct found {
	uint64_t addr;
	struct cp_insn in;
};

/* Instructions by address. */
struct found_set {
	struct found *v;
	size_t nr, cap;
};

static bool found_has(const struct found_set *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->v[mid].addr == addr)
			return true;
		if (s->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Adds one not there yet, in its place: 0 or -ENOMEM. */
static int found_add(struct found_set *s, uint64_t addr, const struct cp_insn *in)
{
	size_t i;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct found *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	for (i = s->nr; i && s->v[i - 1].addr > addr; i--)
		s->v[i] = s->v[i - 1];
	s->v[i] = (struct found){ addr, *in };
	s->nr++;
	return 0;
}

struct exits {
	const struct cp_func_code *f;
	struct found_set adopted;	/* parts without a symbol (FUNC.cold, stripped) */
	uint64_t *out;
	size_t max, nr;
	unsigned int indirect;
	char *err;
	size_t errlen;
};

static bool in_function(const struct exits *x, uint64_t addr)
{
	return inside(x->f, addr) || found_has(&x->adopted, addr);
}

/*
 * The code a jump out of the function reaches where no function starts:
 * every instruction from @to on, following jumps, up to a ret, a jump
 * through a pointer, a function's start or the function itself. If some
 * way leads back into the function, the code is a part of it that no
 * symbol names (GCC's FUNC.cold in a file without .symtab): adopted, its
 * exits are the function's. If none does, it is another function (a tail
 * call) or a part that only leaves: the jump there is the exit.
 */
static int explore(struct exits *x, uint64_t to)
{
	const struct cp_func_env *env = x->f->env;
	struct found_set seen = { 0 };
	uint64_t *todo, a;
	const uint8_t *p;
	size_t n = 0, avail, i;
	struct cp_insn in;
	bool back = false;
	int ret = 0;

	todo = malloc((2 * CP_FUNC_EXPLORE_MAX + 2) * sizeof(*todo));
	if (!todo)
		return -ENOMEM;
	todo[n++] = to;
	while (n && !ret) {
		a = todo[--n];
		/* A jump to the entry is a call anew (a tail call), not a way back. */
		if (a == x->f->part[0].vaddr)
			continue;
		if (in_function(x, a)) {
			back = true;
			continue;
		}
		if (found_has(&seen, a) || env->is_func(env->arg, a))
			continue;
		avail = env->code_at(env->arg, a, &p);
		if (!avail)
			continue;		/* not code of the file: leaves */
		if (cp_insn_decode(p, avail, &in)) {
			undecodable(x->f, a, p, avail, x->err, x->errlen);
			ret = -EINVAL;
			break;
		}
		if (seen.nr == CP_FUNC_EXPLORE_MAX) {
			snprintf(x->err, x->errlen, "%s: a jump out of it at 0x%" PRIx64 " leads to"
				 " more than %d instructions where no function starts: cannot tell"
				 " whether they are part of it", x->f->name, to,
				 CP_FUNC_EXPLORE_MAX);
			ret = -EINVAL;
			break;
		}
		ret = found_add(&seen, a, &in);
		/* int3, hlt, ud2: nothing runs after them */
		if (p[0] == 0xcc || p[0] == 0xf4 || (p[0] == 0x0f && p[1] == 0x0b))
			continue;
		switch (in.kind) {
		case CP_INSN_RET:
		case CP_INSN_JMP_MEM_RIP:
		case CP_INSN_JMP_INDIRECT:
			break;
		case CP_INSN_JMP:
			todo[n++] = target(a, &in);
			break;
		case CP_INSN_JCC:
			todo[n++] = target(a, &in);
			todo[n++] = a + in.len;
			break;
		default:
			todo[n++] = a + in.len;
		}
	}
	for (i = 0; !ret && back && i < seen.nr; i++)
		ret = found_add(&x->adopted, seen.v[i].addr, &seen.v[i].in);
	free(seen.v);
	free(todo);
	return ret;
}

/* Phase 1: the parts without a symbol that jumps out of the function reach. */
static int adopt_of(uint64_t addr, const uint8_t *p, const struct cp_insn *in, void *arg)
{
	struct exits *x = arg;
	const struct cp_func_env *env = x->f->env;
	uint64_t to = target(addr, in);

	(void)p;
	if ((in->kind != CP_INSN_JMP && in->kind != CP_INSN_JCC) || in_function(x, to) ||
	    !env || env->is_func(env->arg, to))
		return 0;
	return explore(x, to);
}

/* Phase 2: whether an instruction of the function (a part or adopted) leaves it. */
static int exit_of(uint64_t addr, const uint8_t *p, const struct cp_insn *in, void *arg)
{
	struct exits *x = arg;
	char at[128];

	(void)p;
	switch (in->kind) {
	case CP_INSN_RET:
	case CP_INSN_JMP_MEM_RIP:
		break;
	case CP_INSN_JMP:
		if (in_function(x, target(addr, in)))
			return 0;
		break;
	case CP_INSN_JCC:
		if (in_function(x, target(addr, in)))
			return 0;
		where(x->f, addr, at, sizeof(at));
		snprintf(x->err, x->errlen, "%s: a conditional jump out of the function at %s"
			 " (a conditional tail call, or to a part of it without a symbol that"
			 " never comes back): %%return cannot count it", x->f->name, at);
		return -EINVAL;
	case CP_INSN_JMP_INDIRECT:
		x->indirect++;
		return 0;
	default:
		return 0;
	}
	if (x->nr < x->max)
		x->out[x->nr] = addr;
	x->nr++;
	return 0;
}

int cp_func_exits(const struct cp_func_code *f, uint64_t *out, size_t max,
		  unsigned int *indirect, char *err, size_t errlen)
{
	struct exits x = { .f = f, .out = out, .max = max, .err = err, .errlen = errlen };
	size_t i;
	int ret;

	ret = walk(f, adopt_of, &x, err, errlen);
	if (!ret)
		ret = walk(f, exit_of, &x, err, errlen);
	for (i = 0; !ret && i < x.adopted.nr; i++)
		ret = exit_of(x.adopted.v[i].addr, NULL, &x.adopted.v[i].in, &x);
	free(x.adopted.v);
	if (ret)
		return ret;
	*indirect = x.indirect;
	return x.nr > INT32_MAX ? INT32_MAX : (int)x.nr;
}

/* What cp_func_calls() looks for. */
struct calls {
	uint64_t callee;
	uint64_t *out;
	size_t max, nr;
};

static int call_of(uint64_t addr, const uint8_t *p, const struct cp_insn *in, void *arg)
{
	struct calls *c = arg;

	(void)p;
	if (in->kind == CP_INSN_CALL && target(addr, in) == c->callee) {
		if (c->nr < c->max)
			c->out[c->nr] = addr;
		c->nr++;
	}
	return 0;
}

int cp_func_calls(const struct cp_func_code *f, uint64_t callee, uint64_t *out, size_t max,
		  char *err, size_t errlen)
{
	struct calls c = { .callee = callee, .out = out, .max = max };
	int ret;

	ret = walk(f, call_of, &c, err, errlen);
	if (ret)
		return ret;
	return c.nr > INT32_MAX ? INT32_MAX : (int)c.nr;
}

/* What cp_go_body_start() looks for. */
struct go_start {
	uint64_t entry;
	unsigned int seen;	/* instructions so far */
	bool cmp;		/* the last one was the check's cmp */
	uint64_t body;		/* after the check's jbe; 0: none found */
	uint64_t check;		/* the jbe */
	uint64_t to_entry, to_body, to_check;	/* a jump there (its address), or 0 */
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
		if (g->cmp && jbe) {
			g->body = addr + in->len;
			g->check = addr;
		}
		g->cmp = is_go_check(p, in);
	}
	g->seen++;
	if (in->kind == CP_INSN_JMP || in->kind == CP_INSN_JCC) {
		if (target(addr, in) == g->entry)
			g->to_entry = addr;
		else if (g->body && target(addr, in) == g->body)
			g->to_body = addr;
		else if (g->check && target(addr, in) == g->check)
			g->to_check = addr;
	}
	return 0;
}

int cp_go_body_start(const struct cp_func_code *f, uint64_t *at, uint64_t *check, char *err,
		     size_t errlen)
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
	*check = g.body && !g.to_check ? g.check : 0;
	return 0;
}
