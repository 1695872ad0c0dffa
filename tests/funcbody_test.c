// SPDX-License-Identifier: GPL-2.0
/*
 * A function's exits and a Go function's body start (user/funcbody.c) on
 * code assembled by hand, no module needed: each way a function leaves
 * (ret, rep ret, a tail call, a jump through a GOT slot), a jump inside, a
 * part elsewhere without a symbol that comes back (adopted, its ret an
 * exit) or does not (the jump to it is the exit; a conditional one is
 * refused), jumps through a pointer (counted, not exits), bytes the decoder
 * does not know (refused, the offset named); Go's stack check in both its
 * forms, a leaf without one, and the prologues that must be refused.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "funcbody.h"

#define BASE	0x1000
#define ELSE	0x2000		/* code elsewhere: a part, or another function */
#define OTHER	0x3000		/* another function's start */

/* The file's code outside the function: [ELSE, ...) and where functions start. */
struct env_code {
	const uint8_t *code;
	size_t size;
};

static size_t code_at(void *arg, uint64_t vaddr, const uint8_t **p)
{
	const struct env_code *c = arg;

	if (vaddr < ELSE || vaddr >= ELSE + c->size)
		return 0;
	*p = c->code + (vaddr - ELSE);
	return c->size - (vaddr - ELSE);
}

static bool is_func(void *arg, uint64_t vaddr)
{
	return vaddr == OTHER;
}

struct result {
	uint64_t exits[16];
	int n;
	unsigned int indirect;
	char err[256];
};

/* The exits of @code at BASE, with @elsewhere at ELSE (NULL: no env). */
static void exits(const uint8_t *code, size_t size, const uint8_t *elsewhere, size_t else_size,
		  struct result *r)
{
	struct env_code c = { elsewhere, else_size };
	const struct cp_func_env env = { code_at, is_func, &c };
	struct cp_func_code f = {
		.name = "f", .part = { { code, BASE, size } }, .nr = 1,
		.env = elsewhere ? &env : NULL,
	};

	memset(r, 0, sizeof(*r));
	r->n = cp_func_exits(&f, r->exits, 16, &r->indirect, r->err, sizeof(r->err));
}

TEST(every_way_out)
{
	static const uint8_t code[] = {
		0x48, 0x85, 0xff,			/* 1000 test %rdi, %rdi */
		0x74, 0x12,				/* 1003 je 1017 */
		0x48, 0x83, 0xff, 0x01,			/* 1005 cmp $1, %rdi */
		0x74, 0x0b,				/* 1009 je 1016 */
		0x48, 0x83, 0xff, 0x02,			/* 100b cmp $2, %rdi */
		0x74, 0x0b,				/* 100f je 101c */
		0xe9, 0xea, 0x1f, 0x00, 0x00,		/* 1011 jmp 3000 (a tail call) */
		0xc3,					/* 1016 ret */
		0xf3, 0xc3,				/* 1017 rep ret */
		0xeb, 0xe5,				/* 1019 jmp 1000 (inside) */
		0x90,					/* 101b nop */
		0xff, 0x25, 0x10, 0x00, 0x00, 0x00,	/* 101c jmp *0x10(%rip) (GOT) */
		0xff, 0xe0,				/* 1022 jmp *%rax: counted */
		0xcc,					/* 1024 int3 */
	};
	static const uint64_t want[] = { 0x1011, 0x1016, 0x1017, 0x101c };
	struct result r;
	int i;

	exits(code, sizeof(code), NULL, 0, &r);
	ASSERT_EQ(4, r.n) TH_LOG("%s", r.err);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(want[i], r.exits[i]);
	EXPECT_EQ(1U, r.indirect);
}

TEST(conditional_tail_call)
{
	static const uint8_t code[] = {
		0x48, 0x85, 0xff,			/* 1000 test %rdi, %rdi */
		0x0f, 0x85, 0xf7, 0x1f, 0x00, 0x00,	/* 1003 jne 3000 */
		0xc3,					/* 1009 ret */
	};
	struct result r;

	exits(code, sizeof(code), NULL, 0, &r);
	EXPECT_EQ(-EINVAL, r.n);
	EXPECT_NE(NULL, strstr(r.err, "conditional jump out of the function at f+0x3"))
		TH_LOG("%s", r.err);
}

/* jne to ELSE, which comes back to 1009 (adopted) or leaves (refused). */
static const uint8_t cold_caller[] = {
	0x48, 0x85, 0xff,			/* 1000 test %rdi, %rdi */
	0x0f, 0x85, 0xf7, 0x0f, 0x00, 0x00,	/* 1003 jne 2000 */
	0xc3,					/* 1009 ret */
};

TEST(part_without_symbol)
{
	static const uint8_t part[] = {
		0x48, 0xff, 0xcf,			/* 2000 dec %rdi */
		0x0f, 0x85, 0x00, 0xf0, 0xff, 0xff,	/* 2003 jne 1009: back */
		0x31, 0xc0,				/* 2009 xor %eax, %eax */
		0xc3,					/* 200b ret: an exit */
	};
	struct result r;

	exits(cold_caller, sizeof(cold_caller), part, sizeof(part), &r);
	ASSERT_EQ(2, r.n) TH_LOG("%s", r.err);
	EXPECT_EQ(0x1009ULL, r.exits[0]);
	EXPECT_EQ(0x200bULL, r.exits[1]);
}

TEST(part_that_never_comes_back)
{
	static const uint8_t part[] = {
		0x31, 0xc0,				/* 2000 xor %eax, %eax */
		0xc3,					/* 2002 ret */
	};
	static const uint8_t jumper[] = {
		0xe9, 0xfb, 0x0f, 0x00, 0x00,		/* 1000 jmp 2000 */
	};
	struct result r;

	/* conditionally: refused; unconditionally: the jump is the exit */
	exits(cold_caller, sizeof(cold_caller), part, sizeof(part), &r);
	EXPECT_EQ(-EINVAL, r.n);
	EXPECT_NE(NULL, strstr(r.err, "never comes back")) TH_LOG("%s", r.err);
	exits(jumper, sizeof(jumper), part, sizeof(part), &r);
	ASSERT_EQ(1, r.n) TH_LOG("%s", r.err);
	EXPECT_EQ(0x1000ULL, r.exits[0]);
}

/* A jump back to the entry from elsewhere is a call anew, not a way back. */
TEST(back_to_the_entry_is_a_call)
{
	static const uint8_t part[] = {
		0xe9, 0xfb, 0xef, 0xff, 0xff,		/* 2000 jmp 1000 */
	};
	struct result r;

	exits(cold_caller, sizeof(cold_caller), part, sizeof(part), &r);
	EXPECT_EQ(-EINVAL, r.n) TH_LOG("%d exits", r.n);
}

TEST(only_through_pointers)
{
	static const uint8_t code[] = { 0xff, 0xe0 };	/* jmp *%rax */
	struct result r;

	exits(code, sizeof(code), NULL, 0, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(1U, r.indirect);
}

TEST(undecodable)
{
	static const uint8_t code[] = { 0x90, 0x90, 0x06, 0xc3 };	/* push %es */
	struct result r;

	exits(code, sizeof(code), NULL, 0, &r);
	EXPECT_EQ(-EINVAL, r.n);
	EXPECT_NE(NULL, strstr(r.err, "at f+0x2 (06 c3)")) TH_LOG("%s", r.err);
}

/* Where a Go function's body starts, or -errno with err; its check in check_at. */
static uint64_t check_at;

static int go_start(const uint8_t *code, size_t size, uint64_t *at, char *err, size_t errlen)
{
	struct cp_func_code f = { .name = "main.f", .part = { { code, BASE, size } }, .nr = 1 };

	check_at = ~0ULL;
	return cp_go_body_start(&f, at, &check_at, err, errlen);
}

TEST(go_stack_check)
{
	static const uint8_t small[] = {
		0x49, 0x3b, 0x66, 0x10,			/* 1000 cmp 0x10(%r14), %rsp */
		0x76, 0x05,				/* 1004 jbe 100b */
		0x55,					/* 1006 push %rbp: the body */
		0x5d,					/* 1007 pop %rbp */
		0xc3,					/* 1008 ret */
		0x90, 0x90,
		0xe8, 0x00, 0x00, 0x00, 0x00,		/* 100b call runtime.morestack */
		0xeb, 0xee,				/* 1010 jmp 1000 */
	};
	static const uint8_t large[] = {
		0x4c, 0x8d, 0x64, 0x24, 0xe8,		/* 1000 lea -0x18(%rsp), %r12 */
		0x4d, 0x3b, 0x66, 0x10,			/* 1005 cmp 0x10(%r14), %r12 */
		0x0f, 0x86, 0x06, 0x00, 0x00, 0x00,	/* 1009 jbe 1015 */
		0x55,					/* 100f push %rbp: the body */
		0x5d,					/* 1010 pop %rbp */
		0xc3,					/* 1011 ret */
		0x90, 0x90, 0x90,
		0xe8, 0x00, 0x00, 0x00, 0x00,		/* 1015 call runtime.morestack */
		0xeb, 0xe4,				/* 101a jmp 1000 */
	};
	static const uint8_t leaf[] = { 0x31, 0xc0, 0xc3 };
	static const uint8_t into_check[] = {
		0x49, 0x3b, 0x66, 0x10,			/* 1000 cmp 0x10(%r14), %rsp */
		0x76, 0x05,				/* 1004 jbe 100b */
		0x55,					/* 1006 push %rbp: the body */
		0x5d,					/* 1007 pop %rbp */
		0xeb, 0xfa,				/* 1008 jmp 1004: to the check's jbe */
		0x90,
		0xe8, 0x00, 0x00, 0x00, 0x00,		/* 100b call runtime.morestack */
		0xeb, 0xee,				/* 1010 jmp 1000 */
	};
	char err[256];
	uint64_t at;

	ASSERT_EQ(0, go_start(small, sizeof(small), &at, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0x1006ULL, at);
	EXPECT_EQ(0x1004ULL, check_at);
	ASSERT_EQ(0, go_start(large, sizeof(large), &at, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0x100fULL, at);
	EXPECT_EQ(0x1009ULL, check_at);
	ASSERT_EQ(0, go_start(leaf, sizeof(leaf), &at, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((uint64_t)BASE, at);
	EXPECT_EQ(0ULL, check_at);
	/* a jbe that is also a jump's target: the body start only */
	ASSERT_EQ(0, go_start(into_check, sizeof(into_check), &at, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0x1006ULL, at);
	EXPECT_EQ(0ULL, check_at);
}

TEST(go_prologues_refused)
{
	static const uint8_t no_check[] = {
		0x55,					/* 1000 push %rbp */
		0x5d,					/* 1001 pop %rbp */
		0xc3,					/* 1002 ret */
		0xe8, 0x00, 0x00, 0x00, 0x00,		/* 1003 call */
		0xeb, 0xf6,				/* 1008 jmp 1000 */
	};
	static const uint8_t into_body[] = {
		0x49, 0x3b, 0x66, 0x10,			/* 1000 cmp 0x10(%r14), %rsp */
		0x76, 0x03,				/* 1004 jbe 1009 */
		0x55,					/* 1006 push %rbp */
		0xeb, 0xfd,				/* 1007 jmp 1006: into the body's start */
		0xe8, 0x00, 0x00, 0x00, 0x00,		/* 1009 call */
		0xeb, 0xf0,				/* 100e jmp 1000 */
	};
	char err[256];
	uint64_t at;

	EXPECT_EQ(-EINVAL, go_start(no_check, sizeof(no_check), &at, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no Go stack check")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, go_start(into_body, sizeof(into_body), &at, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "after its stack check")) TH_LOG("%s", err);
}

TEST_HARNESS_MAIN
