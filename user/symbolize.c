// SPDX-License-Identifier: GPL-2.0
/*
 * File offsets of mapped ELF files to functions, source lines and inline
 * chains, for cprof report.
 *
 * A file is opened with libdwfl on its first lookup. Function names come from
 * a table of its symbols sorted once by address (libdwfl's own lookup scans
 * every symbol each time: far too slow for a profile). With DWARF, the
 * function's DIE is found in a per-CU table of subprogram ranges, also built
 * once, and the inline chain by walking down its children that contain the
 * address; the line of the address is libdw's, the line of each inlined call
 * its DW_AT_call_file/DW_AT_call_line.
 *
 * Separate debug information is libdwfl's standard search: the build id
 * under .build-id/ of the debug directory (/usr/lib/debug, under --symfs),
 * the file's .gnu_debuglink next to it, in .debug/ and in the debug
 * directory, and debuginfod when DEBUGINFOD_URLS is set. C++ and Rust names
 * are demangled with libiberty's cplus_demangle(), which knows both Rust
 * manglings; the mangled name stays the frame's sysname.
 *
 * Code DWARF does not name in a Go program (one built -ldflags='-s -w' has
 * none) is named from the Go runtime's own table (gopclntab.c): functions,
 * inline chains, files and lines, as DWARF would.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libiberty/demangle.h>

#include "array.h"
#include "gopclntab.h"
#include "htab.h"
#include "symbolize.h"

/* How deep a DIE tree is walked looking for the scopes of an address. */
#define MAX_SCOPE_DEPTH	64

int cp_elf_build_id(const char *path, uint8_t *id, size_t size)
{
	const void *bits;
	ssize_t len;
	Elf *elf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out_end;
	}
	len = dwelf_elf_gnu_build_id(elf, &bits);
	if (len < 0)
		ret = -ENOEXEC;
	else if ((size_t)len > size)
		ret = -ERANGE;
	else {
		memcpy(id, bits, len);
		ret = len;
	}
out_end:
	elf_end(elf);
	close(fd);
	return ret;
}

/* A function symbol, at its address as libdwfl knows it. */
struct usym {
	GElf_Addr addr;
	GElf_Xword size;	/* 0: unknown, up to the next symbol */
	GElf_Addr end;		/* of its section */
	int rank;		/* of its binding: global first, then weak, local */
	const char *name;	/* libdwfl's, valid until dwfl_end() */
};

/* A subprogram's address range, in DWARF addresses. */
struct dfunc {
	Dwarf_Addr lo, hi;
	Dwarf_Die die;
};

/* A CU's address range, for files without .debug_aranges (Go's). */
struct cu_range {
	Dwarf_Addr lo, hi;
	Dwarf_Die cu;
};

/* The subprograms of one CU, by address. */
struct cu_funcs {
	Dwarf_Off off;		/* of the CU DIE: the key */
	struct dfunc *funcs;
	size_t nr, cap;
};

struct cp_sym_file {
	struct cp_symbolizer *owner;
	char *path;		/* as recorded */
	bool opened;
	bool usable;
	char *image;		/* an ELF image of the recording's, or NULL */
	size_t image_len;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr bias;
	bool dwarf;		/* it has DWARF */
	struct cp_gopcln *go;	/* Go's own table, for code DWARF does not name */
	bool go_tried;
	unsigned int caps;
	struct usym *syms;
	size_t nr_syms;
	struct cu_funcs *cus;
	size_t nr_cus, cap_cus;
	struct cp_htab cu_index;
	struct cu_range *ranges;	/* built when libdw finds no CU by address */
	size_t nr_ranges;
	bool ranges_built;
	uint64_t *fde_starts;	/* .eh_frame_hdr's function starts, vaddrs, sorted */
	size_t nr_fdes;
	bool fdes_loaded;
	size_t expect_len;
	uint8_t expect[CP_BUILD_ID_MAX];
	size_t id_len;
	uint8_t id[CP_BUILD_ID_MAX];
	/* The cache (cp_sym_trim()) */
	uint64_t used;		/* the symbolizer's clock when last asked for */
	size_t bytes;		/* what it holds, once opened: an estimate */
	/* Lookups already made, when the symbolizer keeps them */
	struct memo *memos;
	size_t nr_memos, cap_memos;
	struct cp_sym_frame *memo_frames;
	size_t nr_memo_frames, cap_memo_frames;
	struct cp_htab memo_index;
};

/* A lookup's result: frames [first, first + nr) of memo_frames. */
struct memo {
	uint64_t off;
	uint32_t first;
	uint32_t nr;
};

/* A demangled name, kept until the cache drops them all. */
struct demangled {
	char *mangled, *plain;
};

struct cp_symbolizer {
	char *symfs;		/* "" or a directory, no trailing slash */
	char *debug_path;	/* libdwfl's debuginfo_path, under symfs */
	Dwfl_Callbacks callbacks;
	FILE *warn;
	struct cp_sym_file **files;
	size_t nr, cap;
	struct cp_htab index;	/* by path */
	struct demangled *names;
	size_t nr_names, cap_names;
	struct cp_htab name_index;
	bool offline;		/* files are never opened */
	bool keep;		/* a cache: lookups are kept with their files */
	/* Kept from report to report: bounded by cp_sym_trim() */
	size_t cap_bytes;	/* 0: no bound */
	size_t names_bytes;
	uint64_t clock;		/* + 1 at every trim */
	struct cp_sym_stats stats;
};

struct cp_symbolizer *cp_sym_new(const char *symfs, FILE *warn)
{
	struct cp_symbolizer *s;
	size_t len;

	elf_version(EV_CURRENT);
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->symfs = strdup(symfs ? symfs : "");
	if (!s->symfs) {
		free(s);
		return NULL;
	}
	len = strlen(s->symfs);
	while (len && s->symfs[len - 1] == '/')
		s->symfs[--len] = '\0';
	/* libdwfl's default, "+:.debug:/usr/lib/debug", under symfs. */
	if (asprintf(&s->debug_path, "+:.debug:%s/usr/lib/debug", s->symfs) < 0) {
		free(s->symfs);
		free(s);
		return NULL;
	}
	s->callbacks = (Dwfl_Callbacks){
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &s->debug_path,
	};
	s->warn = warn;
	cp_htab_init(&s->index);
	cp_htab_init(&s->name_index);
	return s;
}

/* The lookups kept: their strings are the file's and the symbolizer's names. */
static void forget_memos(struct cp_sym_file *f)
{
	free(f->memos);
	free(f->memo_frames);
	cp_htab_free(&f->memo_index);
	cp_htab_init(&f->memo_index);
	f->memos = NULL;
	f->memo_frames = NULL;
	f->nr_memos = f->cap_memos = f->nr_memo_frames = f->cap_memo_frames = 0;
}

/* Back to a file not opened yet: what it was read into is freed. */
static void close_file(struct cp_sym_file *f)
{
	size_t i;

	forget_memos(f);
	cp_gopcln_free(f->go);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	for (i = 0; i < f->nr_cus; i++)
		free(f->cus[i].funcs);
	free(f->cus);
	free(f->ranges);
	free(f->fde_starts);
	cp_htab_free(&f->cu_index);
	free(f->syms);
	f->go = NULL;
	f->go_tried = false;
	f->dwfl = NULL;
	f->mod = NULL;
	f->elf = NULL;
	f->bias = 0;
	f->dwarf = false;
	f->opened = f->usable = false;
	f->caps = 0;
	f->syms = NULL;
	f->nr_syms = 0;
	f->cus = NULL;
	f->nr_cus = f->cap_cus = 0;
	cp_htab_init(&f->cu_index);
	f->ranges = NULL;
	f->nr_ranges = 0;
	f->ranges_built = false;
	f->fde_starts = NULL;
	f->nr_fdes = 0;
	f->fdes_loaded = false;
	f->id_len = 0;
	f->bytes = 0;
}

static void free_file(struct cp_sym_file *f)
{
	close_file(f);
	free(f->image);
	free(f->path);
	free(f);
}

void cp_sym_free(struct cp_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++)
		free_file(s->files[i]);
	free(s->files);
	cp_htab_free(&s->index);
	for (i = 0; i < s->nr_names; i++) {
		free(s->names[i].mangled);
		free(s->names[i].plain);
	}
	free(s->names);
	cp_htab_free(&s->name_index);
	free(s->debug_path);
	free(s->symfs);
	free(s);
}

static bool name_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_symbolizer *s = ctx;

	return !strcmp(s->names[idx].mangled, key);
}

/* Itanium C++ ABI names (Rust's legacy ones among them), and Rust's v0. */
static bool is_mangled(const char *name)
{
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

const char *cp_sym_demangle(struct cp_symbolizer *s, const char *name)
{
	uint64_t hash;
	struct demangled *more;
	char *plain;
	int64_t i;

	if (!is_mangled(name))
		return name;
	hash = cp_hash_mem(CP_HASH_SEED, name, strlen(name));
	i = cp_htab_find(&s->name_index, hash, name_eq, s, name);
	if (i >= 0)
		return s->names[i].plain ? s->names[i].plain : name;
	if (s->nr_names >= UINT32_MAX - 1)
		return name;
	if (s->nr_names == s->cap_names) {
		size_t cap = s->cap_names ? 2 * s->cap_names : 64;

		more = realloc(s->names, cap * sizeof(*more));
		if (!more)
			return name;
		s->names = more;
		s->cap_names = cap;
	}
	/* NULL: not a name it knows ("_Rfoo" may be any C name). */
	plain = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	s->names[s->nr_names].mangled = strdup(name);
	s->names[s->nr_names].plain = plain;
	if (!s->names[s->nr_names].mangled || cp_htab_add(&s->name_index, hash, s->nr_names)) {
		free(s->names[s->nr_names].mangled);
		free(plain);
		return name;
	}
	s->nr_names++;
	s->names_bytes += sizeof(*s->names) + 2 * sizeof(struct cp_hslot) + strlen(name) + 1 +
			  (plain ? strlen(plain) + 1 : 0);
	return plain ? plain : name;
}

static bool path_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_symbolizer *s = ctx;

	return !strcmp(s->files[idx]->path, key);
}

static uint64_t path_hash(const char *path)
{
	return cp_hash_mem(CP_HASH_SEED, path, strlen(path));
}

struct cp_sym_file *cp_sym_file(struct cp_symbolizer *s, const char *path)
{
	uint64_t hash = path_hash(path);
	int64_t i = cp_htab_find(&s->index, hash, path_eq, s, path);
	struct cp_sym_file *f, **files;

	if (i >= 0) {
		s->files[i]->used = s->clock;
		return s->files[i];
	}
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;

		files = realloc(s->files, cap * sizeof(*files));
		if (!files)
			return NULL;
		s->files = files;
		s->cap = cap;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->owner = s;
	f->used = s->clock;
	cp_htab_init(&f->cu_index);
	cp_htab_init(&f->memo_index);
	f->path = strdup(path);
	if (!f->path || cp_htab_add(&s->index, hash, s->nr)) {
		free(f->path);
		free(f);
		return NULL;
	}
	s->files[s->nr++] = f;
	return f;
}

int cp_sym_expect(struct cp_symbolizer *s, const char *path, const uint8_t *id, size_t len)
{
	struct cp_sym_file *f;

	if (len > CP_BUILD_ID_MAX)
		return -EINVAL;
	f = cp_sym_file(s, path);
	if (!f)
		return -ENOMEM;
	/* Kept from an earlier report: a file of another build id now. */
	if (f->opened && (f->expect_len != len || memcmp(f->expect, id, len)))
		close_file(f);
	memcpy(f->expect, id, len);
	f->expect_len = len;
	return 0;
}

int cp_sym_add_image(struct cp_symbolizer *s, const char *name, const void *data, size_t len)
{
	struct cp_sym_file *f = cp_sym_file(s, name);

	if (!f)
		return -ENOMEM;
	if (f->image || f->opened)
		return -EEXIST;
	f->image = malloc(len ? len : 1);
	if (!f->image)
		return -ENOMEM;
	memcpy(f->image, data, len);
	f->image_len = len;
	return 0;
}

static void unusable(struct cp_sym_file *f, const char *why)
{
	if (f->owner->warn)
		fprintf(f->owner->warn,
			"cprof report: warning: %s: %s: its functions are not named\n",
			f->path, why);
}

static void unusable_go(struct cp_sym_file *f, const char *why)
{
	if (f->owner->warn)
		fprintf(f->owner->warn,
			"cprof report: warning: %s: %s: its Go functions are named by symbols only\n",
			f->path, why);
}

/*
 * By address; of the names of one address the best first, as perf chooses:
 * global before weak before local, then fewer leading underscores, then
 * shorter ("memcpy" before "__GI_memcpy").
 */
static int usym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	ux = strspn(x->name, "_");
	uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The file's functions, from .symtab (the debuginfo's if need be) or .dynsym:
 * FUNC and IFUNC symbols, and NOTYPE ones (assembler labels) of code sections.
 */
static void load_syms(struct cp_sym_file *f)
{
	int i, n = dwfl_module_getsymtab(f->mod);
	GElf_Word shndx;
	GElf_Addr addr, bias;
	GElf_Shdr shmem, *sh;
	GElf_Sym sym;
	const char *name;
	Elf *elf;
	int type;
	size_t nr = 0;

	if (n <= 0)
		return;
	f->syms = calloc(n, sizeof(*f->syms));
	if (!f->syms)
		return;
	for (i = 1; i < n; i++) {
		name = dwfl_module_getsym_info(f->mod, i, &sym, &addr, &shndx, &elf, &bias);
		if (!name || !*name || !elf || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		sh = gelf_getshdr(elf_getscn(elf, shndx), &shmem);
		if (!sh || !(sh->sh_flags & SHF_EXECINSTR))
			continue;
		f->syms[nr++] = (struct usym){
			.addr = addr,
			.size = sym.st_size,
			.end = sh->sh_addr + sh->sh_size + bias,
			.rank = GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 0 :
				GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 2,
			.name = name,
		};
	}
	f->nr_syms = nr;
	if (nr)
		qsort(f->syms, nr, sizeof(*f->syms), usym_cmp);
}

/* The function symbol at @addr: the best named of those starting last at or before it. */
static const char *find_sym(const struct cp_sym_file *f, GElf_Addr addr)
{
	size_t lo = 0, hi = f->nr_syms, i;
	const struct usym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* The first of the symbols at that address ranks best. */
	for (i = lo - 1; i && f->syms[i - 1].addr == f->syms[lo - 1].addr; i--)
		;
	s = &f->syms[i];
	if (s->size)
		return addr - s->addr < s->size ? s->name : NULL;
	/* No size: up to the next symbol, within its section. */
	return addr < s->end ? s->name : NULL;
}

static Dwfl_Module *report_module(struct cp_sym_file *f)
{
	char *path;
	struct stat st;
	Dwfl_Module *mod;

	if (f->image)
		return dwfl_report_offline_memory(f->dwfl, f->path, f->path, f->image,
						  f->image_len);
	/* Nothing is mapped from there; reading it could take forever. */
	if (!strncmp(f->path, "/proc/", 6) || !strncmp(f->path, "/sys/", 5) ||
	    !strncmp(f->path, "/dev/", 5)) {
		errno = EINVAL;
		return NULL;
	}
	if (asprintf(&path, "%s%s", f->owner->symfs, f->path) < 0)
		return NULL;
	/* Regular files only: a FIFO or a device would block or never end. */
	if (stat(path, &st)) {
		free(path);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		free(path);
		errno = EINVAL;
		return NULL;
	}
	mod = dwfl_report_offline(f->dwfl, f->path, path, -1);
	free(path);
	return mod;
}

/* Go's table of the file, read on first use: NULL if it has none (a damaged one is said). */
static struct cp_gopcln *go_table(struct cp_sym_file *f)
{
	char msg[256];

	if (!f->go_tried) {
		f->go_tried = true;
		if (cp_gopcln_open(f->elf, &f->go, msg, sizeof(msg)) == -EINVAL)
			unusable_go(f, msg);
	}
	return f->go;
}

static void open_file(struct cp_sym_file *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr, bias;
	int len;

	f->opened = true;
	if (f->owner->offline)
		return;
	f->owner->stats.opens++;
	/*
	 * "[vdso]" and the like, unless the recording has its image, and a
	 * JIT's "//anon" or "/memfd:NAME (deleted)": no file, nothing to say.
	 */
	if (!f->image && (f->path[0] != '/' || f->path[1] == '/' ||
			  !strncmp(f->path, "/memfd:", 7)))
		return;
	f->dwfl = dwfl_begin(&f->owner->callbacks);
	if (!f->dwfl)
		return;
	dwfl_report_begin(f->dwfl);
	errno = 0;
	f->mod = report_module(f);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		if (errno == EINVAL)
			unusable(f, "not a regular file of code");
		else if (errno)
			unusable(f, strerror(errno));
		else
			unusable(f, dwfl_errmsg(-1));
		return;
	}
	f->elf = dwfl_module_getelf(f->mod, &f->bias);
	if (!f->elf) {
		unusable(f, dwfl_errmsg(-1));
		return;
	}
	len = dwfl_module_build_id(f->mod, &bits, &vaddr);
	if (len > 0 && len <= CP_BUILD_ID_MAX) {
		memcpy(f->id, bits, len);
		f->id_len = len;
	}
	if (f->expect_len && (f->id_len != f->expect_len ||
			      memcmp(f->id, f->expect, f->id_len))) {
		unusable(f, "it has changed since the recording (its build id differs)");
		return;
	}
	f->usable = true;
	load_syms(f);
	if (f->nr_syms)
		f->caps |= CP_SYM_FUNCTIONS;
	if (dwfl_module_getdwarf(f->mod, &bias)) {
		f->dwarf = true;
		f->caps |= CP_SYM_FUNCTIONS | CP_SYM_FILENAMES | CP_SYM_LINES | CP_SYM_INLINE;
		return;
	}
	/* A Go program built without DWARF (-ldflags=-w, -s -w) still has its runtime's table. */
	if (go_table(f)) {
		f->caps |= CP_SYM_FUNCTIONS | CP_SYM_FILENAMES | CP_SYM_LINES;
		if (cp_gopcln_has_inline(f->go))
			f->caps |= CP_SYM_INLINE;
	}
}

/*
 * The PT_LOAD segment whose file bytes hold file offset @v (@by_offset) or
 * unbiased address @v; NULL if none.
 */
static GElf_Phdr *load_segment(const struct cp_sym_file *f, bool by_offset, uint64_t v,
			       GElf_Phdr *mem)
{
	GElf_Phdr *ph;
	size_t i, n;

	if (elf_getphdrnum(f->elf, &n))
		return NULL;
	for (i = 0; i < n; i++) {
		ph = gelf_getphdr(f->elf, i, mem);
		if (!ph || ph->p_type != PT_LOAD)
			continue;
		if (by_offset ? v >= ph->p_offset && v - ph->p_offset < ph->p_filesz :
				v >= ph->p_vaddr && v - ph->p_vaddr < ph->p_filesz)
			return ph;
	}
	return NULL;
}

/* The address libdwfl knows the byte at file offset @off as. */
static bool offset_to_addr(const struct cp_sym_file *f, uint64_t off, GElf_Addr *addr)
{
	GElf_Phdr mem, *ph = load_segment(f, true, off, &mem);

	if (!ph)
		return false;
	*addr = ph->p_vaddr + (off - ph->p_offset) + f->bias;
	return true;
}

/* The file offset of the byte libdwfl knows as @addr. */
static bool addr_to_offset(const struct cp_sym_file *f, GElf_Addr addr, uint64_t *off)
{
	GElf_Addr vaddr = addr - f->bias;
	GElf_Phdr mem, *ph = load_segment(f, false, vaddr, &mem);

	if (!ph)
		return false;
	*off = vaddr - ph->p_vaddr + ph->p_offset;
	return true;
}

static int add_func(struct cu_funcs *cu, Dwarf_Addr lo, Dwarf_Addr hi, Dwarf_Die *die)
{
	struct dfunc *funcs;

	if (lo >= hi)
		return 0;
	if (cu->nr == cu->cap) {
		size_t cap = cu->cap ? cu->cap * 2 : 64;

		funcs = realloc(cu->funcs, cap * sizeof(*funcs));
		if (!funcs)
			return -ENOMEM;
		cu->funcs = funcs;
		cu->cap = cap;
	}
	cu->funcs[cu->nr++] = (struct dfunc){ .lo = lo, .hi = hi, .die = *die };
	return 0;
}

/* The subprograms with code under @parent, also in namespaces and classes. */
static int collect_funcs(struct cu_funcs *cu, Dwarf_Die *parent, int depth)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Die child;
	ptrdiff_t off;
	int ret;

	if (depth > MAX_SCOPE_DEPTH || dwarf_child(parent, &child))
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				ret = add_func(cu, lo, hi, &child);
				if (ret)
					return ret;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_module:
			ret = collect_funcs(cu, &child, depth + 1);
			if (ret)
				return ret;
			break;
		}
	} while (!dwarf_siblingof(&child, &child));
	return 0;
}

static int dfunc_cmp(const void *a, const void *b)
{
	const struct dfunc *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static bool cu_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_sym_file *f = ctx;

	return f->cus[idx].off == *(const Dwarf_Off *)key;
}

/* The subprogram table of @cudie, built on first use; NULL when out of memory. */
static struct cu_funcs *get_cu(struct cp_sym_file *f, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	uint64_t hash = cp_hash_u64(CP_HASH_SEED, off);
	int64_t i = cp_htab_find(&f->cu_index, hash, cu_eq, f, &off);
	struct cu_funcs *cu;

	if (i >= 0)
		return &f->cus[i];
	if (f->nr_cus == f->cap_cus) {
		size_t cap = f->cap_cus ? f->cap_cus * 2 : 16;

		cu = realloc(f->cus, cap * sizeof(*cu));
		if (!cu)
			return NULL;
		f->cus = cu;
		f->cap_cus = cap;
	}
	cu = &f->cus[f->nr_cus];
	*cu = (struct cu_funcs){ .off = off };
	if (collect_funcs(cu, cudie, 0) || cp_htab_add(&f->cu_index, hash, f->nr_cus)) {
		free(cu->funcs);
		return NULL;
	}
	if (cu->nr)
		qsort(cu->funcs, cu->nr, sizeof(*cu->funcs), dfunc_cmp);
	f->nr_cus++;
	return cu;
}

/* The subprogram whose code has @pc. */
static bool find_func(const struct cu_funcs *cu, Dwarf_Addr pc, Dwarf_Die *die)
{
	size_t lo = 0, hi = cu->nr;
	int tries;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cu->funcs[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * The last range starting at or before pc, or one a little before it
	 * if that one is a nested or empty oddity.
	 */
	for (tries = 0; lo-- && tries < 8; tries++) {
		if (pc < cu->funcs[lo].hi) {
			*die = cu->funcs[lo].die;
			return true;
		}
	}
	return false;
}

/*
 * DW_AT_name (through abstract origins), unless DW_AT_linkage_name is a
 * mangled C++ or Rust name: that one qualifies it, demangled later.
 * (A C function's linkage name is an assembler alias like "__GI_qsort".)
 */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute mem, *a;
	const char *name = NULL, *plain;

	a = dwarf_attr_integrate(die, DW_AT_linkage_name, &mem);
	if (!a)
		a = dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &mem);
	if (a)
		name = dwarf_formstring(a);
	plain = dwarf_diename(die);
	if (name && (!plain || !strncmp(name, "_Z", 2) || !strncmp(name, "_R", 2)))
		return name;
	return plain;
}

/* Where the inlined subroutine @die was called from. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute mem;
	Dwarf_Files *files;
	Dwarf_Word idx, ln;
	size_t nr;

	*file = NULL;
	*line = 0;
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &mem), &ln) && ln <= INT32_MAX)
		*line = ln;
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &mem), &idx) &&
	    !dwarf_getsrcfiles(cudie, &files, &nr) && idx < nr)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
}

static void set_frame(struct cp_sym_frame *fr, Dwarf_Die *die)
{
	fr->func = die_name(die);
	fr->sysname = fr->func;
	fr->decl_file = dwarf_decl_file(die);
	if (dwarf_decl_line(die, &fr->decl_line))
		fr->decl_line = 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every CU's ranges, from the CU DIEs themselves. */
static void build_ranges(struct cp_sym_file *f, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	Dwarf_Addr base, lo, hi;
	struct cu_range *more;
	size_t hsize, cap = 0;
	Dwarf_Die cu;
	ptrdiff_t o;

	f->ranges_built = true;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, &cu)) {
			for (o = 0; (o = dwarf_ranges(&cu, o, &base, &lo, &hi)) > 0;) {
				if (lo >= hi)
					continue;
				if (f->nr_ranges == cap) {
					cap = cap ? 2 * cap : 64;
					more = realloc(f->ranges, cap * sizeof(*more));
					if (!more)
						return;
					f->ranges = more;
				}
				f->ranges[f->nr_ranges++] = (struct cu_range){ lo, hi, cu };
			}
		}
		off = next;
	}
	if (f->nr_ranges)
		qsort(f->ranges, f->nr_ranges, sizeof(*f->ranges), range_cmp);
}

/* The CU of @addr: libdw's (from .debug_aranges), else from the CUs' ranges. */
static Dwarf_Die *find_cu(struct cp_sym_file *f, GElf_Addr addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, addr, bias);
	size_t lo = 0, hi;
	Dwarf *dw;

	if (cu)
		return cu;
	dw = dwfl_module_getdwarf(f->mod, bias);
	if (!dw)
		return NULL;
	if (!f->ranges_built)
		build_ranges(f, dw);
	for (hi = f->nr_ranges; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->ranges[mid].lo <= addr - *bias)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - *bias < f->ranges[lo - 1].hi)
		return &f->ranges[lo - 1].cu;
	return NULL;
}

/*
 * The DWARF view of @addr: the subprogram, the subroutines inlined into it
 * that contain @addr, innermost first. Returns the number of frames.
 */
static int dwarf_frames(struct cp_sym_file *f, GElf_Addr addr, struct cp_sym_frame *frames,
			int max)
{
	Dwarf_Die chain[MAX_SCOPE_DEPTH], cur, child, *cudie;
	const char *file = NULL;
	struct cu_funcs *cu;
	Dwarf_Addr bias, pc;
	Dwarf_Line *line;
	int n = 0, depth, lineno = 0, i, k;
	bool found;

	cudie = find_cu(f, addr, &bias);
	if (!cudie)
		return 0;
	pc = addr - bias;
	line = dwarf_getsrc_die(cudie, pc);
	if (line) {
		file = dwarf_linesrc(line, NULL, NULL);
		if (dwarf_lineno(line, &lineno))
			lineno = 0;
	}

	cu = get_cu(f, cudie);
	if (cu && find_func(cu, pc, &cur)) {
		chain[n++] = cur;
		for (depth = 0; depth < MAX_SCOPE_DEPTH && n < MAX_SCOPE_DEPTH; depth++) {
			found = false;
			if (dwarf_child(&cur, &child))
				break;
			do {
				switch (dwarf_tag(&child)) {
				case DW_TAG_inlined_subroutine:
				case DW_TAG_lexical_block:
				case DW_TAG_try_block:
				case DW_TAG_catch_block:
					found = dwarf_haspc(&child, pc) > 0;
					break;
				}
			} while (!found && !dwarf_siblingof(&child, &child));
			if (!found)
				break;
			cur = child;
			if (dwarf_tag(&cur) == DW_TAG_inlined_subroutine)
				chain[n++] = cur;
		}
	}
	if (!n) {
		/* Lines without a subprogram (assembler): the line alone. */
		if (!file)
			return 0;
		frames[0] = (struct cp_sym_frame){ .file = file, .line = lineno };
		return 1;
	}

	/* chain[n - 1] is the innermost; it is at the address's own line. */
	for (i = n - 1, k = 0; i >= 0 && k < max; i--, k++) {
		set_frame(&frames[k], &chain[i]);
		if (i == n - 1) {
			frames[k].file = file;
			frames[k].line = lineno;
		} else {
			call_site(cudie, &chain[i + 1], &frames[k].file, &frames[k].line);
		}
	}
	return k;
}

/*
 * The view of Go's table, as DWARF's: a Go function's code is all in the
 * file where it is declared, so that file is its declaration's too.
 */
static int go_frames(struct cp_sym_file *f, GElf_Addr addr, struct cp_sym_frame *frames,
		     int max)
{
	struct cp_go_frame go[CP_SYM_MAX_FRAMES];
	int n, i;

	n = cp_gopcln_lookup(f->go, addr - f->bias, go, max < CP_SYM_MAX_FRAMES ? max :
			     CP_SYM_MAX_FRAMES);
	for (i = 0; i < n; i++)
		frames[i] = (struct cp_sym_frame){
			.func = go[i].func,
			.sysname = go[i].func,
			.file = go[i].file,
			.line = go[i].line,
			.decl_file = go[i].file,
			.decl_line = go[i].start_line,
		};
	return n;
}

static int lookup(struct cp_sym_file *f, uint64_t off, struct cp_sym_frame *frames, int max)
{
	const char *sym;
	GElf_Addr addr;
	int n = 0, i;

	if (!f->opened)
		open_file(f);
	if (!f->usable || !offset_to_addr(f, off, &addr))
		return 0;
	sym = find_sym(f, addr);
	if (f->dwarf)
		n = dwarf_frames(f, addr, frames, max);
	if (!n && go_table(f))
		n = go_frames(f, addr, frames, max);
	if (!n) {
		if (!sym)
			return 0;
		frames[0] = (struct cp_sym_frame){
			.func = cp_sym_demangle(f->owner, sym), .sysname = sym,
		};
		return 1;
	}
	/* The outermost is the function the symbol table knows. */
	if (sym)
		frames[n - 1].sysname = sym;
	if (!frames[n - 1].func)
		frames[n - 1].func = frames[n - 1].sysname;
	for (i = 0; i < n; i++) {
		if (!frames[i].sysname)
			frames[i].sysname = frames[i].func;
		frames[i].func = cp_sym_demangle(f->owner, frames[i].func);
	}
	return n;
}

static bool memo_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct cp_sym_file *f = ctx;

	return f->memos[idx].off == *(const uint64_t *)key;
}

/* Keeps a lookup's frames; a lookup not kept is only made again. */
static void memo_add(struct cp_sym_file *f, uint64_t off, uint64_t hash,
		     const struct cp_sym_frame *frames, int n)
{
	if (f->nr_memos >= UINT32_MAX - 1 || f->nr_memo_frames + n >= UINT32_MAX ||
	    cp_array_reserve(&f->memos, &f->cap_memos, f->nr_memos, 1, sizeof(*f->memos)) ||
	    cp_array_reserve(&f->memo_frames, &f->cap_memo_frames, f->nr_memo_frames, n,
			     sizeof(*f->memo_frames)) ||
	    cp_htab_add(&f->memo_index, hash, f->nr_memos))
		return;
	f->memos[f->nr_memos++] = (struct memo){
		.off = off, .first = f->nr_memo_frames, .nr = n,
	};
	memcpy(f->memo_frames + f->nr_memo_frames, frames, n * sizeof(*frames));
	f->nr_memo_frames += n;
}

int cp_sym_lookup(struct cp_sym_file *f, uint64_t off, struct cp_sym_frame *frames, int max)
{
	uint64_t hash = cp_hash_u64(CP_HASH_SEED, off);
	const struct memo *m;
	int64_t i;
	int n;

	if (max <= 0)
		return 0;
	if (!f->owner->keep || max < CP_SYM_MAX_FRAMES)
		return lookup(f, off, frames, max);
	i = cp_htab_find(&f->memo_index, hash, memo_eq, f, &off);
	if (i >= 0) {
		m = &f->memos[i];
		memcpy(frames, f->memo_frames + m->first, m->nr * sizeof(*frames));
		return m->nr;
	}
	n = lookup(f, off, frames, max);
	memo_add(f, off, hash, frames, n);
	return n;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The start of every function with an FDE, from the search table of
 * .eh_frame_hdr (PT_GNU_EH_FRAME), which stripping keeps: pairs of initial
 * location and FDE, DW_EH_PE_datarel | DW_EH_PE_sdata4 from the table's
 * start, as linkers write it. (libdw finds the FDE of an address, but tells
 * only the range of its row of rules, which starts after each push.)
 */
static void load_fde_starts(struct cp_sym_file *f)
{
	const unsigned char *p;
	GElf_Phdr mem, *ph = NULL;
	uint32_t count, u;
	int32_t loc;
	Elf_Data *d;
	size_t i, n;

	f->fdes_loaded = true;
	if (elf_getident(f->elf, NULL)[EI_DATA] != ELFDATA2LSB || elf_getphdrnum(f->elf, &n))
		return;
	for (i = 0; i < n; i++) {
		ph = gelf_getphdr(f->elf, i, &mem);
		if (ph && ph->p_type == PT_GNU_EH_FRAME)
			break;
	}
	if (i == n || ph->p_filesz < 12)
		return;
	d = elf_getdata_rawchunk(f->elf, ph->p_offset, ph->p_filesz, ELF_T_BYTE);
	if (!d || d->d_size < 12)
		return;
	p = d->d_buf;
	/* Version 1; a 4-byte eh_frame_ptr; fde_count udata4; the table's encoding. */
	if (p[0] != 1 || ((p[1] & 0x0f) != DW_EH_PE_udata4 && (p[1] & 0x0f) != DW_EH_PE_sdata4) ||
	    p[2] != DW_EH_PE_udata4 || p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return;
	memcpy(&u, p + 8, 4);
	count = le32toh(u);
	if (!count || count > (d->d_size - 12) / 8)
		return;
	f->fde_starts = malloc(count * sizeof(*f->fde_starts));
	if (!f->fde_starts)
		return;
	for (i = 0; i < count; i++) {
		memcpy(&u, p + 12 + 8 * i, 4);
		loc = (int32_t)le32toh(u);
		f->fde_starts[i] = ph->p_vaddr + loc;
	}
	/* Sorted by the rules; a broken file must not break the search. */
	qsort(f->fde_starts, count, sizeof(*f->fde_starts), u64_cmp);
	f->nr_fdes = count;
}

int cp_sym_func_start(struct cp_sym_file *f, uint64_t off, uint64_t *start)
{
	Dwarf_Frame *frame;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	GElf_Addr addr, vaddr;
	size_t lo = 0, hi;

	if (!f->opened)
		open_file(f);
	if (!f->usable || !offset_to_addr(f, off, &addr))
		return -ENOENT;
	/* Code an FDE covers (FDEs do not overlap): its start is the last before it. */
	cfi = dwfl_module_eh_cfi(f->mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame))
		return -ENOENT;
	free(frame);
	if (!f->fdes_loaded)
		load_fde_starts(f);
	vaddr = addr - f->bias;
	for (hi = f->nr_fdes; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->fde_starts[mid] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !addr_to_offset(f, f->fde_starts[lo - 1] + f->bias, start) || *start > off)
		return -ENOENT;
	return 0;
}

unsigned int cp_sym_caps(const struct cp_sym_file *f)
{
	return f->usable ? f->caps : 0;
}

size_t cp_sym_build_id(const struct cp_sym_file *f, const uint8_t **id)
{
	if (f->expect_len) {
		*id = f->expect;
		return f->expect_len;
	}
	*id = f->id;
	return f->id_len;
}

/*
 * The cache: what a symbolizer kept from report to report. A file's bytes
 * are an estimate: the tables built here, and the sections of its ELF file
 * and of its debug file that libelf and libdw read and index (symbols,
 * strings, DWARF, Go's table, decompressed), which is what stays resident
 * of it once it has been used.
 */

static size_t elf_read_bytes(Elf *elf)
{
	size_t shstrndx, total = 0;
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Chdr ch;
	GElf_Shdr sh;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM &&
		    sh.sh_type != SHT_STRTAB &&
		    !(name && (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8) ||
			       !strcmp(name, ".gopclntab") || !strcmp(name, ".eh_frame_hdr"))))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch))
			total += ch.ch_size;
		else
			total += sh.sh_size;
	}
	return total;
}

static size_t file_bytes(struct cp_sym_file *f)
{
	size_t bytes = sizeof(*f) + strlen(f->path) + 1 + f->image_len, i;
	Dwarf_Addr bias;
	Dwarf *dw;
	Elf *debug;

	if (!f->opened)
		return bytes;
	if (f->usable && !f->bytes) {
		/* Once: the file's sections do not change. */
		f->bytes = elf_read_bytes(f->elf);
		dw = f->dwarf ? dwfl_module_getdwarf(f->mod, &bias) : NULL;
		debug = dw ? dwarf_getelf(dw) : NULL;
		if (debug && debug != f->elf)
			f->bytes += elf_read_bytes(debug);
	}
	bytes += f->bytes + f->nr_syms * sizeof(*f->syms) + f->cap_cus * sizeof(*f->cus) +
		 f->nr_ranges * sizeof(*f->ranges) + f->nr_fdes * sizeof(*f->fde_starts) +
		 2 * f->nr_cus * sizeof(struct cp_hslot) + f->cap_memos * sizeof(*f->memos) +
		 f->cap_memo_frames * sizeof(*f->memo_frames) +
		 2 * f->nr_memos * sizeof(struct cp_hslot);
	for (i = 0; i < f->nr_cus; i++)
		bytes += f->cus[i].cap * sizeof(*f->cus[i].funcs);
	return bytes;
}

void cp_sym_set_offline(struct cp_symbolizer *s)
{
	s->offline = true;
}

void cp_sym_set_cap(struct cp_symbolizer *s, size_t bytes)
{
	s->cap_bytes = bytes;
	s->keep = true;
}

static void drop_names(struct cp_symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nr_names; i++) {
		free(s->names[i].mangled);
		free(s->names[i].plain);
	}
	free(s->names);
	s->names = NULL;
	s->nr_names = s->cap_names = 0;
	s->names_bytes = 0;
	cp_htab_free(&s->name_index);
	cp_htab_init(&s->name_index);
}

/*
 * The opened file asked for least recently, of the fewest bytes among
 * equals: its index, or -1. Files one report asked for are equals; when
 * together they outweigh the cap, the next report asks for them again,
 * and what is evicted of them is read again: the small ones first, so
 * that as few bytes as the cap needs go. The largest first would send
 * the file every process names, libc's debug file, the dearest to read
 * again (a lead for the 0.417 s reports of a 16 MiB cache in
 * bench/RESULTS.md, 2026-11-28, not measured alone).
 */
static ssize_t least_used(struct cp_symbolizer *s, const size_t *bytes)
{
	ssize_t best = -1;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (!s->files[i] || !s->files[i]->opened)
			continue;
		if (best < 0 || s->files[i]->used < s->files[best]->used ||
		    (s->files[i]->used == s->files[best]->used && bytes[i] < bytes[best]))
			best = i;
	}
	return best;
}

int cp_sym_trim(struct cp_symbolizer *s)
{
	size_t i, n = 0, total = s->names_bytes, *bytes;
	struct cp_sym_file *f;
	ssize_t victim;
	int ret = 0;

	bytes = calloc(s->nr ? s->nr : 1, sizeof(*bytes));
	if (!bytes)
		return -ENOMEM;
	for (i = 0; i < s->nr; i++) {
		f = s->files[i];
		/* Asked for by no report since the last trim, and nothing read: forgotten. */
		if (!f->opened && f->used < s->clock) {
			free_file(f);
			s->files[i] = NULL;
			continue;
		}
		bytes[i] = file_bytes(f);
		total += bytes[i];
	}
	while (s->cap_bytes && total > s->cap_bytes && (victim = least_used(s, bytes)) >= 0) {
		total -= bytes[victim];
		free_file(s->files[victim]);
		s->files[victim] = NULL;
		s->stats.evictions++;
	}
	/* The names go all at once, when they alone weigh an eighth of the cap. */
	if (s->cap_bytes && s->names_bytes > s->cap_bytes / 8) {
		total -= s->names_bytes;
		s->stats.names_dropped += s->nr_names;
		drop_names(s);
		/* Their lookups point to the names. */
		for (i = 0; i < s->nr; i++)
			if (s->files[i])
				forget_memos(s->files[i]);
	}
	free(bytes);
	cp_htab_free(&s->index);
	cp_htab_init(&s->index);
	s->stats.files = 0;
	for (i = 0; i < s->nr; i++) {
		f = s->files[i];
		if (!f)
			continue;
		s->files[n] = f;
		if (f->opened)
			s->stats.files++;
		if (!ret && cp_htab_add(&s->index, path_hash(f->path), n))
			ret = -ENOMEM;
		n++;
	}
	s->nr = n;
	s->stats.bytes = total;
	s->clock++;
	if (ret) {
		/* Without an index nothing can be found: start again empty. */
		for (i = 0; i < s->nr; i++)
			free_file(s->files[i]);
		s->nr = 0;
		s->stats.files = s->stats.bytes = 0;
		cp_htab_free(&s->index);
		cp_htab_init(&s->index);
	}
	return ret;
}

void cp_sym_get_stats(const struct cp_symbolizer *s, struct cp_sym_stats *st)
{
	*st = s->stats;
}
