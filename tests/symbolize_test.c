// SPDX-License-Identifier: GPL-2.0
/*
 * cprof's symbolizer (user/symbolize.c) on real code, no module needed:
 * symtarget, built -O2 -g as a PIE and as a fixed-address executable, prints
 * return addresses inside functions the compiler inlined (in itself, and in
 * a library it dlopen()s) together with the lines of the call and of the
 * inlined call; the symbolizer must name the inline chain innermost first,
 * with those lines. Also libc (symbols only, or its debuginfo), a Go
 * program, and a file whose build id differs from the recorded one.
 */

#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "symbolize.h"
#include "synth.h"

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "(null)";
}

/* The frames of a probe's return address, looked up one byte back as report does. */
static int lookup(struct __test_metadata *_metadata, struct cp_symbolizer *sym,
		  const struct sym_run *run, const struct sym_probe *p, bool ret_addr,
		  struct cp_sym_frame *fr, const char **path)
{
	uint64_t addr = ret_addr ? p->addr - 1 : p->addr;
	const struct sym_map *m = synth_find_map(run, addr);
	struct cp_sym_file *f;

	if (!m) {
		TH_LOG("no mapping has %s's %#lx", p->kind, (unsigned long)addr);
		return -1;
	}
	*path = m->path;
	f = cp_sym_file(sym, m->path);
	if (!f)
		return -1;
	return cp_sym_lookup(f, addr - m->start + m->pgoff, fr, CP_SYM_MAX_FRAMES);
}

static void check_inline(struct __test_metadata *_metadata, const char *prog, const char *kind)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	char lib[PATH_MAX], path[PATH_MAX];
	struct cp_symbolizer *sym;
	const struct sym_probe *p;
	struct sym_run run;
	const char *file;
	int n;

	ASSERT_EQ(0, synth_path(prog, path, sizeof(path)));
	ASSERT_EQ(0, synth_path("sym/libsymlib.so", lib, sizeof(lib)));
	ASSERT_EQ(0, synth_probe(path, lib, &run));
	p = synth_find_probe(&run, kind);
	ASSERT_NE(NULL, p);
	sym = cp_sym_new(NULL, stderr);
	ASSERT_NE(NULL, sym);

	n = lookup(_metadata, sym, &run, p, true, fr, &file);
	TH_LOG("%s %s %#lx: %d frames", base(path), kind, (unsigned long)p->addr, n);
	ASSERT_EQ(2, n);
	/* Innermost first: the inlined function at the probe's line... */
	EXPECT_STREQ(p->func, fr[0].func);
	EXPECT_EQ(p->line, fr[0].line);
	EXPECT_STREQ(p->file, base(fr[0].file));
	EXPECT_STREQ(p->file, base(fr[0].decl_file));
	/* ...then the function it is inlined into, at the line of that call. */
	EXPECT_STREQ(p->outer, fr[1].func);
	EXPECT_EQ(p->call_line, fr[1].line);
	EXPECT_STREQ(p->file, base(fr[1].file));
	/* The symbol table knows the outer one, not the inlined one. */
	EXPECT_STREQ(p->outer, fr[1].sysname);
	EXPECT_EQ(CP_SYM_FUNCTIONS | CP_SYM_FILENAMES | CP_SYM_LINES | CP_SYM_INLINE,
		  cp_sym_caps(cp_sym_file(sym, file)));
	if (!strcmp(kind, "lib")) {
		EXPECT_STREQ("libsymlib.so", base(file));
	} else {
		EXPECT_STREQ(base(path), base(file));
	}
	cp_sym_free(sym);
}

TEST(pie_inline)
{
	check_inline(_metadata, "sym/symtarget", "main");
}

TEST(fixed_address_inline)
{
	check_inline(_metadata, "sym/symtarget-nopie", "main");
}

TEST(dlopen_library_inline)
{
	check_inline(_metadata, "sym/symtarget", "lib");
}

/* libc: named from its symbols (or its debuginfo, when installed). */
TEST(libc_function)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	char lib[PATH_MAX], path[PATH_MAX];
	struct cp_symbolizer *sym;
	const struct sym_probe *p;
	struct sym_run run;
	const char *file;
	int n;

	ASSERT_EQ(0, synth_path("sym/symtarget", path, sizeof(path)));
	synth_path("sym/libsymlib.so", lib, sizeof(lib));
	ASSERT_EQ(0, synth_probe(path, lib, &run));
	p = synth_find_probe(&run, "libc");
	ASSERT_NE(NULL, p);
	sym = cp_sym_new(NULL, stderr);
	ASSERT_NE(NULL, sym);
	n = lookup(_metadata, sym, &run, p, false, fr, &file);
	ASSERT_LE(1, n);
	TH_LOG("%s: %s (%s)", base(file), fr[n - 1].func, fr[n - 1].sysname);
	EXPECT_STREQ("qsort", fr[n - 1].func);
	EXPECT_STREQ("qsort", fr[n - 1].sysname);
	EXPECT_TRUE(cp_sym_caps(cp_sym_file(sym, file)) & CP_SYM_FUNCTIONS);
	cp_sym_free(sym);
}

/* A Go program: statically linked, its own symbol and DWARF conventions. */
TEST(go_function)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	struct cp_symbolizer *sym;
	const struct sym_probe *p;
	char path[PATH_MAX];
	struct sym_run run;
	const char *file;
	int n;

	if (synth_path("targets/gobusy", path, sizeof(path)))
		SKIP(return, "no build/tests/targets/gobusy (go not installed at build time)");
	ASSERT_EQ(0, synth_probe(path, NULL, &run));
	p = synth_find_probe(&run, "go");
	ASSERT_NE(NULL, p);
	sym = cp_sym_new(NULL, stderr);
	ASSERT_NE(NULL, sym);
	n = lookup(_metadata, sym, &run, p, false, fr, &file);
	ASSERT_LE(1, n);
	TH_LOG("%s %#lx: %s at %s:%d", base(file), (unsigned long)p->addr, fr[n - 1].func,
	       base(fr[n - 1].file), fr[n - 1].line);
	EXPECT_STREQ(p->func, fr[n - 1].func);
	EXPECT_STREQ("gobusy.go", base(fr[n - 1].file));
	EXPECT_LT(0, fr[n - 1].line);
	cp_sym_free(sym);
}

/* A file that changed since the recording: not used, and said once. */
TEST(build_id_mismatch)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	static const uint8_t wrong[20] = { 0xde, 0xad };
	char lib[PATH_MAX], path[PATH_MAX], *msg = NULL;
	struct cp_symbolizer *sym;
	const struct sym_probe *p;
	const uint8_t *id;
	struct sym_run run;
	const char *file;
	size_t len = 0;
	FILE *warn;

	ASSERT_EQ(0, synth_path("sym/symtarget", path, sizeof(path)));
	synth_path("sym/libsymlib.so", lib, sizeof(lib));
	ASSERT_EQ(0, synth_probe(path, lib, &run));
	p = synth_find_probe(&run, "main");
	ASSERT_NE(NULL, p);
	warn = open_memstream(&msg, &len);
	ASSERT_NE(NULL, warn);
	sym = cp_sym_new(NULL, warn);
	ASSERT_NE(NULL, sym);
	ASSERT_EQ(0, cp_sym_expect(sym, synth_find_map(&run, p->addr)->path, wrong,
				   sizeof(wrong)));
	EXPECT_EQ(0, lookup(_metadata, sym, &run, p, true, fr, &file));
	EXPECT_EQ(0, lookup(_metadata, sym, &run, p, false, fr, &file));
	EXPECT_EQ(0, cp_sym_caps(cp_sym_file(sym, file)));
	/* The mapping keeps the recorded id. */
	EXPECT_EQ(sizeof(wrong), cp_sym_build_id(cp_sym_file(sym, file), &id));
	EXPECT_EQ(0, memcmp(id, wrong, sizeof(wrong)));
	fclose(warn);
	TH_LOG("%s", msg);
	/* Once, however many lookups. */
	ASSERT_NE(NULL, strstr(msg, "build id differs"));
	EXPECT_EQ(NULL, strstr(strstr(msg, "build id differs") + 1, "build id differs"));
	free(msg);
	cp_sym_free(sym);
}

/* An offset no function has, a file that does not exist, a FIFO. */
TEST(nothing_there)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	char path[PATH_MAX], dir[] = "/tmp/symbolize_test.XXXXXX", fifo[64];
	struct cp_symbolizer *sym;

	ASSERT_EQ(0, synth_path("sym/symtarget", path, sizeof(path)));
	sym = cp_sym_new(NULL, NULL);
	ASSERT_NE(NULL, sym);
	EXPECT_EQ(0, cp_sym_lookup(cp_sym_file(sym, path), 1ULL << 40, fr, CP_SYM_MAX_FRAMES));
	EXPECT_EQ(0, cp_sym_lookup(cp_sym_file(sym, "/nonexistent/lib.so"), 0x1000, fr,
				   CP_SYM_MAX_FRAMES));
	EXPECT_EQ(0, cp_sym_caps(cp_sym_file(sym, "/nonexistent/lib.so")));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	/* Must not block opening it. */
	EXPECT_EQ(0, cp_sym_lookup(cp_sym_file(sym, fifo), 0x1000, fr, CP_SYM_MAX_FRAMES));
	unlink(fifo);
	rmdir(dir);
	EXPECT_EQ(0, cp_sym_lookup(cp_sym_file(sym, "[vdso]"), 0x100, fr, CP_SYM_MAX_FRAMES));
	cp_sym_free(sym);
}

TEST_HARNESS_MAIN
