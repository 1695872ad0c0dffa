// SPDX-License-Identifier: GPL-2.0
/*
 * Progress-point specs to uprobe locations: functions from the symbol
 * tables, FILE:LINE from the line tables (lines.c), USDT probes from the
 * .note.stapsdt notes; in the program, then in the libraries it loads.
 *
 * The libraries are found as the dynamic loader finds them (DT_RPATH of the
 * object and of the program when there is no DT_RUNPATH, LD_LIBRARY_PATH,
 * DT_RUNPATH, $ORIGIN expanded), except that the standard directories stand
 * in for /etc/ld.so.cache; they are walked breadth first, the program's own
 * DT_NEEDED first, and only as far as a lookup needs.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "elffile.h"
#include "funcbody.h"
#include "gopclntab.h"
#include "insn.h"
#include "lines.h"
#include "probes.h"
#include "visitcost.h"

/* The program and the libraries it loads, at most. */
#define MAX_OBJS	256
/* Functions of one name in one file (static ones in several sources). */
#define MAX_FUNCS	16
/* Places in a Go program's code that may refer to a function, at most (go_calls()). */
#define MAX_REFS	64

#if defined(__x86_64__)
#define MULTIARCH	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH	"aarch64-linux-gnu"
#else
#define MULTIARCH	"unknown"
#endif
/* Where ld.so.cache points on Debian, in its order. */
static const char default_dirs[] = "/lib/" MULTIARCH ":/usr/lib/" MULTIARCH
				   ":/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib";

/* The NT_STAPSDT notes of sys/sdt.h. */
#define SDT_OWNER	"stapsdt"
#define SDT_NOTE_TYPE	3
#define SDT_BASE	".stapsdt.base"

struct obj {
	char path[PATH_MAX];	/* real path */
	const char *needed;	/* the DT_NEEDED name it was loaded by; "" for the program */
	Elf *elf;
};

/* The program (objs[0]) and, as far as walked, its libraries, breadth first. */
struct objs {
	struct obj *v;
	size_t nr;
	size_t walked;		/* objects whose DT_NEEDED are in v */
	GElf_Ehdr eh;		/* the program's: libraries must match it */
};

/* The suffix of a function's returns, as perf spells it. */
#define RETURN_SUFFIX	"%return"

/* A spec being resolved: where its locations go. */
struct res {
	const char *spec;
	struct cp_probe *out;
	size_t max, nr;
	char *err;
	size_t errlen;
	bool returns;		/* FUNC%return: the function's exits */
	bool calls;		/* a Go function's calls where its entry is stepped */
};

/* The @nth string of dynamic tag @tag of @elf (DT_NEEDED, DT_RUNPATH...), or NULL. */
static const char *dyn_str(Elf *elf, int64_t tag, size_t nth)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	Elf_Data *data;
	GElf_Dyn dyn;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type != SHT_DYNAMIC || !sh->sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < sh->sh_size / sh->sh_entsize; i++) {
			if (!gelf_getdyn(data, i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == tag && !nth--)
				return elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
		}
	}
	return NULL;
}

/*
 * Adds @path unless it is there already, or not a library the program can
 * load: its index (that of the one there already), or -errno.
 */
static int add_obj(struct objs *o, const char *path, const char *needed, char *err,
		   size_t errlen)
{
	char real[PATH_MAX];
	GElf_Ehdr eh;
	size_t i;
	Elf *elf;
	int ret;

	if (!realpath(path, real)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	for (i = 0; i < o->nr; i++)
		if (!strcmp(o->v[i].path, real))
			return i;
	if (o->nr == MAX_OBJS) {
		snprintf(err, errlen, "%s: more than %d libraries", o->v[0].path, MAX_OBJS);
		return -ENOSPC;
	}
	ret = cp_elf_open(real, &elf, err, errlen);
	if (ret)
		return ret;
	if (!gelf_getehdr(elf, &eh) || (o->nr && (eh.e_type != ET_DYN ||
	    eh.e_ident[EI_CLASS] != o->eh.e_ident[EI_CLASS] || eh.e_machine != o->eh.e_machine))) {
		snprintf(err, errlen, "%s: not a shared library of the program's kind", real);
		elf_end(elf);
		return -ENOEXEC;
	}
	if (!o->nr)
		o->eh = eh;
	strcpy(o->v[o->nr].path, real);
	o->v[o->nr].needed = needed;
	o->v[o->nr].elf = elf;
	return o->nr++;
}

/* The directory of @path, for $ORIGIN. */
static void origin_of(const char *path, char *dir, size_t size)
{
	char *slash;

	snprintf(dir, size, "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
}

/*
 * Tries @name in each directory of the ':'-separated @list, $ORIGIN being
 * @origin: 0 when one was added (or was there), else -ENOENT.
 */
static int try_dirs(struct objs *o, const char *list, const char *origin, const char *name)
{
	char path[PATH_MAX], dir[PATH_MAX], err[1];
	const char *p, *end;
	size_t len, n;

	for (p = list; p && *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		/* The directory, $ORIGIN or ${ORIGIN} expanded; other tokens: skipped. */
		for (len = 0; p < end && len < sizeof(dir) - 1; ) {
			if (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9)) {
				n = snprintf(dir + len, sizeof(dir) - len, "%s", origin);
				len = n < sizeof(dir) - len ? len + n : sizeof(dir) - 1;
				p += p[1] == '{' ? 9 : 7;
			} else if (*p == '$') {
				break;
			} else {
				dir[len++] = *p++;
			}
		}
		if (p < end || !len)
			continue;
		dir[len] = '\0';
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path) &&
		    add_obj(o, path, name, err, sizeof(err)) >= 0)
			return 0;
	}
	return -ENOENT;
}

/* Adds the libraries object @i needs that are not there yet. */
static void walk_needed(struct objs *o, size_t i)
{
	const char *name, *runpath, *rpath = NULL, *exe_rpath = NULL;
	char origin[PATH_MAX], exe_origin[PATH_MAX], err[1];
	Elf *elf = o->v[i].elf;
	size_t n, k;

	origin_of(o->v[i].path, origin, sizeof(origin));
	origin_of(o->v[0].path, exe_origin, sizeof(exe_origin));
	runpath = dyn_str(elf, DT_RUNPATH, 0);
	if (!runpath)
		rpath = dyn_str(elf, DT_RPATH, 0);
	if (i && !dyn_str(o->v[0].elf, DT_RUNPATH, 0))
		exe_rpath = dyn_str(o->v[0].elf, DT_RPATH, 0);

	for (n = 0; (name = dyn_str(elf, DT_NEEDED, n)); n++) {
		/* A library loaded by that name already is the one. */
		for (k = 1; k < o->nr && strcmp(o->v[k].needed, name); k++)
			;
		if (k < o->nr)
			continue;
		if (strchr(name, '/')) {
			add_obj(o, name, name, err, sizeof(err));
			continue;
		}
		if (!try_dirs(o, rpath, origin, name) ||
		    !try_dirs(o, exe_rpath, exe_origin, name) ||
		    !try_dirs(o, getenv("LD_LIBRARY_PATH"), origin, name) ||
		    !try_dirs(o, runpath, origin, name))
			continue;
		try_dirs(o, default_dirs, origin, name);
	}
}

/* Object @i: the program, then its libraries as far as the walk has to go; NULL past the last. */
static struct obj *obj_at(struct objs *o, size_t i)
{
	while (i >= o->nr && o->walked < o->nr)
		walk_needed(o, o->walked++);
	return i < o->nr ? &o->v[i] : NULL;
}

static int objs_init(struct objs *o, const char *exe, struct res *r)
{
	char msg[PATH_MAX + 64];
	int ret;

	*o = (struct objs){ .v = calloc(MAX_OBJS, sizeof(*o->v)) };
	if (!o->v) {
		snprintf(r->err, r->errlen, "%s: %s", r->spec, strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = add_obj(o, exe, "", msg, sizeof(msg));
	if (ret < 0) {
		snprintf(r->err, r->errlen, "%s: %s", r->spec, msg);
		return ret;
	}
	return 0;
}

static void objs_free(struct objs *o)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		elf_end(o->v[i].elf);
	free(o->v);
}

static void add_loc(struct res *r, const char *path, uint64_t off, bool sem)
{
	if (r->nr < r->max) {
		snprintf(r->out[r->nr].path, sizeof(r->out[r->nr].path), "%s", path);
		r->out[r->nr].offset = off;
		r->out[r->nr].semaphore = sem;
		r->out[r->nr].indirect = 0;
		r->out[r->nr].check = 0;
		r->out[r->nr].calls = false;
	}
	r->nr++;
}

/* A function's code: its address and size, in the symbol table's words. */
struct func {
	uint64_t vaddr, size;
};

/*
 * Functions named @name: the best-named ones (a default version before an
 * old one); and the parts GCC split off functions of that name (name.cold).
 */
struct funcs {
	const char *name;
	size_t len;
	int rank;		/* 0: "name", "name@@V" or default; 1: "name@V" */
	struct func fn[MAX_FUNCS];
	size_t nr;
	struct func cold[CP_FUNC_MAX_PARTS - 1];
	size_t nr_cold;
};

static void add_func(struct funcs *f, int rank, uint64_t vaddr, uint64_t size)
{
	size_t i;

	if (f->nr && rank > f->rank)
		return;
	if (f->nr && rank < f->rank)
		f->nr = 0;
	f->rank = rank;
	for (i = 0; i < f->nr; i++)
		if (f->fn[i].vaddr == vaddr)
			return;
	if (f->nr < MAX_FUNCS)
		f->fn[f->nr++] = (struct func){ vaddr, size };
}

/* "name.cold" or "name.cold.N": a part of function name that GCC moved away. */
static bool is_cold_part(const struct funcs *f, const char *s)
{
	if (strncmp(s, f->name, f->len) || strncmp(s + f->len, ".cold", 5))
		return false;
	s += f->len + 5;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	return !*s;
}

/* The GNU version table of the symbol table @scn, or NULL. */
static Elf_Data *versyms(Elf *elf, Elf_Scn *scn)
{
	Elf_Scn *v = NULL;
	GElf_Shdr mem, *sh;

	while ((v = elf_nextscn(elf, v))) {
		sh = gelf_getshdr(v, &mem);
		if (sh && sh->sh_type == SHT_GNU_versym && sh->sh_link == elf_ndxscn(scn))
			return elf_getdata(v, NULL);
	}
	return NULL;
}

/* The defined functions called f->name in the symbol tables of type @type. */
static void scan_syms(Elf *elf, GElf_Word type, struct funcs *f)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn = NULL;
	Elf_Data *data, *ver;
	GElf_Versym vs;
	const char *s;
	GElf_Sym sym;
	uint64_t off;
	size_t i, n;
	int rank;

	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type != type || !sh->sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		ver = versyms(elf, scn);
		n = sh->sh_size / sh->sh_entsize;
		for (i = 1; data && i < n; i++) {
			if (!gelf_getsym(data, i, &sym) || !cp_elf_sym_is_func(&sym))
				continue;
			s = elf_strptr(elf, sh->sh_link, sym.st_name);
			if (!s || strncmp(s, f->name, f->len))
				continue;
			if (is_cold_part(f, s)) {
				if (f->nr_cold < CP_FUNC_MAX_PARTS - 1 && sym.st_size)
					f->cold[f->nr_cold++] = (struct func){ sym.st_value,
									       sym.st_size };
				continue;
			}
			if (!s[f->len] || !strncmp(s + f->len, "@@", 2))
				rank = 0;
			else if (s[f->len] == '@')
				rank = 1;
			else
				continue;
			/* .dynsym names carry no version: a hidden one is an old version. */
			if (ver && gelf_getversym(ver, i, &vs) && (vs & 0x8000))
				rank = 1;
			if (!cp_elf_vaddr_to_off(elf, sym.st_value, &off))
				add_func(f, rank, sym.st_value, sym.st_size);
		}
	}
}

/* The Go functions called f->name in the runtime's table of a stripped Go program. */
static void scan_go(Elf *elf, struct funcs *f)
{
	struct cp_gopcln *t;
	uint64_t entry, end, off;
	const char *s;
	char err[1];
	size_t i, n;

	if (cp_gopcln_open(elf, &t, err, sizeof(err)))
		return;
	n = cp_gopcln_count(t);
	for (i = 0; i < n; i++)
		if (!cp_gopcln_func(t, i, &entry, &s) && !strcmp(s, f->name) &&
		    !cp_elf_vaddr_to_off(elf, entry, &off) && !cp_gopcln_extent(t, i, &entry, &end))
			add_func(f, 0, entry, end - entry);
	cp_gopcln_free(t);
}

/* Whether @elf is a Go program: it has the runtime's table or build info. */
static bool is_go(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		if (name && (!strcmp(name, ".gopclntab") || !strcmp(name, ".go.buildinfo")))
			return true;
	}
	return false;
}

/* The bytes of [vaddr, vaddr + size) of @o into @part: 0 or -ENOENT. */
static int code_of(const struct obj *o, const struct func *fn, struct cp_func_part *part)
{
	uint64_t off;
	size_t len;
	const char *raw = elf_rawfile(o->elf, &len);

	if (!raw || cp_elf_vaddr_to_off(o->elf, fn->vaddr, &off) || off > len ||
	    fn->size > len - off)
		return -ENOENT;
	*part = (struct cp_func_part){ (const uint8_t *)raw + off, fn->vaddr, fn->size };
	return 0;
}

/* Function @fn of @f, its cold parts with it, as funcbody.c takes it. */
static int func_code(struct res *r, const struct obj *o, const struct funcs *f,
		     const struct func *fn, struct cp_func_code *code)
{
	size_t i;

	*code = (struct cp_func_code){ .name = f->name };
	if (!fn->size) {
		snprintf(r->err, r->errlen, "%s: the symbol of %s in %s has no size: its code"
			 " cannot be walked", r->spec, f->name, o->path);
		return -EINVAL;
	}
	for (i = 0; i <= f->nr_cold; i++) {
		if (code_of(o, i ? &f->cold[i - 1] : fn, &code->part[code->nr++])) {
			snprintf(r->err, r->errlen, "%s: the code of %s is not in %s's file",
				 r->spec, f->name, o->path);
			return -ENOENT;
		}
	}
	return 0;
}

/* @o's code and where its functions start, for funcbody.c to follow a jump out. */
struct code_env {
	Elf *elf;
	uint64_t *starts;	/* sorted */
	size_t nr;
};

static size_t env_code_at(void *arg, uint64_t vaddr, const uint8_t **p)
{
	return cp_elf_code(((struct code_env *)arg)->elf, vaddr, p);
}

static bool env_is_func(void *arg, uint64_t vaddr)
{
	const struct code_env *e = arg;
	size_t lo = 0, hi = e->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (e->starts[mid] == vaddr)
			return true;
		if (e->starts[mid] < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The function starts of the symbol tables and, in a Go program, of its own table. */
static int env_init(struct code_env *e, Elf *elf)
{
	struct cp_gopcln *t;
	uint64_t entry, *more;
	const char *name;
	char err[1];
	size_t i, n;

	*e = (struct code_env){ .elf = elf };
	if (cp_elf_func_starts(elf, &e->starts, &e->nr))
		return -ENOMEM;
	if (cp_gopcln_open(elf, &t, err, sizeof(err)))
		return 0;
	n = cp_gopcln_count(t);
	more = realloc(e->starts, (e->nr + n) * sizeof(*more));
	if (!more) {
		cp_gopcln_free(t);
		return -ENOMEM;
	}
	e->starts = more;
	for (i = 0; i < n; i++)
		if (!cp_gopcln_func(t, i, &entry, &name))
			e->starts[e->nr++] = entry;
	cp_gopcln_free(t);
	qsort(e->starts, e->nr, sizeof(*e->starts), cmp_u64);
	return 0;
}

/* FUNC%return: the exits of @fn, as locations. */
static int add_exits(struct res *r, const struct obj *o, const struct funcs *f,
		     const struct func *fn)
{
	struct cp_func_env env = { env_code_at, env_is_func, NULL };
	uint64_t at[CP_MAX_SITES + 1], off;
	struct cp_func_code code;
	unsigned int indirect;
	struct code_env ce;
	char msg[256];
	size_t first = r->nr;
	int n, i, ret;

	ret = func_code(r, o, f, fn, &code);
	if (ret)
		return ret;
	if (env_init(&ce, o->elf)) {
		snprintf(r->err, r->errlen, "%s: %s", r->spec, strerror(ENOMEM));
		return -ENOMEM;
	}
	env.arg = &ce;
	code.env = &env;
	n = cp_func_exits(&code, at, CP_MAX_SITES + 1, &indirect, msg, sizeof(msg));
	free(ce.starts);
	if (n < 0) {
		snprintf(r->err, r->errlen, "%s: %s", r->spec, msg);
		return n;
	}
	if (!n && indirect) {
		snprintf(r->err, r->errlen, "%s: %s leaves only by jumps through a pointer (%u),"
			 " which %%return cannot tell from jumps inside it", r->spec, f->name,
			 indirect);
		return -EINVAL;
	}
	if (!n) {
		snprintf(r->err, r->errlen, "%s: %s never returns (no ret, no jump out of it)",
			 r->spec, f->name);
		return -ENOENT;
	}
	if (n > CP_MAX_SITES) {
		snprintf(r->err, r->errlen, "%s: %s has more than %d exits (the module's limit"
			 " of sites per probe)", r->spec, f->name, CP_MAX_SITES);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		if (cp_elf_vaddr_to_off(o->elf, at[i], &off)) {
			snprintf(r->err, r->errlen, "%s: an exit of %s is not in %s's code",
				 r->spec, f->name, o->path);
			return -ENOENT;
		}
		add_loc(r, o->path, off, false);
	}
	for (; first < r->nr && first < r->max; first++)
		r->out[first].indirect = indirect;
	return 0;
}

/*
 * A Go function probed at its calls (cp_probe_resolve_point()). Under TCG
 * a stepped visit cost 17.8 us where the call of the same function cost
 * 3.2 (two vCPUs, bench/RESULTS.md 2026-11-28): the worker pool's
 * main.finish, a leaf called 20 000 times a second, made the program 18
 * % slower at its entry and 8 % at its call.
 *
 * The calls are all there is when nothing else refers to the function: its
 * address in no section of data (a function value, a method table, a
 * relocation's addend: 8 bytes anywhere but the runtime's table, which
 * holds offsets from Go 1.18 on and is skipped), and every place in the
 * code whose rel32 or rel8 could reach it a direct call, decoded. The code
 * is scanned byte by byte for such displacements first (a rip-relative
 * operand followed by an immediate of up to 4 bytes included), then each
 * function of the runtime's table holding one is decoded from its entry:
 * a window inside a call to the function is a call; inside any other
 * instruction (a jmp, a lea, an immediate that happens to match) it may
 * be a reference, and the entry is probed instead; across two
 * instructions it is no displacement at all. A place outside the table's
 * functions, or code the decoder does not know, keeps the entry too.
 */
struct go_ref {
	uint64_t at;	/* the rel32 window, or the rel8 branch's opcode */
	bool rel8;
	bool seen;	/* decoded: a call, or no displacement */
};

struct go_refs {
	struct go_ref v[MAX_REFS];
	size_t nr;
	bool full;
};

static void ref_add(struct go_refs *g, uint64_t at, bool rel8)
{
	if (g->nr == MAX_REFS)
		g->full = true;
	else
		g->v[g->nr++] = (struct go_ref){ .at = at, .rel8 = rel8 };
}

/* Whether the address @v is in a section of data of @elf (or it cannot tell). */
static bool addr_in_data(Elf *elf, uint64_t v)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	uint8_t key[8];
	const char *name;
	size_t shstrndx;
	Elf_Data *d;
	int i;

	for (i = 0; i < 8; i++)
		key[i] = (uint8_t)(v >> (8 * i));
	if (elf_getshdrstrndx(elf, &shstrndx))
		return true;
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh)
			return true;
		if (!(sh->sh_flags & SHF_ALLOC) || (sh->sh_flags & SHF_EXECINSTR) ||
		    sh->sh_type == SHT_NOBITS || !sh->sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, ".gopclntab"))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh->sh_size)
			return true;
		if (memmem(d->d_buf, d->d_size, key, sizeof(key)))
			return true;
	}
	return false;
}

/* The places of @elf's code whose displacement may reach @v, into @g: 0 or -1. */
static int code_refs(Elf *elf, uint64_t v, struct go_refs *g)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	const uint8_t *p;
	uint64_t base, i, n, past;
	Elf_Data *d;
	int32_t rel;

	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh)
			return -1;
		if (!(sh->sh_flags & SHF_EXECINSTR) || sh->sh_type != SHT_PROGBITS)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh->sh_size)
			return -1;
		p = d->d_buf;
		base = sh->sh_addr;
		n = d->d_size;
		for (i = 0; i < n; i++) {
			if (i + 4 <= n) {
				rel = (int32_t)((uint32_t)p[i] | (uint32_t)p[i + 1] << 8 |
						(uint32_t)p[i + 2] << 16 |
						(uint32_t)p[i + 3] << 24);
				/* the next instruction after 0, 1, 2 or 4 bytes of immediate */
				past = v - (base + i + 4 + (uint64_t)(int64_t)rel);
				if (past <= 2 || past == 4)
					ref_add(g, base + i, false);
			}
			if (i + 2 <= n && (p[i] == 0xeb || (p[i] & 0xf0) == 0x70 ||
					   (p[i] >= 0xe0 && p[i] <= 0xe3)) &&
			    base + i + 2 + (uint64_t)(int64_t)(int8_t)p[i + 1] == v)
				ref_add(g, base + i, true);
		}
	}
	return 0;
}

/*
 * Decodes [start, end) of @elf's code and judges the places of @g in it,
 * the calls of @v into @calls (room for @max, counted in *@nr): 0, or -1
 * where the entry must be probed.
 */
static int judge_refs(Elf *elf, uint64_t start, uint64_t end, uint64_t v, struct go_refs *g,
		      uint64_t *calls, size_t max, size_t *nr)
{
	const uint8_t *p;
	struct cp_insn in;
	uint64_t addr;
	size_t avail, k;

	avail = cp_elf_code(elf, start, &p);
	if (avail < end - start)
		return -1;
	for (addr = start; addr < end; addr += in.len) {
		if (cp_insn_decode(p + (addr - start), end - addr, &in))
			return -1;
		for (k = 0; k < g->nr; k++) {
			struct go_ref *r = &g->v[k];

			if (r->seen || r->at < addr || r->at >= addr + in.len)
				continue;
			if (r->rel8) {
				/* An opcode's byte only where an instruction starts. */
				if (r->at == addr &&
				    (in.kind == CP_INSN_JMP || in.kind == CP_INSN_JCC))
					return -1;
				r->seen = true;
				continue;
			}
			if (r->at + 4 > addr + in.len) {
				r->seen = true;	/* across two instructions */
				continue;
			}
			if (in.kind != CP_INSN_CALL || in.len != 5 || r->at != addr + 1 ||
			    addr + in.len + (uint64_t)in.rel != v)
				return -1;
			if (*nr == max)
				return -1;
			calls[(*nr)++] = addr;
			r->seen = true;
		}
	}
	return 0;
}

/*
 * The calls of the Go function @fn of @o as locations, where its entry is
 * stepped and they are all there is (above): how many, or 0 where its
 * entry is to be probed.
 */
static int go_calls(struct res *r, const struct obj *o, const struct func *fn)
{
	uint64_t calls[CP_MAX_SITES], entry, end;
	struct go_refs *g;
	struct cp_gopcln *t = NULL;
	size_t i, k, n, nr = 0, code;
	const uint8_t *p;
	GElf_Ehdr eh;
	char err[1];
	int ret = 0;

	code = cp_elf_code(o->elf, fn->vaddr, &p);
	if (!gelf_getehdr(o->elf, &eh) || eh.e_machine != EM_X86_64 || !code ||
	    cp_visit_emulated(p, code < CP_INSN_MAX ? code : CP_INSN_MAX) ||
	    addr_in_data(o->elf, fn->vaddr))
		return 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return 0;
	if (code_refs(o->elf, fn->vaddr, g) || g->full || !g->nr ||
	    cp_gopcln_open(o->elf, &t, err, sizeof(err)))
		goto out;
	n = cp_gopcln_count(t);
	for (i = 0; i < n; i++) {
		if (cp_gopcln_extent(t, i, &entry, &end))
			continue;
		for (k = 0; k < g->nr; k++)
			if (!g->v[k].seen && g->v[k].at >= entry && g->v[k].at < end)
				break;
		if (k < g->nr && judge_refs(o->elf, entry, end, fn->vaddr, g, calls,
					    CP_MAX_SITES, &nr))
			goto out;
	}
	for (k = 0; k < g->nr; k++)
		if (!g->v[k].seen)
			goto out;
	/* Into file offsets, in place: all of them or the entry. */
	for (i = 0; i < nr; i++)
		if (cp_elf_vaddr_to_off(o->elf, calls[i], &calls[i]))
			goto out;
	for (i = 0; i < nr; i++) {
		add_loc(r, o->path, calls[i], false);
		if (r->nr <= r->max)
			r->out[r->nr - 1].calls = true;
	}
	ret = (int)nr;
out:
	cp_gopcln_free(t);
	free(g);
	return ret;
}

/*
 * FUNC: its entry; in a Go program after the stack check, and the check's
 * jbe in the location's check (points.c and gohooks.c probe there).
 */
static int add_entry(struct res *r, const struct obj *o, const struct funcs *f,
		     const struct func *fn)
{
	struct cp_func_code code;
	uint64_t at = fn->vaddr, check = 0, off, check_off = 0;
	char msg[256];
	int ret;

	if (is_go(o->elf) && fn->size) {
		ret = func_code(r, o, f, fn, &code);
		if (ret)
			return ret;
		ret = cp_go_body_start(&code, &at, &check, msg, sizeof(msg));
		if (ret) {
			snprintf(r->err, r->errlen, "%s: %s", r->spec, msg);
			return ret;
		}
		if (r->calls && !check && at == fn->vaddr && go_calls(r, o, fn))
			return 0;
	}
	if (cp_elf_vaddr_to_off(o->elf, at, &off)) {
		snprintf(r->err, r->errlen, "%s: %s is not in %s's code", r->spec, f->name,
			 o->path);
		return -ENOENT;
	}
	if (check && cp_elf_vaddr_to_off(o->elf, check, &check_off))
		check_off = 0;
	add_loc(r, o->path, off, false);
	if (r->nr <= r->max)
		r->out[r->nr - 1].check = check_off;
	return 0;
}

/* The functions named @f->name in @o: .symtab, else .dynsym, else Go's table. */
static void lookup(const struct obj *o, struct funcs *f)
{
	scan_syms(o->elf, SHT_SYMTAB, f);
	if (!f->nr)
		scan_syms(o->elf, SHT_DYNSYM, f);
	if (!f->nr)
		scan_go(o->elf, f);
}

/*
 * The entries (or with %return the exits) of function @name in @o
 * (.symtab, else .dynsym, else a Go program's own table), as locations:
 * how many functions, or -errno with the reason in r->err.
 */
static int find_func(struct res *r, const struct obj *o, const char *name)
{
	struct funcs f = { .name = name, .len = strlen(name) };
	size_t i;
	int ret;

	lookup(o, &f);
	for (i = 0; i < f.nr; i++) {
		ret = r->returns ? add_exits(r, o, &f, &f.fn[i]) : add_entry(r, o, &f, &f.fn[i]);
		if (ret)
			return ret;
	}
	return f.nr;
}

/* FUNC: in the program, else in the first library that has it. */
static int resolve_func(struct res *r, struct objs *o, const char *name)
{
	struct obj *ob;
	size_t i;
	int ret;

	for (i = 0; (ob = obj_at(o, i)); i++) {
		ret = find_func(r, ob, name);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	snprintf(r->err, r->errlen, "%s: no function '%s' in %s or its libraries", r->spec, name,
		 o->v[0].path);
	return -ENOENT;
}

/* Whether DT_NEEDED name @needed is what LIB says: all of it, or up to ".so". */
static bool lib_matches(const char *needed, const char *lib)
{
	const char *base = strrchr(needed, '/');
	size_t len = strlen(lib);

	base = base ? base + 1 : needed;
	if (strncmp(base, lib, len))
		return false;
	base += len;
	if (!*base)
		return true;
	if (len >= 3 && !strcmp(lib + len - 3, ".so"))
		return *base == '.';
	return !strcmp(base, ".so") || !strncmp(base, ".so.", 4);
}

/* LIB:FUNC: LIB a path, or one of the libraries the program loads. */
static int resolve_lib_func(struct res *r, struct objs *o, const char *lib, const char *name)
{
	struct obj *ob = NULL;
	char msg[PATH_MAX + 64];
	int i;

	if (strchr(lib, '/')) {
		i = add_obj(o, lib, lib, msg, sizeof(msg));
		if (i < 0) {
			snprintf(r->err, r->errlen, "%s: %s", r->spec, msg);
			return i;
		}
		ob = &o->v[i];
	} else {
		for (i = 1; (ob = obj_at(o, i)) && !lib_matches(ob->needed, lib); i++)
			;
	}
	if (!ob) {
		snprintf(r->err, r->errlen, "%s: no library '%s' among those %s loads"
			 " (name one it opens with dlopen() by its path)", r->spec, lib,
			 o->v[0].path);
		return -ENOENT;
	}
	i = find_func(r, ob, name);
	if (i)
		return i < 0 ? i : 0;
	snprintf(r->err, r->errlen, "%s: no function '%s' in %s", r->spec, name, ob->path);
	return -ENOENT;
}

/*
 * FILE:LINE: in the program, else in the first library whose line table has
 * FILE. Without a line table in the program, that is the error.
 */
static int resolve_line(struct res *r, struct objs *o, const char *file, int line)
{
	char msg[1024], exe_msg[1024] = "";
	int ret, id, exe_ret = 0;
	struct cp_lines *l;
	struct obj *ob;
	size_t i;

	for (i = 0; (ob = obj_at(o, i)); i++) {
		ret = cp_lines_open(ob->path, &l, msg, sizeof(msg));
		if (ret) {
			if (!i) {
				snprintf(exe_msg, sizeof(exe_msg), "%s", msg);
				exe_ret = ret;
			}
			if (ret == -ENOMEM) {
				snprintf(r->err, r->errlen, "%s: %s", r->spec, msg);
				return ret;
			}
			continue;
		}
		if (!cp_lines_has_file(l, file)) {
			cp_lines_free(l);
			continue;
		}
		id = cp_lines_find(l, file, line, msg, sizeof(msg));
		if (id >= 0)
			add_loc(r, ob->path, cp_lines_first(l, id), false);
		else
			snprintf(r->err, r->errlen, "%s: %s", r->spec, msg);
		cp_lines_free(l);
		return id < 0 ? id : 0;
	}
	if (exe_ret) {
		snprintf(r->err, r->errlen, "%s: %s", r->spec, exe_msg);
		return exe_ret;
	}
	snprintf(r->err, r->errlen, "%s: no source file '%s' in %s or its libraries", r->spec,
		 file, o->v[0].path);
	return -ENOENT;
}

/* A USDT site. */
struct sdt_site {
	const char *provider, *name;
	uint64_t off;
	bool semaphore;
};

/* An address of a note's descriptor, in the file's byte order. */
static uint64_t note_addr(const unsigned char *p, size_t size, bool msb)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[msb ? size - 1 - i : i] << (8 * i);
	return v;
}

/*
 * Calls @fn for each USDT site of @elf, pc moved by as much as .stapsdt.base
 * was (prelink moves sections, never notes): 0, or what @fn returned.
 */
static int sdt_walk(Elf *elf, int (*fn)(const struct sdt_site *s, void *arg), void *arg)
{
	uint64_t base_addr = 0, pc, base, sem;
	size_t shstrndx, off, next, name_off, desc_off, asz, len;
	const unsigned char *desc;
	struct sdt_site site;
	bool have_base = false;
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	const char *name;
	Elf_Data *data;
	GElf_Nhdr nh;
	GElf_Ehdr eh;
	int ret;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	asz = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		if (name && !strcmp(name, SDT_BASE)) {
			base_addr = sh->sh_addr;
			have_base = true;
		}
	}
	for (scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || sh->sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		for (off = 0; data && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off));
		     off = next) {
			if (nh.n_type != SDT_NOTE_TYPE || nh.n_namesz != sizeof(SDT_OWNER) ||
			    memcmp((char *)data->d_buf + name_off, SDT_OWNER, sizeof(SDT_OWNER)) ||
			    nh.n_descsz < 3 * asz + 2)
				continue;
			desc = (const unsigned char *)data->d_buf + desc_off;
			pc = note_addr(desc, asz, eh.e_ident[EI_DATA] == ELFDATA2MSB);
			base = note_addr(desc + asz, asz, eh.e_ident[EI_DATA] == ELFDATA2MSB);
			sem = note_addr(desc + 2 * asz, asz, eh.e_ident[EI_DATA] == ELFDATA2MSB);
			/* provider, NUL, name, NUL (then the arguments), within the note */
			site.provider = (const char *)desc + 3 * asz;
			len = nh.n_descsz - 3 * asz;
			if (!memchr(site.provider, '\0', len))
				continue;
			site.name = site.provider + strlen(site.provider) + 1;
			if (!memchr(site.name, '\0', len - (site.name - site.provider)))
				continue;
			if (have_base && base)
				pc += base_addr - base;
			site.semaphore = sem != 0;
			if (cp_elf_vaddr_to_off(elf, pc, &site.off))
				continue;
			ret = fn(&site, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* What sdt_found() is looking for, in which file. */
struct sdt_want {
	struct res *r;
	const char *path, *provider, *name;
	size_t found;
};

static int sdt_found(const struct sdt_site *s, void *arg)
{
	struct sdt_want *w = arg;

	if (!strcmp(s->provider, w->provider) && !strcmp(s->name, w->name)) {
		add_loc(w->r, w->path, s->off, s->semaphore);
		w->found++;
	}
	return 0;
}

/* sdt:PROVIDER:NAME: every site, in the program and in all its libraries. */
static int resolve_sdt(struct res *r, struct objs *o, const char *provider, const char *name)
{
	struct sdt_want w = { .r = r, .provider = provider, .name = name };
	struct obj *ob;
	size_t i;

	for (i = 0; (ob = obj_at(o, i)); i++) {
		w.path = ob->path;
		sdt_walk(ob->elf, sdt_found, &w);
	}
	if (w.found)
		return 0;
	snprintf(r->err, r->errlen, "%s: no USDT probe %s:%s in %s or its libraries", r->spec,
		 provider, name, o->v[0].path);
	return -ENOENT;
}

/* The line number of a FILE:LINE spec, or 0 when @s is not all digits. */
static int line_number(const char *s)
{
	long n = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		n = n * 10 + (*s - '0');
		if (n > INT_MAX)
			return -ERANGE;
	}
	return n ? n : -ERANGE;
}

bool cp_probe_is_return(const char *spec)
{
	size_t len = strlen(spec), suffix = strlen(RETURN_SUFFIX);

	return len > suffix && !strcmp(spec + len - suffix, RETURN_SUFFIX);
}

static int resolve(const char *spec, const char *exe, struct cp_probe *out, size_t max,
		   char *err, size_t errlen, bool calls)
{
	struct res r = { spec, out, max, 0, err, errlen, cp_probe_is_return(spec), calls };
	char *copy, *colon, *second;
	struct objs o = { 0 };
	int ret, line;

	if (!*spec) {
		snprintf(err, errlen, "an empty progress point");
		return -EINVAL;
	}
	copy = strdup(spec);
	if (!copy) {
		snprintf(err, errlen, "%s: %s", spec, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (r.returns)
		copy[strlen(copy) - strlen(RETURN_SUFFIX)] = '\0';
	if (strchr(copy, '%')) {
		snprintf(err, errlen, "%s: the only suffix is %s, after a function", spec,
			 RETURN_SUFFIX);
		ret = -EINVAL;
		goto out;
	}
	ret = objs_init(&o, exe, &r);
	if (ret)
		goto out;

	colon = strrchr(copy, ':');
	if (r.returns && (!strncmp(copy, "sdt:", 4) ||
			  (colon && !strstr(copy, "::") && line_number(colon + 1)))) {
		snprintf(err, errlen, "%s: %s follows a function (FUNC or LIB:FUNC)", spec,
			 RETURN_SUFFIX);
		ret = -EINVAL;
	} else if (!strncmp(copy, "sdt:", 4)) {
		second = strchr(copy + 4, ':');
		if (!second || second == copy + 4 || !second[1] || strchr(second + 1, ':')) {
			snprintf(err, errlen, "%s: not sdt:PROVIDER:NAME", spec);
			ret = -EINVAL;
			goto out;
		}
		*second = '\0';
		ret = resolve_sdt(&r, &o, copy + 4, second + 1);
	} else if (!colon || strstr(copy, "::")) {
		/* A C++ name ("ns::f") has no LIB: it is a FUNC (its symbol is mangled). */
		ret = resolve_func(&r, &o, copy);
	} else if (colon == copy || !colon[1]) {
		snprintf(err, errlen, "%s: not LIB:FUNC nor FILE:LINE", spec);
		ret = -EINVAL;
	} else {
		*colon = '\0';
		line = line_number(colon + 1);
		if (line < 0) {
			snprintf(err, errlen, "%s: no such line number", spec);
			ret = -EINVAL;
		} else if (line) {
			ret = resolve_line(&r, &o, copy, line);
		} else {
			ret = resolve_lib_func(&r, &o, copy, colon + 1);
		}
	}
out:
	objs_free(&o);
	free(copy);
	if (ret)
		return ret;
	return r.nr > INT_MAX ? INT_MAX : (int)r.nr;
}

int cp_probe_resolve(const char *spec, const char *exe, struct cp_probe *out, size_t max,
		     char *err, size_t errlen)
{
	return resolve(spec, exe, out, max, err, errlen, false);
}

int cp_probe_resolve_point(const char *spec, const char *exe, struct cp_probe *out, size_t max,
			   char *err, size_t errlen)
{
	return resolve(spec, exe, out, max, err, errlen, true);
}

int cp_probe_call_sites(const char *exe, const char *caller, const char *callee,
			struct cp_probe *out, size_t max, char *err, size_t errlen)
{
	struct funcs fc = { .name = caller, .len = strlen(caller) };
	struct funcs fe = { .name = callee, .len = strlen(callee) };
	struct res r = { caller, out, max, 0, err, errlen, false, false };
	uint64_t at[CP_MAX_CALL_SITES], off;
	struct cp_func_code code;
	struct objs o = { 0 };
	const struct obj *ob;
	int ret, n, i;

	ret = objs_init(&o, exe, &r);
	if (ret)
		goto out;
	ob = obj_at(&o, 0);
	lookup(ob, &fc);
	lookup(ob, &fe);
	if (fc.nr != 1 || fe.nr != 1) {
		snprintf(err, errlen, "%s: %s function '%s' in %s", caller,
			 (fc.nr > 1 || fe.nr > 1) ? "more than one" : "no",
			 fc.nr != 1 ? caller : callee, exe);
		ret = fc.nr > 1 || fe.nr > 1 ? -EEXIST : -ENOENT;
		goto out;
	}
	ret = func_code(&r, ob, &fc, &fc.fn[0], &code);
	if (ret)
		goto out;
	n = cp_func_calls(&code, fe.fn[0].vaddr, at, CP_MAX_CALL_SITES, err, errlen);
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (!n || n > CP_MAX_CALL_SITES) {
		snprintf(err, errlen, "%s: %s calls of %s", caller, n ? "too many" : "no", callee);
		ret = n ? -E2BIG : -ENOENT;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (cp_elf_vaddr_to_off(ob->elf, at[i], &off)) {
			snprintf(err, errlen, "%s: a call of %s is not in %s's code", caller,
				 callee, exe);
			ret = -ENOENT;
			goto out;
		}
		add_loc(&r, ob->path, off, false);
	}
out:
	objs_free(&o);
	if (ret)
		return ret;
	return r.nr > INT_MAX ? INT_MAX : (int)r.nr;
}

/* What cp_sdt_list() was asked for. */
struct sdt_list {
	const char *provider;
	void (*fn)(const char *name, uint64_t offset, bool semaphore, void *arg);
	void *arg;
	int nr;
};

static int sdt_listed(const struct sdt_site *s, void *arg)
{
	struct sdt_list *l = arg;

	if (!strcmp(s->provider, l->provider)) {
		l->fn(s->name, s->off, s->semaphore, l->arg);
		l->nr++;
	}
	return 0;
}

int cp_sdt_list(const char *path, const char *provider,
		void (*fn)(const char *name, uint64_t offset, bool semaphore, void *arg),
		void *arg)
{
	struct sdt_list l = { provider, fn, arg, 0 };
	char err[1];
	Elf *elf;
	int ret;

	ret = cp_elf_open(path, &elf, err, sizeof(err));
	if (ret)
		return ret;
	sdt_walk(elf, sdt_listed, &l);
	elf_end(elf);
	return l.nr;
}

bool cp_elf_mentions(const char *path, const char *str)
{
	struct stat st;
	bool found;
	void *map;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		close(fd);
		return false;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	found = memmem(map, st.st_size, str, strlen(str)) != NULL;
	munmap(map, st.st_size);
	return found;
}
