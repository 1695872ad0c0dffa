// SPDX-License-Identifier: GPL-2.0
/*
 * Opening ELF files, and their code addresses as file offsets through the
 * executable PT_LOAD program headers (for PIE, fixed-address and libraries).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elffile.h"

/* More than any linker writes: text, and a few for odd layouts. */
#define MAX_SEGS	16

int cp_elf_open(const char *path, Elf **out, char *err, size_t errlen)
{
	struct stat st;
	Elf *elf;
	int fd, ret;

	/* O_NONBLOCK: a FIFO must not hang us; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -ENOEXEC;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	/* Everything is in the map: libelf needs the descriptor no more. */
	elf_cntl(elf, ELF_C_FDDONE);
	close(fd);
	*out = elf;
	return 0;
}

size_t cp_elf_exec_segs(Elf *elf, struct cp_elf_seg *segs, size_t max)
{
	GElf_Phdr mem, *ph;
	size_t i, n, nr = 0;

	if (elf_getphdrnum(elf, &n))
		return 0;
	for (i = 0; i < n && nr < max; i++) {
		ph = gelf_getphdr(elf, i, &mem);
		if (!ph || ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !ph->p_filesz)
			continue;
		segs[nr++] = (struct cp_elf_seg){
			.vaddr = ph->p_vaddr,
			.end = ph->p_vaddr + ph->p_filesz,
			.off = ph->p_offset,
		};
	}
	return nr;
}

const struct cp_elf_seg *cp_elf_seg_of(const struct cp_elf_seg *segs, size_t nr, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (vaddr >= segs[i].vaddr && vaddr < segs[i].end)
			return &segs[i];
	return NULL;
}

int cp_elf_vaddr_to_off(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	struct cp_elf_seg segs[MAX_SEGS];
	size_t nr = cp_elf_exec_segs(elf, segs, MAX_SEGS);
	const struct cp_elf_seg *s = cp_elf_seg_of(segs, nr, vaddr);

	if (!s)
		return -ENOENT;
	*off = vaddr - s->vaddr + s->off;
	return 0;
}

bool cp_elf_sym_is_func(const GElf_Sym *sym)
{
	return sym->st_shndx != SHN_UNDEF && (GELF_ST_TYPE(sym->st_info) == STT_FUNC ||
					      GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC);
}

size_t cp_elf_code(Elf *elf, uint64_t vaddr, const uint8_t **p)
{
	struct cp_elf_seg segs[MAX_SEGS];
	size_t nr = cp_elf_exec_segs(elf, segs, MAX_SEGS), len;
	const struct cp_elf_seg *s = cp_elf_seg_of(segs, nr, vaddr);
	const char *raw = elf_rawfile(elf, &len);
	uint64_t off;

	if (!s || !raw)
		return 0;
	off = vaddr - s->vaddr + s->off;
	if (off >= len)
		return 0;
	*p = (const uint8_t *)raw + off;
	return s->end - vaddr < len - off ? s->end - vaddr : len - off;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int cp_elf_func_starts(Elf *elf, uint64_t **out, size_t *nr)
{
	uint64_t *v = NULL, *bigger;
	size_t i, n, cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr mem, *sh;
	Elf_Data *data;
	GElf_Sym sym;

	*nr = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		sh = gelf_getshdr(scn, &mem);
		if (!sh || (sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM) ||
		    !sh->sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		n = sh->sh_size / sh->sh_entsize;
		for (i = 1; data && i < n; i++) {
			if (!gelf_getsym(data, i, &sym) || !cp_elf_sym_is_func(&sym))
				continue;
			if (*nr == cap) {
				cap = cap ? 2 * cap : 1024;
				bigger = realloc(v, cap * sizeof(*v));
				if (!bigger) {
					free(v);
					return -ENOMEM;
				}
				v = bigger;
			}
			v[(*nr)++] = sym.st_value;
		}
	}
	if (v)
		qsort(v, *nr, sizeof(*v), cmp_u64);
	*out = v;
	return 0;
}
