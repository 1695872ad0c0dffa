// SPDX-License-Identifier: GPL-2.0
/*
 * Addresses to function names, for cprof report: the kernel's from a copy of
 * /proc/kallsyms, user space's from the mapped ELF files through libdwfl.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "symbols.h"

/*
 * kallsyms has no sizes: a function ends where the next symbol starts, and is
 * no longer than this (beyond the last one, or in a gap between modules).
 */
#define MAX_KSYM_SIZE	(64 * 1024)

int cp_elf_build_id(const char *path, uint8_t *id, size_t size)
{
	const void *bits;
	ssize_t len;
	Elf *elf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
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

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL: the kernel */
};

struct cp_ksyms {
	char *text;		/* a copy, cut into the names */
	struct ksym *syms;
	size_t nr;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x < y ? -1 : x > y;	/* keep the file's order */
}

/* One line: "ffffffff81000000 T _stext" or "... t name\t[module]". */
static bool parse_ksym(char *line, struct ksym *sym)
{
	char *p = line, *end, *mod;
	char type;

	sym->addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	type = *p;
	if (!type || p[1] != ' ')
		return false;
	/* Text only: t, T and weak w, W. */
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return false;
	p += 2;
	end = p + strcspn(p, " \t");
	if (end == p)
		return false;
	sym->name = p;
	sym->module = NULL;
	if (*end) {
		*end = '\0';
		mod = end + 1 + strspn(end + 1, " \t");
		if (*mod == '[') {
			mod++;
			mod[strcspn(mod, "]")] = '\0';
			if (*mod)
				sym->module = mod;
		}
	}
	return sym->addr != 0;
}

struct cp_ksyms *cp_ksyms_new(const char *text, size_t len)
{
	struct cp_ksyms *ks;
	size_t cap = 0;
	char *line, *next;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	ks->text = malloc(len + 1);
	if (!ks->text)
		goto err_free;
	memcpy(ks->text, text, len);
	ks->text[len] = '\0';

	for (line = ks->text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (ks->nr == cap) {
			struct ksym *syms;

			cap = cap ? cap * 2 : 4096;
			syms = realloc(ks->syms, cap * sizeof(*syms));
			if (!syms)
				goto err_free;
			ks->syms = syms;
		}
		if (parse_ksym(line, &ks->syms[ks->nr]))
			ks->nr++;
	}
	if (!ks->nr)
		goto err_free;
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), ksym_cmp);
	return ks;

err_free:
	cp_ksyms_free(ks);
	return NULL;
}

const char *cp_ksyms_find(const struct cp_ksyms *ks, uint64_t addr, const char **module)
{
	size_t lo = 0, hi = ks->nr;
	const struct ksym *sym;

	/* The last symbol at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	sym = &ks->syms[lo - 1];
	if (addr - sym->addr >= MAX_KSYM_SIZE)
		return NULL;
	*module = sym->module;
	return sym->name;
}

void cp_ksyms_free(struct cp_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->text);
	free(ks);
}

/* One ELF file, opened on first use. */
struct ufile {
	char *path;
	bool opened;
	bool usable;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr bias;
	size_t expect_len;
	uint8_t expect[CP_BUILD_ID_MAX];
};

struct cp_usyms {
	void *files;		/* tsearch tree of struct ufile, by path */
};

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int ufile_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ufile *)a)->path, ((const struct ufile *)b)->path);
}

struct cp_usyms *cp_usyms_new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct cp_usyms));
}

static struct ufile *get_file(struct cp_usyms *us, const char *path)
{
	struct ufile key = { .path = (char *)path }, *f, **slot;

	slot = tfind(&key, &us->files, ufile_cmp);
	if (slot)
		return *slot;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (!f->path)
		goto err_free;
	slot = tsearch(f, &us->files, ufile_cmp);
	if (!slot)
		goto err_free;
	return f;

err_free:
	free(f->path);
	free(f);
	return NULL;
}

int cp_usyms_expect(struct cp_usyms *us, const char *path, const uint8_t *id, size_t len)
{
	struct ufile *f = get_file(us, path);

	if (!f)
		return -ENOMEM;
	if (len > sizeof(f->expect))
		return -EINVAL;
	memcpy(f->expect, id, len);
	f->expect_len = len;
	return 0;
}

static void open_file(struct ufile *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len;

	f->opened = true;
	f->dwfl = dwfl_begin(&offline_callbacks);
	if (!f->dwfl)
		return;
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_offline(f->dwfl, f->path, f->path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->mod) {
		fprintf(stderr, "cprof: warning: %s: no symbols: %s\n", f->path,
			dwfl_errmsg(-1));
		return;
	}
	f->elf = dwfl_module_getelf(f->mod, &f->bias);
	if (!f->elf) {
		fprintf(stderr, "cprof: warning: %s: no symbols: %s\n", f->path,
			dwfl_errmsg(-1));
		return;
	}
	if (f->expect_len) {
		len = dwfl_module_build_id(f->mod, &bits, &vaddr);
		if (len != (int)f->expect_len || memcmp(bits, f->expect, len)) {
			fprintf(stderr,
				"cprof: warning: %s has changed since the recording (its build id differs): its functions are not named\n",
				f->path);
			return;
		}
	}
	f->usable = true;
}

/* The address libdwfl knows the byte at file offset @off as. */
static bool offset_to_addr(const struct ufile *f, uint64_t off, GElf_Addr *addr)
{
	GElf_Phdr mem, *ph;
	size_t i, n;

	if (elf_getphdrnum(f->elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		ph = gelf_getphdr(f->elf, i, &mem);
		if (!ph || ph->p_type != PT_LOAD)
			continue;
		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			*addr = ph->p_vaddr + (off - ph->p_offset) + f->bias;
			return true;
		}
	}
	return false;
}

const char *cp_usyms_find(struct cp_usyms *us, const char *path, uint64_t off)
{
	struct ufile *f = get_file(us, path);
	GElf_Addr addr;

	if (!f)
		return NULL;
	if (!f->opened)
		open_file(f);
	if (!f->usable || !offset_to_addr(f, off, &addr))
		return NULL;
	return dwfl_module_addrname(f->mod, addr);
}

static void free_file(void *p)
{
	struct ufile *f = p;

	if (f->dwfl)
		dwfl_end(f->dwfl);
	free(f->path);
	free(f);
}

void cp_usyms_free(struct cp_usyms *us)
{
	if (!us)
		return;
	tdestroy(us->files, free_file);
	free(us);
}
