// SPDX-License-Identifier: GPL-2.0
/*
 * cprof's symbolizer (user/symbolize.c) on real code, no module needed:
 * symtarget, built -O2 -g as a PIE and as a fixed-address executable, prints
 * return addresses inside functions the compiler inlined (in itself, and in
 * a library it dlopen()s) together with the lines of the call and of the
 * inlined call; the symbolizer must name the inline chain innermost first,
 * with those lines. Also libc (symbols only, or its debuginfo), a Go
 * program, a file whose build id differs from the recorded one, a stripped
 * program with and without its debug file (found by build id, through
 * .gnu_debuglink, from a debuginfod server), libc with Debian's libc6-dbg,
 * demangling, perf maps, and the cache cprof record --every keeps from
 * interval to interval.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <libgen.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <gelf.h>

#include "kselftest_harness.h"
#include "perfmap.h"
#include "symbolize.h"
#include "helpers/path.h"
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

	ASSERT_EQ(0, cp_build_path(prog, path, sizeof(path)));
	ASSERT_EQ(0, cp_build_path("sym/libsymlib.so", lib, sizeof(lib)));
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

	ASSERT_EQ(0, cp_build_path("sym/symtarget", path, sizeof(path)));
	cp_build_path("sym/libsymlib.so", lib, sizeof(lib));
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

	if (cp_build_path("targets/gobusy", path, sizeof(path)))
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

	ASSERT_EQ(0, cp_build_path("sym/symtarget", path, sizeof(path)));
	cp_build_path("sym/libsymlib.so", lib, sizeof(lib));
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

	ASSERT_EQ(0, cp_build_path("sym/symtarget", path, sizeof(path)));
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

/* The file offset of symbol @name of the ELF file @path (from .symtab), or 0. */
static uint64_t sym_offset(const char *path, const char *name)
{
	uint64_t off = 0;
	GElf_Shdr sh;
	GElf_Phdr ph;
	GElf_Sym sym;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	size_t i, n;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !off && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getsym(d, i, &sym) ||
			    strcmp(elf_strptr(elf, sh.sh_link, sym.st_name) ?: "", name))
				continue;
			for (n = 0; gelf_getphdr(elf, n, &ph); n++)
				if (ph.p_type == PT_LOAD && sym.st_value >= ph.p_vaddr &&
				    sym.st_value < ph.p_vaddr + ph.p_filesz)
					off = sym.st_value - ph.p_vaddr + ph.p_offset;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return off;
}

/* The function at @name's offset of @path is @name (through the cache). */
static void expect_named(struct __test_metadata *_metadata, struct cp_symbolizer *sym,
			 const char *path, const char *name)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	uint64_t off = sym_offset(path, name);
	int n;

	ASSERT_NE(0, off);
	n = cp_sym_lookup(cp_sym_file(sym, path), off, fr, CP_SYM_MAX_FRAMES);
	ASSERT_LE(1, n);
	EXPECT_STREQ(name, fr[n - 1].func);
}

static struct cp_sym_stats stats(struct cp_symbolizer *sym)
{
	struct cp_sym_stats st;

	cp_sym_get_stats(sym, &st);
	return st;
}

/*
 * cprof record --every's cache: files stay opened from report to report
 * (cp_sym_trim() between them), the least recently used go first when
 * they outweigh the cap, each eviction counted, and a file recorded with
 * another build id is opened again.
 */
TEST(cache_kept_and_capped)
{
	static const uint8_t wrong[20] = { 0xde, 0xad };
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	char a[PATH_MAX], b[PATH_MAX];
	struct cp_symbolizer *sym;
	uint8_t id[CP_BUILD_ID_MAX];
	size_t bytes_a, bytes_b;
	int len;

	ASSERT_EQ(0, cp_build_path("sym/symtarget", a, sizeof(a)));
	ASSERT_EQ(0, cp_build_path("sym/symtarget-nopie", b, sizeof(b)));
	sym = cp_sym_new(NULL, NULL);
	ASSERT_NE(NULL, sym);
	cp_sym_set_cap(sym, 0);

	/* No cap: kept, not opened again. */
	expect_named(_metadata, sym, a, "main");
	ASSERT_EQ(0, cp_sym_trim(sym));
	EXPECT_EQ(1, stats(sym).opens);
	EXPECT_EQ(1, stats(sym).files);
	bytes_a = stats(sym).bytes;
	EXPECT_LT(0, bytes_a);
	expect_named(_metadata, sym, a, "main");
	ASSERT_EQ(0, cp_sym_trim(sym));
	EXPECT_EQ(1, stats(sym).opens);
	expect_named(_metadata, sym, b, "main");
	ASSERT_EQ(0, cp_sym_trim(sym));
	EXPECT_EQ(2, stats(sym).files);
	bytes_b = stats(sym).bytes - bytes_a;
	TH_LOG("kept: %zu bytes for %s, %zu for %s", bytes_a, base(a), bytes_b, base(b));

	/* Room for one: b was asked for last, a goes. */
	cp_sym_set_cap(sym, bytes_a > bytes_b ? bytes_a : bytes_b);
	ASSERT_EQ(0, cp_sym_trim(sym));
	EXPECT_EQ(1, stats(sym).evictions);
	EXPECT_EQ(1, stats(sym).files);
	EXPECT_GE(bytes_a > bytes_b ? bytes_a : bytes_b, stats(sym).bytes);
	expect_named(_metadata, sym, b, "main");
	EXPECT_EQ(2, stats(sym).opens);
	expect_named(_metadata, sym, a, "main");
	EXPECT_EQ(3, stats(sym).opens);
	ASSERT_EQ(0, cp_sym_trim(sym));
	EXPECT_EQ(2, stats(sym).evictions);

	/* Room for none: everything goes, and comes back when asked for. */
	cp_sym_set_cap(sym, 1);
	ASSERT_EQ(0, cp_sym_trim(sym));
	EXPECT_EQ(3, stats(sym).evictions);
	EXPECT_EQ(0, stats(sym).files);
	expect_named(_metadata, sym, a, "main");
	EXPECT_EQ(4, stats(sym).opens);

	/* Another build id recorded at that path: not the file kept. */
	cp_sym_set_cap(sym, 0);
	ASSERT_EQ(0, cp_sym_trim(sym));
	ASSERT_EQ(0, cp_sym_expect(sym, a, wrong, sizeof(wrong)));
	EXPECT_EQ(0, cp_sym_lookup(cp_sym_file(sym, a), sym_offset(a, "main"), fr,
				   CP_SYM_MAX_FRAMES));
	len = cp_elf_build_id(a, id, sizeof(id));
	ASSERT_LT(0, len);
	ASSERT_EQ(0, cp_sym_expect(sym, a, id, len));
	expect_named(_metadata, sym, a, "main");
	cp_sym_free(sym);
}

/*
 * Files one report asked for that outweigh the cap together: the smaller
 * goes, so that the next report, which asks for both again, reads the
 * fewest bytes again.
 */
TEST(cache_equals_smallest_first)
{
	char a[PATH_MAX], b[PATH_MAX], *small, *large;
	struct cp_symbolizer *sym;
	size_t bytes_a, bytes_b, opens;

	ASSERT_EQ(0, cp_build_path("sym/symtarget", a, sizeof(a)));
	ASSERT_EQ(0, cp_build_path("sym/cxxhot", b, sizeof(b)));
	sym = cp_sym_new(NULL, NULL);
	ASSERT_NE(NULL, sym);
	cp_sym_set_cap(sym, 0);
	expect_named(_metadata, sym, a, "main");
	ASSERT_EQ(0, cp_sym_trim(sym));
	bytes_a = stats(sym).bytes;
	expect_named(_metadata, sym, b, "main");
	ASSERT_EQ(0, cp_sym_trim(sym));
	bytes_b = stats(sym).bytes - bytes_a;
	TH_LOG("kept: %zu bytes for %s, %zu for %s", bytes_a, base(a), bytes_b, base(b));
	/* Sizes apart by a tenth at least: which is smaller is no tie. */
	ASSERT_TRUE(bytes_a * 10 < bytes_b * 9 || bytes_b * 10 < bytes_a * 9);
	small = bytes_a < bytes_b ? a : b;
	large = small == a ? b : a;

	/* One report asks for both; room for the larger only. */
	expect_named(_metadata, sym, a, "main");
	expect_named(_metadata, sym, b, "main");
	cp_sym_set_cap(sym, bytes_a > bytes_b ? bytes_a : bytes_b);
	ASSERT_EQ(0, cp_sym_trim(sym));
	EXPECT_EQ(1, stats(sym).evictions);
	opens = stats(sym).opens;
	expect_named(_metadata, sym, large, "main");
	EXPECT_EQ(opens, stats(sym).opens) TH_LOG("%s was evicted", base(large));
	expect_named(_metadata, sym, small, "main");
	EXPECT_EQ(opens + 1, stats(sym).opens);
	cp_sym_free(sym);
}

/* --no-symbolize: nothing opened; the recorded build id all the same. */
TEST(offline)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	uint8_t id[CP_BUILD_ID_MAX];
	struct cp_symbolizer *sym;
	const uint8_t *got;
	char a[PATH_MAX];
	int len;

	ASSERT_EQ(0, cp_build_path("sym/symtarget", a, sizeof(a)));
	len = cp_elf_build_id(a, id, sizeof(id));
	ASSERT_LT(0, len);
	sym = cp_sym_new(NULL, NULL);
	ASSERT_NE(NULL, sym);
	cp_sym_set_offline(sym);
	ASSERT_EQ(0, cp_sym_expect(sym, a, id, len));
	EXPECT_EQ(0, cp_sym_lookup(cp_sym_file(sym, a), sym_offset(a, "main"), fr,
				   CP_SYM_MAX_FRAMES));
	EXPECT_EQ(0, cp_sym_caps(cp_sym_file(sym, a)));
	EXPECT_EQ(len, cp_sym_build_id(cp_sym_file(sym, a), &got));
	EXPECT_EQ(0, memcmp(id, got, len));
	EXPECT_EQ(0, stats(sym).opens);
	cp_sym_free(sym);
}

/*
 * A program stripped as distributions strip theirs: its static functions
 * have no name, but each its start, from .eh_frame; named again once its
 * debug file is under .build-id/ of the debug directory (here under a
 * --symfs root, which holds the program at its own path too).
 */
TEST(stripped_program)
{
	char full[PATH_MAX], path[PATH_MAX], debug[PATH_MAX], root[] = "/tmp/symfs.XXXXXX";
	char cmd[4 * PATH_MAX];
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	struct cp_symbolizer *sym;
	struct cp_sym_file *f;
	uint64_t a, b, c, start;
	uint8_t id[CP_BUILD_ID_MAX];
	char hex[2 * CP_BUILD_ID_MAX + 1];
	int len, i;

	ASSERT_EQ(0, cp_build_path("sym/stripme", full, sizeof(full)));
	ASSERT_EQ(0, cp_build_path("sym/stripme-stripped", path, sizeof(path)));
	ASSERT_EQ(0, cp_build_path("sym/stripme.debug", debug, sizeof(debug)));
	a = sym_offset(full, "spin_a");
	b = sym_offset(full, "spin_b");
	ASSERT_NE(0, a);
	ASSERT_NE(0, b);
	EXPECT_EQ(0, sym_offset(path, "spin_a"));

	sym = cp_sym_new(NULL, stderr);
	ASSERT_NE(NULL, sym);
	f = cp_sym_file(sym, path);
	EXPECT_EQ(0, cp_sym_lookup(f, a + 5, fr, CP_SYM_MAX_FRAMES));
	/* Past their prologues, where the unwind rules have changed. */
	ASSERT_EQ(0, cp_sym_func_start(f, a + 0x20, &start));
	EXPECT_EQ(a, start);
	ASSERT_EQ(0, cp_sym_func_start(f, a + 5, &start));
	EXPECT_EQ(a, start);
	ASSERT_EQ(0, cp_sym_func_start(f, b + 0x20, &start));
	EXPECT_EQ(b, start);
	EXPECT_EQ(-ENOENT, cp_sym_func_start(f, 1ULL << 40, &start));
	/* The exported one keeps its name (.dynsym). */
	c = sym_offset(full, "spin_c");
	ASSERT_NE(0, c);
	ASSERT_EQ(1, cp_sym_lookup(f, c + 3, fr, CP_SYM_MAX_FRAMES));
	EXPECT_STREQ("spin_c", fr[0].func);
	EXPECT_TRUE(cp_sym_caps(f) & CP_SYM_FUNCTIONS);
	EXPECT_FALSE(cp_sym_caps(f) & CP_SYM_LINES);
	cp_sym_free(sym);

	len = cp_elf_build_id(path, id, sizeof(id));
	ASSERT_LT(0, len);
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	ASSERT_NE(NULL, mkdtemp(root));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s%s' '%s/usr/lib/debug/.build-id/%.2s' && cp '%s' '%s%s' && "
		 "cp '%s' '%s/usr/lib/debug/.build-id/%.2s/%s.debug'",
		 root, dirname(strdupa(path)), root, hex, path, root, path, debug, root, hex,
		 hex + 2);
	ASSERT_EQ(0, system(cmd));
	sym = cp_sym_new(root, stderr);
	ASSERT_NE(NULL, sym);
	f = cp_sym_file(sym, path);
	ASSERT_LE(1, cp_sym_lookup(f, a + 5, fr, CP_SYM_MAX_FRAMES));
	EXPECT_STREQ("spin_a", fr[0].func);
	EXPECT_NE(NULL, strstr(fr[0].file ?: "", "stripme.c"));
	EXPECT_LT(0, fr[0].line);
	EXPECT_TRUE(cp_sym_caps(f) & CP_SYM_LINES);
	cp_sym_free(sym);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	system(cmd);
}

/* The build id of @path in hex into @hex (room for 2 * CP_BUILD_ID_MAX + 1): its length. */
static int build_id_hex(const char *path, char *hex)
{
	uint8_t id[CP_BUILD_ID_MAX];
	int len, i;

	len = cp_elf_build_id(path, id, sizeof(id));
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return len;
}

/* spin_a at @a + 5 in @path, named with its line: from a debug file. */
static void expect_spin_a(struct __test_metadata *_metadata, const char *path, uint64_t a,
			  bool debug)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	struct cp_symbolizer *sym = cp_sym_new(NULL, stderr);
	int n;

	ASSERT_NE(NULL, sym);
	n = cp_sym_lookup(cp_sym_file(sym, path), a + 5, fr, CP_SYM_MAX_FRAMES);
	if (debug) {
		EXPECT_LE(1, n);
		EXPECT_STREQ("spin_a", n > 0 ? fr[0].func : "");
		EXPECT_NE(NULL, strstr(n > 0 && fr[0].file ? fr[0].file : "", "stripme.c"));
		EXPECT_LT(0, n > 0 ? fr[0].line : 0);
	} else {
		EXPECT_EQ(0, n);
	}
	cp_sym_free(sym);
}

/*
 * A stripped program whose .gnu_debuglink names its debug file: found next
 * to it, or in the .debug directory next to it (gdb's rules), when the
 * CRC matches.
 */
TEST(gnu_debuglink)
{
	char full[PATH_MAX], linked[PATH_MAX], debug[PATH_MAX], dir[] = "/tmp/debuglink.XXXXXX";
	char cmd[4 * PATH_MAX], prog[PATH_MAX], other[PATH_MAX];
	uint64_t a;

	ASSERT_EQ(0, cp_build_path("sym/stripme", full, sizeof(full)));
	ASSERT_EQ(0, cp_build_path("sym/stripme-linked", linked, sizeof(linked)));
	ASSERT_EQ(0, cp_build_path("sym/symtarget", other, sizeof(other)));
	ASSERT_EQ(0, cp_build_path("sym/stripme.debug", debug, sizeof(debug)));
	a = sym_offset(full, "spin_a");
	ASSERT_NE(0, a);
	ASSERT_EQ(0, sym_offset(linked, "spin_a"));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(prog, sizeof(prog), "%s/prog", dir);

	/* Alone: no debug file anywhere. */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", linked, prog);
	ASSERT_EQ(0, system(cmd));
	expect_spin_a(_metadata, prog, a, false);
	/* Next to it, under the name the link gives (not the program's). */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/stripme.debug'", debug, dir);
	ASSERT_EQ(0, system(cmd));
	expect_spin_a(_metadata, prog, a, true);
	/* In .debug/ next to it. */
	snprintf(cmd, sizeof(cmd), "mkdir '%s/.debug' && mv '%s/stripme.debug' '%s/.debug/'",
		 dir, dir, dir);
	ASSERT_EQ(0, system(cmd));
	expect_spin_a(_metadata, prog, a, true);
	/* Another program's debug information under that name: not taken. */
	snprintf(cmd, sizeof(cmd), "rm '%s/.debug/stripme.debug' && cp '%s' '%s/stripme.debug'",
		 dir, other, dir);
	ASSERT_EQ(0, system(cmd));
	expect_spin_a(_metadata, prog, a, false);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	system(cmd);
}

/* Brings up the loopback interface (down in the test VM); 0 or -errno. */
static int loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		ret = -errno;
	} else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			ret = -errno;
	}
	close(fd);
	return ret;
}

/*
 * A debuginfod server of one file: GET /buildid/@hex/debuginfo answers
 * @path, anything else 404. Serves in a child until killed or its parent
 * exits; its port into @port. The child's pid, or -1.
 */
static pid_t debuginfod_server(const char *hex, const char *path, int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	char req[4096], want[256], head[256];
	int fd, c, file;
	struct stat st;
	ssize_t n, got;
	pid_t pid;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl))
		return -1;
	*port = ntohs(sa.sin_port);
	pid = fork();
	if (pid) {
		close(fd);
		return pid;
	}
	/* Gone with the test, even one that failed before killing it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	snprintf(want, sizeof(want), "GET /buildid/%s/debuginfo ", hex);
	while ((c = accept(fd, NULL, NULL)) >= 0) {
		for (got = 0; got < (ssize_t)sizeof(req) - 1; got += n) {
			n = read(c, req + got, sizeof(req) - 1 - got);
			if (n <= 0)
				break;
			req[got + n] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		file = strncmp(req, want, strlen(want)) ? -1 : open(path, O_RDONLY);
		if (file >= 0 && !fstat(file, &st)) {
			n = snprintf(head, sizeof(head),
				     "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
				     (long long)st.st_size);
			if (write(c, head, n) == n)
				while ((n = read(file, req, sizeof(req))) > 0 && write(c, req, n) == n)
					;
		} else {
			n = snprintf(head, sizeof(head),
				     "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
			write(c, head, n);
		}
		if (file >= 0)
			close(file);
		close(c);
	}
	_exit(0);
}

/*
 * debuginfod: with DEBUGINFOD_URLS set, the debug file of a stripped
 * program nothing on the machine has is fetched by its build id (from a
 * server of a few lines here) into DEBUGINFOD_CACHE_PATH.
 */
TEST(debuginfod)
{
	char full[PATH_MAX], path[PATH_MAX], debug[PATH_MAX], dir[] = "/tmp/debuginfod.XXXXXX";
	char hex[2 * CP_BUILD_ID_MAX + 1], url[64], cache[PATH_MAX], cmd[3 * PATH_MAX];
	struct stat st;
	uint64_t a;
	void *lib;
	pid_t pid;
	int port;

	lib = dlopen("libdebuginfod.so.1", RTLD_LAZY);
	if (!lib)
		SKIP(return, "no libdebuginfod.so.1: %s", dlerror());
	dlclose(lib);
	ASSERT_EQ(0, cp_build_path("sym/stripme", full, sizeof(full)));
	ASSERT_EQ(0, cp_build_path("sym/stripme-stripped", path, sizeof(path)));
	ASSERT_EQ(0, cp_build_path("sym/stripme.debug", debug, sizeof(debug)));
	a = sym_offset(full, "spin_a");
	ASSERT_NE(0, a);
	ASSERT_LT(0, build_id_hex(path, hex));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	unsetenv("DEBUGINFOD_URLS");
	expect_spin_a(_metadata, path, a, false);

	ASSERT_EQ(0, loopback_up());
	pid = debuginfod_server(hex, debug, &port);
	ASSERT_LT(0, pid);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_TIMEOUT", "10", 1);
	expect_spin_a(_metadata, path, a, true);
	snprintf(cmd, sizeof(cmd), "%s/%s/debuginfo", cache, hex);
	EXPECT_EQ(0, stat(cmd, &st)) TH_LOG("not cached: %s", cmd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	system(cmd);
}

/*
 * libc with Debian's libc6-dbg (its debug file under
 * /usr/lib/debug/.build-id/): file:line and inline frames, which libc
 * alone (the same file where no debug file is) does not give.
 */
TEST(libc_debug_package)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	char lib[PATH_MAX], path[PATH_MAX], debug[PATH_MAX], root[] = "/tmp/libcdbg.XXXXXX";
	char hex[2 * CP_BUILD_ID_MAX + 1], cmd[4 * PATH_MAX];
	const struct sym_map *m;
	const struct sym_probe *p;
	struct cp_symbolizer *sym;
	struct cp_sym_file *f;
	struct sym_run run;
	uint64_t off, o, inl = 0;
	int n, pass;

	ASSERT_EQ(0, cp_build_path("sym/symtarget", path, sizeof(path)));
	cp_build_path("sym/libsymlib.so", lib, sizeof(lib));
	ASSERT_EQ(0, synth_probe(path, lib, &run));
	p = synth_find_probe(&run, "libc");
	ASSERT_NE(NULL, p);
	m = synth_find_map(&run, p->addr);
	ASSERT_NE(NULL, m);
	ASSERT_LT(0, build_id_hex(m->path, hex));
	snprintf(debug, sizeof(debug), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (access(debug, R_OK))
		SKIP(return, "no libc debug file %.*s: install libc6-dbg", 200, debug);
	off = p->addr - m->start + m->pgoff;

	/* pass 0: libc as installed; 1: the same file where no debug file is */
	ASSERT_NE(NULL, mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s%s' && cp '%s' '%s%s'", root,
		 dirname(strdupa(m->path)), m->path, root, m->path);
	ASSERT_EQ(0, system(cmd));
	for (pass = 0; pass < 2; pass++) {
		sym = cp_sym_new(pass ? root : NULL, stderr);
		ASSERT_NE(NULL, sym);
		f = cp_sym_file(sym, m->path);
		n = cp_sym_lookup(f, off, fr, CP_SYM_MAX_FRAMES);
		ASSERT_LE(1, n);
		TH_LOG("%s: %s at %s:%d", pass ? "alone" : "libc6-dbg", fr[0].func,
		       fr[0].file ?: "??", fr[0].line);
		EXPECT_STREQ("qsort", fr[n - 1].func);
		/* Some code past it is inlined, named with its call's line. */
		for (o = off, inl = 0; o < off + 0x10000 && !inl; o += 4) {
			n = cp_sym_lookup(f, o, fr, CP_SYM_MAX_FRAMES);
			if (n >= 2 && fr[0].line > 0 && fr[1].line > 0 && fr[0].file)
				inl = o;
		}
		if (!pass) {
			EXPECT_TRUE(cp_sym_caps(f) & CP_SYM_LINES);
			EXPECT_NE(0, inl);
			if (inl)
				TH_LOG("%#lx: %s (%s:%d) in %s (%s:%d)", (unsigned long)inl,
				       fr[0].func, fr[0].file, fr[0].line, fr[1].func,
				       fr[1].file ?: "??", fr[1].line);
		} else {
			EXPECT_FALSE(cp_sym_caps(f) & CP_SYM_LINES);
			EXPECT_EQ(0, inl);
		}
		cp_sym_free(sym);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	system(cmd);
}

/* C++, Rust legacy and Rust v0 names; the mangled one stays the frame's sysname. */
TEST(demangled)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	char path[PATH_MAX];
	struct cp_symbolizer *sym;
	uint64_t off;
	int n;

	sym = cp_sym_new(NULL, stderr);
	ASSERT_NE(NULL, sym);
	EXPECT_STREQ("v8::internal::Scanner::Next()",
		     cp_sym_demangle(sym, "_ZN2v88internal7Scanner4NextEv"));
	EXPECT_STREQ("core::fmt::write",
		     cp_sym_demangle(sym, "_ZN4core3fmt5write17h0123456789abcdefE"));
	EXPECT_STREQ("<mycrate::foo::Bar>::baz",
		     cp_sym_demangle(sym, "_RNvMs_NtCs4fqI2P2rA04_7mycrate3fooNtB4_3Bar3baz"));
	EXPECT_STREQ("main", cp_sym_demangle(sym, "main"));
	EXPECT_STREQ("_Rnot_mangled", cp_sym_demangle(sym, "_Rnot_mangled"));

	ASSERT_EQ(0, cp_build_path("sym/cxxhot", path, sizeof(path)));
	off = sym_offset(path, "_Z14accumulate_hotIdET_PKS0_m");
	ASSERT_NE(0, off);
	n = cp_sym_lookup(cp_sym_file(sym, path), off + 4, fr, CP_SYM_MAX_FRAMES);
	ASSERT_LE(1, n);
	EXPECT_STREQ("double accumulate_hot<double>(double const*, unsigned long)",
		     fr[n - 1].func);
	EXPECT_STREQ("_Z14accumulate_hotIdET_PKS0_m", fr[n - 1].sysname);
	cp_sym_free(sym);
}

/* perf's map format: later lines win where they overlap; bad lines skipped. */
TEST(perf_map)
{
	static const char text[] =
		"1000 100 JS:*first a.js:1\n"
		"not a line\n"
		"0x1080 40 JS:*later a.js:9\n"
		"\n"
		"2000 0 empty\n"
		"5000 1000 Builtin:big\n"
		"5100 10 JS:~inner b.js:2\n"
		"ffffffffffffffff0 10 too long\n"
		"9000 10 no newline";
	struct cp_perfmap m;
	const char *name;
	size_t len;

	ASSERT_EQ(0, cp_perfmap_parse(&m, 42, text, strlen(text)));
	EXPECT_EQ(5, m.nr);
	EXPECT_EQ(3, m.bad);
	name = cp_perfmap_find(&m, 0x1000, &len);
	ASSERT_NE(NULL, name);
	EXPECT_EQ(0, strncmp(name, "JS:*first a.js:1", len));
	name = cp_perfmap_find(&m, 0x1090, &len);
	ASSERT_NE(NULL, name);
	EXPECT_EQ(0, strncmp(name, "JS:*later a.js:9", len));
	name = cp_perfmap_find(&m, 0x10c0, &len);
	ASSERT_NE(NULL, name);
	EXPECT_EQ(0, strncmp(name, "JS:*first a.js:1", len));
	EXPECT_EQ(NULL, cp_perfmap_find(&m, 0x1100, &len));
	name = cp_perfmap_find(&m, 0x5105, &len);
	ASSERT_NE(NULL, name);
	EXPECT_EQ(0, strncmp(name, "JS:~inner b.js:2", len));
	name = cp_perfmap_find(&m, 0x5fff, &len);
	ASSERT_NE(NULL, name);
	EXPECT_EQ(0, strncmp(name, "Builtin:big", len));
	name = cp_perfmap_find(&m, 0x9000, &len);
	ASSERT_NE(NULL, name);
	EXPECT_EQ(strlen("no newline"), len);
	EXPECT_EQ(NULL, cp_perfmap_find(&m, 0xfff, &len));
	cp_perfmap_free(&m);
}

TEST_HARNESS_MAIN
