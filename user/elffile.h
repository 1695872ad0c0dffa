/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CPROF_ELFFILE_H
#define CPROF_ELFFILE_H

/*
 * ELF files as lines.c and probes.c read them: opened with a message that
 * says why not, and virtual addresses moved to file offsets, as uprobes want.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* An executable PT_LOAD segment: [vaddr, end) is at file offset off. */
struct cp_elf_seg {
	uint64_t vaddr, end, off;
};

/*
 * @path, read through a private map (the descriptor is closed): 0, -ENOENT
 * and the like, or -ENOEXEC (not a regular file, not ELF).
 */
int cp_elf_open(const char *path, Elf **elf, char *err, size_t errlen);
/* The executable PT_LOAD segments of @elf (their file part): how many, at most @max. */
size_t cp_elf_exec_segs(Elf *elf, struct cp_elf_seg *segs, size_t max);
/* The segment of @segs that holds @vaddr, or NULL. */
const struct cp_elf_seg *cp_elf_seg_of(const struct cp_elf_seg *segs, size_t nr, uint64_t vaddr);
/* The file offset of code address @vaddr: 0, or -ENOENT outside executable segments. */
int cp_elf_vaddr_to_off(Elf *elf, uint64_t vaddr, uint64_t *off);
/* Whether @sym is a defined function (STT_FUNC or STT_GNU_IFUNC). */
bool cp_elf_sym_is_func(const GElf_Sym *sym);
/* The file's bytes of code from @vaddr to the end of its segment: how many (0: not code). */
size_t cp_elf_code(Elf *elf, uint64_t vaddr, const uint8_t **p);
/*
 * Where the functions of .symtab and .dynsym start (defined STT_FUNC and
 * STT_GNU_IFUNC), sorted, in a new array *@out (free()): 0 or -ENOMEM.
 */
int cp_elf_func_starts(Elf *elf, uint64_t **out, size_t *nr);

#endif /* CPROF_ELFFILE_H */
