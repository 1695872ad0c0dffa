/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a file offset lies in an ELF file's executable segments (see
 * elfcode.c).
 */

#ifndef _CAUSALPROF_ELFCODE_H
#define _CAUSALPROF_ELFCODE_H

#include <linux/types.h>

struct path;

/*
 * Whether file offset off of the ELF file at path lies in a loadable
 * segment its program headers mark executable, outside the file's ELF,
 * program and section headers: 0, -ERANGE when it does not, -ENOEXEC for
 * a file that is not an ELF file of this machine's byte order (or has
 * more than CP_ELF_MAX_PHDRS program headers), or the error reading it. Process context; reads the file with current's credentials.
 */
#define CP_ELF_MAX_PHDRS	256

int cp_elf_code_at(const struct path *path, u64 off);

#endif /* _CAUSALPROF_ELFCODE_H */
