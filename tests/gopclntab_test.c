// SPDX-License-Identifier: GPL-2.0
/*
 * Go's own table (user/gopclntab.c) against DWARF, no module needed:
 * tests/sym/gopcl.go is built by each Go installed (the default go, and Go
 * 1.23 under /usr/lib/go-1.23 when there), as an executable and as a PIE,
 * once as usual and once stripped of its symbols and DWARF
 * (-ldflags='-s -w'). For every address of its own functions, and of some
 * of the runtime's and the library's, the symbolizer must name in the
 * stripped build (from the table) what it names in the other (from DWARF):
 * the same functions, inlined ones included, innermost first, at the same
 * files and lines; cprof report's views of the same samples in both must
 * be the same; progress points (user/probes.c) by function and by
 * FILE:LINE must land where they land in the other. A damaged table must
 * not crash it nor make it read outside the file.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <gelf.h>

#include "kselftest_harness.h"
#include "gopclntab.h"
#include "lines.h"
#include "probes.h"
#include "symbolize.h"
#include "helpers/path.h"
#include "synth.h"

/* Mismatches logged in full, at most. */
#define MAX_LOGGED	10
#define MAX_SEGS	16

/* Functions whose every address is compared; of the others, every STRIDE-th. */
static const char *const own[] = { "main.", NULL };
static const char *const others[] = {
	"runtime.mallocgc", "runtime.schedule", "runtime.findRunnable", "runtime.newproc1",
	"sort.", "fmt.(*pp).doPrintln", "fmt.(*pp).printArg", "strconv.", NULL,
};
#define STRIDE	3

struct func {
	uint64_t addr, size;
	char *name;
};

/* The code of a program as the symbol table of its full build says. */
struct prog {
	struct func *funcs;
	size_t nr;
	struct { uint64_t vaddr, end, off; } segs[MAX_SEGS];
	size_t nr_segs;
};

static bool matches(const char *name, const char *const *list)
{
	size_t len;

	for (; *list; list++) {
		len = strlen(*list);
		if ((*list)[len - 1] == '.' ? !strncmp(name, *list, len) : !strcmp(name, *list))
			return true;
	}
	return false;
}

/* The function symbols of @path of @list (NULL: all), and its code segments. */
static int read_prog(const char *path, const char *const *list, struct prog *p)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	GElf_Phdr pmem, *ph;
	Elf_Data *data;
	const char *name;
	GElf_Sym sym;
	size_t i, n;
	Elf *elf;
	int fd;

	memset(p, 0, sizeof(*p));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &n)) {
		close(fd);
		return -ENOEXEC;
	}
	for (i = 0; i < n && p->nr_segs < MAX_SEGS; i++) {
		ph = gelf_getphdr(elf, i, &pmem);
		if (ph && ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			p->segs[p->nr_segs].vaddr = ph->p_vaddr;
			p->segs[p->nr_segs].end = ph->p_vaddr + ph->p_filesz;
			p->segs[p->nr_segs++].off = ph->p_offset;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type != SHT_SYMTAB || !sh->sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		n = sh->sh_size / sh->sh_entsize;
		p->funcs = calloc(n, sizeof(*p->funcs));
		for (i = 1; data && p->funcs && i < n; i++) {
			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh->sh_link, sym.st_name);
			if (!name || (list && !matches(name, list)))
				continue;
			p->funcs[p->nr].addr = sym.st_value;
			p->funcs[p->nr].size = sym.st_size;
			p->funcs[p->nr++].name = strdup(name);
		}
	}
	elf_end(elf);
	close(fd);
	return 0;
}

static void free_prog(struct prog *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->funcs[i].name);
	free(p->funcs);
}

static bool to_off(const struct prog *p, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < p->nr_segs; i++)
		if (vaddr >= p->segs[i].vaddr && vaddr < p->segs[i].end) {
			*off = vaddr - p->segs[i].vaddr + p->segs[i].off;
			return true;
		}
	return false;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * Whether the Go table's name @go is the function @name: the table (as the
 * runtime prints them) writes "[...]" for the type arguments of generic
 * functions and the lengths of arrays in generated names, where symbols and
 * DWARF of Go 1.19 have "[go.shape.int_0]", "[5]"; symbols of assembler
 * functions end in ".abi0"; and symbols have '.' for the table's middle dot.
 */
static bool same_func(const char *name, const char *go)
{
	size_t len;
	int depth;

	if (!name || !go)
		return name == go;
	while (*name && *go) {
		if (!strncmp(go, "[...]", 5) && *name == '[') {
			for (depth = 0; *name; name++) {
				depth += *name == '[' ? 1 : *name == ']' ? -1 : 0;
				if (!depth)
					break;
			}
			if (!*name)
				return false;
			name++;
			go += 5;
			continue;
		}
		if (!strncmp(go, "\xc2\xb7", 2) && *name == '.') {
			go += 2;
			name++;
			continue;
		}
		if (*name++ != *go++)
			return false;
	}
	len = strlen(name);
	return !*go && (!len || !strcmp(name, ".abi0"));
}

FIXTURE(gopcl) {
	char full[PATH_MAX], stripped[PATH_MAX];
};

FIXTURE_VARIANT(gopcl) {
	const char *go;		/* which build: gopcl-GO-KIND */
	const char *kind;
};

FIXTURE_VARIANT_ADD(gopcl, go_exe) { .go = "go", .kind = "exe" };
FIXTURE_VARIANT_ADD(gopcl, go_pie) { .go = "go", .kind = "pie" };
FIXTURE_VARIANT_ADD(gopcl, go123_exe) { .go = "go1.23", .kind = "exe" };
FIXTURE_VARIANT_ADD(gopcl, go123_pie) { .go = "go1.23", .kind = "pie" };

FIXTURE_SETUP(gopcl)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "sym/gopcl-%s-%s", variant->go, variant->kind);
	if (cp_build_path(rel, self->full, sizeof(self->full)))
		self->full[0] = '\0';
	snprintf(rel, sizeof(rel), "sym/gopcl-%s-%s-s", variant->go, variant->kind);
	if (cp_build_path(rel, self->stripped, sizeof(self->stripped)))
		self->stripped[0] = '\0';
}

FIXTURE_TEARDOWN(gopcl)
{
}

#define NEED_BUILDS() do { \
	if (!self->full[0] || !self->stripped[0]) \
		SKIP(return, "no build/tests/sym/gopcl-%s-%s (that go not installed at build time)", \
		     variant->go, variant->kind); \
} while (0)

/* The stripped build has no symbols, no DWARF, and a table of the expected format. */
TEST_F(gopcl, table)
{
	struct cp_go_frame fr[CP_SYM_MAX_FRAMES];
	struct cp_gopcln *t;
	const char *name;
	uint64_t entry;
	char err[256];
	struct prog p;
	Elf *elf;
	int fd;

	NEED_BUILDS();
	ASSERT_EQ(0, read_prog(self->stripped, NULL, &p));
	EXPECT_EQ(0, p.nr);
	free_prog(&p);

	fd = open(self->stripped, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ASSERT_NE(NULL, elf);
	ASSERT_EQ(0, cp_gopcln_open(elf, &t, err, sizeof(err))) TH_LOG("%s", err);
	TH_LOG("%s: format %s, %zu functions, inline %s", self->stripped, cp_gopcln_format(t),
	       cp_gopcln_count(t), cp_gopcln_has_inline(t) ? "yes" : "no");
	if (!strcmp(variant->go, "go1.23"))
		EXPECT_STREQ("1.20", cp_gopcln_format(t));
	EXPECT_TRUE(cp_gopcln_has_inline(t));
	EXPECT_LT(1000, cp_gopcln_count(t));
	/* Function 0 is named, and names itself at its entry. */
	ASSERT_EQ(0, cp_gopcln_func(t, 0, &entry, &name));
	ASSERT_LE(1, cp_gopcln_lookup(t, entry, fr, CP_SYM_MAX_FRAMES));
	EXPECT_STREQ(name, fr[0].func);
	EXPECT_EQ(0, cp_gopcln_lookup(t, 0, fr, CP_SYM_MAX_FRAMES));
	cp_gopcln_free(t);
	elf_end(elf);
	close(fd);
}

/* Compares the frames of the address at @off in both builds: false when they differ. */
static bool compare(struct __test_metadata *_metadata, struct cp_sym_file *full,
		    struct cp_sym_file *stripped, uint64_t vaddr, uint64_t off, int *logged,
		    bool *inlined)
{
	struct cp_sym_frame d[CP_SYM_MAX_FRAMES], g[CP_SYM_MAX_FRAMES];
	int nd, ng, i;

	nd = cp_sym_lookup(full, off, d, CP_SYM_MAX_FRAMES);
	ng = cp_sym_lookup(stripped, off, g, CP_SYM_MAX_FRAMES);
	if (nd > 1)
		*inlined = true;
	if (nd == ng) {
		for (i = 0; i < nd; i++)
			if (!same_func(d[i].func, g[i].func) || !same(d[i].file, g[i].file) ||
			    d[i].line != g[i].line || d[i].decl_line != g[i].decl_line)
				break;
		if (i == nd)
			return true;
	}
	if ((*logged)++ < MAX_LOGGED) {
		TH_LOG("%#lx: DWARF %d frames, Go table %d", (unsigned long)vaddr, nd, ng);
		for (i = 0; i < nd || i < ng; i++)
			TH_LOG("  [%d] %s %s:%d (%d) | %s %s:%d (%d)", i,
			       i < nd ? d[i].func : "-", i < nd ? d[i].file : "-",
			       i < nd ? d[i].line : 0, i < nd ? d[i].decl_line : 0,
			       i < ng ? g[i].func : "-", i < ng ? g[i].file : "-",
			       i < ng ? g[i].line : 0, i < ng ? g[i].decl_line : 0);
	}
	return false;
}

/*
 * Compares the frames of @full_path (DWARF) and @stripped_path (the table)
 * at addresses of the functions of @list, every @stride-th, that the
 * symbols of @syms_path say.
 */
static void compare_funcs(struct __test_metadata *_metadata, const char *syms_path,
			  const char *full_path, const char *stripped_path,
			  const char *const *list, unsigned int stride)
{
	struct cp_sym_file *full, *stripped;
	struct cp_symbolizer *sym;
	size_t i, pcs = 0, bad = 0;
	bool inlined = false;
	uint64_t a, off;
	struct prog p;
	int logged = 0;

	ASSERT_EQ(0, read_prog(syms_path, list, &p));
	ASSERT_LT(0, p.nr);
	sym = cp_sym_new(NULL, stderr);
	ASSERT_NE(NULL, sym);
	full = cp_sym_file(sym, full_path);
	stripped = cp_sym_file(sym, stripped_path);
	ASSERT_NE(NULL, full);
	ASSERT_NE(NULL, stripped);
	for (i = 0; i < p.nr; i++) {
		for (a = p.funcs[i].addr; a < p.funcs[i].addr + p.funcs[i].size; a += stride) {
			ASSERT_TRUE(to_off(&p, a, &off));
			pcs++;
			if (!compare(_metadata, full, stripped, a, off, &logged, &inlined))
				bad++;
		}
	}
	TH_LOG("%zu functions, %zu addresses, %zu differ", p.nr, pcs, bad);
	EXPECT_EQ(0, bad);
	/* The program's own functions have inlined code: its chains were compared too. */
	if (list == own)
		EXPECT_TRUE(inlined);
	EXPECT_EQ(CP_SYM_FUNCTIONS | CP_SYM_FILENAMES | CP_SYM_LINES | CP_SYM_INLINE,
		  cp_sym_caps(stripped));
	cp_sym_free(sym);
	free_prog(&p);
}

/* Every address of the program's own functions. */
TEST_F(gopcl, own_functions)
{
	NEED_BUILDS();
	compare_funcs(_metadata, self->full, self->full, self->stripped, own, 1);
}

/* Addresses of the runtime's and of the standard library's. */
TEST_F(gopcl, library_functions)
{
	NEED_BUILDS();
	compare_funcs(_metadata, self->full, self->full, self->stripped, others, STRIDE);
}

/* Renames the sections of the file open at @fd that end in "gopclntab": how many. */
static int rename_table(int fd)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	char *name;
	int n = 0;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		if (!name || !strstr(name, "gopclntab"))
			continue;
		sh = gelf_getshdr(elf_getscn(elf, shstrndx), &mem);
		/* The string in the file: its section's offset and the name's. */
		if (pwrite(fd, "gopclnXXX", 9, sh->sh_offset + (strstr(name, "gopclntab") -
				elf_strptr(elf, shstrndx, 0))) == 9)
			n++;
	}
	elf_end(elf);
	return n;
}

/*
 * Copies of the stripped build without section headers (as sstrip leaves
 * files), and with the table's section renamed: the table is found by its
 * header and the module data, and names what it names in the stripped
 * build.
 */
TEST_F(gopcl, no_section)
{
	char dir[] = "/tmp/gopclntab_test.XXXXXX", path[64], cmd[PATH_MAX + 128];
	struct cp_gopcln *t;
	char err[256];
	Elf *elf;
	int fd, how;

	NEED_BUILDS();
	elf_version(EV_CURRENT);
	ASSERT_NE(NULL, mkdtemp(dir));
	for (how = 0; how < 2; how++) {
		snprintf(path, sizeof(path), "%s/%s", dir, how ? "renamed" : "nosections");
		snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self->stripped, path);
		ASSERT_EQ(0, system(cmd));
		fd = open(path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		if (how) {
			ASSERT_EQ(1, rename_table(fd));
		} else {
			/* e_shoff; e_shnum and e_shstrndx (after e_shentsize). */
			ASSERT_EQ(8, pwrite(fd, "\0\0\0\0\0\0\0\0", 8, 0x28));
			ASSERT_EQ(4, pwrite(fd, "\0\0\0\0", 4, 0x3c));
		}
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		ASSERT_NE(NULL, elf);
		ASSERT_EQ(0, cp_gopcln_open(elf, &t, err, sizeof(err))) TH_LOG("%s", err);
		EXPECT_TRUE(cp_gopcln_has_inline(t));
		cp_gopcln_free(t);
		elf_end(elf);
		close(fd);
		compare_funcs(_metadata, self->full, self->stripped, path, own, 1);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

/* Every function's entry is that function, by the name its symbol has. */
TEST_F(gopcl, every_entry)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	struct cp_sym_file *stripped;
	struct cp_symbolizer *sym;
	size_t i, bad = 0;
	struct prog p;
	uint64_t off;
	int n;

	NEED_BUILDS();
	ASSERT_EQ(0, read_prog(self->full, NULL, &p));
	sym = cp_sym_new(NULL, stderr);
	ASSERT_NE(NULL, sym);
	stripped = cp_sym_file(sym, self->stripped);
	ASSERT_NE(NULL, stripped);
	for (i = 0; i < p.nr; i++) {
		if (!to_off(&p, p.funcs[i].addr, &off))
			continue;
		n = cp_sym_lookup(stripped, off, fr, CP_SYM_MAX_FRAMES);
		if (n >= 1 && same_func(p.funcs[i].name, fr[n - 1].func))
			continue;
		if (bad++ < MAX_LOGGED)
			TH_LOG("%#lx %s: %s", (unsigned long)p.funcs[i].addr, p.funcs[i].name,
			       n >= 1 ? fr[n - 1].func : "nothing");
	}
	TH_LOG("%zu functions, %zu misnamed", p.nr, bad);
	EXPECT_LT(1000, p.nr);
	EXPECT_EQ(0, bad);
	cp_sym_free(sym);
	free_prog(&p);
}

/*
 * A recording of samples of @bin (whose code is at the addresses of
 * @addrs, its own mapped at @bias): at each address of @addrs, called from
 * main.main (@ret, a return address), 1 to 4 samples.
 */
static int write_recording(const char *data, const char *bin, const struct prog *segs,
			   uint64_t bias, const uint64_t *addrs, size_t nr, uint64_t ret)
{
	static const char *const events[] = { "cpu-clock" };
	struct sym_map m = {
		.start = bias + (segs->segs[0].vaddr & ~0xfffULL),
		.end = bias + segs->segs[0].end,
		.pgoff = segs->segs[0].off & ~0xfffULL,
	};
	uint64_t ips[2];
	struct synth s;
	size_t i, n = 0;
	int k;

	snprintf(m.path, sizeof(m.path), "%s", bin);
	if (synth_begin(&s, data, SYNTH_PID, events, 1))
		return -1;
	synth_mmap(&s, SYNTH_PID, &m);
	synth_comm(&s, SYNTH_PID, SYNTH_PID, "gopcl", 0);
	for (i = 0; i < nr; i++) {
		ips[0] = bias + addrs[i];
		ips[1] = bias + ret;
		for (k = 0; k <= (int)(i % 4); k++, n++)
			synth_sample(&s, SYNTH_PID, SYNTH_PID, 0, SYNTH_PERIOD, 0, i % 3 ? 2 : 1,
				     ips);
	}
	synth_end(&s, n, 0);
	synth_kallsyms(&s, SYNTH_KALLSYMS);
	return synth_finish(&s);
}

/* The rows of @out, without its '#' lines. */
static char *rows(const char *out)
{
	char *r = calloc(1, strlen(out) + 1), *w = r;
	const char *eol;

	for (; r && *out; out = eol) {
		eol = strchrnul(out, '\n');
		if (*eol)
			eol++;
		if (*out != '#') {
			memcpy(w, out, eol - out);
			w += eol - out;
		}
	}
	return r;
}

/*
 * cprof report of the same samples of both builds: the top table and the
 * lines are the same, row by row, and name everything. (Not in generic
 * functions of their own: Go 1.19's symbols and DWARF name each shape,
 * "main.largest[go.shape.int_0]", where its table has "main.largest[...]"
 * for all, as the runtime prints them.)
 */
TEST_F(gopcl, report_views)
{
	static const char *const views[][2] = { { NULL, NULL }, { "--lines", NULL },
						{ "--node-fraction", "0" } };
	char dir[] = "/tmp/gopclntab_test.XXXXXX", full_data[64], stripped_data[64], cmd[96];
	char *out[2], *err[2], *r[2];
	struct prog p, segs[2];
	uint64_t *addrs, ret = 0, bias;
	size_t i, nr = 0, cap = 0;
	uint64_t a;
	int v, b;

	NEED_BUILDS();
	ASSERT_EQ(0, read_prog(self->full, own, &p));
	ASSERT_EQ(0, read_prog(self->full, NULL, &segs[0]));
	ASSERT_EQ(0, read_prog(self->stripped, NULL, &segs[1]));
	for (i = 0; i < p.nr; i++)
		cap += p.funcs[i].size / 5 + 1;
	addrs = calloc(cap, sizeof(*addrs));
	ASSERT_NE(NULL, addrs);
	for (i = 0; i < p.nr; i++) {
		if (strchr(p.funcs[i].name, '['))
			continue;
		for (a = p.funcs[i].addr; a < p.funcs[i].addr + p.funcs[i].size && nr < cap; a += 5)
			addrs[nr++] = a;
		if (!strcmp(p.funcs[i].name, "main.main"))
			ret = p.funcs[i].addr + p.funcs[i].size / 2;
	}
	ASSERT_NE(0, ret);
	/* A PIE is mapped anywhere: not where its addresses say. */
	bias = !strcmp(variant->kind, "pie") ? 0x7f0000000000ULL : 0;
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(full_data, sizeof(full_data), "%s/full.data", dir);
	snprintf(stripped_data, sizeof(stripped_data), "%s/stripped.data", dir);
	ASSERT_EQ(0, write_recording(full_data, self->full, &segs[0], bias, addrs, nr, ret));
	ASSERT_EQ(0, write_recording(stripped_data, self->stripped, &segs[1], bias, addrs, nr,
				     ret));

	for (v = 0; v < 3; v++) {
		for (b = 0; b < 2; b++) {
			char *argv[] = { "report", "-i", b ? stripped_data : full_data,
					 (char *)views[v][0], (char *)views[v][1], NULL };

			ASSERT_EQ(0, synth_cprof(argv, &out[b], &err[b]));
			EXPECT_STREQ("", err[b]);
			r[b] = rows(out[b]);
			ASSERT_NE(NULL, r[b]);
		}
		EXPECT_STREQ(r[0], r[1]);
		if (strcmp(r[0], r[1]))
			TH_LOG("%s:\n%s\nstripped:\n%s", views[v][0] ? views[v][0] : "top",
			       out[0], r[1]);
		/* Named: no file+0xOFFSET, no [file]. */
		EXPECT_EQ(NULL, strstr(r[1], "+0x"));
		EXPECT_EQ(NULL, strstr(r[1], "[gopcl"));
		for (b = 0; b < 2; b++) {
			free(out[b]);
			free(err[b]);
			free(r[b]);
		}
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
	free(addrs);
	free_prog(&p);
	free_prog(&segs[0]);
	free_prog(&segs[1]);
}

/* The byte at @off of @path, or -1. */
static int byte_at(const char *path, uint64_t off)
{
	uint8_t b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, &b, 1, off);

	if (fd >= 0)
		close(fd);
	return n == 1 ? b : -1;
}

/* Whether @off of @path follows Go's stack check: cmp 16(R14), SP|R12; jbe. 0 if so. */
static int after_stack_check(const char *path, uint64_t off)
{
	static const uint8_t cmp_sp[] = { 0x49, 0x3b, 0x66, 0x10 };
	static const uint8_t cmp_r12[] = { 0x4d, 0x3b, 0x66, 0x10 };
	uint8_t b[10];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 || off < sizeof(b) ? -1 : pread(fd, b, sizeof(b), off - sizeof(b));

	if (fd >= 0)
		close(fd);
	if (n != sizeof(b))
		return -EIO;
	/* jbe rel8 after the cmp, or jbe rel32 */
	if (b[8] == 0x76 && (!memcmp(b + 4, cmp_sp, 4) || !memcmp(b + 4, cmp_r12, 4)))
		return 0;
	if (b[4] == 0x0f && b[5] == 0x86 && (!memcmp(b, cmp_sp, 4) || !memcmp(b, cmp_r12, 4)))
		return 0;
	return -ENOENT;
}

/*
 * Progress points in the stripped build: a function at the entry it has in
 * the other, after its stack check; its returns at the same RETs in both
 * (the stripped build's function ends where the runtime's table starts the
 * next one, the other's where its symbol's size says); FILE:LINE in code of that line by the other's DWARF (the
 * first address may differ: DWARF says where statements start, the table
 * does not).
 */
TEST_F(gopcl, progress_points)
{
	static const char *const funcs[] = { "main.work", "main.sorted", "main.main" };
	/* gopcl.go: the loop of work(), mix() (inlined, three deep), add()'s body. */
	static const int lines[] = { 48, 24, 32 };
	struct cp_probe pf, ps, many[64], rets[64];
	struct cp_off_range r[256];
	struct cp_lines *l;
	char err[512], spec[64];
	size_t i, k, nr;
	int n, id;

	NEED_BUILDS();
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		ASSERT_EQ(1, cp_probe_resolve(funcs[i], self->full, &pf, 1, err, sizeof(err)))
			TH_LOG("%s", err);
		ASSERT_EQ(1, cp_probe_resolve(funcs[i], self->stripped, &ps, 1, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(pf.offset, ps.offset) TH_LOG("%s", funcs[i]);
		/* Past the stack check: "cmp 16(R14), SP|R12" then a jbe right before it. */
		if (strcmp(funcs[i], "main.work")) {	/* a leaf: no check */
			EXPECT_EQ(0, after_stack_check(self->full, pf.offset))
				TH_LOG("%s: at %#llx, not after a stack check", funcs[i],
				       (unsigned long long)pf.offset);
		}
		/* %return: the same sites in both, each a RET (Go makes no tail calls here). */
		snprintf(spec, sizeof(spec), "%s%%return", funcs[i]);
		n = cp_probe_resolve(spec, self->full, many, 64, err, sizeof(err));
		ASSERT_LT(0, n) TH_LOG("%s", err);
		ASSERT_EQ(n, cp_probe_resolve(spec, self->stripped, rets, 64, err, sizeof(err)))
			TH_LOG("%s", err);
		for (k = 0; k < (size_t)n; k++) {
			EXPECT_EQ(many[k].offset, rets[k].offset) TH_LOG("%s", spec);
			EXPECT_EQ(0xc3, byte_at(self->full, many[k].offset)) TH_LOG("%s", spec);
		}
	}
	EXPECT_EQ(-ENOENT, cp_probe_resolve("main.nosuch", self->stripped, &ps, 1, err,
					    sizeof(err)));
	TH_LOG("%s", err);

	ASSERT_EQ(0, cp_lines_open(self->full, &l, err, sizeof(err))) TH_LOG("%s", err);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		snprintf(spec, sizeof(spec), "gopcl.go:%d", lines[i]);
		n = cp_probe_resolve(spec, self->stripped, many, 64, err, sizeof(err));
		ASSERT_EQ(1, n) TH_LOG("%s", err);
		id = cp_lines_find(l, "gopcl.go", lines[i], err, sizeof(err));
		ASSERT_LE(0, id) TH_LOG("%s", err);
		nr = cp_lines_ranges(l, id, r, 256);
		for (k = 0; k < nr && k < 256; k++)
			if (many[0].offset >= r[k].start && many[0].offset < r[k].end)
				break;
		EXPECT_GT(nr, k) TH_LOG("%s: %#lx is not its code", spec,
					(unsigned long)many[0].offset);
	}
	/* A line without code says which have. */
	EXPECT_EQ(-ENOENT, cp_probe_resolve("gopcl.go:30", self->stripped, many, 64, err,
					    sizeof(err)));
	TH_LOG("%s", err);
	cp_lines_free(l);
}

/*
 * A progress point on a Go leaf whose entry the kernel would step (bump():
 * no stack check, a mov first) is probed at its two calls, each a call
 * rel32 of it, making one probe; one whose address is data too (bumpv(),
 * a function value) and one with a stack check (sorted()) at their entry,
 * as cp_probe_resolve() places them. Both builds: the runtime's table is
 * enough.
 */
TEST_F(gopcl, point_at_calls)
{
	const char *const builds[] = { self->full, self->stripped };
	struct cp_probe entry, locs[8];
	uint8_t call[5];
	char err[512];
	int32_t rel;
	size_t b;
	int n, i, fd;

	NEED_BUILDS();
	for (b = 0; b < 2; b++) {
		ASSERT_EQ(1, cp_probe_resolve("main.bump", builds[b], &entry, 1, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(0, entry.check);
		n = cp_probe_resolve_point("main.bump", builds[b], locs, 8, err, sizeof(err));
		ASSERT_EQ(2, n) TH_LOG("%s: %s", builds[b], err);
		fd = open(builds[b], O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		for (i = 0; i < n; i++) {
			EXPECT_TRUE(locs[i].calls);
			EXPECT_EQ(0, locs[i].check);
			ASSERT_EQ(5, pread(fd, call, sizeof(call), locs[i].offset));
			EXPECT_EQ(0xe8, call[0]);
			memcpy(&rel, call + 1, sizeof(rel));
			EXPECT_EQ(entry.offset, locs[i].offset + 5 + (int64_t)rel)
				TH_LOG("%s: the call at %#llx is not of main.bump", builds[b],
				       (unsigned long long)locs[i].offset);
		}
		close(fd);

		ASSERT_EQ(1, cp_probe_resolve("main.bumpv", builds[b], &entry, 1, err,
					      sizeof(err)));
		ASSERT_EQ(1, cp_probe_resolve_point("main.bumpv", builds[b], locs, 8, err,
						    sizeof(err)));
		EXPECT_FALSE(locs[0].calls);
		EXPECT_EQ(entry.offset, locs[0].offset);

		ASSERT_EQ(1, cp_probe_resolve("main.sorted", builds[b], &entry, 1, err,
					      sizeof(err)));
		EXPECT_NE(0, entry.check);
		ASSERT_EQ(1, cp_probe_resolve_point("main.sorted", builds[b], locs, 8, err,
						    sizeof(err)));
		EXPECT_FALSE(locs[0].calls);
		EXPECT_EQ(entry.offset, locs[0].offset);
		EXPECT_EQ(entry.check, locs[0].check);
	}
}

/* A copy of @path whose end is right before a page nothing is mapped at. */
static uint8_t *guarded_copy(const char *path, size_t *size, void **map, size_t *map_len)
{
	size_t page = sysconf(_SC_PAGESIZE), len;
	struct stat st;
	uint8_t *m;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return NULL;
	/* 8-byte aligned for libelf: at most 7 bytes of slack before the guard. */
	*size = (st.st_size + 7) & ~(size_t)7;
	len = (*size + page - 1) / page * page + page;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	mprotect(m + len - page, page, PROT_NONE);
	*map = m;
	*map_len = len;
	m += len - page - *size;
	if (pread(fd, m, st.st_size, 0) != st.st_size) {
		close(fd);
		return NULL;
	}
	close(fd);
	return m;
}

/* Where the table is in @image: its offset and size. */
static bool table_at(uint8_t *image, size_t size, uint64_t *off, uint64_t *len)
{
	Elf *elf = elf_memory((char *)image, size);
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	size_t shstrndx;
	const char *name;
	bool found = false;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return false;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		if (name && strstr(name, "gopclntab")) {
			*off = sh->sh_offset;
			*len = sh->sh_size;
			found = true;
		}
	}
	elf_end(elf);
	return found;
}

static int count_row(uint64_t start, uint64_t end, const char *file, int line, void *arg)
{
	(*(size_t *)arg)++;
	return 0;
}

/*
 * Opens the table of @image, looks up @nr addresses of its code from
 * @start and walks all its rows: how many of those addresses are named.
 */
static int damaged_lookups(struct __test_metadata *_metadata, uint8_t *image, size_t size,
			   uint64_t start, unsigned int nr, int *ret, char *err, size_t errlen)
{
	struct cp_go_frame fr[CP_SYM_MAX_FRAMES];
	struct cp_gopcln *t;
	unsigned int i, named = 0;
	Elf *elf = elf_memory((char *)image, size);
	size_t rows = 0;

	*ret = elf ? cp_gopcln_open(elf, &t, err, errlen) : -ENOEXEC;
	if (!*ret) {
		for (i = 0; i < nr; i++)
			if (cp_gopcln_lookup(t, start + i * 13, fr, CP_SYM_MAX_FRAMES) > 0)
				named++;
		EXPECT_EQ(0, cp_gopcln_rows(t, count_row, &rows));
		cp_gopcln_free(t);
	}
	elf_end(elf);
	return named;
}

/*
 * Damaged tables: a header whose counts and offsets are past the end is
 * refused with a message; bytes of the function table, of the records and
 * of the pc-value tables overwritten at random (seeded: the same every run)
 * name code or not, but never crash nor read past the file, which ends
 * right before an unmapped page.
 */
TEST_F(gopcl, damaged)
{
	uint64_t off, len, start = 0;
	uint8_t *image, *orig;
	size_t size, map_len;
	unsigned int round, k;
	char err[256];
	struct prog p;
	void *map;
	int ret;

	NEED_BUILDS();
	ASSERT_EQ(0, read_prog(self->full, own, &p));
	ASSERT_LT(0, p.nr);
	start = p.funcs[0].addr;
	free_prog(&p);
	image = guarded_copy(self->stripped, &size, &map, &map_len);
	ASSERT_NE(NULL, image);
	ASSERT_TRUE(table_at(image, size, &off, &len));
	ASSERT_LT(64, len);
	orig = malloc(len);
	ASSERT_NE(NULL, orig);
	memcpy(orig, image + off, len);

	/* Intact: the addresses are named. */
	EXPECT_LT(0, damaged_lookups(_metadata, image, size, start, 50, &ret, err, sizeof(err)));
	EXPECT_EQ(0, ret);

	/* nfunc past the end. */
	memset(image + off + 8, 0x7f, 8);
	damaged_lookups(_metadata, image, size, start, 10, &ret, err, sizeof(err));
	EXPECT_EQ(-EINVAL, ret);
	TH_LOG("nfunc past the end: %s", err);
	memcpy(image + off, orig, len);

	/* The function table's offset past the end. */
	memset(image + off + 8 + 7 * 8, 0xff, 4);
	damaged_lookups(_metadata, image, size, start, 10, &ret, err, sizeof(err));
	EXPECT_EQ(-EINVAL, ret);
	TH_LOG("regions past the end: %s", err);
	memcpy(image + off, orig, len);

	/* An unknown magic: not a table it reads. */
	image[off] = 0x12;
	damaged_lookups(_metadata, image, size, start, 10, &ret, err, sizeof(err));
	EXPECT_EQ(-ENODATA, ret);
	memcpy(image + off, orig, len);

	/* Random bytes anywhere in the table but its header. */
	srandom(1);
	for (round = 0; round < 200; round++) {
		for (k = 0; k < 64; k++)
			image[off + 72 + random() % (len - 72)] = random();
		damaged_lookups(_metadata, image, size, start, 200, &ret, err, sizeof(err));
		memcpy(image + off, orig, len);
	}
	/* Its last bytes: varints and names that run to the end of the file's table. */
	memset(image + off + len - 64, 0xff, 64);
	damaged_lookups(_metadata, image, size, start, 200, &ret, err, sizeof(err));
	free(orig);
	munmap(map, map_len);
}

TEST_HARNESS_MAIN
