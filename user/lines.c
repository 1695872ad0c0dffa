// SPDX-License-Identifier: GPL-2.0
/*
 * The source-line table of one ELF file, in file offsets, from the DWARF
 * line tables of all its compilation units.
 *
 * Each row of a line table covers the addresses from its own to the next
 * row's, for its line (rows of line 0 and end_sequence rows cover nothing).
 * The rows are read once, moved to file offsets through the executable
 * PT_LOAD segments (a row outside executable sections is dead code the
 * linker left at address 0 or so: dropped), and sorted twice: by line, which
 * numbers the lines in (file, line) order, so that a file's lines are
 * contiguous, and merges each line's ranges; then those ranges by offset,
 * for cp_lines_at()'s binary search. Function names are the symbolizer's,
 * looked up on demand.
 *
 * A Go program without DWARF (-ldflags='-s -w') has the rows of its
 * runtime's table instead (gopclntab.c): the runs of one file and line of
 * each function, all statements (the table has no is_stmt).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "elffile.h"
#include "gopclntab.h"
#include "lines.h"
#include "strtab.h"
#include "symbolize.h"

#define MAX_SEGS	16
#define MAX_SECS	64
/* Source files cp_lines_find() names when a FILE is ambiguous. */
#define MAX_NAMED	4

/* A row of a line table, in file offsets: [start, end) is @line's code. */
struct row {
	uint64_t start, end;
	uint32_t file;		/* the number of its name */
	uint32_t line : 31;
	uint32_t stmt : 1;	/* a statement starts at @start */
};

struct line {
	uint32_t file;
	int line;
	uint32_t range, nr_ranges;	/* its code: ranges[range...] */
	uint64_t first;
};

/* A range of a line's code, for lookups by offset. */
struct at {
	uint64_t start, end;
	int id;
};

/* The lines of one source file: ids [first, first + nr). */
struct src {
	uint32_t first, nr;
};

struct cp_lines {
	char *path;
	struct cp_strtab names;		/* of source files; 0 is "" */
	struct src *srcs;		/* by name number */
	struct line *lines;		/* by id */
	uint32_t nr_lines;
	struct cp_off_range *ranges;
	size_t nr_ranges;
	struct at *at;			/* by start, not overlapping */
	size_t nr_at;
	struct cp_symbolizer *sym;	/* for cp_lines_function() */
	struct cp_sym_file *sym_file;
};

/* An address range. */
struct span {
	uint64_t lo, hi;
};

/* What cp_lines_open() needs while it reads the line tables. */
struct builder {
	struct cp_lines *l;
	struct row *rows;
	size_t nr_rows, cap_rows;
	struct cp_elf_seg segs[MAX_SEGS];
	size_t nr_segs;
	struct span secs[MAX_SECS];	/* executable sections; none: not known */
	size_t nr_secs;
	uint64_t shift;			/* ELF address less DWARF address */
	Dwarf_Files *files;		/* the file table @map is for */
	int64_t *map;			/* its file numbers to name numbers, or -1 */
	size_t map_used, map_cap;
	const char *go_file;		/* the Go table's last file name, and its number */
	int64_t go_num;
	char buf[2 * PATH_MAX];
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/*
 * Folds the "." and ".." components and repeated slashes of @path in place,
 * as text (symbolic links are not followed). A relative path loses the ".."
 * it starts with: what is left is a suffix to match.
 */
static void fold(char *path)
{
	bool abs = path[0] == '/';
	char *in = path, *out = path;
	size_t len;

	for (;;) {
		while (*in == '/')
			in++;
		len = strcspn(in, "/");
		if (!len)
			break;
		if (len == 2 && !memcmp(in, "..", 2)) {
			while (out > path && *--out != '/')
				;
		} else if (len != 1 || *in != '.') {
			/* out never passes in: it writes one '/' for the one or more skipped */
			if (out > path || abs)
				*out++ = '/';
			memmove(out, in, len);
			out += len;
		}
		in += len;
	}
	if (out == path && abs)
		*out++ = '/';
	*out = '\0';
}

/* The number of the name of @ln's source file, absolute; -ENOENT: unknown. */
static int64_t file_num(struct builder *b, Dwarf_Line *ln)
{
	const char *const *dirs;
	const char *name;
	size_t idx, ndirs, i;
	Dwarf_Files *files;
	int64_t *map;
	int n;

	if (dwarf_line_file(ln, &files, &idx))
		return -ENOENT;
	if (files != b->files) {
		for (i = 0; i < b->map_used; i++)
			b->map[i] = -1;
		b->map_used = 0;
		b->files = files;
	}
	if (idx >= b->map_cap) {
		size_t cap = idx + 64;

		map = realloc(b->map, cap * sizeof(*map));
		if (!map)
			return -ENOMEM;
		for (i = b->map_cap; i < cap; i++)
			map[i] = -1;
		b->map = map;
		b->map_cap = cap;
	}
	if (idx >= b->map_used)
		b->map_used = idx + 1;
	if (b->map[idx] >= 0)
		return b->map[idx];

	name = dwarf_filesrc(files, idx, NULL, NULL);
	if (!name || !*name)
		return -ENOENT;
	if (dwarf_getsrcdirs(files, &dirs, &ndirs) || !ndirs)
		dirs = NULL;
	/* Names such as "<built-in>" are no paths. */
	if (name[0] == '/' || (name[0] != '<' && dirs && dirs[0] && dirs[0][0] == '/')) {
		if (name[0] == '/')
			n = snprintf(b->buf, sizeof(b->buf), "%s", name);
		else
			n = snprintf(b->buf, sizeof(b->buf), "%s/%s", dirs[0], name);
		if (n > 0 && (size_t)n < sizeof(b->buf)) {
			fold(b->buf);
			name = b->buf;
		}
	}
	b->map[idx] = cp_strtab_add_str(&b->l->names, name);
	return b->map[idx];
}

/*
 * The file offset of DWARF address @addr, and the offset its section and
 * segment end at: false when no executable section has it.
 */
static bool place(const struct builder *b, uint64_t addr, uint64_t *off, uint64_t *limit)
{
	uint64_t vaddr = addr + b->shift, hi;
	const struct cp_elf_seg *s;
	size_t i;

	s = cp_elf_seg_of(b->segs, b->nr_segs, vaddr);
	if (!s)
		return false;
	hi = s->end;
	if (b->nr_secs) {
		for (i = 0; i < b->nr_secs; i++)
			if (vaddr >= b->secs[i].lo && vaddr < b->secs[i].hi)
				break;
		if (i == b->nr_secs)
			return false;
		if (b->secs[i].hi < hi)
			hi = b->secs[i].hi;
	}
	*off = vaddr - s->vaddr + s->off;
	*limit = hi - s->vaddr + s->off;
	return true;
}

static int add_row(struct builder *b, const struct row *r)
{
	struct row *prev = b->nr_rows ? &b->rows[b->nr_rows - 1] : NULL, *rows;

	/* The next row of the same line and statement: one longer row. */
	if (prev && prev->file == r->file && prev->line == r->line && prev->end == r->start &&
	    (prev->stmt || !r->stmt)) {
		prev->end = r->end;
		return 0;
	}
	if (b->nr_rows == b->cap_rows) {
		size_t cap = b->cap_rows ? 2 * b->cap_rows : 4096;

		rows = realloc(b->rows, cap * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		b->rows = rows;
		b->cap_rows = cap;
	}
	b->rows[b->nr_rows++] = *r;
	return 0;
}

/* The rows of one compilation unit's line table. */
static int read_unit(struct builder *b, Dwarf_Die *cudie)
{
	Dwarf_Addr addr, next;
	Dwarf_Lines *lines;
	uint64_t off, limit;
	Dwarf_Line *ln;
	bool end, stmt;
	int64_t file;
	size_t n, i;
	int lineno, ret;

	if (dwarf_getsrclines(cudie, &lines, &n))
		return 0;
	/* libdw sorts the rows by address, each end_sequence before a row at its address. */
	for (i = 0; i + 1 < n; i++) {
		ln = dwarf_onesrcline(lines, i);
		if (dwarf_lineendsequence(ln, &end) || end || dwarf_lineno(ln, &lineno) ||
		    lineno <= 0 || dwarf_lineaddr(ln, &addr) ||
		    dwarf_lineaddr(dwarf_onesrcline(lines, i + 1), &next) || next < addr ||
		    !place(b, addr, &off, &limit))
			continue;
		if (dwarf_linebeginstatement(ln, &stmt))
			stmt = false;
		file = file_num(b, ln);
		if (file == -ENOENT)
			continue;
		if (file < 0)
			return file;
		ret = add_row(b, &(struct row){
			.start = off,
			.end = next - addr < limit - off ? off + (next - addr) : limit,
			.file = file,
			.line = lineno,
			.stmt = stmt,
		});
		if (ret)
			return ret;
	}
	return 0;
}

/* The executable segments and sections of the ELF file the addresses are of. */
static void read_layout(struct builder *b, Elf *elf)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn = NULL;

	b->nr_segs = cp_elf_exec_segs(elf, b->segs, MAX_SEGS);
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type == SHT_NOBITS || !sh->sh_size ||
		    (sh->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (b->nr_secs == MAX_SECS) {
			/* An odd layout: the segments alone will do. */
			b->nr_secs = 0;
			return;
		}
		b->secs[b->nr_secs++] = (struct span){ sh->sh_addr, sh->sh_addr + sh->sh_size };
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (int)y->stmt - (int)x->stmt;
}

static int at_cmp(const void *a, const void *b)
{
	const struct at *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* One line from its rows (sorted by start): its merged ranges and its first address. */
static void add_line(struct cp_lines *l, const struct row *rows, size_t nr)
{
	struct line *ln = &l->lines[l->nr_lines];
	struct cp_off_range *last = NULL;
	uint64_t stmt = UINT64_MAX;
	size_t i;

	*ln = (struct line){ .file = rows[0].file, .line = rows[0].line, .range = l->nr_ranges };
	for (i = 0; i < nr; i++) {
		/* Even an empty one: the code there is where the statement starts. */
		if (rows[i].stmt && stmt == UINT64_MAX)
			stmt = rows[i].start;
		if (rows[i].end == rows[i].start)
			continue;
		if (last && rows[i].start <= last->end) {
			if (rows[i].end > last->end)
				last->end = rows[i].end;
			continue;
		}
		last = &l->ranges[l->nr_ranges++];
		*last = (struct cp_off_range){ rows[i].start, rows[i].end };
		ln->nr_ranges++;
	}
	ln->first = stmt != UINT64_MAX ? stmt : rows[0].start;
	if (!l->srcs[ln->file].nr++)
		l->srcs[ln->file].first = l->nr_lines;
	l->nr_lines++;
}

/* The lines and their ranges from the rows, then the ranges by offset. */
static int build(struct builder *b)
{
	struct cp_lines *l = b->l;
	size_t i, j, k, nr = 0;
	uint64_t end = 0;
	struct line *ln;

	qsort(b->rows, b->nr_rows, sizeof(*b->rows), row_cmp);
	for (i = 0; i < b->nr_rows; i++)
		if (!i || b->rows[i].file != b->rows[i - 1].file ||
		    b->rows[i].line != b->rows[i - 1].line)
			nr++;
	if (nr > INT_MAX)
		return -EOVERFLOW;
	l->lines = malloc(nr * sizeof(*l->lines));
	l->ranges = malloc(b->nr_rows * sizeof(*l->ranges));
	l->srcs = calloc(l->names.nr, sizeof(*l->srcs));
	if (!l->lines || !l->ranges || !l->srcs)
		return -ENOMEM;
	for (i = 0; i < b->nr_rows; i = j) {
		for (j = i + 1; j < b->nr_rows && b->rows[j].file == b->rows[i].file &&
		     b->rows[j].line == b->rows[i].line; j++)
			;
		add_line(l, &b->rows[i], j - i);
	}

	l->at = malloc((l->nr_ranges ? l->nr_ranges : 1) * sizeof(*l->at));
	if (!l->at)
		return -ENOMEM;
	for (i = 0; i < l->nr_lines; i++) {
		ln = &l->lines[i];
		for (k = 0; k < ln->nr_ranges; k++)
			l->at[l->nr_at++] = (struct at){
				.start = l->ranges[ln->range + k].start,
				.end = l->ranges[ln->range + k].end,
				.id = i,
			};
	}
	qsort(l->at, l->nr_at, sizeof(*l->at), at_cmp);
	/* Code is one line's only: a range that overlaps those before it loses that part. */
	for (i = j = 0; i < l->nr_at; i++) {
		if (l->at[i].start < end)
			l->at[i].start = end;
		if (l->at[i].start >= l->at[i].end)
			continue;
		end = l->at[i].end;
		l->at[j++] = l->at[i];
	}
	l->nr_at = j;
	return 0;
}

/* The DWARF of @path through libdwfl (which finds separate debuginfo), read into @b. */
static int read_dwarf(struct builder *b, const char *path, char *err, size_t errlen)
{
	Dwarf_Addr dwbias, elfbias;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	Dwfl_Module *mod;
	uint8_t type;
	Dwarf_Die cudie;
	Dwarf *dw;
	Dwfl *dwfl;
	Elf *elf;
	int ret = 0;

	dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl) {
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		return -ENOMEM;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	elf = mod ? dwfl_module_getelf(mod, &elfbias) : NULL;
	if (!elf) {
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		ret = -ENOEXEC;
		goto out;
	}
	dw = dwfl_module_getdwarf(mod, &dwbias);
	if (!dw)
		goto out;
	read_layout(b, elf);
	b->shift = dwbias - elfbias;
	while (!ret && !dwarf_get_units(dw, cu, &next, &version, &type, &cudie, NULL)) {
		cu = next;
		if (type == DW_UT_compile || type == DW_UT_skeleton)
			ret = read_unit(b, &cudie);
	}
	if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
out:
	dwfl_end(dwfl);
	return ret;
}

/* A run of one line of Go's table, at ELF addresses. */
static int go_row(uint64_t start, uint64_t end, const char *file, int line, void *arg)
{
	struct builder *b = arg;
	uint64_t off, limit;

	if (!place(b, start, &off, &limit))
		return 0;
	/* Runs of one function mostly share a file: its number once. */
	if (file != b->go_file) {
		b->go_num = cp_strtab_add_str(&b->l->names, file);
		if (b->go_num < 0)
			return b->go_num;
		b->go_file = file;
	}
	return add_row(b, &(struct row){
		.start = off,
		.end = end - start < limit - off ? off + (end - start) : limit,
		.file = b->go_num,
		.line = line,
		.stmt = 1,
	});
}

/* The rows of Go's table of @elf, when it has one. */
static int read_go(struct builder *b, Elf *elf, const char *path, char *err, size_t errlen)
{
	struct cp_gopcln *t;
	char msg[256];
	int ret;

	ret = cp_gopcln_open(elf, &t, msg, sizeof(msg));
	if (ret == -ENODATA)
		return 0;
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, msg);
		return ret;
	}
	b->nr_segs = b->nr_secs = 0;
	read_layout(b, elf);
	b->shift = 0;
	ret = cp_gopcln_rows(t, go_row, b);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	cp_gopcln_free(t);
	return ret;
}

int cp_lines_open(const char *path, struct cp_lines **out, char *err, size_t errlen)
{
	struct builder *b;
	struct cp_lines *l;
	Elf *elf;
	int ret;

	/* Its own messages for a missing file or one that is not ELF. */
	ret = cp_elf_open(path, &elf, err, errlen);
	if (ret)
		return ret;

	b = calloc(1, sizeof(*b));
	l = calloc(1, sizeof(*l));
	if (!b || !l || cp_strtab_init(&l->names)) {
		free(b);
		free(l);
		elf_end(elf);
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	b->l = l;
	l->path = strdup(path);
	ret = l->path ? read_dwarf(b, path, err, errlen) : -ENOMEM;
	if (!ret && !b->nr_rows)
		ret = read_go(b, elf, path, err, errlen);
	elf_end(elf);
	if (!ret && !b->nr_rows) {
		snprintf(err, errlen, "%s: no DWARF line table (build with -g)", path);
		ret = -ENODATA;
	}
	if (!ret) {
		ret = build(b);
		if (ret)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	}
	if (!ret) {
		/* Its files are opened on the first lookup. */
		l->sym = cp_sym_new(NULL, NULL);
		l->sym_file = l->sym ? cp_sym_file(l->sym, path) : NULL;
	}
	free(b->rows);
	free(b->map);
	free(b);
	if (ret) {
		cp_lines_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

void cp_lines_free(struct cp_lines *l)
{
	if (!l)
		return;
	cp_sym_free(l->sym);
	free(l->at);
	free(l->ranges);
	free(l->lines);
	free(l->srcs);
	cp_strtab_free(&l->names);
	free(l->path);
	free(l);
}

int cp_lines_count(const struct cp_lines *l)
{
	return l->nr_lines;
}

static const struct line *get(const struct cp_lines *l, int id)
{
	return id >= 0 && (uint32_t)id < l->nr_lines ? &l->lines[id] : NULL;
}

int cp_lines_at(const struct cp_lines *l, uint64_t off)
{
	size_t lo = 0, hi = l->nr_at, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->at[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && off < l->at[lo - 1].end ? l->at[lo - 1].id : -1;
}

const char *cp_lines_file(const struct cp_lines *l, int id)
{
	const struct line *ln = get(l, id);

	return ln ? cp_str(&l->names, ln->file) : NULL;
}

int cp_lines_number(const struct cp_lines *l, int id)
{
	const struct line *ln = get(l, id);

	return ln ? ln->line : 0;
}

uint64_t cp_lines_first(const struct cp_lines *l, int id)
{
	const struct line *ln = get(l, id);

	return ln ? ln->first : 0;
}

size_t cp_lines_ranges(const struct cp_lines *l, int id, struct cp_off_range *r, size_t max)
{
	const struct line *ln = get(l, id);

	if (!ln)
		return 0;
	if (max)
		memcpy(r, &l->ranges[ln->range],
		       (ln->nr_ranges < max ? ln->nr_ranges : max) * sizeof(*r));
	return ln->nr_ranges;
}

const char *cp_lines_function(const struct cp_lines *l, int id)
{
	struct cp_sym_frame fr[CP_SYM_MAX_FRAMES];
	const struct line *ln = get(l, id);
	int n;

	if (!ln || !l->sym_file)
		return "";
	n = cp_sym_lookup(l->sym_file, ln->nr_ranges ? l->ranges[ln->range].start : ln->first,
			  fr, CP_SYM_MAX_FRAMES);
	/* The outermost frame is the function the code is in; its symbol first. */
	if (n <= 0)
		return "";
	return fr[n - 1].sysname ? fr[n - 1].sysname : fr[n - 1].func ? fr[n - 1].func : "";
}

/* Whether @name is @want or ends with it right after a '/'. */
static bool names(const char *name, const char *want, size_t len)
{
	size_t n = strlen(name);

	if (n < len || memcmp(name + n - len, want, len))
		return false;
	return n == len || (want[0] != '/' && name[n - len - 1] == '/');
}

/* The source files @file names, @max of them into @found: how many there are. */
static size_t match_files(const struct cp_lines *l, const char *file, uint32_t *found,
			  size_t max)
{
	char want[PATH_MAX];
	size_t len, nr = 0;
	uint32_t i;

	if ((size_t)snprintf(want, sizeof(want), "%s", file) >= sizeof(want))
		return 0;
	fold(want);
	len = strlen(want);
	if (!len || (len == 1 && want[0] == '/'))
		return 0;
	for (i = 1; i < l->names.nr; i++) {
		if (!l->srcs[i].nr || !names(cp_str(&l->names, i), want, len))
			continue;
		if (nr < max)
			found[nr] = i;
		nr++;
	}
	return nr;
}

bool cp_lines_has_file(const struct cp_lines *l, const char *file)
{
	uint32_t found;

	return match_files(l, file, &found, 1) > 0;
}

int cp_lines_find(const struct cp_lines *l, const char *file, int line, char *err,
		  size_t errlen)
{
	uint32_t found[MAX_NAMED], lo, hi, mid;
	const struct src *src;
	size_t nr, i, len;
	const char *name;

	nr = match_files(l, file, found, MAX_NAMED);
	if (!nr) {
		snprintf(err, errlen, "no source file '%s' in %s", file, l->path);
		return -ENOENT;
	}
	if (nr > 1) {
		len = snprintf(err, errlen, "'%s' names %zu source files of %s:", file, nr,
			       l->path);
		for (i = 0; i < nr && i < MAX_NAMED && len < errlen; i++)
			len += snprintf(err + len, errlen - len, "%s %s", i ? "," : "",
					cp_str(&l->names, found[i]));
		if (nr > MAX_NAMED && len < errlen)
			snprintf(err + len, errlen - len, ", ...");
		return -EEXIST;
	}

	src = &l->srcs[found[0]];
	name = cp_str(&l->names, found[0]);
	/* The first of its lines at or after @line. */
	for (lo = src->first, hi = src->first + src->nr; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (l->lines[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < src->first + src->nr && l->lines[lo].line == line)
		return lo;
	if (lo == src->first)
		snprintf(err, errlen, "%s:%d has no code (nearest line with code: %d)", name, line,
			 l->lines[lo].line);
	else if (lo == src->first + src->nr)
		snprintf(err, errlen, "%s:%d has no code (nearest line with code: %d)", name, line,
			 l->lines[lo - 1].line);
	else
		snprintf(err, errlen, "%s:%d has no code (nearest lines with code: %d, %d)", name,
			 line, l->lines[lo - 1].line, l->lines[lo].line);
	return -ENOENT;
}
