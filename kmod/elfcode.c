// SPDX-License-Identifier: GPL-2.0
/*
 * Where an ELF file's code is: the PT_LOAD segments with PF_X in its
 * program headers, read from the file (not from a process that maps it: a
 * progress point may be placed before any target has mapped its file),
 * less the file's headers: a file whose first PT_LOAD is executable (linked
 * without -z separate-code) maps its ELF, program and maybe section
 * headers as code, and they are none.
 * Only the ELF header and the program headers are read, each bounded; 32-
 * and 64-bit files alike, of the machine's byte order.
 */

#include "elfcode.h"

#include <linux/elf.h>
#include <linux/err.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>

#ifdef CONFIG_CPU_BIG_ENDIAN
#define CP_ELFDATA	ELFDATA2MSB
#else
#define CP_ELFDATA	ELFDATA2LSB
#endif

static int read_exact(struct file *file, void *buf, size_t len, loff_t pos)
{
	ssize_t n = kernel_read(file, buf, len, &pos);

	if (n < 0)
		return n;
	return n == len ? 0 : -ENOEXEC;
}

/* Whether off lies in the n entries of size bytes from start. */
static bool in_table(u64 off, u64 start, u64 n, u64 size)
{
	return off >= start && off - start < n * size;
}

/* Whether program header i of phdrs covers off in an executable segment. */
static bool code_at(const void *phdrs, bool is64, unsigned int i, u64 off)
{
	u64 start, size;
	u32 type, flags;

	if (is64) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)phdrs + i;

		type = ph->p_type;
		flags = ph->p_flags;
		start = ph->p_offset;
		size = ph->p_filesz;
	} else {
		const struct elf32_phdr *ph = (const struct elf32_phdr *)phdrs + i;

		type = ph->p_type;
		flags = ph->p_flags;
		start = ph->p_offset;
		size = ph->p_filesz;
	}
	return type == PT_LOAD && (flags & PF_X) && off >= start && off - start < size;
}

int cp_elf_code_at(const struct path *path, u64 off)
{
	union {
		unsigned char ident[EI_NIDENT];
		struct elf32_hdr e32;
		struct elf64_hdr e64;
	} eh;
	unsigned int phnum, phentsize, shnum, shentsize, ehsize, i;
	struct file *file;
	void *phdrs;
	u64 phoff, shoff;
	bool is64;
	int ret;

	file = dentry_open(path, O_RDONLY | O_LARGEFILE, current_cred());
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = read_exact(file, &eh, sizeof(eh.e32), 0);
	if (ret)
		goto out;
	ret = -ENOEXEC;
	if (memcmp(eh.ident, ELFMAG, SELFMAG) || eh.ident[EI_DATA] != CP_ELFDATA)
		goto out;
	is64 = eh.ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		ret = read_exact(file, &eh, sizeof(eh.e64), 0);
		if (ret)
			goto out;
		ret = -ENOEXEC;
		ehsize = sizeof(eh.e64);
		phoff = eh.e64.e_phoff;
		phnum = eh.e64.e_phnum;
		phentsize = eh.e64.e_phentsize;
		shoff = eh.e64.e_shoff;
		shnum = eh.e64.e_shnum;
		shentsize = eh.e64.e_shentsize;
		if (phentsize != sizeof(struct elf64_phdr))
			goto out;
	} else if (eh.ident[EI_CLASS] == ELFCLASS32) {
		ehsize = sizeof(eh.e32);
		phoff = eh.e32.e_phoff;
		phnum = eh.e32.e_phnum;
		phentsize = eh.e32.e_phentsize;
		shoff = eh.e32.e_shoff;
		shnum = eh.e32.e_shnum;
		shentsize = eh.e32.e_shentsize;
		if (phentsize != sizeof(struct elf32_phdr))
			goto out;
	} else {
		goto out;
	}
	if (!phnum || phnum > CP_ELF_MAX_PHDRS || phoff > i_size_read(file_inode(file)))
		goto out;
	ret = -ERANGE;
	if (off < ehsize || in_table(off, phoff, phnum, phentsize) ||
	    in_table(off, shoff, shnum, shentsize))
		goto out;

	phdrs = kmalloc_array(phnum, phentsize, GFP_KERNEL);
	if (!phdrs) {
		ret = -ENOMEM;
		goto out;
	}
	ret = read_exact(file, phdrs, (size_t)phnum * phentsize, phoff);
	if (!ret) {
		ret = -ERANGE;
		for (i = 0; i < phnum && ret; i++)
			if (code_at(phdrs, is64, i, off))
				ret = 0;
	}
	kfree(phdrs);
out:
	fput(file);
	return ret;
}
