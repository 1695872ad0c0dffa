// SPDX-License-Identifier: GPL-2.0
/*
 * Opening ELF files, and their code addresses as file offsets through the
 * executable PT_LOAD program headers (for PIE, fixed-address and libraries).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
