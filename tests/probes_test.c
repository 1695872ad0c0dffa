// SPDX-License-Identifier: GPL-2.0
/*
 * Progress-point specs to uprobe locations (user/probes.c) and source-line
 * tables (user/lines.c), on tests/probes/probetarget built -O2 -g (a PIE,
 * a fixed-address executable, a copy without DWARF) and its libraries. No
 * module needed. A function's offset is checked against the running
 * program: its address less its mapping's start plus the mapping's file
 * offset; a line against the "MARK:" comments of the sources; a USDT site
 * against the nop sys/sdt.h puts there.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "kselftest_harness.h"
#include "lines.h"
#include "probes.h"
#include "helpers/path.h"
#include "synth.h"

#define MAX_LOCS	16
#define ERRLEN		1024
#define X86_NOP		0x90

/* build/tests/probes/@name into @path (PATH_MAX). */
static int prog(const char *name, char *path)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "probes/%s", name);
	return cp_build_path(rel, path, PATH_MAX);
}

/* tests/probes/@file (the source) into @path (PATH_MAX). */
static int source(const char *file, char *path)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len < 0)
		return -errno;
	exe[len] = '\0';
	if (snprintf(path, PATH_MAX, "%s/../../tests/probes/%s", dirname(exe), file) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* The line of tests/probes/@file that has the comment "MARK:@mark", or 0. */
static int marker(const char *file, const char *mark)
{
	char path[PATH_MAX], line[512], want[64];
	int nr = 0, found = 0;
	FILE *f;

	if (source(file, path))
		return 0;
	snprintf(want, sizeof(want), "MARK:%s ", mark);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		nr++;
		if (strstr(line, want))
			found = nr;
	}
	fclose(f);
	return found;
}

/* Where the running program (probetarget probe) has function @kind: file and offset. */
static void where(struct __test_metadata *_metadata, const struct sym_run *run,
		  const char *kind, const char **path, uint64_t *off)
{
	const struct sym_probe *p = synth_find_probe(run, kind);
	const struct sym_map *m;

	ASSERT_NE(NULL, p);
	m = synth_find_map(run, p->addr);
	ASSERT_NE(NULL, m);
	*path = m->path;
	*off = p->addr - m->start + m->pgoff;
}

/* @spec in program @name: one location, where the running program has @kind. */
static void check_func(struct __test_metadata *_metadata, const char *name, const char *spec,
		       const char *kind)
{
	struct cp_probe locs[MAX_LOCS];
	char exe[PATH_MAX], err[ERRLEN];
	struct sym_run run;
	const char *path;
	uint64_t off;
	int n;

	ASSERT_EQ(0, prog(name, exe));
	ASSERT_EQ(0, synth_probe(exe, NULL, &run));
	where(_metadata, &run, kind, &path, &off);
	n = cp_probe_resolve(spec, exe, locs, MAX_LOCS, err, sizeof(err));
	if (n < 0)
		TH_LOG("%s: %s", name, err);
	ASSERT_EQ(1, n);
	TH_LOG("%s in %s: %s+%#lx", spec, name, locs[0].path, (unsigned long)locs[0].offset);
	EXPECT_STREQ(path, locs[0].path);
	EXPECT_EQ(off, locs[0].offset);
	EXPECT_FALSE(locs[0].semaphore);
}

TEST(func_pie)
{
	check_func(_metadata, "probetarget", "probe_work", "main");
}

TEST(func_fixed_address)
{
	check_func(_metadata, "probetarget-nopie", "probe_work", "main");
}

/* In libprobelib.so, found through the program's DT_RUNPATH $ORIGIN. */
TEST(func_in_own_library)
{
	check_func(_metadata, "probetarget", "probelib_work", "lib");
	check_func(_metadata, "probetarget-nopie", "probelib_work", "lib");
}

/* Only libc has it: found through DT_NEEDED, in the standard directories. */
TEST(func_in_libc)
{
	check_func(_metadata, "probetarget", "qsort", "libc");
	check_func(_metadata, "probetarget-nopie", "qsort", "libc");
}

TEST(lib_func_spellings)
{
	char lib[PATH_MAX], spec[PATH_MAX + 32];

	check_func(_metadata, "probetarget", "libc:qsort", "libc");
	check_func(_metadata, "probetarget", "libc.so.6:qsort", "libc");
	check_func(_metadata, "probetarget", "libc.so:qsort", "libc");
	check_func(_metadata, "probetarget", "libprobelib:probelib_work", "lib");
	ASSERT_EQ(0, prog("libprobelib.so", lib));
	snprintf(spec, sizeof(spec), "%s:probelib_work", lib);
	check_func(_metadata, "probetarget", spec, "lib");
}

/*
 * probelib_ver has an old version and a default one: the name alone is the
 * default (what dlsym() gives), from .symtab ("probelib_ver@@PROBELIB_2")
 * and from .dynsym alone (a hidden version there is the old one).
 */
TEST(versioned_name)
{
	char exe[PATH_MAX], lib[PATH_MAX], spec[PATH_MAX + 32], err[ERRLEN];
	struct cp_probe locs[MAX_LOCS], old;
	struct sym_run run;
	const char *path;
	uint64_t off;

	check_func(_metadata, "probetarget", "probelib_ver", "libver");
	ASSERT_EQ(0, prog("probetarget", exe));
	ASSERT_EQ(0, synth_probe(exe, NULL, &run));
	where(_metadata, &run, "libver", &path, &off);

	ASSERT_EQ(0, prog("libprobelib-stripped.so", lib));
	snprintf(spec, sizeof(spec), "%s:probelib_ver", lib);
	ASSERT_EQ(1, cp_probe_resolve(spec, exe, locs, MAX_LOCS, err, sizeof(err)));
	EXPECT_STREQ(lib, locs[0].path);
	EXPECT_EQ(off, locs[0].offset);

	/* The old one by its full name, and the function behind it. */
	ASSERT_EQ(1, cp_probe_resolve("probelib_ver_old", exe, &old, 1, err, sizeof(err)));
	EXPECT_NE(off, old.offset);
	ASSERT_EQ(1, cp_probe_resolve("probelib_ver@PROBELIB_1", exe, locs, MAX_LOCS, err,
				      sizeof(err)));
	EXPECT_EQ(old.offset, locs[0].offset);
}

/* Two static functions called helper: both, and their number when they do not fit. */
TEST(func_twice)
{
	struct cp_probe locs[MAX_LOCS];
	char exe[PATH_MAX], err[ERRLEN];
	uint64_t a, b, x, y;
	struct sym_run run;
	const char *path;

	ASSERT_EQ(0, prog("probetarget", exe));
	ASSERT_EQ(0, synth_probe(exe, NULL, &run));
	where(_metadata, &run, "helper_a", &path, &a);
	where(_metadata, &run, "helper_b", &path, &b);
	ASSERT_NE(a, b);
	ASSERT_EQ(2, cp_probe_resolve("helper", exe, locs, MAX_LOCS, err, sizeof(err)));
	x = locs[0].offset < locs[1].offset ? locs[0].offset : locs[1].offset;
	y = locs[0].offset < locs[1].offset ? locs[1].offset : locs[0].offset;
	EXPECT_EQ(a < b ? a : b, x);
	EXPECT_EQ(a < b ? b : a, y);

	memset(locs, 0, sizeof(locs));
	EXPECT_EQ(2, cp_probe_resolve("helper", exe, locs, 1, err, sizeof(err)));
	EXPECT_NE(0, locs[0].offset);
	EXPECT_EQ(0, locs[1].offset);
	EXPECT_EQ('\0', locs[1].path[0]);
}

/* FILE:LINE with FILE a suffix: the line's first statement, in probe_work. */
static void check_line(struct __test_metadata *_metadata, const char *name)
{
	static const char *const files[] = {
		"probetarget.c", "probes/probetarget.c", "tests/probes/./probetarget.c",
	};
	int line = marker("probetarget.c", "for"), id, n;
	char exe[PATH_MAX], err[ERRLEN], spec[128];
	struct cp_probe locs[MAX_LOCS];
	struct cp_lines *l;
	const char *file;
	size_t i;

	ASSERT_LT(0, line);
	ASSERT_EQ(0, prog(name, exe));
	ASSERT_EQ(0, cp_lines_open(exe, &l, err, sizeof(err)));
	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(spec, sizeof(spec), "%s:%d", files[i], line);
		n = cp_probe_resolve(spec, exe, locs, MAX_LOCS, err, sizeof(err));
		if (n < 0)
			TH_LOG("%s", err);
		ASSERT_EQ(1, n);
		EXPECT_STREQ(exe, locs[0].path);
		id = cp_lines_at(l, locs[0].offset);
		ASSERT_LE(0, id);
		file = cp_lines_file(l, id);
		TH_LOG("%s: %s+%#lx, %s:%d in %s", spec, name, (unsigned long)locs[0].offset, file,
		       cp_lines_number(l, id), cp_lines_function(l, id));
		EXPECT_EQ(line, cp_lines_number(l, id));
		EXPECT_EQ('/', file[0]);
		EXPECT_STREQ("/tests/probes/probetarget.c",
			     file + strlen(file) - strlen("/tests/probes/probetarget.c"));
		EXPECT_STREQ("probe_work", cp_lines_function(l, id));
	}
	cp_lines_free(l);
}

TEST(file_line_pie)
{
	check_line(_metadata, "probetarget");
}

TEST(file_line_fixed_address)
{
	check_line(_metadata, "probetarget-nopie");
}

/* A comment line: -ENOENT, naming the lines around it that have code. */
TEST(line_without_code)
{
	int line = marker("probetarget.c", "nocode"), below, above, l;
	char exe[PATH_MAX], err[ERRLEN], spec[64];
	struct cp_probe locs[MAX_LOCS];
	struct cp_lines *lines;
	const char *nearest;

	ASSERT_LT(0, line);
	ASSERT_EQ(0, prog("probetarget", exe));
	snprintf(spec, sizeof(spec), "probetarget.c:%d", line);
	ASSERT_EQ(-ENOENT, cp_probe_resolve(spec, exe, locs, MAX_LOCS, err, sizeof(err)));
	TH_LOG("%s", err);
	EXPECT_EQ(0, strncmp(err, spec, strlen(spec)));
	nearest = strstr(err, "nearest lines with code: ");
	ASSERT_NE(NULL, nearest);
	ASSERT_EQ(2, sscanf(nearest, "nearest lines with code: %d, %d", &below, &above));
	EXPECT_LT(below, line);
	EXPECT_GT(above, line);
	/* They have code, and none between them has. */
	ASSERT_EQ(0, cp_lines_open(exe, &lines, err, sizeof(err)));
	EXPECT_LE(0, cp_lines_find(lines, "probetarget.c", below, err, sizeof(err)));
	EXPECT_LE(0, cp_lines_find(lines, "probetarget.c", above, err, sizeof(err)));
	for (l = below + 1; l < above; l++)
		EXPECT_EQ(-ENOENT, cp_lines_find(lines, "probetarget.c", l, err, sizeof(err)));
	cp_lines_free(lines);
}

/* "util.c" is a/util.c and b/util.c: -EEXIST, naming both; a/util.c is one. */
TEST(ambiguous_file)
{
	int line_a = marker("a/util.c", "util_a"), line_b = marker("b/util.c", "util_b");
	char exe[PATH_MAX], err[ERRLEN], spec[64];
	struct cp_probe a, b;
	struct cp_lines *l;
	int id;

	ASSERT_LT(0, line_a);
	ASSERT_LT(0, line_b);
	ASSERT_EQ(0, prog("probetarget", exe));
	snprintf(spec, sizeof(spec), "util.c:%d", line_a);
	ASSERT_EQ(-EEXIST, cp_probe_resolve(spec, exe, &a, 1, err, sizeof(err)));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "/tests/probes/a/util.c"));
	EXPECT_NE(NULL, strstr(err, "/tests/probes/b/util.c"));

	snprintf(spec, sizeof(spec), "a/util.c:%d", line_a);
	ASSERT_EQ(1, cp_probe_resolve(spec, exe, &a, 1, err, sizeof(err)));
	snprintf(spec, sizeof(spec), "b/util.c:%d", line_b);
	ASSERT_EQ(1, cp_probe_resolve(spec, exe, &b, 1, err, sizeof(err)));
	EXPECT_NE(a.offset, b.offset);
	ASSERT_EQ(0, cp_lines_open(exe, &l, err, sizeof(err)));
	id = cp_lines_at(l, a.offset);
	EXPECT_EQ(line_a, cp_lines_number(l, id));
	EXPECT_NE(NULL, strstr(cp_lines_file(l, id), "/probes/a/util.c"));
	id = cp_lines_at(l, b.offset);
	EXPECT_EQ(line_b, cp_lines_number(l, id));
	EXPECT_NE(NULL, strstr(cp_lines_file(l, id), "/probes/b/util.c"));
	EXPECT_STREQ("helper", cp_lines_function(l, id));
	cp_lines_free(l);
}

/* A suffix matches at a '/' only: "robetarget.c" is no file. */
TEST(suffix_at_slash)
{
	char exe[PATH_MAX], err[ERRLEN], spec[64];
	struct cp_probe loc;

	ASSERT_EQ(0, prog("probetarget", exe));
	snprintf(spec, sizeof(spec), "robetarget.c:%d", marker("probetarget.c", "for"));
	ASSERT_EQ(-ENOENT, cp_probe_resolve(spec, exe, &loc, 1, err, sizeof(err)));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "no source file 'robetarget.c'"));
}

/* sdt:cprof:progress__work: its sites are the nops of CPROF_PROGRESS(work)'s line. */
TEST(sdt_cprof_probe)
{
	char exe[PATH_MAX], lib[PATH_MAX], err[ERRLEN];
	int line = marker("probetarget.c", "progress");
	struct cp_probe locs[MAX_LOCS];
	unsigned char byte;
	struct cp_lines *l;
	int n, i, fd;

	ASSERT_EQ(0, prog("probetarget", exe));
	ASSERT_EQ(0, cp_lines_open(exe, &l, err, sizeof(err)));
	n = cp_probe_resolve("sdt:cprof:progress__work", exe, locs, MAX_LOCS, err, sizeof(err));
	if (n < 0)
		TH_LOG("%s", err);
	ASSERT_LE(1, n);
	ASSERT_GE(MAX_LOCS, n);
	fd = open(exe, O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < n; i++) {
		EXPECT_STREQ(exe, locs[i].path);
		EXPECT_FALSE(locs[i].semaphore);
		ASSERT_EQ(1, pread(fd, &byte, 1, locs[i].offset));
		EXPECT_EQ(X86_NOP, byte);
		EXPECT_EQ(line, cp_lines_number(l, cp_lines_at(l, locs[i].offset)));
	}
	close(fd);
	cp_lines_free(l);

	/* One in a library. */
	ASSERT_EQ(0, prog("libprobelib.so", lib));
	ASSERT_EQ(1, cp_probe_resolve("sdt:cprof:progress__lib", exe, locs, MAX_LOCS, err,
				      sizeof(err)));
	EXPECT_STREQ(lib, locs[0].path);
}

struct listed {
	char names[16][64];
	int nr;
};

static void list_one(const char *name, uint64_t offset, bool semaphore, void *arg)
{
	struct listed *l = arg;

	if (l->nr < 16)
		snprintf(l->names[l->nr], sizeof(l->names[0]), "%s%s", name,
			 semaphore ? " (semaphore)" : "");
	l->nr++;
}

static bool has_name(const struct listed *l, const char *name)
{
	int i;

	for (i = 0; i < l->nr && i < 16; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

/* The cprof probes of the program file (its library's are not in it). */
TEST(sdt_list)
{
	struct listed l = { .nr = 0 };
	char exe[PATH_MAX];
	int n;

	ASSERT_EQ(0, prog("probetarget", exe));
	n = cp_sdt_list(exe, "cprof", list_one, &l);
	EXPECT_EQ(l.nr, n);
	EXPECT_LE(3, n);
	EXPECT_TRUE(has_name(&l, "progress__work"));
	EXPECT_TRUE(has_name(&l, "begin__req"));
	EXPECT_TRUE(has_name(&l, "end__req"));
	EXPECT_FALSE(has_name(&l, "progress__lib"));
	EXPECT_FALSE(has_name(&l, "sema"));

	l.nr = 0;
	EXPECT_EQ(1, cp_sdt_list(exe, "ptest", list_one, &l));
	EXPECT_TRUE(has_name(&l, "sema (semaphore)"));
	EXPECT_EQ(-ENOENT, cp_sdt_list("/nonexistent", "cprof", list_one, &l));
}

TEST(sdt_semaphore)
{
	char exe[PATH_MAX], err[ERRLEN];
	struct cp_probe loc;
	unsigned char byte;
	int fd;

	ASSERT_EQ(0, prog("probetarget", exe));
	ASSERT_EQ(1, cp_probe_resolve("sdt:ptest:sema", exe, &loc, 1, err, sizeof(err)));
	EXPECT_TRUE(loc.semaphore);
	fd = open(exe, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, pread(fd, &byte, 1, loc.offset));
	EXPECT_EQ(X86_NOP, byte);
	close(fd);
}

/* A copy of @from into @to whose USDT notes say every address is @delta less. */
static void shift_notes(struct __test_metadata *_metadata, const char *from, const char *to,
			uint64_t delta)
{
	size_t off, next, name_off, desc_off, nr = 0;
	GElf_Shdr mem, *sh;
	Elf_Scn *scn = NULL;
	uint64_t addr[2];
	Elf_Data *data;
	GElf_Nhdr nh;
	char cmd[2 * PATH_MAX + 16];
	int fd, k;
	Elf *elf;

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	ASSERT_EQ(0, system(cmd));
	fd = open(to, O_RDWR);
	ASSERT_LE(0, fd);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ASSERT_NE(NULL, elf);
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		for (off = 0; (next = gelf_getnote(data, off, &nh, &name_off, &desc_off));
		     off = next) {
			if (nh.n_type != 3 || strcmp((char *)data->d_buf + name_off, "stapsdt"))
				continue;
			/* pc and base, as prelink leaves them when it moves the code */
			ASSERT_EQ(16, pread(fd, addr, 16, sh->sh_offset + desc_off));
			for (k = 0; k < 2; k++)
				addr[k] -= delta;
			ASSERT_EQ(16, pwrite(fd, addr, 16, sh->sh_offset + desc_off));
			nr++;
		}
	}
	elf_end(elf);
	close(fd);
	ASSERT_LT(0, nr);
}

/* Notes older than the code's place: .stapsdt.base says by how much. */
TEST(sdt_moved_base)
{
	char exe[PATH_MAX], dir[] = "/tmp/probes_test.XXXXXX", copy[64], err[ERRLEN];
	struct cp_probe want[MAX_LOCS], got[MAX_LOCS];
	int n, i;

	ASSERT_EQ(0, prog("probetarget", exe));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/moved", dir);
	shift_notes(_metadata, exe, copy, 0x10000);
	n = cp_probe_resolve("sdt:cprof:progress__work", exe, want, MAX_LOCS, err, sizeof(err));
	ASSERT_LE(1, n);
	EXPECT_EQ(n, cp_probe_resolve("sdt:cprof:progress__work", copy, got, MAX_LOCS, err,
				      sizeof(err)));
	for (i = 0; i < n; i++)
		EXPECT_EQ(want[i].offset, got[i].offset);
	unlink(copy);
	rmdir(dir);
}

/* Nothing of that name: -ENOENT, the message starting with the spec. */
TEST(not_found)
{
	static const struct {
		const char *spec, *says;
	} cases[] = {
		{ "no_such_function", "no function 'no_such_function' in " },
		{ "libc:no_such_function", "no function 'no_such_function' in /" },
		{ "libnope:qsort", "no library 'libnope'" },
		{ "libc.so.7:qsort", "no library 'libc.so.7'" },
		{ "nosuch.c:12", "no source file 'nosuch.c' in " },
		{ "sdt:cprof:progress__nope", "no USDT probe cprof:progress__nope in " },
		{ "sdt:nope:progress__work", "no USDT probe nope:progress__work in " },
	};
	char exe[PATH_MAX], err[ERRLEN];
	struct cp_probe loc;
	size_t i;

	ASSERT_EQ(0, prog("probetarget", exe));
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		EXPECT_EQ(-ENOENT, cp_probe_resolve(cases[i].spec, exe, &loc, 1, err,
						    sizeof(err)));
		TH_LOG("%s", err);
		EXPECT_EQ(0, strncmp(err, cases[i].spec, strlen(cases[i].spec)));
		EXPECT_NE(NULL, strstr(err, cases[i].says));
	}
	/* The program names itself in what it does not have. */
	EXPECT_EQ(-ENOENT, cp_probe_resolve("no_such_function", exe, &loc, 1, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, exe));
	EXPECT_EQ(-ENOENT, cp_probe_resolve("probe_work", "/nonexistent/prog", &loc, 1, err,
					    sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/prog"));
}

/*
 * FUNC%return in code built -O2: every site an instruction that leaves
 * (ret, rep ret, a jmp), in the function's file (after its entry, for
 * the functions of tests/probes/).
 */
TEST(func_return)
{
	static const char *const specs[] = { "probe_work%return", "libprobelib:probelib_work%return",
					     "libc:malloc%return" };
	struct cp_probe entry, locs[MAX_LOCS];
	char exe[PATH_MAX], err[ERRLEN], func[64];
	unsigned char b[2];
	size_t i;
	int n, k, fd;

	ASSERT_EQ(0, prog("probetarget", exe));
	for (i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		n = cp_probe_resolve(specs[i], exe, locs, MAX_LOCS, err, sizeof(err));
		ASSERT_LT(0, n) TH_LOG("%s: %s", specs[i], err);
		ASSERT_GE(MAX_LOCS, n);
		snprintf(func, sizeof(func), "%.*s", (int)(strchr(specs[i], '%') - specs[i]),
			 specs[i]);
		ASSERT_EQ(1, cp_probe_resolve(func, exe, &entry, 1, err, sizeof(err)));
		TH_LOG("%s: %d sites", specs[i], n);
		for (k = 0; k < n; k++) {
			EXPECT_STREQ(entry.path, locs[k].path);
			if (i < 2) {	/* ours: no part elsewhere */
				EXPECT_LT(entry.offset, locs[k].offset);
			}
			fd = open(locs[k].path, O_RDONLY | O_CLOEXEC);
			ASSERT_LE(0, fd);
			ASSERT_EQ(2, pread(fd, b, 2, locs[k].offset));
			close(fd);
			EXPECT_TRUE(b[0] == 0xc3 || b[0] == 0xe9 || b[0] == 0xeb ||
				    ((b[0] == 0xf3 || b[0] == 0xf2) && (b[1] == 0xc3 || b[1] == 0xe9)))
				TH_LOG("%s: %02x %02x at %#lx", specs[i], b[0], b[1],
				       (unsigned long)locs[k].offset);
		}
	}
}

TEST(malformed)
{
	static const char *const specs[] = {
		"", "sdt:cprof", "sdt::x", "sdt:cprof:", "sdt:a:b:c", "x.c:", ":foo",
		"x.c:0", "x.c:99999999999",
		/* %return follows a function, and is the only suffix */
		"probetarget.c:3%return", "sdt:cprof:progress__work%return", "probe_work%ret",
		"probe_work%return%return", "%return",
	};
	char exe[PATH_MAX], err[ERRLEN];
	struct cp_probe loc;
	size_t i;

	ASSERT_EQ(0, prog("probetarget", exe));
	for (i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		EXPECT_EQ(-EINVAL, cp_probe_resolve(specs[i], exe, &loc, 1, err, sizeof(err)));
		TH_LOG("'%s': %s", specs[i], err);
	}
}

/* strip --strip-debug: functions still, FILE:LINE says there is no DWARF. */
TEST(no_dwarf)
{
	char exe[PATH_MAX], err[ERRLEN], spec[64];
	struct cp_probe loc;
	struct cp_lines *l;

	check_func(_metadata, "probetarget-nodebug", "probe_work", "main");
	ASSERT_EQ(0, prog("probetarget-nodebug", exe));
	snprintf(spec, sizeof(spec), "probetarget.c:%d", marker("probetarget.c", "for"));
	EXPECT_EQ(-ENODATA, cp_probe_resolve(spec, exe, &loc, 1, err, sizeof(err)));
	TH_LOG("%s", err);
	EXPECT_EQ(0, strncmp(err, spec, strlen(spec)));
	EXPECT_NE(NULL, strstr(err, "no DWARF"));
	EXPECT_EQ(-ENODATA, cp_lines_open(exe, &l, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no DWARF line table (build with -g)"));
}

TEST(lines_open_errors)
{
	char err[ERRLEN], src[PATH_MAX];
	struct cp_lines *l;

	EXPECT_EQ(-ENOENT, cp_lines_open("/nonexistent/prog", &l, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/prog"));
	ASSERT_EQ(0, source("probes.h", src));
	EXPECT_EQ(-ENOEXEC, cp_lines_open(src, &l, err, sizeof(err)));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "not an ELF file"));
}

/* The entry of probe_work, where the running program has it, is its opening line. */
TEST(line_of_function)
{
	char exe[PATH_MAX], err[ERRLEN];
	struct sym_run run;
	struct cp_lines *l;
	const char *path;
	uint64_t off;
	int id;

	ASSERT_EQ(0, prog("probetarget-nopie", exe));
	ASSERT_EQ(0, synth_probe(exe, NULL, &run));
	where(_metadata, &run, "main", &path, &off);
	ASSERT_EQ(0, cp_lines_open(exe, &l, err, sizeof(err)));
	id = cp_lines_at(l, off);
	ASSERT_LE(0, id);
	EXPECT_EQ(marker("probetarget.c", "func"), cp_lines_number(l, id));
	EXPECT_STREQ("probe_work", cp_lines_function(l, id));
	/* Nothing before the code. */
	EXPECT_EQ(-1, cp_lines_at(l, 0));
	cp_lines_free(l);
}

/* The for line of an optimized loop: several ranges, all its own. */
TEST(line_ranges)
{
	struct cp_off_range r[32], one;
	char exe[PATH_MAX], err[ERRLEN];
	struct cp_lines *l;
	size_t n, i;
	int id;

	ASSERT_EQ(0, prog("probetarget", exe));
	ASSERT_EQ(0, cp_lines_open(exe, &l, err, sizeof(err)));
	id = cp_lines_find(l, "probetarget.c", marker("probetarget.c", "for"), err, sizeof(err));
	ASSERT_LE(0, id);
	n = cp_lines_ranges(l, id, r, 32);
	TH_LOG("%s:%d: %zu ranges", cp_lines_file(l, id), cp_lines_number(l, id), n);
	ASSERT_LT(1, n);
	ASSERT_GE(32, n);
	for (i = 0; i < n; i++) {
		TH_LOG("  [%#lx, %#lx)", (unsigned long)r[i].start, (unsigned long)r[i].end);
		ASSERT_LT(r[i].start, r[i].end);
		EXPECT_EQ(id, cp_lines_at(l, r[i].start));
		EXPECT_EQ(id, cp_lines_at(l, r[i].end - 1));
		/* Merged: the byte after a range is another line's. */
		EXPECT_NE(id, cp_lines_at(l, r[i].end));
		if (i)
			EXPECT_LT(r[i - 1].end, r[i].start);
	}
	/* The breakpoint address is one of them; room for one gives the first. */
	EXPECT_EQ(id, cp_lines_at(l, cp_lines_first(l, id)));
	EXPECT_EQ(n, cp_lines_ranges(l, id, &one, 1));
	EXPECT_EQ(r[0].start, one.start);
	EXPECT_EQ(r[0].end, one.end);
	cp_lines_free(l);
}

/*
 * The lowest is_stmt row of line @line of source @base (a basename) in the
 * ELF file @path, as a file offset, read here straight from libdw; 0: none.
 */
static uint64_t lowest_stmt(const char *path, const char *base, int line)
{
	uint64_t best = UINT64_MAX, ret = 0;
	Dwarf_Off off = 0, next;
	GElf_Phdr mem, *ph;
	Dwarf_Lines *lines;
	const char *src;
	Dwarf_Line *ln;
	bool stmt, end;
	size_t hsize, n, i;
	Dwarf_Addr addr;
	Dwarf_Die cu;
	int fd, nr;
	Dwarf *dw;

	fd = open(path, O_RDONLY);
	dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	for (; dw && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL); off = next) {
		if (!dwarf_offdie(dw, off + hsize, &cu) || dwarf_getsrclines(&cu, &lines, &n))
			continue;
		for (i = 0; i < n; i++) {
			ln = dwarf_onesrcline(lines, i);
			src = dwarf_linesrc(ln, NULL, NULL);
			if (src && strrchr(src, '/'))
				src = strrchr(src, '/') + 1;
			if (src && !strcmp(src, base) && !dwarf_lineno(ln, &nr) && nr == line &&
			    !dwarf_linebeginstatement(ln, &stmt) && stmt &&
			    !dwarf_lineendsequence(ln, &end) && !end && !dwarf_lineaddr(ln, &addr) &&
			    addr < best)
				best = addr;
		}
	}
	/* Its executable PT_LOAD segment says where that is in the file. */
	for (i = 0; dw && best != UINT64_MAX && (ph = gelf_getphdr(dwarf_getelf(dw), i, &mem));
	     i++)
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && best >= ph->p_vaddr &&
		    best - ph->p_vaddr < ph->p_filesz)
			ret = best - ph->p_vaddr + ph->p_offset;
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Where a debugger breaks on each line of probe_work: the lowest is_stmt
 * row, which for a line of the loop is not its lowest address.
 */
TEST(first_is_lowest_stmt)
{
	int func = marker("probetarget.c", "func"), line, id, nr = 0;
	struct cp_off_range r;
	char exe[PATH_MAX], err[ERRLEN];
	bool not_lowest = false;
	struct cp_lines *l;
	uint64_t stmt;

	ASSERT_LT(0, func);
	ASSERT_EQ(0, prog("probetarget-nopie", exe));
	ASSERT_EQ(0, cp_lines_open(exe, &l, err, sizeof(err)));
	for (line = func; line < func + 12; line++) {
		id = cp_lines_find(l, "probetarget.c", line, err, sizeof(err));
		if (id < 0) {
			EXPECT_EQ(0, lowest_stmt(exe, "probetarget.c", line));
			continue;
		}
		nr++;
		/* A line may have only empty rows: no range, a statement. */
		if (!cp_lines_ranges(l, id, &r, 1))
			r.start = 0;
		stmt = lowest_stmt(exe, "probetarget.c", line);
		/* No statement starts on it: its lowest address. */
		EXPECT_EQ(stmt ? stmt : r.start, cp_lines_first(l, id));
		if (stmt && r.start && stmt != r.start)
			not_lowest = true;
	}
	EXPECT_LT(3, nr);
	EXPECT_TRUE(not_lowest);
	cp_lines_free(l);
}

TEST(elf_mentions)
{
	char exe[PATH_MAX], lib[PATH_MAX];

	ASSERT_EQ(0, prog("probetarget", exe));
	ASSERT_EQ(0, prog("libprobelib.so", lib));
	EXPECT_TRUE(cp_elf_mentions(exe, "_coz_get_counter"));
	EXPECT_FALSE(cp_elf_mentions(lib, "_coz_get_counter"));
	EXPECT_FALSE(cp_elf_mentions("/nonexistent", "_coz_get_counter"));
}

TEST_HARNESS_MAIN
