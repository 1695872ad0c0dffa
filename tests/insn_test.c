// SPDX-License-Identifier: GPL-2.0
/*
 * cprof's x86-64 length decoder (user/insn.c) against binutils, no module
 * needed: for every function of real binaries (libc, cprof itself, the Go
 * programs the build makes with each Go installed), the instruction starts
 * the decoder finds walking the function from its entry must be exactly
 * those objdump -d prints for it. Skipped without objdump. Then encodings
 * picked by hand: each prefix and immediate rule, the branch kinds
 * FUNC%return relies on, and the bytes it must refuse.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>

#include "kselftest_harness.h"
#include "insn.h"
#include "helpers/path.h"

#define MAX_LOGGED	10

/* Instruction starts objdump printed, in address order. */
struct starts {
	uint64_t *v;
	size_t nr, cap;
};

static int push(struct starts *s, uint64_t a)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1 << 16;
		uint64_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->nr++] = a;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The first index of @s at or above @a. */
static size_t lower(const struct starts *s, uint64_t a)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->v[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool have_objdump(void)
{
	return !system("objdump --version > /dev/null 2>&1");
}

/*
 * objdump -d's instruction starts in @path, and the addresses of "(bad)".
 * fwait (9b) before an x87 instruction is printed as one with it (fstcw):
 * its second byte starts an instruction too.
 */
static int objdump_starts(const char *path, struct starts *s, struct starts *bad)
{
	char cmd[PATH_MAX + 64], *line = NULL;
	unsigned long long a;
	size_t cap = 0;
	FILE *f;
	int n, ret = 0;

	snprintf(cmd, sizeof(cmd), "objdump -d -w -z '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0) {
		char *tab;

		if (sscanf(line, " %llx:%n", &a, &n) != 1 || line[n] != '\t')
			continue;
		tab = strchr(line + n + 1, '\t');
		ret = push(s, a);
		if (!ret && !strncmp(line + n + 1, "9b ", 3) && isxdigit(line[n + 4]))
			ret = push(s, a + 1);
		if (!ret && tab && strstr(tab, "(bad)"))
			ret = push(bad, a);
	}
	free(line);
	if (pclose(f) && !ret)
		ret = -EIO;
	qsort(s->v, s->nr, sizeof(*s->v), cmp_u64);
	return ret;
}

struct tally {
	size_t funcs, insns, skipped, mismatches;
};

/* Whether objdump gave up somewhere in [start, end). */
static bool bad_in(const struct starts *bad, uint64_t start, uint64_t end)
{
	size_t i;

	for (i = 0; i < bad->nr; i++)
		if (bad->v[i] >= start && bad->v[i] < end)
			return true;
	return false;
}

/* One function: the decoder's starts against objdump's. */
static void check_func(struct __test_metadata *_metadata, const char *file, const char *name,
		       const uint8_t *code, uint64_t start, uint64_t size,
		       const struct starts *s, const struct starts *bad, struct tally *t)
{
	size_t i = lower(s, start), off = 0;
	struct cp_insn in;
	int ret;

	if (bad_in(bad, start, start + size)) {
		t->skipped++;
		return;
	}
	t->funcs++;
	while (off < size) {
		ret = cp_insn_decode(code + off, size - off, &in);
		if (ret || i >= s->nr || s->v[i] != start + off) {
			if (t->mismatches++ < MAX_LOGGED)
				TH_LOG("%s: %s+0x%zx (0x%llx): %s, objdump's next start 0x%llx",
				       file, name, off, (unsigned long long)(start + off),
				       ret ? strerror(-ret) : "a start objdump does not have",
				       i < s->nr ? (unsigned long long)s->v[i] : 0ULL);
			return;
		}
		t->insns++;
		off += in.len;
		i++;
	}
	if (off != size || (i < s->nr && s->v[i] < start + size)) {
		if (t->mismatches++ < MAX_LOGGED)
			TH_LOG("%s: %s: the walk ends at +0x%zx, objdump's at another place",
			       file, name, off);
	}
}

/* Every sized function symbol of @path's .symtab, else .dynsym. */
static void check_file(struct __test_metadata *_metadata, const char *path, struct tally *t)
{
	struct starts s = { 0 }, bad = { 0 };
	Elf_Scn *scn = NULL, *text;
	GElf_Shdr mem, tmem, *sh, *tsh;
	Elf_Data *data, *tdata;
	const char *name;
	GElf_Word type = SHT_DYNSYM;
	GElf_Sym sym;
	size_t i, n;
	Elf *elf;
	int fd;

	ASSERT_EQ(0, objdump_starts(path, &s, &bad)) TH_LOG("objdump -d %s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ASSERT_NE(NULL, elf);
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (sh && sh->sh_type == SHT_SYMTAB)
			type = SHT_SYMTAB;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type != type || !sh->sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		n = sh->sh_size / sh->sh_entsize;
		for (i = 1; data && i < n; i++) {
			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				continue;
			text = elf_getscn(elf, sym.st_shndx);
			tsh = text ? gelf_getshdr(text, &tmem) : NULL;
			if (!tsh || tsh->sh_type != SHT_PROGBITS || !(tsh->sh_flags & SHF_EXECINSTR) ||
			    sym.st_value < tsh->sh_addr ||
			    sym.st_value + sym.st_size > tsh->sh_addr + tsh->sh_size)
				continue;
			tdata = elf_getdata(text, NULL);
			if (!tdata || !tdata->d_buf)
				continue;
			name = elf_strptr(elf, sh->sh_link, sym.st_name);
			check_func(_metadata, path, name ?: "?",
				   (const uint8_t *)tdata->d_buf + (sym.st_value - tsh->sh_addr),
				   sym.st_value, sym.st_size, &s, &bad, t);
		}
	}
	elf_end(elf);
	close(fd);
	free(s.v);
	free(bad.v);
}

/* The binaries: a missing one is skipped, but not all of them. */
static void check_files(struct __test_metadata *_metadata, const char *const *rel,
			const char *const *abs)
{
	struct tally t = { 0 };
	char path[PATH_MAX];
	size_t files = 0;

	for (; *abs; abs++) {
		if (access(*abs, R_OK))
			continue;
		check_file(_metadata, *abs, &t);
		files++;
	}
	for (; *rel; rel++) {
		if (cp_build_path(*rel, path, sizeof(path)))
			continue;
		check_file(_metadata, path, &t);
		files++;
	}
	TH_LOG("%zu files, %zu functions, %zu instructions; %zu functions where objdump says (bad)",
	       files, t.funcs, t.insns, t.skipped);
	ASSERT_LT(0, files);
	ASSERT_LT(1000, t.funcs);
	EXPECT_EQ(0, t.mismatches);
}

TEST(objdump_c)
{
	static const char *const abs[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					   "/lib/x86_64-linux-gnu/libm.so.6", NULL };
	static const char *const rel[] = { "../../user/cprof", "insn_test", NULL };

	if (!have_objdump())
		SKIP(return, "no objdump (binutils)");
	check_files(_metadata, rel, abs);
}

TEST(objdump_go)
{
	static const char *const abs[] = { NULL };
	static const char *const rel[] = { "sym/gopcl-go-exe", "sym/gopcl-go1.23-exe",
					   "targets/gobusy", NULL };
	char path[PATH_MAX];

	if (!have_objdump())
		SKIP(return, "no objdump (binutils)");
	if (cp_build_path(rel[0], path, sizeof(path)) && cp_build_path(rel[1], path, sizeof(path)))
		SKIP(return, "no Go program built (go not installed)");
	check_files(_metadata, rel, abs);
}

struct known {
	const char *what;
	uint8_t bytes[CP_INSN_MAX + 1];
	unsigned int size;		/* of bytes: what the decoder may read */
	int ret;
	unsigned int len;
	enum cp_insn_kind kind;
	int64_t rel;
};

#define OK(w, l, ...) { w, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), 0, l, CP_INSN_OTHER, 0 }
#define BR(w, l, k, r, ...) { w, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), 0, l, k, r }
#define ERR(w, e, ...) { w, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }), e, 0, 0, 0 }

static const struct known known[] = {
	OK("nop", 1, 0x90),
	OK("endbr64", 4, 0xf3, 0x0f, 0x1e, 0xfa),
	OK("movabs $imm64, %rax", 10, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8),
	OK("mov $imm32, %eax", 5, 0xb8, 1, 2, 3, 4),
	OK("mov $imm16, %ax", 4, 0x66, 0xb8, 1, 2),
	OK("movabs 0x..., %al (moffs64)", 9, 0xa0, 1, 2, 3, 4, 5, 6, 7, 8),
	OK("addr32 mov 0x..., %al (moffs32)", 6, 0x67, 0xa0, 1, 2, 3, 4),
	OK("add $imm16, %ax", 4, 0x66, 0x05, 1, 2),
	OK("add $imm32, %rax (REX.W over 66)", 7, 0x66, 0x48, 0x05, 1, 2, 3, 4),
	OK("testw $imm16, (%rax)", 5, 0x66, 0xf7, 0x00, 1, 2),
	OK("notl (%rax): F7 /2 has no immediate", 2, 0xf7, 0x10),
	OK("testb $1, 8(%rsp,%rax,4)", 5, 0xf6, 0x44, 0x84, 0x08, 0x01),
	OK("lea 0(,%rax,8), %rcx (SIB, no base)", 8, 0x48, 0x8d, 0x0c, 0xc5, 0, 0, 0, 0),
	OK("mov 0x10(%rip), %rax", 7, 0x48, 0x8b, 0x05, 0x10, 0, 0, 0),
	OK("cmp 0x10(%r14), %rsp (Go's stack check)", 4, 0x49, 0x3b, 0x66, 0x10),
	OK("enter $16, $0", 4, 0xc8, 0x10, 0x00, 0x00),
	OK("nopw %cs:0(%rax,%rax,1)", 11, 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0),
	OK("pshufd $0x1b, %xmm1, %xmm0", 5, 0x66, 0x0f, 0x70, 0xc1, 0x1b),
	OK("pshufb %xmm1, %xmm0 (0F38)", 5, 0x66, 0x0f, 0x38, 0x00, 0xc1),
	OK("palignr $4, %xmm1, %xmm0 (0F3A)", 6, 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x04),
	OK("extrq $1, $2, %xmm0 (SSE4a)", 6, 0x66, 0x0f, 0x78, 0xc0, 0x01, 0x02),
	OK("vzeroupper", 3, 0xc5, 0xf8, 0x77),
	OK("vmovdqu (%rsi), %ymm0 (VEX2)", 4, 0xc5, 0xfe, 0x6f, 0x06),
	OK("vpshufd $0, %ymm1, %ymm0 (VEX2 imm)", 5, 0xc5, 0xfd, 0x70, 0xc1, 0x00),
	OK("vpermq $0x4e, %ymm1, %ymm0 (VEX3 0F3A)", 6, 0xc4, 0xe3, 0xfd, 0x00, 0xc1, 0x4e),
	OK("vpbroadcastb %xmm0, %ymm1 (VEX3 0F38)", 5, 0xc4, 0xe2, 0x7d, 0x78, 0xc8),
	OK("vmovdqu64 0x40(%rsi), %zmm16 (EVEX, disp8*N)", 7, 0x62, 0xe1, 0xfe, 0x48, 0x6f,
	   0x46, 0x01),
	OK("vpternlogd $0xff, %zmm0, %zmm0, %zmm0 (EVEX 0F3A)", 7, 0x62, 0xf3, 0x7d, 0x48,
	   0x25, 0xc0, 0xff),
	OK("lock cmpxchg %ecx, (%rdx)", 4, 0xf0, 0x0f, 0xb1, 0x0a),
	OK("syscall", 2, 0x0f, 0x05),
	OK("fstcw (%rsp) after fwait", 1, 0x9b, 0xd9, 0x3c, 0x24),
	BR("ret", 1, CP_INSN_RET, 0, 0xc3),
	BR("rep ret", 2, CP_INSN_RET, 0, 0xf3, 0xc3),
	BR("bnd ret", 2, CP_INSN_RET, 0, 0xf2, 0xc3),
	BR("ret $8", 3, CP_INSN_RET, 0, 0xc2, 0x08, 0x00),
	BR("jmp rel32", 5, CP_INSN_JMP, -0x10, 0xe9, 0xf0, 0xff, 0xff, 0xff),
	BR("jmp rel8", 2, CP_INSN_JMP, 0x7f, 0xeb, 0x7f),
	BR("jne rel8", 2, CP_INSN_JCC, -2, 0x75, 0xfe),
	BR("jbe rel32", 6, CP_INSN_JCC, 0x100, 0x0f, 0x86, 0x00, 0x01, 0x00, 0x00),
	BR("jrcxz", 2, CP_INSN_JCC, 3, 0xe3, 0x03),
	BR("call rel32", 5, CP_INSN_CALL, 0x20, 0xe8, 0x20, 0, 0, 0),
	BR("jmp *0x10(%rip) (GOT)", 6, CP_INSN_JMP_MEM_RIP, 0, 0xff, 0x25, 0x10, 0, 0, 0),
	BR("bnd jmp *0x10(%rip)", 7, CP_INSN_JMP_MEM_RIP, 0, 0xf2, 0xff, 0x25, 0x10, 0, 0, 0),
	BR("notrack jmp *%rax", 3, CP_INSN_JMP_INDIRECT, 0, 0x3e, 0xff, 0xe0),
	BR("jmp *(%rax,%rcx,8)", 3, CP_INSN_JMP_INDIRECT, 0, 0xff, 0x24, 0xc8),
	OK("call *%rax", 2, 0xff, 0xd0),
	ERR("push %es: invalid in 64-bit mode", -EINVAL, 0x06),
	ERR("aaa", -EINVAL, 0x37),
	ERR("bound/EVEX cut short", -ENODATA, 0x62, 0xf1),
	ERR("data16 jmp rel (vendors differ)", -EINVAL, 0x66, 0xe9, 0, 0),
	ERR("data16 call rel (vendors differ)", -EINVAL, 0x66, 0xe8, 0, 0),
	ERR("data16 jcc rel32 (vendors differ)", -EINVAL, 0x66, 0x0f, 0x84, 0, 0),
	ERR("3DNow!", -EINVAL, 0x0f, 0x0f, 0xc1, 0xb4),
	ERR("XOP", -EINVAL, 0x8f, 0xe9, 0x78, 0xc2, 0xc1),
	ERR("VEX after a REX", -EINVAL, 0x48, 0xc5, 0xf8, 0x77),
	ERR("VEX map 0", -EINVAL, 0xc4, 0xe0, 0x7d, 0x00, 0xc1),
	ERR("EVEX map 7", -EINVAL, 0x62, 0xf7, 0x7d, 0x48, 0x00, 0xc0),
	ERR("more than 15 bytes of prefixes", -EINVAL, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	    0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90),
	ERR("mov imm32 cut short", -ENODATA, 0xb8, 1, 2),
	ERR("SIB missing", -ENODATA, 0x8b, 0x04),
	ERR("nothing", -ENODATA, 0x90),
};

TEST(encodings)
{
	struct cp_insn in;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct known *k = &known[i];
		size_t size = strcmp(k->what, "nothing") ? k->size : 0;

		ret = cp_insn_decode(k->bytes, size, &in);
		EXPECT_EQ(k->ret, ret) TH_LOG("%s", k->what);
		if (ret || k->ret)
			continue;
		EXPECT_EQ(k->len, in.len) TH_LOG("%s", k->what);
		EXPECT_EQ(k->kind, in.kind) TH_LOG("%s", k->what);
		if (k->kind == CP_INSN_JMP || k->kind == CP_INSN_JCC || k->kind == CP_INSN_CALL)
			EXPECT_EQ(k->rel, in.rel) TH_LOG("%s", k->what);
	}
}

TEST_HARNESS_MAIN
