// SPDX-License-Identifier: GPL-2.0
/*
 * The Go runtime's own table of functions, files and lines (.gopclntab), for
 * Go binaries without symbols or DWARF (go build -ldflags='-s -w'), which
 * keep it: the runtime needs it for tracebacks.
 *
 * The section starts with a header (pcHeader): a magic that says the format
 * and, by its byte order, the file's; the instruction quantum; the pointer
 * size; the number of functions, the base of their entry offsets (1.18+),
 * and where the regions of the table start, from the section's start:
 * function names, the compilation units' file lists (cutab), file names,
 * the pc-value tables, and the function table. That one is nfunc pairs
 * (entry, offset of the function's _func record) and the end of the last
 * function. A _func says where its pc-value tables are: pcfile (pc to an
 * index into its CU's file list), pcln (pc to line), and its pcdata tables,
 * among them PCDATA_InlTreeIndex (pc to an index into its inline tree).
 *
 * A pc-value table is pairs of varints: a zig-zag value delta, then a pc
 * delta in quanta, from value -1 at the function's entry; a value delta of
 * 0 (after the first pair) ends it. The value at pc is that of the first run
 * that ends after pc.
 *
 * The inline tree is not in the section: funcdata[FUNCDATA_InlTree] is an
 * offset from the address of go:func.*, which only the runtime's module data
 * (moduledata.gofunc) holds. Module data starts with a pointer to the
 * header, then the table's regions as slices: it is found by looking for
 * those in the writable segments. An entry of the tree names the inlined
 * function and the offset of an instruction at its call (parentPc), where
 * the index of the caller's inlining is read again, up to the function.
 *
 * The section is .gopclntab (.data.rel.ro.gopclntab in a PIE); a file
 * without section headers, or a Go one (.note.go.buildid, .go.buildinfo)
 * without that section, is searched for a header that module data points
 * to.
 *
 * Everything read is bounded by the section or by the file: a damaged table
 * gives no name or a wrong one, never a read outside the file.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

#define GO116_MAGIC	0xfffffffaU
#define GO118_MAGIC	0xfffffff0U
#define GO120_MAGIC	0xfffffff1U
#define GO12_MAGIC	0xfffffffbU

#define PCDATA_INLTREEINDEX	2
#define FUNCDATA_INLTREE	3

#define MAX_SEGS	16
/* Inlining deeper than this is a loop in a damaged tree. */
#define MAX_INLINE	64

enum fmt { FMT_116 = 116, FMT_118 = 118, FMT_120 = 120 };

struct seg {
	uint64_t vaddr, filesz, off;
	bool write, exec;
};

struct cp_gopcln {
	const uint8_t *image;		/* the whole file */
	size_t image_size;
	const uint8_t *tab;		/* the section */
	uint64_t size, vaddr;
	enum fmt fmt;
	bool be;
	unsigned int ptr, quantum;
	uint64_t nfunc;
	uint64_t text;			/* base of entry offsets (1.18+) */
	/* Regions, from the section's start. */
	uint64_t names, cutab, files, pctab, funcs;
	unsigned int fsz;		/* of a field of the function table */
	uint64_t gofunc;		/* 0: no inline tree */
	struct seg segs[MAX_SEGS];
	size_t nr_segs;
};

/* What a _func record says. */
struct func {
	uint64_t off;			/* of the record, in the section */
	uint64_t entry, end;
	int32_t nameoff;
	uint32_t pcfile, pcln, npcdata, cuoff;
	int32_t start_line;
	uint8_t nfuncdata;
	uint64_t pcdata;		/* where its pcdata offsets start */
};

static uint64_t get(const struct cp_gopcln *t, const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[t->be ? n - 1 - i : i] << (8 * i);
	return v;
}

/* The @n-byte unsigned at @off of the section: false past its end. */
static bool tab_get(const struct cp_gopcln *t, uint64_t off, unsigned int n, uint64_t *v)
{
	if (off > t->size || t->size - off < n)
		return false;
	*v = get(t, t->tab + off, n);
	return true;
}

/* The NUL-terminated string at @off of region @base, or NULL. */
static const char *tab_str(const struct cp_gopcln *t, uint64_t base, uint64_t off)
{
	const uint8_t *p;

	if (base > t->size || off >= t->size - base)
		return NULL;
	p = t->tab + base + off;
	return memchr(p, '\0', t->size - base - off) ? (const char *)p : NULL;
}

/* @len bytes at virtual address @vaddr, from the file part of a segment: NULL if not. */
static const uint8_t *at_vaddr(const struct cp_gopcln *t, uint64_t vaddr, uint64_t len)
{
	const struct seg *s;
	size_t i;

	for (i = 0; i < t->nr_segs; i++) {
		s = &t->segs[i];
		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz &&
		    s->filesz - (vaddr - s->vaddr) >= len)
			return t->image + s->off + (vaddr - s->vaddr);
	}
	return NULL;
}

/* A varint of the pc-value tables at *@p, moved past it: false at the end or past 32 bits. */
static bool varint(const struct cp_gopcln *t, uint64_t *p, uint32_t *v)
{
	unsigned int shift;
	uint8_t b;

	*v = 0;
	for (shift = 0; shift < 35; shift += 7) {
		if (*p >= t->size)
			return false;
		b = t->tab[(*p)++];
		*v |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/*
 * A pc-value table being decoded: [pc of the previous step, pc) has val.
 * Each step of a function's table covers code of it: no more steps than it
 * has quanta, whatever a damaged table says.
 */
struct pcv {
	const struct cp_gopcln *t;
	uint64_t p, entry, pc, steps;
	int32_t val;
	bool done;
};

static void pcv_init(struct pcv *v, const struct cp_gopcln *t, uint32_t off, uint64_t entry,
		     uint64_t end)
{
	*v = (struct pcv){ .t = t, .entry = entry, .pc = entry, .val = -1,
			   .steps = (end - entry) / t->quantum + 2 };
	/* Offset 0 is no table. */
	if (!off || t->pctab > t->size || off >= t->size - t->pctab)
		v->done = true;
	else
		v->p = t->pctab + off;
}

static bool pcv_next(struct pcv *v)
{
	uint32_t uv, pcd, delta;

	if (v->done || !v->steps--)
		return false;
	/* As the runtime: the first step is the one still at the entry. */
	if (!varint(v->t, &v->p, &uv) || (!uv && v->pc != v->entry) ||
	    !varint(v->t, &v->p, &pcd)) {
		v->done = true;
		return false;
	}
	delta = uv & 1 ? ~(uv >> 1) : uv >> 1;
	v->val = (int32_t)((uint32_t)v->val + delta);
	v->pc += (uint64_t)pcd * v->t->quantum;
	return true;
}

/* The value of the table at @off for @pc of the function @f, or -1. */
static int32_t pcvalue(const struct cp_gopcln *t, uint32_t off, const struct func *f, uint64_t pc)
{
	struct pcv v;

	pcv_init(&v, t, off, f->entry, f->end);
	while (pcv_next(&v))
		if (pc < v.pc)
			return v.val;
	return -1;
}

/* Entry @i of the function table (@i == nfunc: the end of the last function). */
static bool functab(const struct cp_gopcln *t, uint64_t i, uint64_t *entry, uint64_t *off)
{
	uint64_t at = t->funcs + i * 2 * t->fsz;

	if (!tab_get(t, at, t->fsz, entry) || (off && !tab_get(t, at + t->fsz, t->fsz, off)))
		return false;
	if (t->fmt >= FMT_118)
		*entry += t->text;
	return true;
}

/* Function @i's record, checked against the function table. */
static bool read_func(const struct cp_gopcln *t, uint64_t i, struct func *f)
{
	unsigned int b = t->fmt == FMT_116 ? t->ptr : 4;
	uint64_t off, entry, v[6];

	if (i >= t->nfunc || !functab(t, i, &f->entry, &off) || !functab(t, i + 1, &f->end, NULL) ||
	    f->end <= f->entry || off > t->size - t->funcs)
		return false;
	f->off = t->funcs + off;
	/* Its own entry must be the table's: else the offset points anywhere. */
	if (!tab_get(t, f->off, b, &entry) || entry + (t->fmt >= FMT_118 ? t->text : 0) != f->entry)
		return false;
	if (!tab_get(t, f->off + b, 4, &v[0]) || !tab_get(t, f->off + b + 16, 4, &v[1]) ||
	    !tab_get(t, f->off + b + 20, 4, &v[2]) || !tab_get(t, f->off + b + 24, 4, &v[3]) ||
	    !tab_get(t, f->off + b + 28, 4, &v[4]))
		return false;
	f->nameoff = (int32_t)v[0];
	f->pcfile = v[1];
	f->pcln = v[2];
	f->npcdata = v[3];
	f->cuoff = v[4];
	f->start_line = 0;
	if (t->fmt >= FMT_120) {
		if (!tab_get(t, f->off + b + 32, 4, &v[5]) || !tab_get(t, f->off + b + 39, 1, &v[0]))
			return false;
		f->start_line = (int32_t)v[5];
		f->pcdata = f->off + b + 40;
	} else {
		if (!tab_get(t, f->off + b + 35, 1, &v[0]))
			return false;
		f->pcdata = f->off + b + 36;
	}
	f->nfuncdata = v[0];
	return true;
}

/* The function whose code has @pc: its index, or -1. */
static int64_t find_func(const struct cp_gopcln *t, uint64_t pc)
{
	uint64_t lo = 0, hi = t->nfunc, mid, entry;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (!functab(t, mid, &entry, NULL))
			return -1;
		if (entry <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (int64_t)lo - 1 : -1;
}

static const char *func_name(const struct cp_gopcln *t, int32_t nameoff)
{
	return nameoff < 0 ? NULL : tab_str(t, t->names, nameoff);
}

/* The name of file @fno of @f's compilation unit, or NULL. */
static const char *file_name(const struct cp_gopcln *t, const struct func *f, int32_t fno)
{
	uint64_t off;

	if (fno < 0 || !tab_get(t, t->cutab + ((uint64_t)f->cuoff + fno) * 4, 4, &off) ||
	    off == UINT32_MAX)
		return NULL;
	return tab_str(t, t->files, off);
}

/* pcdata table @k of @f: its offset, 0 when it has none. */
static uint32_t pcdata(const struct cp_gopcln *t, const struct func *f, unsigned int k)
{
	uint64_t v;

	if (k >= f->npcdata || !tab_get(t, f->pcdata + 4 * k, 4, &v))
		return 0;
	return v;
}

/* The address of @f's inline tree, 0 when it has none (or it is not known). */
static uint64_t inline_tree(const struct cp_gopcln *t, const struct func *f)
{
	uint64_t v;

	if (!t->gofunc || f->nfuncdata <= FUNCDATA_INLTREE || f->npcdata > t->size ||
	    !tab_get(t, f->pcdata + 4 * (uint64_t)f->npcdata + 4 * FUNCDATA_INLTREE, 4, &v) ||
	    v == UINT32_MAX)
		return 0;
	return t->gofunc + v;
}

static void set_frame(const struct cp_gopcln *t, const struct func *f, uint64_t pc,
		      struct cp_go_frame *fr)
{
	fr->file = file_name(t, f, pcvalue(t, f->pcfile, f, pc));
	fr->line = pcvalue(t, f->pcln, f, pc);
	if (fr->line < 0)
		fr->line = 0;
}

int cp_gopcln_lookup(const struct cp_gopcln *t, uint64_t pc, struct cp_go_frame *frames,
		     int max)
{
	unsigned int size = t->fmt >= FMT_120 ? 16 : 20;
	uint64_t tree = 0, parent, name;
	uint32_t inl = 0;
	const uint8_t *c;
	struct func f;
	int32_t ix = -1;
	int n = 0;
	int64_t i;

	if (max <= 0)
		return 0;
	i = find_func(t, pc);
	if (i < 0 || !read_func(t, i, &f) || pc >= f.end || !func_name(t, f.nameoff))
		return 0;
	tree = inline_tree(t, &f);
	if (tree) {
		inl = pcdata(t, &f, PCDATA_INLTREEINDEX);
		ix = pcvalue(t, inl, &f, pc);
	}
	/* Each inlined call, innermost first; then where the outermost one was. */
	while (ix >= 0 && n < max - 1 && n < MAX_INLINE) {
		c = at_vaddr(t, tree + (uint64_t)ix * size, size);
		if (!c)
			break;
		if (t->fmt >= FMT_120) {
			name = get(t, c + 4, 4);
			parent = get(t, c + 8, 4);
			frames[n].start_line = (int32_t)get(t, c + 12, 4);
		} else {
			name = get(t, c + 12, 4);
			parent = get(t, c + 16, 4);
			frames[n].start_line = 0;
		}
		frames[n].func = func_name(t, (int32_t)name);
		set_frame(t, &f, pc, &frames[n]);
		n++;
		if (parent >= f.end - f.entry)
			break;
		pc = f.entry + parent;
		ix = pcvalue(t, inl, &f, pc);
	}
	frames[n].func = func_name(t, f.nameoff);
	frames[n].start_line = f.start_line;
	set_frame(t, &f, pc, &frames[n]);
	return n + 1;
}

/* Whether entry @ix of the inline tree at @tree names @name. */
static bool inlines(const struct cp_gopcln *t, uint64_t tree, uint32_t ix, const char *name)
{
	unsigned int size = t->fmt >= FMT_120 ? 16 : 20;
	const uint8_t *c = at_vaddr(t, tree + (uint64_t)ix * size, size);
	const char *inl;

	if (!c)
		return false;
	inl = func_name(t, (int32_t)get(t, c + (t->fmt >= FMT_120 ? 4 : 12), 4));
	return inl && !strcmp(inl, name);
}

/*
 * Every entry of a function's inline tree is the index of some address of
 * it or the parent of one: entries 0 to the largest index its table gives
 * cover them (the compiler numbers a call's entry before those it inlines).
 */
int cp_gopcln_inlined(const struct cp_gopcln *t, const char *name, uint64_t *in)
{
	uint64_t i, tree;
	struct pcv v;
	struct func f;
	int32_t top;
	uint32_t ix;

	if (!t->gofunc)
		return -ENODATA;
	for (i = 0; i < t->nfunc; i++) {
		if (!read_func(t, i, &f) || !(tree = inline_tree(t, &f)))
			continue;
		top = -1;
		pcv_init(&v, t, pcdata(t, &f, PCDATA_INLTREEINDEX), f.entry, f.end);
		while (pcv_next(&v))
			if (v.val > top)
				top = v.val;
		for (ix = 0; top >= 0 && ix <= (uint32_t)top && ix < (1U << 16); ix++) {
			if (inlines(t, tree, ix, name)) {
				*in = f.entry;
				return 1;
			}
		}
	}
	return 0;
}

size_t cp_gopcln_count(const struct cp_gopcln *t)
{
	return t->nfunc;
}

int cp_gopcln_func(const struct cp_gopcln *t, size_t i, uint64_t *entry, const char **name)
{
	struct func f;

	if (!read_func(t, i, &f) || !(*name = func_name(t, f.nameoff)))
		return -ENOENT;
	*entry = f.entry;
	return 0;
}

int cp_gopcln_extent(const struct cp_gopcln *t, size_t i, uint64_t *entry, uint64_t *end)
{
	struct func f;

	if (!read_func(t, i, &f))
		return -ENOENT;
	*entry = f.entry;
	*end = f.end;
	return 0;
}

int cp_gopcln_rows(const struct cp_gopcln *t,
		   int (*fn)(uint64_t start, uint64_t end, const char *file, int line, void *arg),
		   void *arg)
{
	struct pcv file, line;
	uint64_t i, cur, stop;
	const char *name;
	struct func f;
	int ret;

	for (i = 0; i < t->nfunc; i++) {
		if (!read_func(t, i, &f))
			continue;
		pcv_init(&file, t, f.pcfile, f.entry, f.end);
		pcv_init(&line, t, f.pcln, f.entry, f.end);
		/* Runs of both tables at once; each round ends one of them. */
		for (cur = f.entry; cur < f.end; cur = stop) {
			while (file.pc <= cur && pcv_next(&file))
				;
			while (line.pc <= cur && pcv_next(&line))
				;
			if (file.pc <= cur || line.pc <= cur)
				break;
			stop = file.pc < line.pc ? file.pc : line.pc;
			if (stop > f.end)
				stop = f.end;
			name = file_name(t, &f, file.val);
			if (!name || line.val <= 0)
				continue;
			ret = fn(cur, stop, name, line.val, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

const char *cp_gopcln_format(const struct cp_gopcln *t)
{
	return t->fmt == FMT_120 ? "1.20" : t->fmt == FMT_118 ? "1.18" : "1.16";
}

bool cp_gopcln_has_inline(const struct cp_gopcln *t)
{
	return t->gofunc != 0;
}

/* The first section, with contents, whose name is one of names (NULL-ended). */
static bool section_named(Elf *elf, const char *const *names, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	const char *name;
	size_t shstrndx, i;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		name = sh && sh->sh_type != SHT_NOBITS ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		for (i = 0; name && names[i]; i++) {
			if (!strcmp(name, names[i])) {
				*out = *sh;
				return true;
			}
		}
	}
	return false;
}

/* The section of the table: .gopclntab, or .data.rel.ro.gopclntab in a PIE. */
static bool find_section(Elf *elf, GElf_Shdr *out)
{
	static const char *const names[] = { ".gopclntab", ".data.rel.ro.gopclntab", NULL };

	return section_named(elf, names, out);
}

/* Whether a section says the file is Go's (its build id, or its build info). */
static bool go_sections(Elf *elf)
{
	static const char *const names[] = { ".note.go.buildid", ".go.buildinfo", NULL };
	GElf_Shdr sh;

	return section_named(elf, names, &sh);
}

/*
 * The Go version that built @elf ("go1.19.8"), from .go.buildinfo: its
 * 32-byte header ("\xff Go buildinf:", pointer size, flags), then, since
 * Go 1.18 (flags bit 1), the version as a varint length and its bytes.
 * 0, or -ENODATA (no build info, or of a Go before 1.18).
 */
int cp_go_build_version(Elf *elf, char *out, size_t len)
{
	static const char *const names[] = { ".go.buildinfo", NULL };
	static const char magic[] = "\xff Go buildinf:";
	const unsigned char *p;
	Elf_Data *d = NULL;
	uint64_t n = 0;
	GElf_Shdr sh;
	size_t i;
	int shift;

	if (!section_named(elf, names, &sh) || sh.sh_size < 33)
		return -ENODATA;
	d = elf_getdata_rawchunk(elf, sh.sh_offset, sh.sh_size, ELF_T_BYTE);
	if (!d || d->d_size < 33)
		return -ENODATA;
	p = d->d_buf;
	if (memcmp(p, magic, sizeof(magic) - 1) || !(p[15] & 2))
		return -ENODATA;
	for (i = 32, shift = 0; i < d->d_size && shift < 35; i++, shift += 7) {
		n |= (uint64_t)(p[i] & 0x7f) << shift;
		if (!(p[i] & 0x80))
			break;
	}
	i++;
	if (i >= d->d_size || !n || n >= len || n > d->d_size - i)
		return -ENODATA;
	memcpy(out, p + i, n);
	out[n] = '\0';
	return 0;
}

/* The address of the .text section: the base of entries when the header has none. */
static uint64_t text_section(Elf *elf)
{
	static const char *const names[] = { ".text", NULL };
	GElf_Shdr sh;

	return section_named(elf, names, &sh) ? sh.sh_addr : 0;
}

static void read_segs(struct cp_gopcln *t, Elf *elf)
{
	GElf_Phdr mem, *ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && t->nr_segs < MAX_SEGS; i++) {
		ph = gelf_getphdr(elf, i, &mem);
		if (!ph || ph->p_type != PT_LOAD || !ph->p_filesz || ph->p_offset > t->image_size ||
		    ph->p_filesz > t->image_size - ph->p_offset)
			continue;
		t->segs[t->nr_segs++] = (struct seg){
			.vaddr = ph->p_vaddr, .filesz = ph->p_filesz, .off = ph->p_offset,
			.write = ph->p_flags & PF_W,
			.exec = ph->p_flags & PF_X,
		};
	}
}

/*
 * go:func.*, from the runtime's module data: in a writable segment, a
 * pointer to the header, then slices of the regions (funcnametab first;
 * ftab, the function table, the sixth), ... and gofunc, the 38th word
 * (40th from 1.20, which added covctrs and ecovctrs before it).
 */
static uint64_t find_gofunc(const struct cp_gopcln *t)
{
	unsigned int p = t->ptr, word = t->fmt >= FMT_120 ? 40 : 38;
	uint64_t at, len = (uint64_t)(word + 1) * p;
	const struct seg *s;
	const uint8_t *m;
	size_t i;

	for (i = 0; i < t->nr_segs; i++) {
		s = &t->segs[i];
		if (!s->write || s->filesz < len)
			continue;
		for (at = 0; at <= s->filesz - len; at += p) {
			m = t->image + s->off + at;
			if (get(t, m, p) != t->vaddr || get(t, m + p, p) != t->vaddr + t->names ||
			    get(t, m + 16 * p, p) != t->vaddr + t->funcs ||
			    get(t, m + 17 * p, p) != t->nfunc + 1)
				continue;
			return get(t, m + word * p, p);
		}
	}
	return 0;
}

static int bad(char *err, size_t errlen, const char *why)
{
	snprintf(err, errlen, "its Go table (.gopclntab) is damaged: %s", why);
	return -EINVAL;
}

/*
 * The header of t->tab, and the table it describes: 0, -ENODATA (not a
 * format read), -EINVAL (damaged: the message in @err).
 */
static int parse(struct cp_gopcln *t, Elf *elf, char *err, size_t errlen)
{
	uint64_t magic, le_magic, w[8], entry = 0, end = 0;
	unsigned int nw, k;

	/* Magic, two zeros, the quantum, the pointer size: the same since Go 1.2. */
	if (t->size < 8 || t->tab[4] || t->tab[5] ||
	    (t->tab[6] != 1 && t->tab[6] != 2 && t->tab[6] != 4) ||
	    (t->tab[7] != 4 && t->tab[7] != 8))
		return bad(err, errlen, "not a header it knows");
	t->quantum = t->tab[6];
	t->ptr = t->tab[7];
	t->be = false;
	magic = le_magic = get(t, t->tab, 4);
	if (magic != GO116_MAGIC && magic != GO118_MAGIC && magic != GO120_MAGIC) {
		t->be = true;
		magic = get(t, t->tab, 4);
	}
	switch (magic) {
	case GO116_MAGIC:
		t->fmt = FMT_116;
		break;
	case GO118_MAGIC:
		t->fmt = FMT_118;
		break;
	case GO120_MAGIC:
		t->fmt = FMT_120;
		break;
	default:
		snprintf(err, errlen, "its Go table is of a format not read (%s)",
			 le_magic == GO12_MAGIC || magic == GO12_MAGIC ? "Go 1.2 to 1.15" :
			 "an unknown magic");
		return -ENODATA;
	}
	/* nfunc, nfiles, [textStart,] then the regions' offsets. */
	nw = t->fmt == FMT_116 ? 7 : 8;
	for (k = 0; k < nw; k++)
		if (!tab_get(t, 8 + k * t->ptr, t->ptr, &w[k]))
			return bad(err, errlen, "its header is cut short");
	t->nfunc = w[0];
	k = 2;
	t->text = 0;
	if (t->fmt >= FMT_118)
		t->text = w[k++];
	t->names = w[k++];
	t->cutab = w[k++];
	t->files = w[k++];
	t->pctab = w[k++];
	t->funcs = w[k];
	t->fsz = t->fmt >= FMT_118 ? 4 : t->ptr;
	if (t->names >= t->size || t->cutab >= t->size || t->files >= t->size ||
	    t->pctab >= t->size || t->funcs >= t->size)
		return bad(err, errlen, "its regions start past its end");
	if (!t->nfunc || t->nfunc > (t->size - t->funcs - t->fsz) / (2 * t->fsz))
		return bad(err, errlen, "its function table does not fit");
	/* A PIE's header may hold no base: the runtime's is where .text starts. */
	if (t->fmt >= FMT_118 && !t->text)
		t->text = text_section(elf);
	/* Its functions must be code of the file. */
	functab(t, 0, &entry, NULL);
	functab(t, t->nfunc, &end, NULL);
	for (k = 0; k < t->nr_segs; k++)
		if (entry >= t->segs[k].vaddr && entry < end &&
		    end - t->segs[k].vaddr <= t->segs[k].filesz)
			break;
	if (k == t->nr_segs)
		return bad(err, errlen, "its functions are not in the file's code");
	t->gofunc = t->fmt >= FMT_118 ? find_gofunc(t) : 0;
	return 0;
}

/*
 * A file without the table's section: the table where a header is, at an
 * 8-byte boundary of a segment that is not code, that the runtime's module
 * data points to (1.18+; any that parses for 1.16). It runs to the end of
 * that segment as far as bounds go.
 */
static int scan(struct cp_gopcln *t, Elf *elf)
{
	const struct seg *s;
	const uint8_t *p;
	char err[1];
	uint64_t at;
	size_t i;

	for (i = 0; i < t->nr_segs; i++) {
		s = &t->segs[i];
		if (s->exec)
			continue;
		for (at = 0; at + 64 <= s->filesz; at += 8) {
			p = t->image + s->off + at;
			if (p[1] != 0xff || p[2] != 0xff || p[4] || p[5] ||
			    !((p[0] == 0xff && p[3] >= 0xf0) || (p[3] == 0xff && p[0] >= 0xf0)))
				continue;
			t->tab = p;
			t->size = s->filesz - at;
			t->vaddr = s->vaddr + at;
			if (!parse(t, elf, err, sizeof(err)) && (t->gofunc || t->fmt == FMT_116))
				return 0;
		}
	}
	return -ENODATA;
}

int cp_gopcln_open(Elf *elf, struct cp_gopcln **out, char *err, size_t errlen)
{
	struct cp_gopcln *t;
	size_t image_size, nr_shdrs;
	const char *image;
	GElf_Shdr sh;
	int ret;

	image = elf_rawfile(elf, &image_size);
	if (!image) {
		snprintf(err, errlen, "no Go table (.gopclntab)");
		return -ENODATA;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	t->image = (const uint8_t *)image;
	t->image_size = image_size;
	read_segs(t, elf);
	if (find_section(elf, &sh)) {
		t->tab = t->image + sh.sh_offset;
		t->size = sh.sh_size;
		t->vaddr = sh.sh_addr;
		ret = sh.sh_offset > image_size || sh.sh_size > image_size - sh.sh_offset ?
		      bad(err, errlen, "its section is past the end of the file") :
		      parse(t, elf, err, errlen);
	} else if (!elf_getshdrnum(elf, &nr_shdrs) && nr_shdrs && !go_sections(elf)) {
		snprintf(err, errlen, "no Go table (.gopclntab)");
		ret = -ENODATA;
	} else {
		ret = scan(t, elf);
		if (ret)
			snprintf(err, errlen, "no Go table (no .gopclntab, and no header found)");
	}
	if (ret) {
		free(t);
		return ret;
	}
	*out = t;
	return 0;
}

void cp_gopcln_free(struct cp_gopcln *t)
{
	free(t);
}
